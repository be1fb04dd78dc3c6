/* Shared pieces of the demo scenarios: clocks, latency statistics, the
 * smtop_note_request hook, and the inference / training roles that run in a
 * thread or in a forked process and talk through pipes. */
#ifndef SMTOP_DEMO_RUN_CUH
#define SMTOP_DEMO_RUN_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>
#include "kernels/models.cuh"

struct demo_opts {
	const char *scenario;
	double seconds;
	int poisson;
	double rate;
	enum model_kind model;
	int batch;
	int unfused; /* inference runs the plain tape (--fusion off) */
};

struct lat {
	uint64_t *v;
	size_t n, cap;
};

uint64_t demo_now_real(void);
uint64_t demo_now_mono(void);
void lat_add(struct lat *l, uint64_t ns);
double lat_pct_ms(struct lat *l, double pct); /* sorts; 0 when empty */
void lat_free(struct lat *l);
void demo_note_request(void *stream, uint64_t start, uint64_t end, const char *label);

/* Makes a stream of the given priority; in a green context when `green` is a
 * CUgreenCtx, through cuGreenCtxStreamCreate fetched at run time. */
typedef cudaStream_t (*demo_stream_fn)(void *green, int priority);

struct role {
	const struct demo_opts *o;
	int priority;
	void *green;             /* CUgreenCtx or NULL */
	void *green_ctx;         /* its CUcontext, made current in the role's thread */
	demo_stream_fn make_stream;
	int fd_in, fd_out;       /* pipes to the other role, -1 when alone */
	int rc;                  /* 0 ok */
};

/* Inference: batch-1 requests, back-to-back or Poisson; a solo phase first
 * when a trainer is attached, then the contended phase.  Prints "summary". */
void *demo_infer_role(void *role);
/* Training: forward+backward+SGD steps until the inference role's deadline.
 * Prints "train". */
void *demo_train_role(void *role);

#endif
