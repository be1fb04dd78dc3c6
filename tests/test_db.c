#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/blockcodec.h"
#include "db/checkpoint.h"
#include "db/events.h"
#include "db/names.h"
#include "src/core/names.h"
#include "db/reader.h"
#include "db/schema.h"
#include "db/writer.h"
#include "tests/support/db_support.h"

#define T0 1764480000000000000ull
#define MANGLED "_Z10conv2d_fwdILi3EEvPKfPfi"

struct collect {
	size_t n;
	struct smtop_kernel k[64];
	struct smtop_stream s[16];
	struct smtop_nvtx v[16];
	struct smtop_request q[16];
	uint64_t blocks, first_block_start;
	uint32_t block_pid;
};

static int on_kernel(void *ud, const struct smtop_kernel *k)
{
	struct collect *c = ud;

	if (c->n < 64)
		c->k[c->n] = *k;
	c->n++;
	return 0;
}

static int on_stream(void *ud, const struct smtop_stream *s)
{
	struct collect *c = ud;

	c->s[c->n++] = *s;
	return 0;
}

static int on_nvtx(void *ud, const struct smtop_nvtx *v)
{
	struct collect *c = ud;

	c->v[c->n++] = *v;
	return 0;
}

static int on_request(void *ud, const struct smtop_request *q)
{
	struct collect *c = ud;

	c->q[c->n++] = *q;
	return 0;
}

static int on_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct collect *c = ud;

	(void)ctx;
	if (!c->blocks || b->start < c->first_block_start)
		c->first_block_start = b->start;
	c->blocks++;
	c->block_pid = pid;
	return 0;
}

static struct db_reader *open_reader(const char *path)
{
	struct db_reader *r;
	char err[512];

	cr_assert_eq(db_reader_open(&r, path, err, sizeof err), 0, "%s", err);
	return r;
}

/* One process's worth of every record kind; blocks start 60 us before the kernels. */
static void write_everything(struct db_writer *w, uint32_t pid)
{
	struct smtop_block b[264];
	struct smtop_record recs[16];
	size_t n = 0;

	for (int i = 0; i < 264; i++)
		b[i] = (struct smtop_block){ .grid_id = 10 + (uint64_t)(i / 132),
					     .start = T0 - 60000 + (uint64_t)i * 1000,
					     .end = T0 - 60000 + (uint64_t)i * 1000 + 5000,
					     .block = (uint32_t)(i % 132), .sm = (uint16_t)(i % 132) };
	recs[n++] = db_support_device(pid, 0, 132);
	recs[n++] = (struct smtop_record){ .kind = SMTOP_REC_CONTEXT,
		.u.context = { .pid = pid, .device_id = 0, .context_id = 1, .null_stream_id = 7 } };
	recs[n++] = db_support_stream(pid, 13, -5);
	recs[n++] = db_support_stream(pid, 14, 0);
	recs[n++] = db_support_kernel(pid, 13, T0, T0 + 132000, 10, MANGLED);
	recs[n++] = db_support_kernel(pid, 14, T0 + 132000, T0 + 264000, 11, MANGLED);
	recs[n++] = db_support_kernel(pid, 14, T0 + 300000, T0 + 400000, 12, "plain_c_kernel");
	recs[n++] = (struct smtop_record){ .kind = SMTOP_REC_MEMCPY,
		.u.memcpy = { .start = T0 - 9000, .end = T0 - 1000, .bytes = 4096, .pid = pid,
			      .context_id = 1, .stream_id = 13, .copy_kind = 1 } };
	recs[n++] = (struct smtop_record){ .kind = SMTOP_REC_MEMSET,
		.u.memset = { .start = T0 - 500, .end = T0 - 100, .bytes = 64, .pid = pid,
			      .context_id = 1, .stream_id = 13 } };
	recs[n++] = db_support_api(pid, 77, T0 - 20000, T0 - 15000, 0, "cudaLaunchKernel");
	recs[n++] = db_support_api(pid, 77, T0 - 14000, T0 - 13000, 1, "cuLaunchKernel");
	recs[n++] = (struct smtop_record){ .kind = SMTOP_REC_SYNC,
		.u.sync = { .start = T0, .end = T0 + 400000, .pid = pid, .context_id = 1,
			    .stream_id = 13, .type = 3 } };
	recs[n++] = db_support_nvtx(pid, T0 - 1000, T0 + 500000, "forward", "torch");
	recs[n++] = db_support_nvtx(pid, T0 + 10, 0, "mark", NULL);
	recs[n++] = db_support_request(pid, 13, T0 - 30000, T0 + 140000, "req-1");
	recs[n++] = db_support_blocks(pid, 1, b, 264);
	cr_assert_eq(db_writer_write(w, recs, n), 0, "%s", db_writer_error(w));
}

Test(db, round_trip_of_every_record_kind)
{
	char path[256], offset[32];
	struct db_writer *w;
	struct db_reader *r;
	struct db_session_info info;
	struct collect c = { 0 };

	db_support_temp_path(path, sizeof path, "s.smtop");
	w = db_support_writer(path, 4242, 1);
	write_everything(w, 4242);
	snprintf(offset, sizeof offset, "%d", 61000);
	cr_assert_eq(db_writer_set_meta(w, "clock_offset_ns", offset), 0);
	cr_assert_eq(db_writer_add_drops(w, "ring", 5), 0);
	cr_assert_eq(db_writer_add_drops(w, "blocks", 2), 0);
	cr_assert_eq(db_writer_set_process_status(w, "exited", NULL), 0);
	cr_assert_eq(db_writer_finish_session(w, 1, NULL), 0);
	db_writer_close(w);

	r = open_reader(path);
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_eq(info.is_nsys, 0);
	cr_assert_eq(info.schema_version, SCHEMA_VERSION);
	cr_assert_str_eq(info.command, "smtop record test-workload");
	cr_assert_eq(info.kernels, 3);
	cr_assert_eq(info.blocks, 264);
	cr_assert_eq(info.memcpys, 1);
	cr_assert_eq(info.memsets, 1);
	cr_assert_eq(info.api_calls, 2);
	cr_assert_eq(info.nvtx, 2);
	cr_assert_eq(info.streams, 2);
	cr_assert_eq(info.requests, 1);
	cr_assert_eq(info.drops_ring, 5);
	cr_assert_eq(info.drops_blocks, 2);
	cr_assert_eq(info.ended, 1);
	cr_assert_eq(info.ended_clean, 1);
	cr_assert_eq(info.clock_known, 1);
	cr_assert_eq(info.clock.offset_ns, 61000);
	cr_assert_eq(info.n_devices, 1);
	cr_assert_eq(info.devices[0].sm_count, 132);
	cr_assert_str_eq(info.devices[0].name, "NVIDIA H200");
	cr_assert_eq(info.n_processes, 1);
	cr_assert_eq(info.processes[0].pid, 4242);
	cr_assert_str_eq(info.processes[0].status, "exited");
	cr_assert_str_eq(info.processes[0].command, "test-workload --flag");
	cr_assert_eq(info.t_first, T0 - 60000 + 61000 < T0 ? T0 - 60000 + 61000 : T0);
	cr_assert_eq(info.t_last, T0 + 400000);

	cr_assert_eq(db_reader_kernels(r, 0, UINT64_MAX / 2, on_kernel, &c), 0);
	cr_assert_eq(c.n, 3);
	cr_assert_eq(c.k[0].pid, 4242);
	cr_assert_eq(c.k[0].stream_id, 13);
	cr_assert_eq(c.k[0].grid_id, 10);
	cr_assert_eq(c.k[0].queued, T0 - 100);
	cr_assert_eq(c.k[0].grid[0], 132);
	cr_assert_eq(c.k[0].block[0], 256);
	cr_assert_eq(c.k[0].dynamic_smem, 4096);
	cr_assert_str_eq(c.k[0].name, MANGLED);
	cr_assert_str_eq(db_reader_short_name(r, c.k[0].name), "conv2d_fwd");
	cr_assert_str_eq(db_reader_short_name(r, c.k[2].name), "plain_c_kernel");

	c.n = 0;
	cr_assert_eq(db_reader_streams(r, on_stream, &c), 0);
	cr_assert_eq(c.n, 2);
	cr_assert_eq(c.s[0].priority, -5);
	cr_assert_eq(c.s[1].priority, 0);

	c.n = 0;
	cr_assert_eq(db_reader_nvtx(r, 0, UINT64_MAX / 2, on_nvtx, &c), 0);
	cr_assert_eq(c.n, 2);
	cr_assert_str_eq(c.v[0].text, "forward");
	cr_assert_str_eq(c.v[0].domain, "torch");
	cr_assert_eq(c.v[0].tid, 4243);
	cr_assert_str_eq(c.v[1].text, "mark");
	cr_assert_null(c.v[1].domain);
	cr_assert_eq(c.v[1].end, 0);

	c.n = 0;
	cr_assert_eq(db_reader_requests(r, on_request, &c), 0);
	cr_assert_eq(c.n, 1);
	cr_assert_str_eq(c.q[0].label, "req-1");

	cr_assert_eq(db_reader_blocks(r, 0, UINT64_MAX / 2, on_block, &c), 0);
	cr_assert_eq(c.blocks, 264);
	cr_assert_eq(c.block_pid, 4242);
	cr_assert_eq(c.first_block_start, T0 - 60000 + 61000, "blocks moved onto CUPTI time");
	db_reader_close(r);
}

