/* A launch-bound loop: the host's time per kernel launch call, the part a
 * collector adds to every launch of a program like eager ResNet inference.
 * Launches LAUNCHES tiny kernels of BLOCKS blocks on one stream, a
 * synchronize every 100 (the queue never fills, so a launch call's time is
 * its host part), and prints the median and p99 of the calls and the
 * loop's time per launch; then the median of the calls a framework makes
 * beside its launches (an event recorded, a stream queried, the device
 * asked), which a collector's presence may slow though it watches none:
 *   launch_us_p50=P launch_us_p99=Q per_launch_us=R launches=N blocks=B
 *   record_us_p50=E query_us_p50=S device_us_p50=D */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels/cuda_check.cuh"

__global__ void lr_touch(float *x)
{
	x[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
}

static double lr_us_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

/* The median time of CALLS calls of one kind, us. */
template <typename F> static double lr_median_us(int calls, F call)
{
	std::vector<double> us;

	us.reserve(calls);
	for (int i = 0; i < calls; i++) {
		auto t0 = std::chrono::steady_clock::now();
		call();
		us.push_back(lr_us_since(t0));
	}
	std::sort(us.begin(), us.end());
	return us[us.size() / 2];
}

int main(int argc, char **argv)
{
	int launches = argc > 1 ? atoi(argv[1]) : 20000;
	int blocks = argc > 2 ? atoi(argv[2]) : 64;
	const int threads = 128, per_sync = 100;
	std::vector<double> call_us;
	float *x;
	cudaStream_t s;

	if (launches < per_sync || blocks < 1) {
		fprintf(stderr, "usage: launch_rate [LAUNCHES >= %d] [BLOCKS >= 1]\n", per_sync);
		return 2;
	}
	CK(cudaMalloc(&x, (size_t)blocks * threads * sizeof(float)));
	CK(cudaStreamCreate(&s));
	for (int i = 0; i < 2 * per_sync; i++) /* warm: the module loaded, patched */
		lr_touch<<<blocks, threads, 0, s>>>(x);
	CK(cudaStreamSynchronize(s));
	call_us.reserve(launches);
	auto loop0 = std::chrono::steady_clock::now();
	for (int i = 0; i < launches; i++) {
		auto t0 = std::chrono::steady_clock::now();
		lr_touch<<<blocks, threads, 0, s>>>(x);
		call_us.push_back(lr_us_since(t0));
		if ((i + 1) % per_sync == 0)
			CK(cudaStreamSynchronize(s));
	}
	double loop_us = lr_us_since(loop0);
	CK(cudaGetLastError());
	std::sort(call_us.begin(), call_us.end());
	CK(cudaStreamSynchronize(s));
	cudaEvent_t e;
	int device;
	CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
	double record_us = lr_median_us(launches, [&] { CK(cudaEventRecord(e, s)); });
	CK(cudaStreamSynchronize(s));
	double query_us = lr_median_us(launches, [&] { CK(cudaStreamQuery(s)); });
	double device_us = lr_median_us(launches, [&] { CK(cudaGetDevice(&device)); });
	printf("launch_us_p50=%.2f launch_us_p99=%.2f per_launch_us=%.2f launches=%d blocks=%d"
	       " record_us_p50=%.3f query_us_p50=%.3f device_us_p50=%.3f\n",
	       call_us[call_us.size() / 2], call_us[call_us.size() * 99 / 100], loop_us / launches, launches,
	       blocks, record_us, query_us, device_us);
	return 0;
}
