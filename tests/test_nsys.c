/* Nsight Systems exports of several schema versions (tests/fixtures/nsys,
 * built from the CREATE TABLE statements of real exports: see its README),
 * from 2020.4 (no schema version recorded) through 3.0.0 (2022.4) to 3.28.1:
 * kernels, stream priorities, NVTX ranges and GPUs load from each; columns a
 * version lacks read as unknown; files that are not nsys exports, or exports
 * without the columns smtop needs, are refused in one line; several files
 * open as one session. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "db/reader.h"
#include "db/summary.h"
#include "src/core/analysis.h"
#include "db/session/session.h"
#include "tests/support/db_support.h"

#define NSYS "tests/fixtures/nsys/"

struct version {
	char file[64];
	char schema[16];               /* EXPORT_SCHEMA_VERSION, "" if not recorded */
	char product[16];              /* EXPORT_PRODUCT_VERSION, "" if not recorded */
	int before_3;                  /* no metadata table: written before schema 3.0 */
	uint32_t pid;
	uint64_t kernels_hi, kernels_lo; /* on stream 13 and stream 7 */
	int has_priorities;            /* the export has TARGET_INFO_CUDA_STREAM */
	int has_mangled;               /* the kernel table has mangledName (2022 on) */
	uint32_t device;               /* the CUDA device the process ran on */
	size_t n_devices;              /* GPUs the export lists for it */
	char gpu[32];
	uint32_t sms, cc_major;
	uint32_t threads_per_sm;       /* warps of 32 an SM */
};

/* What make_fixtures.py put in each file (see README.md).  Arrays, not
 * pointers: Criterion hands parameters to the test process by value. */
static struct version versions[] = {
	{ NSYS "nsys-3.16.1.sqlite", "3.16.1", "2024.6.2.225", 0, 4101, 12, 18, 0, 1, 0, 1,
	  "NVIDIA H200", 132, 9, 2048 },
	{ NSYS "nsys-cuda_lab.sqlite", "", "", 0, 4202, 16, 20, 1, 1, 0, 1, "NVIDIA H200", 132, 9, 2048 },
	{ NSYS "nsys-3.28.1.sqlite", "3.28.1", "", 0, 4303, 20, 28, 1, 1, 0, 1, "NVIDIA H200", 132, 9, 2048 },
	/* GPUs from TARGET_INFO_CUDA_GPU, devices of contexts from the null
	 * stream table, no PROCESSES */
	{ NSYS "nsys-2020.4.3.7.sqlite", "", "", 1, 4404, 14, 22, 1, 0, 0, 1,
	  "NVIDIA A100-SXM4-40GB", 108, 8, 2048 },
	/* EXPORT_META_DATA; the process on CUDA device 1 of two GPUs */
	{ NSYS "nsys-2022.4.2.1.sqlite", "3.0.0", "2022.4.2.1", 0, 4505, 18, 24, 1, 1, 1, 2,
	  "NVIDIA H100 PCIe", 114, 9, 2048 },
	/* GPUs before cc 8.0 in the same schemas */
	{ NSYS "nsys-3.16.1-turing.sqlite", "3.16.1", "2024.6.2.225", 0, 4606, 10, 14, 0, 1, 0, 1,
	  "Tesla T4", 40, 7, 1024 },
	{ NSYS "nsys-3.28.1-volta.sqlite", "3.28.1", "", 0, 4707, 10, 14, 1, 1, 0, 1,
	  "Tesla V100-SXM2-16GB", 80, 7, 2048 },
	{ NSYS "nsys-2022.4.2.1-pascal.sqlite", "3.0.0", "2022.4.2.1", 0, 4808, 10, 14, 1, 1, 0, 1,
	  "Tesla P100-PCIE-16GB", 56, 6, 2048 },
};

ParameterizedTestParameters(nsys, loads)
{
	return cr_make_param_array(struct version, versions, sizeof versions / sizeof versions[0]);
}

struct seen {
	uint64_t hi, lo, other;
	int32_t prio_hi, prio_lo;
	uint32_t dev_hi, dev_kernels;
	uint32_t pid;
	int mangled;                   /* expect mangled names */
	int names_ok;
	struct db_reader *r;
	size_t nvtx, marks, in_domain;
	int have_forward, have_step_done;
};