struct graph_rows {
	struct smtop_graph_dep d[8];
	struct smtop_memset m[4];
	struct smtop_api a[4];
	size_t n_d, n_m, n_a;
};

static int on_api(void *ud, const struct smtop_api *c)
{
	struct graph_rows *g = ud;

	if (g->n_a < 4)
		g->a[g->n_a] = *c;
	g->n_a++;
	return 0;
}

static int on_graph_dep(void *ud, const struct smtop_graph_dep *d)
{
	struct graph_rows *g = ud;

	if (g->n_d < 8)
		g->d[g->n_d] = *d;
	g->n_d++;
	return 0;
}

static int on_memset(void *ud, const struct smtop_memset *m)
{
	struct graph_rows *g = ud;

	if (g->n_m < 4)
		g->m[g->n_m] = *m;
	g->n_m++;
	return 0;
}

/* A graph's edges and the node ids of its launches' records come back as
 * they were written; a plain kernel's node stays 0 (stored as NULL). */
Test(db, graph_edges_round_trip)
{
	char path[256];
	struct db_writer *w;
	struct db_reader *r;
	struct db_session_info info;
	struct collect c = { 0 };
	struct graph_rows g = { 0 };
	int64_t mark = 0, memset_mark = 0, api_mark = 0;
	struct smtop_record recs[7];

	db_support_temp_path(path, sizeof path, "g.smtop");
	w = db_support_writer(path, 4242, 1);
	recs[0] = db_support_kernel(4242, 13, T0, T0 + 1000, 10, MANGLED);
	recs[0].u.kernel.is_graph = 1;
	recs[0].u.kernel.graph_node_id = 0x7f12345678ull;
	recs[1] = db_support_kernel(4242, 13, T0 + 2000, T0 + 3000, 11, MANGLED);
	recs[2] = (struct smtop_record){ .kind = SMTOP_REC_MEMSET,
		.u.memset = { .start = T0 - 500, .end = T0 - 100, .bytes = 64, .pid = 4242,
			      .context_id = 1, .stream_id = 13, .graph_node_id = 5 } };
	recs[3] = (struct smtop_record){ .kind = SMTOP_REC_GRAPH_DEP,
		.u.graph_dep = { .node_id = 0x7f12345678ull, .depends_on = 5, .pid = 4242,
				 .node_type = 0, .dep_type = 2 } };
	recs[4] = (struct smtop_record){ .kind = SMTOP_REC_GRAPH_DEP,
		.u.graph_dep = { .node_id = 5, .depends_on = 0, .pid = 4242, .node_type = 2,
				 .dep_type = -1 } };
	recs[5] = db_support_api(4242, 77, T0 - 9000, T0 - 8000, 0, "cudaGraphLaunch");
	recs[5].u.api.stream_id = 13;
	recs[5].u.api.has_stream = 1;
	recs[6] = db_support_api(4242, 77, T0 - 7000, T0 - 6000, 0, "cudaLaunchKernel");
	cr_assert_eq(db_writer_write(w, recs, 7), 0, "%s", db_writer_error(w));
	db_writer_close(w);

	r = open_reader(path);
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_eq(info.syncs, 2, "the edges count with the dependency records");
	cr_assert_eq(db_reader_new_graph_deps(r, &mark, on_graph_dep, &g), 0);
	cr_assert_eq(g.n_d, 2);
	cr_assert_eq(g.d[0].pid, 4242);
	cr_assert_eq(g.d[0].node_id, 0x7f12345678ull);
	cr_assert_eq(g.d[0].depends_on, 5);
	cr_assert_eq(g.d[0].node_type, 0);
	cr_assert_eq(g.d[0].dep_type, 2);
	cr_assert_eq(g.d[1].depends_on, 0);
	cr_assert_eq(g.d[1].dep_type, -1);
	g.n_d = 0;
	cr_assert_eq(db_reader_new_graph_deps(r, &mark, on_graph_dep, &g), 0);
	cr_assert_eq(g.n_d, 0, "nothing new past the watermark");
	cr_assert_eq(db_reader_new_memsets(r, &memset_mark, on_memset, &g), 0);
	cr_assert_eq(g.n_m, 1);
	cr_assert_eq(g.m[0].graph_node_id, 5);
	cr_assert_eq(db_reader_kernels(r, 0, UINT64_MAX / 2, on_kernel, &c), 0);
	cr_assert_eq(c.n, 2);
	cr_assert_eq(c.k[0].graph_node_id, 0x7f12345678ull);
	cr_assert_eq(c.k[0].is_graph, 1);
	cr_assert_eq(c.k[1].graph_node_id, 0);
	cr_assert_eq(db_reader_new_apis(r, &api_mark, on_api, &g), 0);
	cr_assert_eq(g.n_a, 2);
	cr_assert_eq(g.a[0].has_stream, 1, "a graph launch keeps its stream");
	cr_assert_eq(g.a[0].stream_id, 13);
	cr_assert_eq(g.a[1].has_stream, 0);
	db_reader_close(r);
}

