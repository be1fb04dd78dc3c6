/* A program that loads and unloads modules for its whole life: one small
 * module (tests/gpu/modules/churn.cu, built as a fatbin) loaded ROUNDS
 * times, more than the patch switch has slots for modules
 * (collectors/patch_switch.c), with LIVE of them loaded at once, so that
 * each new module takes the slot of one unloaded.  Each round launches the
 * newest module's kernel and checks that every block wrote the round.
 *
 *   module_churn FATBIN [ROUNDS [LIVE]]
 *
 * Prints `rounds=N live=L blocks_per_kernel=B expected_blocks=T checked=C
 * seconds=S` (the rounds' time);
 * exits 1 on a CUDA error or a wrong block. */
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <time.h>

#include <cuda.h>

#include "kernels/cuda_check.cuh"
#include "tests/gpu/driver_modules.cuh"

#define CHURN_BLOCKS 264
#define CHURN_THREADS 64

struct churn_driver {
	CUresult (*load)(CUmodule *, const void *);
	CUresult (*function)(CUfunction *, CUmodule, const char *);
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			   CUstream, void **, void **);
	CUresult (*unload)(CUmodule);
};

/* The driver's module calls. */
static int churn_open_driver(struct churn_driver *d)
{
	d->load = (CUresult (*)(CUmodule *, const void *))driver_symbol("cuModuleLoadData");
	d->function = (CUresult (*)(CUfunction *, CUmodule, const char *))driver_symbol("cuModuleGetFunction");
	d->launch = (CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
				  CUstream, void **, void **))driver_symbol("cuLaunchKernel");
	d->unload = (CUresult (*)(CUmodule))driver_symbol("cuModuleUnload");
	return d->load && d->function && d->launch && d->unload ? 0 : -1;
}

static int churn_failed(const char *what, int round, CUresult r)
{
	fprintf(stderr, "module_churn: round %d: %s failed (CUresult %d)\n", round, what, (int)r);
	return 1;
}

/* One round: a new module, its kernel launched and checked; the oldest of
 * the live ones unloaded. */
static int churn_round(const struct churn_driver *d, const std::vector<char> &image, std::vector<CUmodule> &live,
		       size_t n_live, int *dev_out, int *host_out, int round)
{
	CUmodule mod;
	CUfunction fn;
	CUresult r;
	void *args[] = { &dev_out, &round };

	if ((r = d->load(&mod, image.data())) != CUDA_SUCCESS)
		return churn_failed("cuModuleLoadData", round, r);
	live.push_back(mod);
	if ((r = d->function(&fn, mod, "churn_mark")) != CUDA_SUCCESS)
		return churn_failed("cuModuleGetFunction", round, r);
	if ((r = d->launch(fn, CHURN_BLOCKS, 1, 1, CHURN_THREADS, 1, 1, 0, 0, args, NULL)) != CUDA_SUCCESS)
		return churn_failed("cuLaunchKernel", round, r);
	CK(cudaMemcpy(host_out, dev_out, CHURN_BLOCKS * sizeof(int), cudaMemcpyDeviceToHost));
	for (int b = 0; b < CHURN_BLOCKS; b++) {
		if (host_out[b] != round) {
			fprintf(stderr, "module_churn: round %d: block %d wrote %d\n", round, b, host_out[b]);
			return 1;
		}
	}
	if (live.size() > n_live) {
		if ((r = d->unload(live.front())) != CUDA_SUCCESS)
			return churn_failed("cuModuleUnload", round, r);
		live.erase(live.begin());
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct churn_driver d;
	std::vector<CUmodule> live;
	int rounds = argc > 2 ? atoi(argv[2]) : 10000;
	int n_live = argc > 3 ? atoi(argv[3]) : 8;
	int *dev_out, host_out[CHURN_BLOCKS];
	int checked = 0;

	if (argc < 2 || rounds < 1 || n_live < 1) {
		fprintf(stderr, "usage: module_churn FATBIN [ROUNDS [LIVE]]\n");
		return 2;
	}
	std::vector<char> image = read_image(argv[1]);
	if (image.empty()) {
		fprintf(stderr, "module_churn: %s: cannot read the module\n", argv[1]);
		return 2;
	}
	CK(cudaMalloc(&dev_out, CHURN_BLOCKS * sizeof(int)));
	if (churn_open_driver(&d) != 0) {
		fprintf(stderr, "module_churn: cannot find the driver's module calls in libcuda.so.1\n");
		return 1;
	}
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int round = 1; round <= rounds; round++, checked++)
		if (churn_round(&d, image, live, (size_t)n_live, dev_out, host_out, round) != 0)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("rounds=%d live=%d blocks_per_kernel=%d expected_blocks=%lld checked=%d seconds=%.2f\n", rounds, n_live,
	       CHURN_BLOCKS, (long long)rounds * CHURN_BLOCKS, checked,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
