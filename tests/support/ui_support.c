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

int ui_support_golden(const char *name, const char *text)
{
	const char *dir = getenv("SMTOP_GOLDEN_DIR");
	char path[512], actual[512];
	snprintf(path, sizeof path, "%s/%s.txt", dir ? dir : "tests/golden", name);
	const char *upd = getenv("SMTOP_UPDATE_GOLDEN");
	if (upd && strcmp(upd, "1") == 0)
		return spit(path, text) == 0;
	char *want = slurp(path);
	int same = want && strcmp(want, text) == 0;
	free(want);
	if (!same) {
		mkdir("build", 0777);
		mkdir("build/tests", 0777);
		mkdir("build/tests/golden", 0777);
		snprintf(actual, sizeof actual, "build/tests/golden/%s.txt", name);
		spit(actual, text);
		fprintf(stderr, "golden %s differs: diff %s %s\n", path, path, actual);
	}
	return same;
}