Test(db, nsys_style_sql_and_interning)
{
	char path[256];
	struct db_writer *w;
	sqlite3 *db;
	sqlite3_stmt *st;
	int rows = 0;

	db_support_temp_path(path, sizeof path, "s.smtop");
	w = db_support_writer(path, 100, 1);
	write_everything(w, 100);
	write_everything(w, 100);
	db_writer_close(w);
	cr_assert_eq(db_support_sql_int(path, "SELECT count(*) FROM StringIds WHERE value='" MANGLED "'"), 1);
	cr_assert_eq(db_support_sql_int(path, "SELECT count(*) FROM StringIds WHERE value='cudaLaunchKernel'"), 1);
	cr_assert_eq(db_support_sql_int(path, "SELECT priority FROM TARGET_INFO_CUDA_STREAM WHERE streamId=13"),
		     4294967291ll);
	cr_assert_eq(db_support_sql_int(path, "SELECT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1"),
		     100ll << 24);
	cr_assert_eq(db_support_sql_int(path, "SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1"),
		     (100ll << 24) | 77);
	cr_assert_eq(db_support_sql_int(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass=1"), 2);
	cr_assert_eq(db_support_sql_int(path, "PRAGMA application_id"), SCHEMA_APPLICATION_ID);

	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT s.value, k.end - k.start FROM"
		" CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName ORDER BY k.start",
		-1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		cr_assert(strcmp(name, "conv2d_fwd") == 0 || strcmp(name, "plain_c_kernel") == 0, "%s", name);
		cr_assert_gt(sqlite3_column_int64(st, 1), 0);
		rows++;
	}
	cr_assert_eq(rows, 6);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

Test(db, short_names)
{
	char *d = db_names_demangle(MANGLED), *s;

	cr_assert_str_eq(d, "void conv2d_fwd<3>(float const*, float*, int)");
	s = names_short(d);
	cr_assert_str_eq(s, "conv2d_fwd");
	free(s);
	free(d);
	s = names_short("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>,"
			   " std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)");
	cr_assert_str_eq(s, "vectorized_elementwise_kernel");
	free(s);
	s = names_short("void (anonymous namespace)::softmax_warp_forward<float, 8>(float*, float const*)");
	cr_assert_str_eq(s, "softmax_warp_forward");
	free(s);
	d = db_names_demangle("not_mangled");
	cr_assert_str_eq(d, "not_mangled");
	free(d);
}

/* One shortener for the screen (mangled names, as the model gets them) and
 * the report and export (the session's demangled names): they used to
 * disagree on foo::bar<int>::baz(), "bar" on the screen and "baz" in the
 * report. */
Test(db, one_short_name_for_both_forms)
{
	static const char *const mangled[] = {
		"_ZN3foo3barIiE3bazEv",                 /* foo::bar<int>::baz() */
		"_Z10conv2d_fwdILi3EEvPKfPfi",          /* conv2d_fwd<3>(...) */
		"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
		"_ZN5cudnn19engines_precompiled16nchwToNhwcKernelIfffLb0ELb1EL21cudnnKernelDataType_t2EEEvNS0_18nchw2nhwc_params_tIT1_EEPKT_PT0_",
		"_ZN12_GLOBAL__N_120softmax_warp_forwardIfLi8EEEvPfPKf",
		"_ZNK3foo3getEv",                       /* foo::get() const */
	};

	for (size_t i = 0; i < sizeof mangled / sizeof mangled[0]; i++) {
		char *d = db_names_demangle(mangled[i]);
		char *from_mangled = names_short(mangled[i]), *from_demangled = names_short(d);

		cr_assert_str_neq(d, mangled[i], "libstdc++ demangles %s", mangled[i]);
		cr_expect_str_eq(from_mangled, from_demangled, "%s: screen %s, report %s", d, from_mangled,
				 from_demangled);
		free(from_mangled);
		free(from_demangled);
		free(d);
	}
}

Test(db, short_name_of_a_member_of_a_template)
{
	char *s = names_short("_ZN3foo3barIiE3bazEv");

	cr_assert_str_eq(s, "baz");
	free(s);
	s = names_short("_Zbroken");
	cr_assert_str_eq(s, "_Zbroken", "unreadable names come back whole");
	free(s);
	s = names_short(NULL);
	cr_assert_str_eq(s, "?");
	free(s);
}

Test(db, time_windows)
{
	char path[256];
	struct db_writer *w;
	struct db_reader *r;
	struct collect c = { 0 };

	db_support_temp_path(path, sizeof path, "s.smtop");
	w = db_support_writer(path, 1, 1);
	write_everything(w, 1);
	db_writer_set_meta(w, "clock_offset_ns", "0");
	db_writer_close(w);
	r = open_reader(path);
	/* kernels: [T0, T0+132us), [T0+132us, T0+264us), [T0+300us, T0+400us) */
	cr_assert_eq(db_reader_kernels(r, T0 + 100000, T0 + 140000, on_kernel, &c), 0);
	cr_assert_eq(c.n, 2);
	c.n = 0;
	cr_assert_eq(db_reader_kernels(r, T0 + 264000, T0 + 300000, on_kernel, &c), 0);
	cr_assert_eq(c.n, 0);
	cr_assert_eq(db_reader_kernels(r, T0 + 350000, T0 + 350001, on_kernel, &c), 0);
	cr_assert_eq(c.n, 1);
	/* blocks i start at T0-60us + i us, last 5 us: a 10 us window sees 14 of them */
	cr_assert_eq(db_reader_blocks(r, T0, T0 + 10000, on_block, &c), 0);
	cr_assert_eq(c.blocks, 14);
	c.blocks = 0;
	cr_assert_eq(db_reader_blocks(r, T0 + 1000000, T0 + 2000000, on_block, &c), 0);
	cr_assert_eq(c.blocks, 0);
	/* the widest window holds every block (its end is past INT64_MAX) */
	cr_assert_eq(db_reader_blocks(r, 0, UINT64_MAX, on_block, &c), 0);
	cr_assert_eq(c.blocks, 264);
	c.n = 0;
	cr_assert_eq(db_reader_nvtx(r, T0 + 20, T0 + 30, on_nvtx, &c), 0);
	cr_assert_eq(c.n, 1, "the range, not the mark");
	db_reader_close(r);
}

Test(db, new_since_watermark_while_writing)
{
	char path[256];
	struct db_writer *w;
	struct db_reader *r;
	struct collect c = { 0 };
	int64_t kwm = 0, bwm = 0;

	db_support_temp_path(path, sizeof path, "s.smtop");
	w = db_support_writer(path, 1, 1);
	r = open_reader(path);
	cr_assert_eq(db_reader_new_kernels(r, &kwm, on_kernel, &c), 0);
	cr_assert_eq(c.n, 0);
	write_everything(w, 1);
	cr_assert_eq(db_reader_new_kernels(r, &kwm, on_kernel, &c), 0);
	cr_assert_eq(c.n, 3);
	cr_assert_eq(db_reader_new_blocks(r, &bwm, on_block, &c), 0);
	cr_assert_eq(c.blocks, 264);
	write_everything(w, 1);
	c.n = 0;
	c.blocks = 0;
	cr_assert_eq(db_reader_new_kernels(r, &kwm, on_kernel, &c), 0);
	cr_assert_eq(c.n, 3);
	cr_assert_eq(db_reader_new_blocks(r, &bwm, on_block, &c), 0);
	cr_assert_eq(c.blocks, 264);
	c.n = 0;
	cr_assert_eq(db_reader_new_kernels(r, &kwm, on_kernel, &c), 0);
	cr_assert_eq(c.n, 0);
	db_writer_close(w);
	db_reader_close(r);
}

Test(db, clock_offset_estimated_when_not_stored)
{
	char path[256];
	struct db_writer *w;
	struct db_reader *r;
	struct db_session_info info;

	db_support_temp_path(path, sizeof path, "s.smtop");
	w = db_support_writer(path, 1, 1);
	write_everything(w, 1);
	db_writer_close(w);
	r = open_reader(path);
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_eq(info.clock_known, 1);
	/* grid 10 first block at T0-60us, kernel at T0; grid 11 at T0+72us, kernel T0+132us */
	cr_assert_eq(info.clock.offset_ns, 60000);
	db_reader_close(r);
}

/* A live file without a stored offset: estimated again only as the chunks
 * double, not on every batch (which kept a live view seconds behind). */
Test(db, clock_offset_not_estimated_on_every_batch)
{
	char path[256];
	struct db_writer *w;
	struct db_reader *r;
	struct db_session_info info;
	struct collect c = { 0 };
	int64_t bwm = 0;

	db_support_temp_path(path, sizeof path, "s.smtop");
	w = db_support_writer(path, 1, 1);
	r = open_reader(path);
	for (int i = 0; i < 64; i++) {
		write_everything(w, 1);
		cr_assert_eq(db_reader_new_blocks(r, &bwm, on_block, &c), 0);
	}
	cr_assert_eq(c.blocks, 64 * 264);
	cr_assert_leq(db_reader_offset_estimates(r), 8, "%u estimates for 64 batches",
		      db_reader_offset_estimates(r));
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_eq(info.clock.offset_ns, 60000);
	db_writer_close(w);
	db_reader_close(r);
}

/* A GPU timer running 10 ppm slow against CUPTI's clock, over 4 s: 400
 * grids of 4 blocks, each kernel starting 500 ns before its block 0.  The
 * H200 drifted 2-13 ppm; one constant offset left blocks 40 us off their
 * kernels at the far end here. */
#define DRIFT_G0 1000000000000ull
#define DRIFT_OFF 700000000ll
#define DRIFT_PPB 10000

static uint64_t drift_kernel_start(uint64_t g)
{
	return g + DRIFT_OFF + (g - DRIFT_G0) / 1000000000ull * DRIFT_PPB +
	       (g - DRIFT_G0) % 1000000000ull * DRIFT_PPB / 1000000000ull - 500;
}

static void write_drifting(struct db_writer *w)
{
	struct smtop_block b[40];
	struct smtop_record recs[16];

	for (int batch = 0; batch < 40; batch++) {
		size_t n = 0;
		for (int k = batch * 10; k < batch * 10 + 10; k++) {
			uint64_t g = DRIFT_G0 + (uint64_t)k * 10000000ull;
			for (int j = 0; j < 4; j++)
				b[(k % 10) * 4 + j] = (struct smtop_block){ .grid_id = 1000 + (uint64_t)k,
					.start = g + (uint64_t)j * 200, .end = g + 100000,
					.block = (uint32_t)j, .sm = (uint16_t)((k * 4 + j) % 132) };
			recs[n++] = db_support_kernel(1, 13, drift_kernel_start(g), drift_kernel_start(g) + 200000,
						      1000 + (uint64_t)k, MANGLED);
		}
		if (batch == 0) {
			recs[n++] = db_support_device(1, 0, 132);
			recs[n++] = db_support_stream(1, 13, 0);
		}
		recs[n++] = db_support_blocks(1, 1, b, 40);
		cr_assert_eq(db_writer_write(w, recs, n), 0, "%s", db_writer_error(w));
	}
}

struct drift_check {
	uint64_t worst;
	size_t n;
};

/* A block that starts at `start` where it belongs at `want`: the worst distance so far. */
static int note_block_place(struct drift_check *d, uint64_t start, uint64_t want)
{
	uint64_t off = start > want ? start - want : want - start;

	d->worst = off > d->worst ? off : d->worst;
	d->n++;
	return 0;
}

/* Block 0 of grid 1000 + k belongs at its kernel's start. */
static int on_drift_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	uint64_t g = DRIFT_G0 + (b->grid_id - 1000) * 10000000ull;

	(void)pid;
	(void)ctx;
	return note_block_place(ud, b->start, drift_kernel_start(g) + b->block * 200ull);
}

Test(db, clock_drift_estimated_over_the_session)
{
	char path[256];
	struct db_writer *w;
	struct db_reader *r;
	struct db_session_info info;
	struct drift_check d = { 0 };

	db_support_temp_path(path, sizeof path, "s.smtop");
	w = db_support_writer(path, 1, 1);
	write_drifting(w);
	db_writer_close(w);
	r = open_reader(path);
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_eq(info.clock_known, 1);
	cr_expect(info.clock.drift_ppb > DRIFT_PPB - 300 && info.clock.drift_ppb < DRIFT_PPB + 300,
		  "drift %lld ppb", (long long)info.clock.drift_ppb);
	cr_assert_eq(db_reader_blocks(r, 0, UINT64_MAX, on_drift_block, &d), 0);
	cr_expect_eq(d.n, 1600);
	cr_expect_leq(d.worst, 1000, "a block %llu ns off its place", (unsigned long long)d.worst);
	/* a window at the far end finds the last grid's blocks where its kernel is */
	uint64_t last = drift_kernel_start(DRIFT_G0 + 399 * 10000000ull);
	d.n = 0;
	cr_assert_eq(db_reader_blocks(r, last, last + 50000, on_drift_block, &d), 0);
	cr_expect_eq(d.n, 4);
	db_reader_close(r);
}

/* A stored clock with drift moves every block by its own distance from ref. */
Test(db, stored_clock_drift_applies_per_block)
{
	char path[256];
	struct db_writer *w;
	struct db_reader *r;
	struct db_session_info info;
	struct collect c = { 0 };

	db_support_temp_path(path, sizeof path, "s.smtop");
	w = db_support_writer(path, 1, 1);
	write_everything(w, 1);
	db_writer_set_meta(w, "clock_offset_ns", "0");
	/* ref 1 s before the blocks, +2000 ppb: 2 us later at the blocks */
	char ref[32];
	snprintf(ref, sizeof ref, "%llu", (unsigned long long)(T0 - 60000 - 1000000000ull));
	db_writer_set_meta(w, "clock_ref_ns", ref);
	db_writer_set_meta(w, "clock_drift_ppb", "2000");
	db_writer_close(w);
	r = open_reader(path);
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_eq(info.clock.drift_ppb, 2000);
	/* block i runs [T0-60us + i us, +5 us) on the timer, 2 us later on
	 * CUPTI's clock: only block 0 runs at T0-58us (three without drift) */
	cr_assert_eq(db_reader_blocks(r, T0 - 58000, T0 - 58000 + 1, on_block, &c), 0);
	cr_expect_eq(c.blocks, 1, "%zu blocks at T0-58us", c.blocks);
	c.blocks = 0;
	cr_assert_eq(db_reader_blocks(r, T0 - 58000 - 1, T0 - 58000, on_block, &c), 0);
	cr_expect_eq(c.blocks, 0, "%zu blocks before the first block's moved start", c.blocks);
	db_reader_close(r);
}

/* Two GPUs of one process, each with its own %globaltimer: device 1's runs
 * 79 us behind device 0's against CUPTI's clock (two H200s of one host were
 * 79 us apart).  The same grid ids on both, as two contexts may give. */
#define TWO_G0 2000000000000ull
#define TWO_OFF0 700000000ll
#define TWO_OFF1 (TWO_OFF0 + 79000)

static uint64_t two_kernel_start(unsigned dev, uint64_t g)
{
	return g + (uint64_t)(dev ? TWO_OFF1 : TWO_OFF0) - 500;
}

static void write_two_gpus(struct db_writer *w)
{
	struct smtop_block b[4];
	struct smtop_record recs[8];

	for (int k = 0; k < 100; k++) {
		for (unsigned dev = 0; dev < 2; dev++) {
			uint64_t g = TWO_G0 + (uint64_t)k * 2000000ull + dev * 300000ull;
			size_t n = 0;

			for (int j = 0; j < 4; j++)
				b[j] = (struct smtop_block){ .grid_id = 3000 + (uint64_t)k,
					.start = g + (uint64_t)j * 200, .end = g + 100000, .block = (uint32_t)j,
					.sm = (uint16_t)((k * 4 + j) % 132), .device_id = (uint16_t)dev };
			recs[n] = db_support_kernel(1, 13 + dev, two_kernel_start(dev, g),
						    two_kernel_start(dev, g) + 200000, 3000 + (uint64_t)k, MANGLED);
			recs[n].u.kernel.device_id = dev;
			recs[n++].u.kernel.context_id = 1 + dev;
			if (k == 0) {
				recs[n++] = db_support_device(1, dev, 132);
				recs[n++] = db_support_stream(1, 13 + dev, 0);
			}
			recs[n++] = db_support_blocks(1, 1 + dev, b, 4);
			cr_assert_eq(db_writer_write(w, recs, n), 0, "%s", db_writer_error(w));
		}
	}
}

/* Block j of grid 3000 + k belongs 200j ns after its own device's kernel start. */
static int on_two_gpu_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	uint64_t g = TWO_G0 + (b->grid_id - 3000) * 2000000ull + b->device_id * 300000ull;

	(void)pid;
	(void)ctx;
	return note_block_place(ud, b->start, two_kernel_start(b->device_id, g) + b->block * 200ull);
}

