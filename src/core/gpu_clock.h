/* The clock between a GPU's %globaltimer and CUPTI's time, and its fit
 * through samples: pure (db/reader.c takes the samples from a session). */
#ifndef SMTOP_CORE_GPU_CLOCK_H
#define SMTOP_CORE_GPU_CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* %globaltimer to CUPTI time: CUPTI = g + offset + (g - ref) * drift.  The
 * GPU's timer and the host clock CUPTI reports run at slightly different
 * rates, so one constant offset drifts blocks away from their kernels
 * (docs/session-format.md has the figures). */
struct gpu_clock {
	int64_t offset_ns;           /* at ref_ns */
	uint64_t ref_ns;             /* a %globaltimer time */
	int64_t drift_ppb;           /* offset change per second of globaltimer, ns */
};

static inline uint64_t gpu_clock_cupti(const struct gpu_clock *c, uint64_t g)
{
	uint64_t t = g + (uint64_t)c->offset_ns;

	if (c->drift_ppb) {
		double d = (double)(int64_t)(g - c->ref_ns) * (double)c->drift_ppb * 1e-9;

		t += (uint64_t)(int64_t)(d < 0 ? d - 0.5 : d + 0.5);
	}
	return t;
}

/* One sample: at globaltimer time g, CUPTI - globaltimer = diff. */
struct gpu_clock_sample {
	double g;
	int64_t diff;
};

/* The most samples a fit takes, the shortest base a drift is read over, and
 * the fastest drift believed (1000 ppm, far above any seen on a GPU). */
#define GPU_CLOCK_MAX_SAMPLES 8
#define GPU_CLOCK_MIN_BASE_NS 50000000ull
#define GPU_CLOCK_MAX_DRIFT 1e-3

/* Offset and drift through n (1 to GPU_CLOCK_MAX_SAMPLES) samples: the
 * median of the slopes between samples far enough apart (Theil-Sen: one odd
 * window cannot tilt it), then the median offset at the first sample under
 * that slope; ref_ns is the first sample's time. */
void gpu_clock_fit(const struct gpu_clock_sample *p, size_t n, struct gpu_clock *c);

#endif
