/* Nsight Systems exports of several schema versions (tests/fixtures/nsys,
 * built from the CREATE TABLE statements of real exports: see its README):
 * kernels, stream priorities, NVTX ranges and GPUs load from each; files
 * that are not nsys exports are refused in one line; several files open as
 * one session. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "db/reader.h"
#include "src/analysis.h"
#include "src/session.h"
#include "tests/support/db_support.h"

#define NSYS "tests/fixtures/nsys/"

struct version {
	char file[64];
	char schema[16];               /* EXPORT_SCHEMA_VERSION, "" if not recorded */
	uint32_t pid;
	uint64_t kernels_hi, kernels_lo; /* on stream 13 and stream 7 */
	int has_priorities;            /* the export has TARGET_INFO_CUDA_STREAM */
	char gpu[32];
	uint32_t sms;
};

/* What make_fixtures.py put in each file (see README.md).  Arrays, not
 * pointers: Criterion hands parameters to the test process by value. */
static struct version versions[] = {
	{ NSYS "nsys-3.16.1.sqlite", "3.16.1", 4101, 12, 18, 0, "NVIDIA H200", 132 },
	{ NSYS "nsys-cuda_lab.sqlite", "", 4202, 16, 20, 1, "NVIDIA H200", 132 },
	{ NSYS "nsys-3.28.1.sqlite", "3.28.1", 4303, 20, 28, 1, "NVIDIA H200", 132 },
};

ParameterizedTestParameters(nsys, loads)
{
	return cr_make_param_array(struct version, versions, sizeof versions / sizeof versions[0]);
}

struct seen {
	uint64_t hi, lo, other;
	int32_t prio_hi, prio_lo;
	uint32_t pid;
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
	/* mangled names where the export has them, the demangled one where not */
	if (!strcmp(sn, "gemm_kernel"))
		s->names_ok += !strcmp(k->name, "_Z11gemm_kernelPKfS0_Pfiii");
	else if (!strcmp(sn, "vectorized_elementwise_kernel"))
		s->names_ok += !strncmp(k->name, "void at::native::vectorized_elementwise_kernel<4", 48);
	else if (!strcmp(sn, "bias_act_fwd"))
		s->names_ok += !strcmp(k->name, "_Z14bias_act_fwdPfPKfi");
	return 0;
}

static int on_stream(void *ud, const struct smtop_stream *st)
{
	struct seen *s = ud;
	if (st->stream_id == 13)
		s->prio_hi = st->priority;
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
	struct seen s = { .prio_hi = 99, .prio_lo = 99 };
	char err[512];

	cr_assert_eq(db_reader_open(&r, v->file, err, sizeof err), 0, "%s", err);
	s.r = r;
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_eq(info.is_nsys, 1);
	if (v->schema[0])
		cr_assert_str_eq(info.nsys_schema, v->schema);
	else
		cr_assert_null(info.nsys_schema);
	cr_assert_eq(info.kernels, v->kernels_hi + v->kernels_lo);
	cr_assert_eq(info.nvtx, 8, "%s: 6 ranges and 2 marks", v->file);
	cr_assert_eq(info.n_devices, 1, "%s: the GPU the process used", v->file);
	cr_assert_eq(info.devices[0].device_id, 0);
	cr_assert_str_eq(info.devices[0].name, v->gpu);
	cr_assert_eq(info.devices[0].sm_count, v->sms);
	cr_assert_eq(info.devices[0].cc_major, 9);
	cr_assert_eq(info.devices[0].max_threads_per_sm, 2048, "64 warps of 32");

	cr_assert_eq(db_reader_kernels(r, 0, INT64_MAX, on_kernel, &s), 0);
	cr_assert_eq(s.hi, v->kernels_hi);
	cr_assert_eq(s.lo, v->kernels_lo);
	cr_assert_eq(s.other, 0);
	cr_assert_eq(s.pid, v->pid, "pid from globalPid");
	cr_assert_eq(s.names_ok, (int)info.kernels, "%s: kernel names", v->file);

	cr_assert_eq(db_reader_streams(r, on_stream, &s), 0);
	if (v->has_priorities) {
		cr_assert_eq(info.streams, 3);
		cr_assert_eq(s.prio_hi, -5, "4294967291 read as int32");
		cr_assert_eq(s.prio_lo, 0);
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
	cr_assert_eq(session_store_events(&s, err, sizeof err), 1, "exports are never written");
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
	cr_assert_eq(s.info.kernels, 30 + 48 + 5);
	cr_assert_eq(s.info.blocks, 1980, "the smtop session's blocks");
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
	cr_assert_eq(session_store_events(&s, err, sizeof err), 1, "several files: nothing written");
	session_close(&s);

	const char *bad[] = { NSYS "nsys-3.16.1.sqlite", NSYS "missing.sqlite" };
	cr_assert_eq(session_open_many(&s, bad, 2, NULL, err, sizeof err), -1);
	cr_assert(strstr(err, "missing.sqlite: no such session file"), "%s", err);
}