static void expect_two_gpu_blocks_in_place(struct db_reader *r)
{
	struct drift_check d = { 0 };

	cr_assert_eq(db_reader_blocks(r, 0, UINT64_MAX, on_two_gpu_block, &d), 0);
	cr_expect_eq(d.n, 800);
	cr_expect_leq(d.worst, 1000, "a block %llu ns off its place", (unsigned long long)d.worst);
	/* a window around device 1's last kernel finds its blocks there */
	uint64_t last = two_kernel_start(1, TWO_G0 + 99 * 2000000ull + 300000ull);
	d.n = 0;
	cr_assert_eq(db_reader_blocks(r, last, last + 1000, on_two_gpu_block, &d), 0);
	cr_expect_eq(d.n, 4);
}

static void set_clock_meta(struct db_writer *w, const char *suffix, long long offset)
{
	char key[48], value[32];

	snprintf(key, sizeof key, "clock_offset_ns%s", suffix);
	snprintf(value, sizeof value, "%lld", offset);
	cr_assert_eq(db_writer_set_meta(w, key, value), 0);
}

/* The two-GPU session with `stored` clocks (0: none; 1: the plain keys, as
 * before devices had clocks of their own; 2: also device 1's ".1" keys, as
 * `smtop record` stores them), open, with its info read. */