static int on_kernel(void *ud, const struct smtop_kernel *k)
{
	struct seen *s = ud;
	const char *sn = db_reader_short_name(s->r, k->name);
	if (k->stream_id == 13)
		s->hi++;
	else if (k->stream_id == 7)
		s->lo++;
	else
		s->other++;
	s->pid = k->pid;
	s->dev_kernels = k->device_id;
	/* mangled names where the export has them (and nsys wrote one), the
	 * demangled one where not */
	if (!strcmp(sn, "gemm_kernel"))
		s->names_ok += !strcmp(k->name, s->mangled ? "_Z11gemm_kernelPKfS0_Pfiii"
			: "gemm_kernel(const float *, const float *, float *, int, int, int)");
	else if (!strcmp(sn, "vectorized_elementwise_kernel"))
		s->names_ok += !strncmp(k->name, "void at::native::vectorized_elementwise_kernel<4", 48);
	else if (!strcmp(sn, "bias_act_fwd"))
		s->names_ok += !strcmp(k->name, s->mangled ? "_Z14bias_act_fwdPfPKfi"
			: "bias_act_fwd(float *, const float *, int)");
	return 0;
}

static int on_stream(void *ud, const struct smtop_stream *st)
{
	struct seen *s = ud;
	if (st->stream_id == 13) {
		s->prio_hi = st->priority;
		s->dev_hi = st->device_id;
	}
	if (st->stream_id == 7)
		s->prio_lo = st->priority;
	return 0;
}

static int on_nvtx(void *ud, const struct smtop_nvtx *n)
{
	struct seen *s = ud;
	s->nvtx++;
	s->marks += n->end == 0;
	s->in_domain += n->domain && !strcmp(n->domain, "smtop-test");
	s->have_forward |= n->text && !strcmp(n->text, "forward") && n->end > n->start;
	s->have_step_done |= n->text && !strcmp(n->text, "step done") && n->end == 0;
	return 0;
}

ParameterizedTest(struct version *v, nsys, loads)
{
	struct db_reader *r;
	struct db_session_info info;
	struct seen s = { .prio_hi = 99, .prio_lo = 99, .mangled = v->has_mangled };
	char err[512];

	cr_assert_eq(db_reader_open(&r, v->file, err, sizeof err), 0, "%s", err);
	s.r = r;
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_eq(info.is_nsys, 1);
	if (v->schema[0])
		cr_assert_str_eq(info.nsys_schema, v->schema);
	else
		cr_assert_null(info.nsys_schema);
	if (v->product[0])
		cr_assert_str_eq(info.nsys_product, v->product);
	else
		cr_assert_null(info.nsys_product);
	cr_assert_eq(info.nsys_before_3, v->before_3, "%s: no metadata table", v->file);
	cr_assert_eq(info.kernels, v->kernels_hi + v->kernels_lo);
	cr_assert_eq(info.nvtx, 8, "%s: 6 ranges and 2 marks", v->file);
	cr_assert_eq(info.n_devices, v->n_devices, "%s: the GPUs listed", v->file);
	const struct smtop_device *d = NULL;
	for (size_t i = 0; i < info.n_devices; i++)
		if (info.devices[i].device_id == v->device)
			d = &info.devices[i];
	cr_assert_not_null(d, "%s: CUDA device %u listed", v->file, v->device);
	cr_assert_eq(info.devices[0].device_id, v->device,
		     "%s: the GPU that ran the kernels first (the view draws it)", v->file);
	cr_assert_str_eq(d->name, v->gpu);
	cr_assert_eq(d->sm_count, v->sms);
	cr_assert_eq(d->cc_major, v->cc_major);
	cr_assert_eq(d->max_threads_per_sm, v->threads_per_sm,
		     "%s: warps of 32 an SM", v->file);
	cr_assert_eq(info.n_processes, 1, "%s: one process", v->file);
	cr_assert_eq(info.processes[0].pid, v->pid);

	cr_assert_eq(db_reader_kernels(r, 0, INT64_MAX, on_kernel, &s), 0);
	cr_assert_eq(s.hi, v->kernels_hi);
	cr_assert_eq(s.lo, v->kernels_lo);
	cr_assert_eq(s.other, 0);
	cr_assert_eq(s.pid, v->pid, "pid from globalPid");
	cr_assert_eq(s.dev_kernels, v->device);
	cr_assert_eq(s.names_ok, (int)info.kernels, "%s: kernel names", v->file);

	cr_assert_eq(db_reader_streams(r, on_stream, &s), 0);
	if (v->has_priorities) {
		cr_assert_eq(info.streams, 3);
		cr_assert_eq(s.prio_hi, -5, "4294967291 read as int32");
		cr_assert_eq(s.prio_lo, 0);
		cr_assert_eq(s.dev_hi, v->device, "%s: the stream's device, through its context",
			     v->file);
	} else {
		cr_assert_eq(info.streams, 0);
		cr_assert_eq(s.prio_hi, 99, "no stream table: priorities stay unknown");
	}

	cr_assert_eq(db_reader_nvtx(r, 0, INT64_MAX, on_nvtx, &s), 0);
	cr_assert_eq(s.nvtx, 8);
	cr_assert_eq(s.marks, 2);
	cr_assert_eq(s.in_domain, 4, "%s: ranges of the named domain", v->file);
	cr_assert(s.have_forward, "text in the text column");
	cr_assert(s.have_step_done, "text through StringIds");
	db_reader_close(r);
}

