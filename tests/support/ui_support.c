#include "tests/support/ui_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ui/screen.h"

#define PID 4242
#define CTX 1

static void stream(struct model *m, uint32_t id, int32_t prio)
{
	struct smtop_stream s = { .pid = PID, .device_id = 0, .context_id = CTX,
				  .stream_id = id, .priority = prio };
	model_add_stream(m, &s);
}

static void kernel(struct model *m, uint64_t grid_id, uint32_t stream_id, const char *name,
		   int grid, int block, uint64_t submitted, uint64_t start, uint64_t end)
{
	struct smtop_kernel k = {
		.start = UI_SUPPORT_US(start), .end = UI_SUPPORT_US(end),
		.queued = UI_SUPPORT_US(submitted), .submitted = UI_SUPPORT_US(submitted),
		.grid_id = grid_id, .pid = PID, .device_id = 0, .context_id = CTX,
		.stream_id = stream_id, .correlation_id = (uint32_t)(100 + grid_id),
		.grid = { grid, 1, 1 }, .block = { block, 1, 1 }, .registers = 32,
		.static_smem = 1024, .dynamic_smem = 0, .name = name,
	};
	model_add_kernel(m, &k);
}

/* Blocks first..last-1 of grid_id, one per SM from sm0 on (stride apart). */
static void blocks(struct model *m, uint64_t grid_id, int first, int last, int sm0, int stride,
		   uint64_t start, uint64_t end)
{
	for (int i = first; i < last; i++) {
		struct smtop_block b = { .grid_id = grid_id, .start = UI_SUPPORT_US(start),
					 .end = UI_SUPPORT_US(end), .block = (uint32_t)i,
					 .sm = (uint16_t)((sm0 + (i - first) * stride) % 132) };
		model_add_block(m, &b, PID, CTX);
	}
}

static void event(struct model *m, enum smtop_event_kind kind, uint64_t victim, uint32_t stream_id,
		  int32_t prio, const char *name, uint64_t ready, uint64_t start, uint64_t culprit,
		  uint32_t culprit_stream, const char *cname, uint32_t cblocks)
{
	struct smtop_culprit c = { .pid = PID, .device_id = 0, .context_id = CTX,
				   .stream_id = culprit_stream, .grid_id = culprit, .priority = 0,
				   .overlap_ns = (start - ready) * 1000, .weight = 1.0,
				   .blocks = cblocks, .name = cname };
	struct smtop_event e = { .kind = kind, .pid = PID, .device_id = 0, .context_id = CTX,
				 .stream_id = stream_id, .grid_id = victim, .priority = prio,
				 .ready = UI_SUPPORT_US(ready), .start = UI_SUPPORT_US(start),
				 .wait_ns = (start - ready) * 1000, .from_blocks = 1, .name = name,
				 .n_culprits = 1, .culprits = &c };
	model_add_event(m, &e);
}

void ui_support_model(struct model *m)
{
	model_init(m);
	struct smtop_device d = { .pid = PID, .device_id = 0, .sm_count = 132, .cc_major = 9,
				  .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
				  .warp_size = 32, .name = "NVIDIA H200" };
	model_set_device(m, &d);
	stream(m, 13, 0);
	stream(m, 14, -5);
	stream(m, 15, 0);
	kernel(m, 1, 13, "_Z10conv2d_fwdPKfPfi", 1056, 512, 0, 0, 1100);
	kernel(m, 2, 14, "conv1", 132, 128, 300, 500, 650);
	kernel(m, 3, 14, "relu", 66, 256, 600, 650, 700);
	kernel(m, 4, 15, "bn_fwd", 264, 256, 1000, 1100, 1400);
	kernel(m, 5, 13, "void at::native::conv2d_bwd<float>(float*)", 528, 1024, 1150, 1200, 2000);
	kernel(m, 6, 14, "fc", 132, 128, 1500, 1600, 1700);
	for (int w = 0; w < 4; w++)
		blocks(m, 1, w * 132, (w + 1) * 132, 0, 1, 0, 500);
	for (int w = 0; w < 3; w++)
		blocks(m, 1, 528 + w * 132, 528 + (w + 1) * 132, 0, 1, 500, 750);
	blocks(m, 1, 924, 1056, 0, 1, 750, 1100);
	blocks(m, 2, 0, 132, 0, 1, 500, 650);
	blocks(m, 3, 0, 66, 0, 2, 650, 700);
	blocks(m, 4, 0, 132, 0, 1, 1100, 1400);
	blocks(m, 4, 132, 264, 0, 1, 1100, 1400);
	blocks(m, 5, 0, 132, 0, 1, 1200, 1600);
	blocks(m, 5, 132, 264, 0, 1, 1200, 1600);
	blocks(m, 5, 264, 396, 0, 1, 1600, 2000);
	blocks(m, 6, 0, 132, 0, 1, 1600, 1700);
	blocks(m, 5, 396, 528, 0, 1, 1700, 2000);
	event(m, SMTOP_EV_INVERSION_RESIDENT, 2, 14, -5, "conv1", 300, 500, 1, 13, "conv2d_fwd", 528);
	event(m, SMTOP_EV_BLOCKING, 4, 15, 0, "bn_fwd", 1000, 1100, 1, 13, "conv2d_fwd", 132);
	event(m, SMTOP_EV_INVERSION_RESIDENT, 6, 14, -5, "fc", 1500, 1600, 5, 13, "conv2d_bwd", 264);
	struct smtop_nvtx n1 = { .start = UI_SUPPORT_US(0), .end = UI_SUPPORT_US(2000), .pid = PID,
				 .text = "train step" };
	struct smtop_nvtx n2 = { .start = UI_SUPPORT_US(300), .end = UI_SUPPORT_US(700), .pid = PID,
				 .text = "infer" };
	model_add_nvtx(m, &n1);
	model_add_nvtx(m, &n2);
	m->threshold_ns = 20000;
	m->drops_known = 1;
	m->session_label = "demo: priority-vs-training";
	model_flush(m);
}