static struct db_reader *two_gpu_session(int stored, struct db_session_info *info)
{
	char path[256];
	struct db_writer *w;
	struct db_reader *r;

	db_support_temp_path(path, sizeof path, "s.smtop");
	w = db_support_writer(path, 1, 1);
	write_two_gpus(w);
	if (stored >= 1)
		set_clock_meta(w, "", TWO_OFF0 - 500);
	if (stored >= 2)
		set_clock_meta(w, ".1", TWO_OFF1 - 500);
	db_writer_close(w);
	r = open_reader(path);
	cr_assert_eq(db_reader_info(r, info), 0);
	cr_assert_eq(info->n_clocks, 2);
	cr_expect_eq(info->clocks[0].device_id, 0);
	cr_expect_eq(info->clocks[1].device_id, 1);
	return r;
}

Test(db, each_gpu_has_its_own_clock_estimated)
{
	struct db_session_info info;
	struct db_reader *r = two_gpu_session(0, &info);

	cr_expect_eq(info.clocks[1].stored, 0);
	cr_expect_eq(info.clocks[1].clock.offset_ns - info.clocks[0].clock.offset_ns, 79000);
	cr_expect_eq(info.clock.offset_ns, info.clocks[0].clock.offset_ns, "the session's is device 0's");
	expect_two_gpu_blocks_in_place(r);
	db_reader_close(r);
}

Test(db, each_gpu_clock_read_from_the_session)
{
	struct db_session_info info;
	struct db_reader *r = two_gpu_session(2, &info);

	cr_expect(info.clocks[0].stored && info.clocks[1].stored);
	cr_expect_eq(info.clocks[1].clock.offset_ns, TWO_OFF1 - 500);
	cr_expect_eq(db_reader_offset_estimates(r), 0, "nothing estimated");
	expect_two_gpu_blocks_in_place(r);
	db_reader_close(r);
}

/* Plain keys only: they are device 0's, and device 1's clock is estimated. */
Test(db, a_gpu_without_a_stored_clock_gets_an_estimate)
{
	struct db_session_info info;
	struct db_reader *r = two_gpu_session(1, &info);

	cr_expect(info.clocks[0].stored && !info.clocks[1].stored);
	cr_expect_eq(info.clock.offset_ns, TWO_OFF0 - 500);
	expect_two_gpu_blocks_in_place(r);
	db_reader_close(r);
}

Test(db, two_writers_two_pids)
{
	char path[256];
	struct db_writer *a, *b;
	struct db_reader *r;
	struct db_session_info info;

	db_support_temp_path(path, sizeof path, "s.smtop");
	a = db_support_writer(path, 10, 1);
	b = db_support_writer(path, 11, 0);
	write_everything(a, 10);
	write_everything(b, 11);
	write_everything(a, 10);
	db_writer_add_drops(b, "cupti", 3);
	db_writer_close(a);
	db_writer_close(b);
	r = open_reader(path);
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_eq(info.kernels, 9);
	cr_assert_eq(info.blocks, 3 * 264);
	cr_assert_eq(info.n_processes, 2);
	cr_assert_eq(info.drops_cupti, 3);
	cr_assert_eq(info.streams, 4);
	db_reader_close(r);
	cr_assert_eq(db_support_sql_int(path, "SELECT count(*) FROM StringIds WHERE value='" MANGLED "'"), 1);
}

static void expect_refusal(const char *path, const char *needle)
{
	struct db_reader *r;
	char err[512] = "";

	cr_assert_eq(db_reader_open(&r, path, err, sizeof err), -1, "%s opened", path);
	cr_assert_null(r);
	cr_assert(strstr(err, path) == err, "error names the file: %s", err);
	cr_assert(strstr(err, needle), "'%s' lacks '%s'", err, needle);
	cr_assert_null(strchr(err, '\n'));
}

Test(db, newer_version_refused)
{
	char path[256];
	struct db_writer *w;
	sqlite3 *db;

	db_support_temp_path(path, sizeof path, "s.smtop");
	w = db_support_writer(path, 1, 1);
	db_writer_close(w);
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "PRAGMA user_version=99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	expect_refusal(path, "session schema version 99 is newer than this smtop (1); upgrade smtop");
}