/* The analysis runs on kernel intervals: the -5 stream waits behind the 0
 * stream, which makes inversions wherever the priorities are known. */
ParameterizedTestParameters(nsys, analyses)
{
	return cr_make_param_array(struct version, versions, sizeof versions / sizeof versions[0]);
}

ParameterizedTest(struct version *v, nsys, analyses)
{
	struct session s;
	struct analysis_totals t;
	char err[512];

	cr_assert_eq(session_open(&s, v->file, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_geq(session_poll(&s, err, sizeof err), 0, "%s", err);
	cr_assert(s.ended, "an export is complete");
	analysis_totals(s.analysis, &t);
	cr_assert_eq(t.kernels, v->kernels_hi + v->kernels_lo);
	size_t inversions = t.events[SMTOP_EV_INVERSION_RESIDENT] + t.events[SMTOP_EV_INVERSION_DISPATCH];
	if (v->has_priorities)
		cr_assert_gt(inversions, 0, "%s", v->file);
	else
		cr_assert_eq(inversions, 0, "%s: unknown priorities make no inversion", v->file);
	cr_assert_gt(t.events[SMTOP_EV_BLOCKING] + inversions, 0);
	cr_assert_eq(session_store_events(&s, s.path, err, sizeof err), 1, "exports are never written");
	session_close(&s);
}

static void expect_refusal(const char *path, const char *message)
{
	struct db_reader *r;
	char err[512] = "";
	cr_assert_eq(db_reader_open(&r, path, err, sizeof err), -1, "%s opened", path);
	cr_assert(strstr(err, message), "%s: got '%s'", path, err);
	cr_assert(strstr(err, path) == err, "names the file: %s", err);
	cr_assert_null(strchr(err, '\n'));
}

Test(nsys, nvprof_database_refused)
{
	expect_refusal(NSYS "nvprof-v9.sqlite", "an nvprof database, not an Nsight Systems export");
}

Test(nsys, export_without_kernels_refused)
{
	char path[256];
	sqlite3 *db;

	/* a lazy export of a run traced without CUDA has no kernel table */
	db_support_temp_path(path, sizeof path, "osrt-only.sqlite");
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
		"CREATE TABLE META_DATA_EXPORT(name TEXT NOT NULL, value TEXT);"
		"INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.16.1');",
		NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	expect_refusal(path, "Nsight Systems export without CUDA kernel records");
}

static int count(void *ud, const struct smtop_kernel *k)
{
	(void)k;
	(*(uint64_t *)ud)++;
	return 0;
}

/* Two processes' exports and an H200 session as one view: every kernel, each
 * stream with its own process, one GPU (the same device id). */
Test(nsys, several_files_one_session)
{
	const char *paths[] = { NSYS "nsys-3.16.1.sqlite", NSYS "nsys-3.28.1.sqlite",
				"tests/fixtures/head-of-line.smtop" };
	struct session s;
	char err[512];
	uint64_t n = 0;

	cr_assert_eq(session_open_many(&s, paths, 3, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_geq(session_poll(&s, err, sizeof err), 0, "%s", err);
	cr_assert_eq(s.info.kernels, 30 + 48 + 3);
	cr_assert_eq(s.info.blocks, 528, "the smtop session's blocks");
	cr_assert_eq(s.info.n_devices, 1);
	cr_assert_eq(s.info.is_nsys, 0, "not every file is an export");
	cr_assert_eq(session_kernels(&s, 0, INT64_MAX, count, &n), 0);
	cr_assert_eq(n, s.info.kernels);
	size_t pids_4101 = 0, pids_4303 = 0;
	for (size_t i = 0; i < analysis_stream_count(s.analysis); i++) {
		struct analysis_stream_summary st;
		cr_assert_eq(analysis_stream_summary(s.analysis, i, &st), 0);
		pids_4101 += st.pid == 4101 && st.kernels > 0;
		pids_4303 += st.pid == 4303 && st.kernels > 0;
	}
	cr_assert_eq(pids_4101, 2, "stream 7 and 13 of the first process");
	cr_assert_eq(pids_4303, 2, "stream 7 and 13 of the second, apart");
	cr_assert_eq(session_store_events(&s, s.path, err, sizeof err), 1, "several files: nothing written");
	session_close(&s);

	const char *bad[] = { NSYS "nsys-3.16.1.sqlite", NSYS "missing.sqlite" };
	cr_assert_eq(session_open_many(&s, bad, 2, NULL, err, sizeof err), -1);
	cr_assert(strstr(err, "missing.sqlite: no such session file"), "%s", err);
}

/* Before 2021.3 nsys kept CUPTI's device attributes per process in
 * TARGET_INFO_CUDA_GPU (its TARGET_INFO_GPU has no id or SM count): the GPU,
 * its limits and the process come from there, in the library too. */
Test(nsys, gpus_before_2021_3)
{
	struct db_reader *r;
	struct db_session_info info;
	struct db_summary_head h;
	char err[512];

	cr_assert_eq(db_reader_open(&r, NSYS "nsys-2020.4.3.7.sqlite", err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_eq(info.n_devices, 1);
	cr_assert_eq(info.devices[0].pid, 4404, "the process the device row belongs to");
	cr_assert_eq(info.devices[0].cc_minor, 0);
	cr_assert_eq(info.devices[0].max_blocks_per_sm, 32);
	cr_assert_eq(info.devices[0].max_regs_per_sm, 65536);
	cr_assert_eq(info.devices[0].max_smem_per_sm, 167936);
	cr_assert_eq(info.devices[0].warp_size, 32);
	cr_assert_eq(info.devices[0].global_memory_bytes, 42505207808ull);
	cr_assert_null(info.devices[0].uuid, "CUPTI's table has no UUID: unknown, not empty");
	db_reader_close(r);

	cr_assert_eq(db_summary_read(NSYS "nsys-2020.4.3.7.sqlite", &h, err, sizeof err), 0, "%s", err);
	cr_assert(h.is_nsys);
	cr_assert_str_eq(h.gpu, "NVIDIA A100-SXM4-40GB");
	cr_assert_eq(h.n_gpus, 1);
}

/* A copy of an export to change: path receives the copy's name. */
static sqlite3 *copy_fixture(const char *src, const char *name, char *path, size_t len)
{
	sqlite3 *in, *out;
	sqlite3_backup *b;

	db_support_temp_path(path, len, name);
	cr_assert_eq(sqlite3_open_v2(src, &in, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_open(path, &out), SQLITE_OK);
	b = sqlite3_backup_init(out, "main", in, "main");
	cr_assert_not_null(b);
	cr_assert_eq(sqlite3_backup_step(b, -1), SQLITE_DONE);
	sqlite3_backup_finish(b);
	sqlite3_close(in);
	return out;
}

static void exec_ok(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql, msg);
}

/* Columns a version lacks read as unknown: a stream table without priority
 * gives unknown priorities (not 0, which would be a real priority) and no
 * inversion; NVTX events without textId keep their text inline; a kernel
 * table without the optional columns still loads. */
Test(nsys, missing_columns_read_as_unknown)
{
	char path[256], err[512];
	sqlite3 *db = copy_fixture(NSYS "nsys-2020.4.3.7.sqlite", "older.sqlite", path, sizeof path);

	exec_ok(db, "ALTER TABLE TARGET_INFO_CUDA_STREAM DROP COLUMN priority;"
		"UPDATE NVTX_EVENTS SET text = (SELECT value FROM StringIds WHERE id = textId)"
		" WHERE textId IS NOT NULL;"
		"ALTER TABLE NVTX_EVENTS DROP COLUMN textId;"
		"ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN correlationId;"
		"ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN shortName;"
		"ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN launchType;"
		"ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN cacheConfig;");
	sqlite3_close(db);

	struct db_reader *r;
	struct seen s = { .prio_hi = 99, .prio_lo = 99 };
	cr_assert_eq(db_reader_open(&r, path, err, sizeof err), 0, "%s", err);
	s.r = r;
	cr_assert_eq(db_reader_kernels(r, 0, INT64_MAX, on_kernel, &s), 0, "%s", db_reader_error(r));
	cr_assert_eq(s.hi + s.lo, 36);
	cr_assert_eq(s.other, 0);
	cr_assert_eq(s.names_ok, 0, "no shortName: the demangled name stands in for it");
	cr_assert_str_eq(db_reader_short_name(r, "bias_act_fwd(float *, const float *, int)"),
			 "bias_act_fwd(float *, const float *, int)");
	cr_assert_eq(db_reader_streams(r, on_stream, &s), 0, "%s", db_reader_error(r));
	cr_assert_eq(s.prio_hi, SMTOP_PRIORITY_UNKNOWN);
	cr_assert_eq(s.prio_lo, SMTOP_PRIORITY_UNKNOWN);
	cr_assert_eq(db_reader_nvtx(r, 0, INT64_MAX, on_nvtx, &s), 0, "%s", db_reader_error(r));
	cr_assert_eq(s.nvtx, 8);
	cr_assert(s.have_step_done, "text inline where textId is gone");
	cr_assert_eq(s.in_domain, 4);
	db_reader_close(r);

	struct session ss;
	struct analysis_totals t;
	cr_assert_eq(session_open(&ss, path, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_geq(session_poll(&ss, err, sizeof err), 0, "%s", err);
	analysis_totals(ss.analysis, &t);
	cr_assert_eq(t.kernels, 36);
	cr_assert_eq(t.events[SMTOP_EV_INVERSION_RESIDENT] + t.events[SMTOP_EV_INVERSION_DISPATCH], 0,
		     "unknown priorities make no inversion");
	cr_assert_gt(t.events[SMTOP_EV_BLOCKING], 0, "the waits are still blocking");
	session_close(&ss);
}

/* An export without a column every reading needs is refused in one line
 * naming the file, the schema version (or that none is recorded) and what
 * is missing. */
Test(nsys, unreadable_schema_refused)
{
	char path[256];
	sqlite3 *db = copy_fixture(NSYS "nsys-2022.4.2.1.sqlite", "no-stream.sqlite", path, sizeof path);

	exec_ok(db, "UPDATE EXPORT_META_DATA SET value = '4.0.0' WHERE name = 'EXPORT_SCHEMA_VERSION';"
		"ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME COLUMN streamId TO cudaStreamId;");
	sqlite3_close(db);
	expect_refusal(path, "Nsight Systems export (schema 4.0.0) that smtop cannot read:"
		       " CUPTI_ACTIVITY_KIND_KERNEL has no streamId");

	db = copy_fixture(NSYS "nsys-2020.4.3.7.sqlite", "no-names.sqlite", path, sizeof path);
	exec_ok(db, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN demangledName;"
		"ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN shortName;");
	sqlite3_close(db);
	expect_refusal(path, "(schema version not recorded) that smtop cannot read:"
		       " CUPTI_ACTIVITY_KIND_KERNEL has no kernel name column");

	db = copy_fixture(NSYS "nsys-2020.4.3.7.sqlite", "strings.sqlite", path, sizeof path);
	exec_ok(db, "ALTER TABLE StringIds RENAME COLUMN value TO text;");
	sqlite3_close(db);
	expect_refusal(path, "StringIds has no id and value columns");

	db = copy_fixture(NSYS "nsys-2022.4.2.1.sqlite", "no-strings.sqlite", path, sizeof path);
	exec_ok(db, "DROP TABLE StringIds;");
	sqlite3_close(db);
	expect_refusal(path, "(schema 3.0.0) that smtop cannot read: no StringIds table");
}

/* Exports of 2020.4 and 2022.4 and a 3.28.1 one in one view: every kernel,
 * each process' streams with their priorities, inversions in each. */
Test(nsys, schema_eras_in_one_session)
{
	const char *paths[] = { NSYS "nsys-2020.4.3.7.sqlite", NSYS "nsys-2022.4.2.1.sqlite",
				NSYS "nsys-3.28.1.sqlite" };
	struct session s;
	struct analysis_totals t;
	char err[512];

	cr_assert_eq(session_open_many(&s, paths, 3, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_geq(session_poll(&s, err, sizeof err), 0, "%s", err);
	cr_assert_eq(s.info.kernels, 36 + 42 + 48);
	cr_assert_eq(s.info.nvtx, 24);
	analysis_totals(s.analysis, &t);
	cr_assert_eq(t.kernels, 36 + 42 + 48);
	size_t hi_known = 0;
	for (size_t i = 0; i < analysis_stream_count(s.analysis); i++) {
		struct analysis_stream_summary st;
		cr_assert_eq(analysis_stream_summary(s.analysis, i, &st), 0);
		if (st.kernels && st.priority == -5)
			hi_known += st.pid == 4404 || st.pid == 4505 || st.pid == 4303;
	}
	cr_assert_eq(hi_known, 3, "the -5 stream of each process keeps its priority");
	cr_assert_gt(t.events[SMTOP_EV_INVERSION_RESIDENT] + t.events[SMTOP_EV_INVERSION_DISPATCH], 0);
	session_close(&s);
}
