#include "src/core/report_occupancy.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/analysis.h"
#include "src/core/json.h"
#include "src/core/report.h"

static int cmp_str(const char *x, const char *y)
{
	return strcmp(x ? x : "", y ? y : "");
}

static int cmp_kernel(const void *x, const void *y)
{
	const struct analysis_kernel_occupancy *p = x, *q = y;
	if (p->device_id != q->device_id)
		return p->device_id < q->device_id ? -1 : 1;
	int c = cmp_str(p->name, q->name);
	if (c)
		return c;
	if (p->threads != q->threads)
		return p->threads < q->threads ? -1 : 1;
	if (p->registers != q->registers)
		return p->registers < q->registers ? -1 : 1;
	return (p->smem > q->smem) - (p->smem < q->smem);
}

static int same_config(const struct analysis_kernel_occupancy *p,
		       const struct analysis_kernel_occupancy *q)
{
	return !cmp_kernel(p, q) && p->sms == q->sms;
}

static void config_add(struct occupancy_config *c, const struct analysis_kernel_occupancy *k)
{
	c->launches++;
	if (!k->blocks)
		return;
	c->with_blocks++;
	c->blocks_max = k->blocks > c->blocks_max ? k->blocks : c->blocks_max;
	c->most = k->most_per_sm > c->most ? k->most_per_sm : c->most;
	if (c->limit.bound != OCCUPANCY_BOUND_UNKNOWN && k->most_per_sm > c->limit.blocks)
		c->above++;
	if (!k->full)
		return;
	c->full++;
	c->full_at_limit += k->most_per_sm >= c->limit.blocks;
	if (c->full == 1 || k->most_per_sm < c->most_full_min)
		c->most_full_min = k->most_per_sm;
}

static struct occupancy_config config_of(const struct analysis_kernel_occupancy *k)
{
	return (struct occupancy_config){ .device_id = k->device_id, .threads = k->threads,
				.registers = k->registers, .smem = k->smem, .sms = k->sms,
				.limit = k->limit };
}