Test(db, foreign_and_nsys_files)
{
	char path[256], nsys[256];
	struct db_reader *r;
	struct db_session_info info;
	struct collect c = { 0 };
	sqlite3 *db;
	char err[512];

	db_support_temp_path(path, sizeof path, "foreign.db");
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1);", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	expect_refusal(path, "not a smtop session or Nsight Systems export");

	db_support_temp_path(nsys, sizeof nsys, "nsys.sqlite");
	cr_assert_eq(sqlite3_open(nsys, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db,
		"CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
		"INSERT INTO StringIds VALUES(1,'void k<1>(int)'),(2,'k');"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, contextId INT,"
		" streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT,"
		" launchType INT, registersPerThread INT, gridX INT, gridY INT, gridZ INT, blockX INT,"
		" blockY INT, blockZ INT, staticSharedMemory INT, dynamicSharedMemory INT,"
		" localMemoryPerThread INT, gridId INT, graphNodeId INT);"
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(100,200,0,1,7,1,(55<<24),1,2,0,32,1,1,1,"
		" 32,1,1,0,0,0,9,NULL);"
		"CREATE TABLE TARGET_INFO_CUDA_STREAM(streamId INT, hwId INT, vmId INT, processId INT,"
		" contextId INT, priority INT, flag INT);"
		"INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(7,0,0,55,1,4294967291,1);",
		NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	cr_assert_eq(db_reader_open(&r, nsys, err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_eq(info.is_nsys, 1);
	cr_assert_eq(info.kernels, 1);
	cr_assert_eq(info.blocks, 0);
	cr_assert_eq(info.nvtx, 0);
	cr_assert_eq(db_reader_kernels(r, 0, 1000, on_kernel, &c), 0);
	cr_assert_eq(c.n, 1);
	cr_assert_eq(c.k[0].pid, 55);
	cr_assert_str_eq(db_reader_short_name(r, c.k[0].name), "k");
	c.n = 0;
	cr_assert_eq(db_reader_streams(r, on_stream, &c), 0);
	cr_assert_eq(c.s[0].priority, -5);
	cr_assert_eq(db_reader_blocks(r, 0, 1000, on_block, &c), 0);
	db_reader_close(r);
}

Test(db, bad_paths)
{
	char path[256], dir[256];
	FILE *f;
	struct db_writer *w;

	db_support_temp_path(path, sizeof path, "missing.smtop");
	expect_refusal(path, "no such session file");
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = 0;
	expect_refusal(dir, "is a directory");

	f = fopen(path, "w");
	fputs("this is a text file, long enough to look like something........"
	      "..........................................................\n", f);
	fclose(f);
	expect_refusal(path, "not a SQLite database");

	db_support_temp_path(path, sizeof path, "trunc.smtop");
	w = db_support_writer(path, 1, 1);
	for (int i = 0; i < 20; i++)
		write_everything(w, 1);
	db_writer_close(w);
	{
		struct stat sb;

		cr_assert_eq(stat(path, &sb), 0);
		cr_assert_eq(truncate(path, sb.st_size / 2 + 100), 0);
	}
	expect_refusal(path, "truncated");
}

Test(db, writer_refuses_bad_targets)
{
	char path[256], err[512];
	struct db_writer *w;
	struct db_writer_options opt = { .pid = 1, .create = 0 };

	db_support_temp_path(path, sizeof path, "missing.smtop");
	opt.path = path;
	cr_assert_eq(db_writer_open(&w, &opt, err, sizeof err), -1);
	cr_assert(strstr(err, "no such session file"), "%s", err);
	w = db_support_writer(path, 1, 1);
	db_writer_close(w);
	opt.create = 1;
	cr_assert_eq(db_writer_open(&w, &opt, err, sizeof err), -1);
	cr_assert(strstr(err, "already exists"), "%s", err);
}

Test(db, events_round_trip)
{
	char path[256], err[512], params[64];
	struct db_writer *w;
	struct smtop_culprit cul[2] = {
		{ .pid = 1, .stream_id = 14, .grid_id = 11, .priority = 0, .overlap_ns = 900,
		  .weight = 0.9, .blocks = 8, .name = "low_prio" },
		{ .pid = 1, .stream_id = 15, .grid_id = 12, .priority = SMTOP_PRIORITY_UNKNOWN,
		  .overlap_ns = 100, .weight = 0.1, .name = "other" },
	};
	struct smtop_event ev = { .kind = SMTOP_EV_INVERSION_DISPATCH, .pid = 1, .stream_id = 13,
				  .grid_id = 10, .priority = -5, .ready = T0, .start = T0 + 1000,
				  .wait_ns = 1000, .from_blocks = 1, .name = "victim",
				  .n_culprits = 2, .culprits = cul };
	struct smtop_event *out;
	size_t n;

	db_support_temp_path(path, sizeof path, "s.smtop");
	w = db_support_writer(path, 1, 1);
	db_writer_close(w);
	cr_assert_eq(db_events_store(path, &ev, 1, "threshold_us=20", err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_events_store(path, &ev, 1, "threshold_us=20", err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_events_load(path, &out, &n, params, sizeof params, err, sizeof err), 0, "%s", err);
	cr_assert_eq(n, 1, "store replaces");
	cr_assert_eq(out[0].kind, SMTOP_EV_INVERSION_DISPATCH);
	cr_assert_eq(out[0].priority, -5);
	cr_assert_eq(out[0].from_blocks, 1);
	cr_assert_str_eq(out[0].name, "victim");
	cr_assert_eq(out[0].n_culprits, 2);
	cr_assert_str_eq(out[0].culprits[0].name, "low_prio");
	cr_assert_eq(out[0].culprits[1].priority, SMTOP_PRIORITY_UNKNOWN);
	cr_assert_float_eq(out[0].culprits[0].weight, 0.9, 1e-9);
	cr_assert_str_eq(params, "threshold_us=20");
	cr_assert_eq(db_support_sql_int(path, "SELECT count(*) FROM smtop_events WHERE kind='inversion_dispatch'"
			     " AND basis='blocks'"), 1);
	db_events_free(out, n);
}

/* Episodes stored into the session at path and read back; returns how many. */
static size_t events_reload(const char *path, const struct smtop_event *ev, size_t n,
			    struct smtop_event **out)
{
	char err[512], params[64];
	size_t got;

	if (ev)
		cr_assert_eq(db_events_store(path, ev, n, "", err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_events_load(path, out, &got, params, sizeof params, err, sizeof err), 0, "%s", err);
	return got;
}

/* Changes the session at path as an older smtop, or another tool, left it. */
static void events_sql(const char *path, const char *sql)
{
	sqlite3 *db;

	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	sqlite3_close(db);
}

/* An episode on bounded block ends keeps possible and its least wait; a
 * file written before those columns gets them when events are stored, and
 * its rows read as certain, the least wait the wait. */
Test(db, events_keep_possible)
{
	char path[256];
	struct smtop_event ev[2] = {
		{ .kind = SMTOP_EV_INVERSION_RESIDENT, .pid = 1, .stream_id = 13, .grid_id = 10,
		  .ready = T0, .start = T0 + 1000, .wait_ns = 1000, .wait_min_ns = 200,
		  .possible = SMTOP_POSSIBLE_READY | SMTOP_POSSIBLE_CULPRITS, .name = "maybe" },
		{ .kind = SMTOP_EV_BLOCKING, .pid = 1, .stream_id = 13, .grid_id = 11,
		  .ready = T0 + 5000, .start = T0 + 9000, .wait_ns = 4000, .wait_min_ns = 4000,
		  .name = "sure" },
	};
	struct smtop_event *out;
	size_t n;

	db_support_temp_path(path, sizeof path, "s.smtop");
	db_writer_close(db_support_writer(path, 1, 1));
	n = events_reload(path, ev, 2, &out);
	cr_assert_eq(n, 2);
	cr_expect_eq(out[0].possible, SMTOP_POSSIBLE_READY | SMTOP_POSSIBLE_CULPRITS);
	cr_expect_eq(out[0].wait_min_ns, 200);
	cr_expect_eq(out[1].possible, 0);
	cr_expect_eq(out[1].wait_min_ns, 4000);
	db_events_free(out, n);

	/* a file of an older smtop: smtop_events without the two columns */
	events_sql(path, "ALTER TABLE smtop_events DROP COLUMN waitMinNs;"
		   "ALTER TABLE smtop_events DROP COLUMN possible;");
	n = events_reload(path, NULL, 0, &out);
	cr_assert_eq(n, 2);
	cr_expect_eq(out[0].possible, 0);
	cr_expect_eq(out[0].wait_min_ns, 1000);
	db_events_free(out, n);
	n = events_reload(path, ev, 1, &out);
	cr_assert_eq(n, 1);
	cr_expect_eq(out[0].possible, SMTOP_POSSIBLE_READY | SMTOP_POSSIBLE_CULPRITS);
	db_events_free(out, n);
}

/* What set an episode's ready time is kept with it, for the viewer's "why"
 * line: a file without the columns, or with a code this smtop does not
 * know, reads as unknown. */
Test(db, events_keep_ready_bound)
{
	char path[256];
	struct smtop_event ev[2] = {
		{ .kind = SMTOP_EV_TIMESLICE, .pid = 1, .stream_id = 13, .grid_id = 10, .ready = T0,
		  .start = T0 + 1000, .wait_ns = 1000, .name = "sliced",
		  .ready_bound = SMTOP_READY_LAUNCH_CALL, .ready_correlation_id = 42 },
		{ .kind = SMTOP_EV_BLOCKING, .pid = 1, .stream_id = 13, .grid_id = 11,
		  .ready = T0 + 5000, .start = T0 + 9000, .wait_ns = 4000, .name = "after",
		  .ready_bound = SMTOP_READY_GRAPH_EDGE_MEMSET, .ready_correlation_id = 7 },
	};
	struct smtop_event *out;
	size_t n;

	db_support_temp_path(path, sizeof path, "s.smtop");
	db_writer_close(db_support_writer(path, 1, 1));
	n = events_reload(path, ev, 2, &out);
	cr_assert_eq(n, 2);
	cr_expect_eq(out[0].ready_bound, SMTOP_READY_LAUNCH_CALL);
	cr_expect_eq(out[0].ready_correlation_id, 42);
	cr_expect_eq(out[1].ready_bound, SMTOP_READY_GRAPH_EDGE_MEMSET);
	cr_expect_eq(out[1].ready_correlation_id, 7);
	db_events_free(out, n);

	events_sql(path, "UPDATE smtop_events SET readyBound = 999 WHERE name = 'after'");
	n = events_reload(path, NULL, 0, &out);
	cr_expect_eq(out[1].ready_bound, SMTOP_READY_UNKNOWN);
	db_events_free(out, n);

	events_sql(path, "ALTER TABLE smtop_events DROP COLUMN readyCorrelationId;"
		   "ALTER TABLE smtop_events DROP COLUMN readyBound;");
	n = events_reload(path, NULL, 0, &out);
	cr_assert_eq(n, 2);
	cr_expect_eq(out[0].ready_bound, SMTOP_READY_UNKNOWN);
	cr_expect_eq(out[0].ready_correlation_id, 0);
	cr_expect_eq(out[0].wait_ns, 1000);
	db_events_free(out, n);
}

/* The viewer keeps an episode's heaviest culprit and reads the rest for the
 * episode it shows: all of them, in order, found by the victim alone. */
Test(db, culprits_of_one_stored_episode)
{
	char path[256], err[512];
	struct smtop_culprit cul[3] = {
		{ .pid = 1, .stream_id = 14, .grid_id = 11, .overlap_ns = 800, .weight = 0.8,
		  .blocks = 8, .name = "heavy" },
		{ .pid = 1, .stream_id = 15, .grid_id = 12, .overlap_ns = 150, .weight = 0.15,
		  .name = "middle" },
		{ .pid = 1, .stream_id = 16, .grid_id = 13, .overlap_ns = 50, .weight = 0.05,
		  .name = "light" },
	};
	struct smtop_event ev[2] = {
		{ .kind = SMTOP_EV_BLOCKING, .pid = 1, .stream_id = 13, .grid_id = 10, .ready = T0,
		  .start = T0 + 1000, .wait_ns = 1000, .name = "first", .n_culprits = 1,
		  .culprits = &cul[2] },
		{ .kind = SMTOP_EV_INVERSION_RESIDENT, .pid = 1, .stream_id = 13, .grid_id = 20,
		  .ready = T0 + 5000, .start = T0 + 9000, .wait_ns = 4000, .name = "second",
		  .n_culprits = 3, .culprits = cul },
	};
	struct smtop_culprit *c;
	size_t n;

	db_support_temp_path(path, sizeof path, "s.smtop");
	db_writer_close(db_support_writer(path, 1, 1));
	cr_assert_eq(db_events_store(path, ev, 2, "", err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_events_culprits(path, &ev[1], &c, &n, err, sizeof err), 0, "%s", err);
	cr_assert_eq(n, 3);
	cr_expect_str_eq(c[0].name, "heavy");
	cr_expect_str_eq(c[2].name, "light");
	cr_expect_eq(c[1].grid_id, 12);
	cr_expect_eq(c[0].blocks, 8);
	cr_expect_float_eq(c[1].weight, 0.15, 1e-9);
	for (size_t i = 0; i < n; i++)
		free((char *)c[i].name);
	free(c);
	struct smtop_event none = ev[1];
	none.ready++;
	cr_assert_eq(db_events_culprits(path, &none, &c, &n, err, sizeof err), 0, "%s", err);
	cr_expect_eq(n, 0, "no such episode");
	free(c);
}

/* The child fills a file capped by RLIMIT_FSIZE; exit 0 means it saw a clean
 * disk-full error. */
static int fill_until_full(const char *path)
{
	struct db_writer *w = db_support_writer(path, 2, 0);
	struct smtop_block *b = malloc(50000 * sizeof *b);
	uint64_t seed = 3;
	struct rlimit rl = { 4 << 20, 4 << 20 };

	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &rl);
	for (int i = 0; i < 1000; i++) {
		struct smtop_record rec;

		db_support_synthetic_blocks(b, 50000, T0 + (uint64_t)i * 100000000ull, 132, &seed);
		for (int j = 0; j < 50000; j++)
			b[j].grid_id = db_support_rand(&seed); /* defeat packing */
		rec = db_support_blocks(2, 1, b, 50000);
		if (db_writer_write(w, &rec, 1) != 0) {
			int ok = db_writer_disk_full(w) && strstr(db_writer_error(w), "disk full");

			if (!ok)
				fprintf(stderr, "child: %s\n", db_writer_error(w));

			rec = db_support_kernel(2, 1, T0, T0 + 1, 1, "after_full");
			ok = ok && db_writer_write(w, &rec, 1) == -1;
			db_writer_close(w);
			return ok ? 0 : 2;
		}
	}
	return 3;
}

Test(db, disk_full_stops_cleanly)
{
	char path[256];
	struct db_writer *w;
	struct db_reader *r;
	struct db_session_info info;
	int status;
	pid_t pid;

	db_support_temp_path(path, sizeof path, "s.smtop");
	w = db_support_writer(path, 1, 1);
	write_everything(w, 1);
	db_writer_close(w);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(fill_until_full(path));
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	r = open_reader(path);
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_eq(info.kernels, 3);
	cr_assert_geq(info.blocks, 264);
	db_reader_close(r);
}

/* The drain threads pack chunks themselves: the rows they produce must read
 * back exactly as the writer's own packing of the same blocks. */
static void blocks_via(const char *path, int packed, struct smtop_block *b, size_t n)
{
	struct db_writer *w = db_support_writer(path, 7, 1);
	struct smtop_record rec = db_support_blocks(7, 1, b, n);

	if (packed) {
		uint8_t *data = malloc(DB_BLOCKCODEC_MAX_BYTES(n));
		struct smtop_chunk *k = &rec.u.chunk;
		struct smtop_block *copy = rec.u.blocks.blocks;

		rec.kind = SMTOP_REC_CHUNK;
		*k = (struct smtop_chunk){ .pid = 7, .context_id = 1, .sm = copy[0].sm, .count = (uint32_t)n };
		k->len = (uint32_t)db_blockcodec_encode(copy, n, data);
		k->data = data;
		k->start = copy[0].start;
		for (size_t i = 0; i < n; i++)
			k->end = copy[i].end > k->end ? copy[i].end : k->end;
		free(copy);
	}
	cr_assert_eq(db_writer_write(w, &rec, 1), 0, "%s", db_writer_error(w)); /* frees rec's data */
	db_writer_close(w);
}

static int sum_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	uint64_t *sum = ud;

	*sum += b->start * 3 + b->end * 5 + b->block * 7 + b->grid_id * 11 + pid + ctx + b->sm;
	return 0;
}

Test(db, collector_packed_chunks_read_like_blocks)
{
	char a[256], b[256];
	struct smtop_block blk[300];
	uint64_t seed = 5;
	struct collect ca = { 0 }, cb = { 0 };
	uint64_t sa = 0, sb = 0;
	struct db_reader *r;

	db_support_synthetic_blocks(blk, 300, 1764480000000000000ull, 1, &seed);
	db_support_temp_path(a, sizeof a, "plain.smtop");
	db_support_temp_path(b, sizeof b, "packed.smtop");
	blocks_via(a, 0, blk, 300);
	blocks_via(b, 1, blk, 300);
	r = open_reader(a);
	cr_assert_eq(db_reader_blocks(r, 0, UINT64_MAX / 2, on_block, &ca), 0);
	cr_assert_eq(db_reader_blocks(r, 0, UINT64_MAX / 2, sum_block, &sa), 0);
	db_reader_close(r);
	r = open_reader(b);
	cr_assert_eq(db_reader_blocks(r, 0, UINT64_MAX / 2, on_block, &cb), 0);
	cr_assert_eq(db_reader_blocks(r, 0, UINT64_MAX / 2, sum_block, &sb), 0);
	db_reader_close(r);
	cr_assert_eq(sa, sb, "every field of every block survives");
	cr_assert_eq(cb.blocks, 300);
	cr_assert_eq(cb.blocks, ca.blocks);
	cr_assert_eq(cb.first_block_start, ca.first_block_start);
	cr_assert_eq(cb.block_pid, 7);
	unlink(a);
	unlink(b);
}

/* ---- checkpoints on a thread of their own (db/checkpoint.c) ---------------- */

static sqlite3 *checkpoint_db(const char *path)
{
	sqlite3 *db;

	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "PRAGMA page_size=4096; PRAGMA journal_mode=WAL;"
				  " CREATE TABLE t (x BLOB)", NULL, NULL, NULL), SQLITE_OK);
	return db;
}

/* n transactions of one page each. */
static void checkpoint_fill(sqlite3 *db, int n)
{
	for (int i = 0; i < n; i++)
		cr_assert_eq(sqlite3_exec(db, "INSERT INTO t VALUES (zeroblob(3000))", NULL, NULL, NULL), SQLITE_OK);
}

static long checkpoint_size(const char *path, const char *suffix)
{
	char p[300];
	struct stat st;

	snprintf(p, sizeof p, "%s%s", path, suffix);
	return stat(p, &st) == 0 ? (long)st.st_size : 0;
}

/* The writer only appends to the WAL; the thread copies it into the file
 * (the file grows only by a checkpoint). */
Test(checkpoint, the_thread_copies_the_wal_into_the_file)
{
	char path[256];
	sqlite3 *db;
	struct db_checkpoint *c;
	long before;

	db_support_temp_path(path, sizeof path, "c.db");
	db = checkpoint_db(path);
	c = db_checkpoint_start(db, path, 10, 1000);
	cr_assert_not_null(c);
	before = checkpoint_size(path, "");
	checkpoint_fill(db, 20);
	/* the file may grow in steps while the thread copies: wait for the
	 * whole of it, not for the first step */
	for (int i = 0; i < 500 && checkpoint_size(path, "") <= before + 10 * 4096; i++)
		usleep(10000);
	cr_assert_gt(checkpoint_size(path, ""), before + 10 * 4096, "the thread checkpointed");
	db_checkpoint_stop(c);
	sqlite3_close(db);
}

/* When the thread falls behind, the writer checkpoints itself: the WAL never
 * holds much more than writer_frames pages. */
Test(checkpoint, the_writer_bounds_the_wal)
{
	char path[256];
	sqlite3 *db;
	struct db_checkpoint *c;

	db_support_temp_path(path, sizeof path, "c.db");
	db = checkpoint_db(path);
	c = db_checkpoint_start(db, path, 1000000, 50);
	cr_assert_not_null(c);
	checkpoint_fill(db, 400);
	cr_assert_lt(checkpoint_size(path, "-wal"), 60 * (4096 + 24), "400 pages written, about 50 in the WAL");
	db_checkpoint_stop(c);
	checkpoint_fill(db, 1);
	sqlite3_close(db);
}

/* The collector's writer with the thread: everything written reads back. */
Test(checkpoint, a_session_written_with_the_thread_reads_whole)
{
	char path[256], err[512];
	struct db_writer_options opt = { .path = NULL, .pid = 7, .ppid = 1, .command = "w", .create = 1,
					 .session_command = "smtop record w", .background_checkpoint = 1 };
	struct db_writer *w;
	struct db_reader *r;
	struct collect c = { 0 };
	int64_t kwm = 0, bwm = 0;

	db_support_temp_path(path, sizeof path, "s.smtop");
	opt.path = path;
	cr_assert_eq(db_writer_open(&w, &opt, err, sizeof err), 0, "%s", err);
	write_everything(w, 7);
	write_everything(w, 7);
	db_writer_close(w);
	r = open_reader(path);
	cr_assert_eq(db_reader_new_kernels(r, &kwm, on_kernel, &c), 0);
	cr_assert_eq(c.n, 6);
	cr_assert_eq(db_reader_new_blocks(r, &bwm, on_block, &c), 0);
	cr_assert_eq(c.blocks, 528);
	db_reader_close(r);
	cr_assert_eq(checkpoint_size(path, "-wal"), 0, "closed: the WAL is gone");
}
