#include "ui/app/info.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "db/reader.h"
#include "src/core/fmt.h"

static void print_time(FILE *out, const char *label, uint64_t ns)
{
	if (!ns) {
		fprintf(out, "%-14s N/A\n", label);
		return;
	}
	time_t s = (time_t)(ns / 1000000000ull);
	struct tm tm;
	char buf[64];
	localtime_r(&s, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %Z", &tm);
	fprintf(out, "%-14s %s\n", label, buf);
}

static void print_duration(FILE *out, const struct db_session_info *si)
{
	if (!si->t_first || si->t_last < si->t_first)
		fprintf(out, "%-14s N/A\n", "GPU span");
	else
		fprintf(out, "%-14s %.3f ms\n", "GPU span", (double)(si->t_last - si->t_first) / 1e6);
}

static void print_devices(FILE *out, const struct db_session_info *si)
{
	if (!si->n_devices)
		fprintf(out, "%-14s N/A\n", "GPU");
	for (size_t i = 0; i < si->n_devices; i++) {
		const struct smtop_device *d = &si->devices[i];
		/* 0 is how the reader says unknown: no GPU has 0 SMs or cc 0 */
		char sms[16] = "N/A", cc[32] = "N/A";
		if (d->sm_count)
			snprintf(sms, sizeof sms, "%u", d->sm_count);
		if (d->cc_major)
			snprintf(cc, sizeof cc, "%u.%u", d->cc_major, d->cc_minor);
		fprintf(out, "%-14s %u: %s, %s SMs, cc %s\n", i ? "" : "GPU", d->device_id,
			d->name ? d->name : "N/A", sms, cc);
	}
}

/* One line for the session's clock; with several GPUs, one per device (each
 * has its own %globaltimer). */
static void print_clocks(FILE *out, const struct db_session_info *si)
{
	if (!si->clock_known) {
		fprintf(out, "%-14s N/A\n", "clock offset");
	} else if (si->n_clocks < 2) {
		fprintf(out, "%-14s %+.3f us, drift %+.3f ppm (CUPTI = globaltimer + offset + drift)\n",
			"clock offset", (double)si->clock.offset_ns / 1e3, (double)si->clock.drift_ppb / 1e3);
	} else {
		for (size_t i = 0; i < si->n_clocks; i++) {
			const struct db_device_clock *c = &si->clocks[i];
			fprintf(out, "%-14s GPU %u: %+.3f us, drift %+.3f ppm%s\n", i ? "" : "clock offset",
				c->device_id, (double)c->clock.offset_ns / 1e3, (double)c->clock.drift_ppb / 1e3,
				i ? "" : " (CUPTI = globaltimer + offset + drift)");
		}
	}
}

static void print_processes(FILE *out, const struct db_session_info *si)
{
	for (size_t i = 0; i < si->n_processes; i++) {
		const struct db_process_info *p = &si->processes[i];
		fprintf(out, "%-14s %u %s%s%s%s  %s\n", i ? "" : "processes", p->pid,
			p->status ? p->status : "N/A", p->reason ? " (" : "",
			p->reason ? p->reason : "", p->reason ? ")" : "",
			p->command ? p->command : "");
	}
}

/* The host's waits for the GPU and the streams' waits for events, by kind. */
static void print_syncs(FILE *out, const struct db_session_info *si)
{
	const uint64_t *n = si->sync_types;

	if (!si->sync_types_known)
		return;
	fprintf(out, "%-14s %" PRIu64 " stream, %" PRIu64 " context, %" PRIu64 " event synchronizations; %" PRIu64
		" stream waits\n", "syncs", n[3], n[4], n[1], n[2]);
}

static const char *end_state(const struct db_session_info *si)
{
	if (si->is_nsys)
		return "Nsight Systems export";
	if (!si->ended)
		return "recording, or ended without being finalised";
	return si->ended_clean ? "complete" : "incomplete";
}

/* How the inferred ends of the blocks measured in exact windows fell
 * from their exact ends. */
static void print_end_error(FILE *out, const struct db_session_info *si)
{
	unsigned long long n, p50, p90, p99, under;
	char a[32], b[32], c[32], k[32];

	if (!si->end_error || sscanf(si->end_error, "n=%llu p50=%llu p90=%llu p99=%llu under=%llu", &n, &p50, &p90,
				    &p99, &under) != 5)
		return;
	fprintf(out, "%-14s off their exact ends by %s (p50), %s (p90), %s (p99) over %s blocks of the windows;"
		" %.1f%% came before it\n", "inferred ends", fmt_duration(a, sizeof a, p50, 1),
		fmt_duration(b, sizeof b, p90, 1), fmt_duration(c, sizeof c, p99, 1),
		fmt_count_exact(k, sizeof k, n), n ? 100.0 * (double)under / (double)n : 0.0);
}

/* How much longer the same blocks held their SMs by their inferred ends
 * than by their exact ones. */
static void print_residency(FILE *out, const struct db_session_info *si)
{
	unsigned sms;
	double ratio, lo, hi;

	if (!si->residency || sscanf(si->residency, "sms=%u ratio=%lf min=%lf max=%lf", &sms, &ratio, &lo, &hi) != 4)
		return;
	fprintf(out, "%-14s by inferred ends, those blocks held their SMs %.2fx as long as by exact ends"
		" (%.2fx to %.2fx across %u SMs)\n", "residency", ratio, lo, hi, sms);
}

/* What a trim kept (tests/gpu/trim_session.py), its window "[A, B)" of GPU
 * times also said as a length. */
static void print_trimmed(FILE *out, const char *note)
{
	const char *at = strchr(note, '[');
	unsigned long long a, b;
	char len[32];

	if (!at || sscanf(at, "[%llu, %llu)", &a, &b) != 2 || b < a) {
		fprintf(out, "%-14s %s\n", "trimmed", note);
		return;
	}
	fprintf(out, "%-14s %.*sa %s window %s\n", "trimmed", (int)(at - note), note,
		fmt_duration(len, sizeof len, b - a, 1), at);
}

/* --sm entry: where its block ends are exact (exact windows, marked
 * kernels), else inferred. */
static void print_entry_mode(FILE *out, const struct db_session_info *si)
{
	int windows = si->exact_windows && strcmp(si->exact_windows, "0") != 0;
	int marks = si->entry_marks && !strcmp(si->entry_marks, "on");
	char where[160];

	if (windows)
		snprintf(where, sizeof where, ", exact in %s exact window%s%s", si->exact_windows,
			 !strcmp(si->exact_windows, "1") ? "" : "s",
			 marks ? " and in kernels built with the block tracer header" : "");
	else if (marks)
		snprintf(where, sizeof where, ", exact in kernels built with the block tracer header (no exact windows)");
	else
		snprintf(where, sizeof where, " (no exact windows)");
	fprintf(out, "%-14s --sm entry (Compute Sanitizer, block entry alone): every block's start and SM; "
		"its end inferred%s; kernel times from their blocks\n", "recorded with", where);
}

/* Kernels without a block: dropped, as the drop count says, or (when it
 * counts fewer blocks than their grids hold) lost by the collector that
 * recorded them, which the session must not hide. */
static void print_unstarted(FILE *out, const struct db_session_info *si)
{
	char n[32], b[32], d[32];

	fmt_count_exact(n, sizeof n, si->kernels_unstarted);
	if (si->drops_blocks >= si->kernels_unstarted_blocks) {
		fprintf(out, "%-14s %s kernels: their launches' blocks were all dropped, so they have no times\n",
			"never started", n);
		return;
	}
	fmt_count_exact(b, sizeof b, si->kernels_unstarted_blocks);
	fmt_count_exact(d, sizeof d, si->drops_blocks);
	fprintf(out, "%-14s %s kernels: none of their %s blocks was recorded and %s were counted as "
		"dropped, so they have no times\n", "never started", n, b, d);
}

void info_print(FILE *out, const struct db_session_info *si)
{
	fprintf(out, "%-14s %s\n", "session", si->path);
	fprintf(out, "%-14s %s%s%s%s\n", "state", end_state(si), si->end_reason ? " (" : "",
		si->end_reason ? si->end_reason : "", si->end_reason ? ")" : "");
	fprintf(out, "%-14s %s\n", "command", si->command ? si->command : "N/A");
	print_time(out, "recorded", si->created_ns);
	if (si->smtop_version)
		fprintf(out, "%-14s smtop %s\n", "recorded by", si->smtop_version);
	print_duration(out, si);
	print_devices(out, si);
	print_processes(out, si);
	if (si->sm_mode && !strcmp(si->sm_mode, "exact"))
		fprintf(out, "%-14s --sm exact (Compute Sanitizer, block entry and exit): every block's start, end "
			"and SM; kernel times from their blocks\n", "recorded with");
	else if (si->collector && !strcmp(si->collector, "sanitizer") && si->block_ends && !strcmp(si->block_ends, "bound"))
		print_entry_mode(out, si);
	else if (si->collector && !strcmp(si->collector, "sanitizer"))
		fprintf(out, "%-14s --sm all (Compute Sanitizer): every block; kernel times from their blocks; "
			"copies and sets without GPU times; API calls of graph launches alone\n", "recorded with");
	print_end_error(out, si);
	print_residency(out, si);
	if (si->trimmed)
		print_trimmed(out, si->trimmed);
	char n[32];
	fprintf(out, "%-14s %s\n", "kernels", fmt_count_exact(n, sizeof n, si->kernels));
	if (si->kernels_unstarted)
		print_unstarted(out, si);
	fprintf(out, "%-14s %s\n", "blocks", fmt_count_exact(n, sizeof n, si->blocks));
	fprintf(out, "%-14s %s\n", "streams", fmt_count_exact(n, sizeof n, si->streams));
	fprintf(out, "%-14s %" PRIu64 " memcpy, %" PRIu64 " memset, %" PRIu64 " API calls, %" PRIu64 " NVTX, %" PRIu64 " requests\n",
		"other", si->memcpys, si->memsets, si->api_calls, si->nvtx, si->requests);
	print_syncs(out, si);
	fprintf(out, "%-14s %" PRIu64 " CUPTI, %" PRIu64 " ring, %" PRIu64 " blocks\n", "dropped",
		si->drops_cupti, si->drops_ring, si->drops_blocks);
	print_clocks(out, si);
	if (si->is_nsys)
		fprintf(out, "%-14s nsys export %s%s%s%s\n", "schema",
			si->nsys_schema ? si->nsys_schema : si->nsys_before_3
				? "older than 3.0 (no version recorded)" : "(version not recorded)",
			si->nsys_product ? " (Nsight Systems " : "",
			si->nsys_product ? si->nsys_product : "", si->nsys_product ? ")" : "");
	else
		fprintf(out, "%-14s %d\n", "schema", si->schema_version);
}

int info_main(const char *path)
{
	char err[512];
	struct db_reader *r;
	if (db_reader_open(&r, path, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return 1;
	}
	struct db_session_info si;
	int rc = db_reader_info(r, &si);
	if (rc == 0) {
		db_reader_sync_types(r, &si);
		info_print(stdout, &si);
	}
	else
		fprintf(stderr, "smtop: %s\n", db_reader_error(r)); /* names the file */
	db_reader_close(r);
	return rc == 0 ? 0 : 1;
}

int info_main_many(const char *const *paths, size_t n)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (i)
			putchar('\n');
		rc |= info_main(paths[i]);
	}
	return rc;
}