int occupancy_configs_build(const struct analysis *a, struct occupancy_configs *cs)
{
	size_t n = analysis_kernel_count(a);
	struct analysis_kernel_occupancy *k = malloc((n ? n : 1) * sizeof *k);
	memset(cs, 0, sizeof *cs);
	cs->v = malloc((n ? n : 1) * sizeof *cs->v);
	if (!k || !cs->v) {
		free(k);
		free(cs->v);
		cs->v = NULL;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		analysis_kernel_occupancy(a, i, &k[i]);
	qsort(k, n, sizeof *k, cmp_kernel);
	int oom = 0;
	for (size_t i = 0; i < n; i++) {
		if (!cs->n || !same_config(&k[i - 1], &k[i])) {
			cs->v[cs->n] = config_of(&k[i]);
			cs->v[cs->n].name = k[i].name ? strdup(k[i].name) : NULL;
			oom |= k[i].name && !cs->v[cs->n].name;
			cs->n++;
		}
		config_add(&cs->v[cs->n - 1], &k[i]);
		cs->kernels++;
		cs->with_blocks += k[i].blocks > 0;
	}
	free(k);
	if (oom) {
		occupancy_configs_free(cs);
		return -1;
	}
	return 0;
}

void occupancy_configs_free(struct occupancy_configs *cs)
{
	for (size_t i = 0; cs->v && i < cs->n; i++)
		free(cs->v[i].name);
	free(cs->v);
	memset(cs, 0, sizeof *cs);
}

static int known(const struct occupancy_config *c)
{
	return c->limit.bound != OCCUPANCY_BOUND_UNKNOWN;
}

static int below(const struct occupancy_config *c)
{
	return known(c) && c->full > c->full_at_limit;
}

static int sanitizer(const struct report_options *o)
{
	return o->registers_from && strcmp(o->registers_from, "cupti") != 0;
}

static const char *registers_from(const struct report_options *o)
{
	return o->registers_from ? o->registers_from : "cupti";
}

/* ---- text ---- */

static void text_intro(FILE *out, const struct occupancy_configs *cs, const struct report_options *o)
{
	fputs("\noccupancy: observed vs limit\n"
	      "  limit: the blocks of a kernel one SM can hold, from its threads, registers and shared\n"
	      "  memory per block (against the SM's largest shared memory: the carveout it ran with is\n"
	      "  not recorded) and the SM's block cap; most: the most of its blocks seen on one SM at\n"
	      "  once. A grid is full when it had more blocks than limit x SMs and some of them waited\n"
	      "  for room: alone on the GPU, a full grid reaches its limit.\n", out);
	if (sanitizer(o))
		fputs("  registers: as the driver reported them under the Compute Sanitizer (--sm all). That\n"
		      "  may be the count before or after smtop's block patches (not told apart): patches\n"
		      "  that add registers lower what an SM holds, so a full grid below its limit may be the\n"
		      "  patches' doing, as well as other kernels sharing its SMs. Dynamic shared memory\n"
		      "  comes from the launch calls; a graph's kernel nodes make none, so one of them that\n"
		      "  asks for it holds fewer blocks than the limit says (as in sessions recorded before\n"
		      "  smtop read it).\n", out);
	else
		fputs("  registers: as CUPTI recorded them for the kernel that ran (a marked kernel's block\n"
		      "  trace is compiled into it). A full grid below its limit shared its SMs with other\n"
		      "  kernels, or the shared memory carveout was smaller than the SM's largest.\n", out);
	size_t full = 0, at = 0, below_n = 0, above = 0, cfg = 0;
	for (size_t i = 0; i < cs->n; i++) {
		const struct occupancy_config *c = &cs->v[i];
		if (!c->with_blocks)
			continue;
		cfg++;
		full += c->full;
		at += c->full_at_limit;
		below_n += known(c) ? c->full - c->full_at_limit : 0;
		above += c->above;
	}
	fprintf(out, "  %zu of %zu kernels with block records, %zu launch configurations:\n"
		"  %zu full grids, %zu reach their limit, %zu stay below it; %zu above it\n",
		cs->with_blocks, cs->kernels, cfg, full, at, below_n, above);
}

/* The columns before the name take 66 of the text's 100. */
#define ROW_NAME_MAX 32

static void text_row(FILE *out, const struct occupancy_config *c, size_t count,
		     const struct report_options *o)
{
	char full[16] = "N/A", name[REPORT_NAME_LEN];
	if (c->full)
		snprintf(full, sizeof full, "%" PRIu32, c->most_full_min);
	fprintf(out, "    %8zu %6" PRIu32 " %4" PRIu32 " %8" PRIu32 " %5" PRIu32 " %-14s %4" PRIu32
		" %4s  %s\n", count, c->threads, c->registers, c->smem, c->limit.blocks,
		occupancy_bound_text(c->limit.bound), c->most, full,
		report_name(name, sizeof name, c->name, ROW_NAME_MAX, o));
}

static void text_list(FILE *out, const struct occupancy_configs *cs, int (*want)(const struct occupancy_config *),
		      const char *title, int above, const struct report_options *o)
{
	size_t n = 0;
	for (size_t i = 0; i < cs->n; i++)
		n += want(&cs->v[i]);
	if (!n)
		return;
	fprintf(out, "  %s\n    %8s %6s %4s %8s %5s %-14s %4s %4s  %s\n", title,
		above ? "above" : "below", "thr", "regs", "smem B", "limit", "by", "most", "full",
		"kernel");
	for (size_t i = 0; i < cs->n; i++) {
		const struct occupancy_config *c = &cs->v[i];
		if (want(c))
			text_row(out, c, above ? c->above : c->full - c->full_at_limit, o);
	}
}

static int is_above(const struct occupancy_config *c)
{
	return c->above > 0;
}

/* Why a kernel can be seen above its limit, said once under the list. */
static void text_above_note(FILE *out, const struct occupancy_configs *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		if (is_above(&cs->v[i])) {
			fputs("  A block counts from its first warp's start to its last warp's end, stamped\n"
			      "  by that warp; the SM may start the next blocks while it finishes, so a block\n"
			      "  may overlap them by a little (a tick or two of the 32 ns timer on the H200;\n"
			      "  microseconds under --sm all, whose exit patch runs in every thread). Far above\n"
			      "  its limit, or above a limit set by shared memory or the block cap, the\n"
			      "  registers or shared memory recorded are wrong.\n", out);
			return;
		}
}

int report_occupancy_text(FILE *out, const struct occupancy_configs *cs,
			  const struct report_options *o)
{
	text_intro(out, cs, o);
	text_list(out, cs, below,
		  "full grids below their limit (below: such launches; most: over all launches;\n"
		  "  full: the least most of a full one):", 0, o);
	text_list(out, cs, is_above,
		  "above their limit (above: such launches; full: the least most of a full one):", 1, o);
	text_above_note(out, cs);
	return ferror(out) ? -1 : 0;
}

/* ---- JSON ---- */

static void json_u32_or_null(FILE *out, int known_value, uint32_t v)
{
	if (known_value)
		fprintf(out, "%" PRIu32, v);
	else
		fputs("null", out);
}

static void json_by(FILE *out, const char *key, uint32_t v, int k)
{
	fprintf(out, ", \"%s\": ", key);
	json_u32_or_null(out, k && v != UINT32_MAX, v);
}

static void json_config(FILE *out, const struct occupancy_config *c)
{
	int k = known(c);
	fprintf(out, "    {\"device\": %" PRIu32 ", \"name\": ", c->device_id);
	json_write_str(out, c->name);
	fputs(", \"threads\": ", out);
	json_u32_or_null(out, c->threads != 0, c->threads);
	fputs(", \"registers\": ", out);
	json_u32_or_null(out, c->registers != 0, c->registers);
	fprintf(out, ", \"smem_bytes\": %" PRIu32 ", \"sms\": %" PRIu32 ", \"limit\": ", c->smem,
		c->sms);
	json_u32_or_null(out, k, c->limit.blocks);
	fprintf(out, ", \"limit_by\": \"%s\"", occupancy_bound_name(c->limit.bound));
	json_by(out, "by_threads", c->limit.by_threads, k);
	json_by(out, "by_registers", c->limit.by_registers, k);
	json_by(out, "by_smem", c->limit.by_smem, k);
	json_by(out, "by_blocks", c->limit.by_blocks, k);
	fprintf(out, ", \"launches\": %zu, \"launches_with_blocks\": %zu, \"blocks_max\": %" PRIu64
		", \"most_per_sm\": ", c->launches, c->with_blocks, c->blocks_max);
	json_u32_or_null(out, c->with_blocks > 0, c->most);
	fprintf(out, ", \"launches_full\": %zu, \"launches_full_at_limit\": %zu"
		", \"most_per_sm_full_min\": ", c->full, c->full_at_limit);
	json_u32_or_null(out, c->full > 0, c->most_full_min);
	fprintf(out, ", \"launches_above_limit\": %zu}", c->above);
}

int report_occupancy_json(FILE *out, const struct occupancy_configs *cs,
			  const struct report_options *o)
{
	fprintf(out, "  \"occupancy\": {\"registers_from\": \"%s\", \"registers_maybe_patched\": %s"
		", \"kernels\": %zu, \"kernels_with_blocks\": %zu, \"configs\": [\n",
		registers_from(o), sanitizer(o) ? "true" : "false", cs->kernels, cs->with_blocks);
	for (size_t i = 0; i < cs->n; i++) {
		json_config(out, &cs->v[i]);
		fputs(i + 1 < cs->n ? ",\n" : "\n", out);
	}
	fputs("  ]},\n", out);
	return ferror(out) ? -1 : 0;
}
