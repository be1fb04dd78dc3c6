/* A launch-bound loop: the host's time per kernel launch call, the part a
 * collector adds to every launch of a program like eager ResNet inference.
 * Launches LAUNCHES tiny kernels of BLOCKS blocks on one stream, a
 * synchronize every 100 (the queue never fills, so a launch call's time is
 * its host part), and prints the median and p99 of the calls and the
 * loop's time per launch; then the median of the calls a framework makes
 * beside its launches (an event recorded, a stream queried, the device
 * asked, the stream asked whether it is capturing), which a collector's
 * presence may slow though it watches none, and of launches shaped as a
 * framework's: round-robin over LR_KERNELS kernels, and with a parameter
 * buffer of LR_PARAM_BYTES (a tensor iterator's offsets):
 *   launch_us_p50=P launch_us_p99=Q per_launch_us=R launches=N blocks=B
 *   record_us_p50=E query_us_p50=S device_us_p50=D capturing_us_p50=C
 *   kernels_us_p50=K param_us_p50=M */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "kernels/cuda_check.cuh"

#define LR_KERNELS 64
#define LR_PARAM_BYTES 1024

__global__ void lr_touch(float *x)
{
	x[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
}

/* LR_KERNELS functions of their own, as a framework's operators are. */
template <int K> __global__ void lr_touch_k(float *x)
{
	x[blockIdx.x * blockDim.x + threadIdx.x] += (float)K;
}

struct lr_param {
	float *x;
	char pad[LR_PARAM_BYTES - sizeof(float *)];
};

__global__ void lr_touch_param(lr_param p)
{
	p.x[blockIdx.x * blockDim.x + threadIdx.x] += (float)p.pad[threadIdx.x % 8];
}

typedef void (*lr_kernel)(float *);

template <int... K> static std::vector<lr_kernel> lr_kernels(std::integer_sequence<int, K...>)
{
	return { lr_touch_k<K>... };
}

static double lr_us_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

/* The median time of CALLS calls of one kind, us; after each, untimed,
 * between(i). */
template <typename F, typename G> static double lr_median_us(int calls, F call, G between)
{
	std::vector<double> us;

	us.reserve(calls);
	for (int i = 0; i < calls; i++) {
		auto t0 = std::chrono::steady_clock::now();
		call(i);
		us.push_back(lr_us_since(t0));
		between(i);
	}
	std::sort(us.begin(), us.end());
	return us[us.size() / 2];
}

template <typename F> static double lr_median_us(int calls, F call)
{
	return lr_median_us(calls, [&](int) { call(); }, [](int) {});
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
	cudaStreamCaptureStatus capturing;
	double capturing_us = lr_median_us(launches, [&] { CK(cudaStreamIsCapturing(s, &capturing)); });
	std::vector<lr_kernel> kernels = lr_kernels(std::make_integer_sequence<int, LR_KERNELS>());
	for (lr_kernel k : kernels) /* each one's function loaded (lazily) and patched */
		k<<<blocks, threads, 0, s>>>(x);
	CK(cudaStreamSynchronize(s));
	/* a synchronize every 100, untimed, as in the loop */
	auto sync_often = [&](int i) { if ((i + 1) % per_sync == 0) CK(cudaStreamSynchronize(s)); };
	double kernels_us = lr_median_us(launches,
		[&](int i) { kernels[i % LR_KERNELS]<<<blocks, threads, 0, s>>>(x); }, sync_often);
	lr_param p = {};
	p.x = x;
	double param_us = lr_median_us(launches,
		[&](int) { lr_touch_param<<<blocks, threads, 0, s>>>(p); }, sync_often);
	CK(cudaStreamSynchronize(s));
	CK(cudaGetLastError());
	printf("launch_us_p50=%.2f launch_us_p99=%.2f per_launch_us=%.2f launches=%d blocks=%d"
	       " record_us_p50=%.3f query_us_p50=%.3f device_us_p50=%.3f capturing_us_p50=%.3f"
	       " kernels_us_p50=%.2f param_us_p50=%.2f\n",
	       call_us[call_us.size() / 2], call_us[call_us.size() * 99 / 100], loop_us / launches, launches,
	       blocks, record_us, query_us, device_us, capturing_us, kernels_us, param_us);
	return 0;
}