void ui_support_render(struct canvas *c, struct app *a, const struct model *m, int w, int h)
{
	if (c->w != w || c->h != h)
		canvas_resize(c, w, h);
	screen_draw(c, a, m);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = 0;
	fclose(f);
	return s;
}

static int spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* mkdir -p of the directories above path. */
static void make_parents(const char *path)
{
	char d[512];
	snprintf(d, sizeof d, "%s", path);
	for (char *p = strchr(d + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = 0;
		mkdir(d, 0777);
		*p = '/';
	}
}

/* Line n (0-based) of s, without its newline, into buf. */
static const char *nth_line(const char *s, int n, char *buf, size_t len)
{
	for (; s && n > 0; n--) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	if (!s || !*s)
		return NULL;
	size_t l = strcspn(s, "\n");
	if (l >= len)
		l = len - 1;
	memcpy(buf, s, l);
	buf[l] = 0;
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

static size_t code_point_len(const char *s)
{
	unsigned char c = (unsigned char)*s;
	size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	return strnlen(s, n) ? strnlen(s, n) : 1;
}

/* Screen column (0-based, one per code point) of the first difference. */
static int first_diff_column(const char *a, const char *b)
{
	int col = 0;
	for (;;) {
		size_t la = code_point_len(a), lb = code_point_len(b);
		if (!*a || !*b || la != lb || memcmp(a, b, la))
			return col;
		a += la;
		b += lb;
		col++;
	}
}

#define UI_SUPPORT_DIFF_MAX 12

void ui_support_diff(FILE *f, const char *want, const char *got)
{
	int nw = count_lines(want), ng = count_lines(got), n = nw > ng ? nw : ng, shown = 0,
	    differ = 0;
	if (nw != ng)
		fprintf(f, "  %d lines expected, %d drawn\n", nw, ng);
	for (int i = 0; i < n; i++) {
		char a[8192], b[8192];
		const char *la = nth_line(want, i, a, sizeof a), *lb = nth_line(got, i, b, sizeof b);
		if (la && lb && !strcmp(la, lb))
			continue;
		differ++;
		if (shown++ >= UI_SUPPORT_DIFF_MAX)
			continue;
		fprintf(f, "  line %d:\n  - %s\n  + %s\n", i + 1, la ? la : "(no line)",
			lb ? lb : "(no line)");
		if (la && lb)
			fprintf(f, "    %*s^ column %d\n", first_diff_column(la, lb), "",
				first_diff_column(la, lb) + 1);
	}
	if (differ > UI_SUPPORT_DIFF_MAX)
		fprintf(f, "  ... and %d more lines differ\n", differ - UI_SUPPORT_DIFF_MAX);
}

int ui_support_golden(const char *name, const char *text)
{
	const char *dir = getenv("SMTOP_GOLDEN_DIR");
	char path[512], actual[512];
	snprintf(path, sizeof path, "%s/%s.txt", dir ? dir : "tests/golden", name);
	const char *upd = getenv("SMTOP_UPDATE_GOLDEN");
	if (upd && strcmp(upd, "1") == 0) {
		make_parents(path);
		return spit(path, text) == 0;
	}
	char *want = slurp(path);
	int same = want && strcmp(want, text) == 0;
	if (!same) {
		snprintf(actual, sizeof actual, "build/tests/golden/%s.txt", name);
		make_parents(actual);
		spit(actual, text);
		fprintf(stderr, "golden %s differs from the screen drawn (saved in %s):\n", path,
			actual);
		if (want)
			ui_support_diff(stderr, want, text);
		else
			fprintf(stderr, "  %s is missing\n", path);
		fprintf(stderr, "  if the change is meant: SMTOP_UPDATE_GOLDEN=1 make test-unit, "
				"then check the new file by eye\n");
	}
	free(want);
	return same;
}
