/* DNN layers: see layers.cuh for layout and accumulation conventions. */
#include "kernels/layers.cuh"
#include "kernels/cuda_check.cuh"
#include "src/core/smtop_trace.cuh"

#define EW_THREADS 256
#define EW_PER_THREAD 8
#define GEMM_BK 16

/* Per thread: the demo's inference and training roles share a process. */
static thread_local unsigned long launches;
#define LAUNCHED()             \
	do {                   \
		CK_LAUNCH();   \
		launches++;    \
	} while (0)

unsigned long layers_launches(void)
{
	return launches;
}

int layers_sm_count(void)
{
	static int sms;
	if (sms == 0) {
		int dev = 0;
		CK(cudaGetDevice(&dev));
		CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	}
	return sms;
}

static unsigned ew_blocks(size_t n)
{
	size_t per_block = (size_t)EW_THREADS * EW_PER_THREAD;
	return (unsigned)((n + per_block - 1) / per_block);
}

void conv_shape_init(struct conv_shape *s, int cin, int n, int h, int w, int cout, int k, int stride, int pad)
{
	s->cin = cin;
	s->n = n;
	s->h = h;
	s->w = w;
	s->cout = cout;
	s->kh = k;
	s->kw = k;
	s->stride = stride;
	s->pad = pad;
	s->oh = (h + 2 * pad - k) / stride + 1;
	s->ow = (w + 2 * pad - k) / stride + 1;
}

void pool_shape_init(struct pool_shape *s, int c, int n, int h, int w, int k, int stride, int pad)
{
	s->c = c;
	s->n = n;
	s->h = h;
	s->w = w;
	s->k = k;
	s->stride = stride;
	s->pad = pad;
	s->oh = (h + 2 * pad - k) / stride + 1;
	s->ow = (w + 2 * pad - k) / stride + 1;
}

/* ---- GEMM core ----------------------------------------------------------
 * C[m][n] = sum_k A(m, k) B(k, n), with A, B and the store given by a problem
 * struct, so im2col and its transposes are gathered on the fly.  Each thread
 * owns a 4x4 output tile; blockIdx.z splits K (the store then accumulates
 * atomically).  A_K_FAST / B_K_FAST say which index is contiguous in memory,
 * so tile loads walk it with consecutive threads. */
template <int BM, int BN, class P>
__global__ void __launch_bounds__((BM / 4) * (BN / 4)) gemm_kernel(P p)
{
	SMTOP_BLOCK_BEGIN();
	const int nthreads = (BM / 4) * (BN / 4);
	__shared__ float as[GEMM_BK][BM + 1];
	__shared__ float bs[GEMM_BK][BN + 1];
	int tid = threadIdx.x;
	int tm = tid % (BM / 4), tn = tid / (BM / 4);
	int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
	int kbeg = blockIdx.z * p.kchunk;
	int kend = min(p.k, kbeg + p.kchunk);
	float acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.f;

	for (int k0 = kbeg; k0 < kend; k0 += GEMM_BK) {
		for (int i = tid; i < GEMM_BK * BM; i += nthreads) {
			int kk = P::A_K_FAST ? i % GEMM_BK : i / BM;
			int mm = P::A_K_FAST ? i / GEMM_BK : i % BM;
			int m = m0 + mm, k = k0 + kk;
			as[kk][mm] = (m < p.m && k < kend) ? p.a(m, k) : 0.f;
		}
		for (int i = tid; i < GEMM_BK * BN; i += nthreads) {
			int kk = P::B_K_FAST ? i % GEMM_BK : i / BN;
			int nn = P::B_K_FAST ? i / GEMM_BK : i % BN;
			int n = n0 + nn, k = k0 + kk;
			bs[kk][nn] = (n < p.n && k < kend) ? p.b(k, n) : 0.f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < GEMM_BK; kk++) {
			float a[4], b[4];
			for (int i = 0; i < 4; i++)
				a[i] = as[kk][tm * 4 + i];
			for (int j = 0; j < 4; j++)
				b[j] = bs[kk][tn * 4 + j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] += a[i] * b[j];
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			int m = m0 + tm * 4 + i, n = n0 + tn * 4 + j;
			if (m < p.m && n < p.n && kbeg < kend)
				p.store(m, n, acc[i][j], blockIdx.z);
		}
	SMTOP_BLOCK_END();
}

/* Picks the tile so a batch-1 layer still gets enough blocks to spread over
 * the GPU (as cuDNN's kernels do), and splits K when M x N alone is small. */
template <class P>
static void gemm_launch(P p, int allow_split, cudaStream_t st)
{
	int sms = layers_sm_count();
	long tiles64 = (long)((p.m + 63) / 64) * ((p.n + 63) / 64);
	int big = tiles64 >= sms;
	int bm = big ? 64 : 32, bn = bm;
	long tiles = (long)((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn);
	int splits = 1;
	if (allow_split && tiles < 2 * sms) {
		long want = (2 * sms + tiles - 1) / tiles;
		long most = (p.k + 4 * GEMM_BK - 1) / (4 * GEMM_BK); /* at least 4 K tiles each */
		splits = (int)(want < most ? want : most);
		if (splits < 1)
			splits = 1;
		if (splits > 256)
			splits = 256;
	}
	int chunk = (p.k + splits - 1) / splits;
	p.kchunk = (chunk + GEMM_BK - 1) / GEMM_BK * GEMM_BK;
	splits = (p.k + p.kchunk - 1) / p.kchunk;
	dim3 grid((p.m + bm - 1) / bm, (p.n + bn - 1) / bn, splits);
	if (big)
		gemm_kernel<64, 64, P><<<grid, 256, 0, st>>>(p);
	else
		gemm_kernel<32, 32, P><<<grid, 64, 0, st>>>(p);
	LAUNCHED();
}

/* ---- convolution as implicit GEMM ---- */
/* The input element that output row m (image, oh, ow) meets at reduction
 * index k (ci, kh, kw), or NULL where the window lies in the padding. */
static __device__ __forceinline__ const float *conv_src(const struct conv_shape &s, const float *x, int m, int k,
							int *ci_out)
{
	int ohw = s.oh * s.ow, khw = s.kh * s.kw;
	int img = m / ohw, r = m % ohw, oh = r / s.ow, ow = r % s.ow;
	int ci = k / khw, rr = k % khw, kh = rr / s.kw, kw = rr % s.kw;
	int ih = oh * s.stride - s.pad + kh, iw = ow * s.stride - s.pad + kw;
	*ci_out = ci;
	if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w)
		return NULL;
	return &x[(((size_t)ci * s.n + img) * s.h + ih) * s.w + iw];
}

struct conv_fwd_p {
	enum { A_K_FAST = 0, B_K_FAST = 1 };
	int m, n, k, kchunk;
	struct conv_shape s;
	const float *x, *w;
	float *y;
	__device__ float a(int m, int k) const
	{
		int ci;
		const float *src = conv_src(s, x, m, k, &ci);
		return src ? *src : 0.f;
	}
	__device__ float b(int k, int n) const { return w[(size_t)n * this->k + k]; }
	__device__ void store(int m, int n, float v, int split) const
	{
		if (kchunk >= this->k)
			y[(size_t)n * this->m + m] = v;
		else
			atomicAdd(&y[(size_t)n * this->m + m], v);
		(void)split;
	}
};

void conv2d_fwd(const struct conv_shape *s, const float *x, const float *w, float *y, cudaStream_t st)
{
	struct conv_fwd_p p;
	p.s = *s;
	p.m = s->n * s->oh * s->ow;
	p.n = s->cout;
	p.k = s->cin * s->kh * s->kw;
	p.x = x;
	p.w = w;
	p.y = y;
	/* No split: a forward conv already has M x N tiles to spare, and an
	 * atomic store would need y zeroed first. */
	gemm_launch(p, 0, st);
}

/* The same GEMM with the neighbouring layers' work in its load and store
 * (layers.cuh, struct conv_fusion): its own type, so its own kernel name in
 * a trace, and the plain convolution keeps its code. */
struct conv_fused_p {
	enum { A_K_FAST = 0, B_K_FAST = 1 };
	int m, n, k, kchunk;
	struct conv_shape s;
	const float *x, *w;
	float *y;
	struct conv_fusion f;
	__device__ float a(int m, int k) const
	{
		int ci;
		const float *src = conv_src(s, x, m, k, &ci);
		if (!src)
			return 0.f; /* padding: zero after the transform, not relu(shift) */
		float v = *src;
		if (f.in_scale)
			v *= f.in_scale[ci];
		if (f.in_shift)
			v += f.in_shift[ci];
		return f.in_relu ? fmaxf(v, 0.f) : v;
	}
	__device__ float b(int k, int n) const { return w[(size_t)n * this->k + k]; }
	__device__ void store(int m, int n, float v, int split) const
	{
		size_t i = (size_t)n * this->m + m;
		if (f.out_scale)
			v *= f.out_scale[n];
		if (f.out_shift)
			v += f.out_shift[n];
		if (f.res)
			v += f.res[i];
		y[i] = f.out_relu ? fmaxf(v, 0.f) : v;
		(void)split;
	}
};

void conv2d_fwd_fused(const struct conv_shape *s, const float *x, const float *w, float *y,
		      const struct conv_fusion *f, cudaStream_t st)
{
	struct conv_fused_p p;
	p.s = *s;
	p.m = s->n * s->oh * s->ow;
	p.n = s->cout;
	p.k = s->cin * s->kh * s->kw;
	p.x = x;
	p.w = w;
	p.y = y;
	p.f = *f;
	/* Never split K: the epilogue is not linear in a partial sum. */
	gemm_launch(p, 0, st);
}

struct conv_bwd_data_p {
	enum { A_K_FAST = 0, B_K_FAST = 0 };
	int m, n, k, kchunk;
	struct conv_shape s;
	const float *dy, *w;
	float *dx;
	__device__ float a(int m, int k) const
	{
		int hw = s.h * s.w, khw = s.kh * s.kw;
		int img = m / hw, r = m % hw, ih = r / s.w, iw = r % s.w;
		int co = k / khw, rr = k % khw, kh = rr / s.kw, kw = rr % s.kw;
		int th = ih + s.pad - kh, tw = iw + s.pad - kw;
		if (th < 0 || tw < 0 || th % s.stride || tw % s.stride)
			return 0.f;
		int oh = th / s.stride, ow = tw / s.stride;
		if (oh >= s.oh || ow >= s.ow)
			return 0.f;
		return dy[(((size_t)co * s.n + img) * s.oh + oh) * s.ow + ow];
	}
	__device__ float b(int k, int ci) const
	{
		int khw = s.kh * s.kw;
		int co = k / khw, rr = k % khw;
		return w[((size_t)co * s.cin + ci) * khw + rr];
	}
	__device__ void store(int m, int ci, float v, int split) const
	{
		dx[(size_t)ci * this->m + m] += v;
		(void)split;
	}
};

void conv2d_bwd_data(const struct conv_shape *s, const float *dy, const float *w, float *dx, cudaStream_t st)
{
	struct conv_bwd_data_p p;
	p.s = *s;
	p.m = s->n * s->h * s->w;
	p.n = s->cin;
	p.k = s->cout * s->kh * s->kw;
	p.dy = dy;
	p.w = w;
	p.dx = dx;
	gemm_launch(p, 0, st);
}

struct conv_bwd_weight_p {
	enum { A_K_FAST = 1, B_K_FAST = 1 };
	int m, n, k, kchunk;
	struct conv_shape s;
	const float *dy, *x;
	float *dw;
	__device__ float a(int co, int k) const { return dy[(size_t)co * this->k + k]; }
	__device__ float b(int k, int col) const
	{
		int ohw = s.oh * s.ow, khw = s.kh * s.kw;
		int img = k / ohw, r = k % ohw, oh = r / s.ow, ow = r % s.ow;
		int ci = col / khw, rr = col % khw, kh = rr / s.kw, kw = rr % s.kw;
		int ih = oh * s.stride - s.pad + kh, iw = ow * s.stride - s.pad + kw;
		if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w)
			return 0.f;
		return x[(((size_t)ci * s.n + img) * s.h + ih) * s.w + iw];
	}
	__device__ void store(int co, int col, float v, int split) const
	{
		atomicAdd(&dw[(size_t)co * this->n + col], v);
		(void)split;
	}
};

void conv2d_bwd_weight(const struct conv_shape *s, const float *dy, const float *x, float *dw, cudaStream_t st)
{
	struct conv_bwd_weight_p p;
	p.s = *s;
	p.m = s->cout;
	p.n = s->cin * s->kh * s->kw;
	p.k = s->n * s->oh * s->ow;
	p.dy = dy;
	p.x = x;
	p.dw = dw;
	gemm_launch(p, 1, st);
}

/* ---- linear ---- */
static __device__ __forceinline__ size_t lin_index(int f, int n, int hw, int batch)
{
	return ((size_t)(f / hw) * batch + n) * hw + f % hw;
}

struct linear_fwd_p {
	enum { A_K_FAST = 1, B_K_FAST = 1 };
	int m, n, k, kchunk;
	int hw;
	const float *x, *w, *bias;
	float *y;
	__device__ float a(int o, int f) const { return w[(size_t)o * k + f]; }
	__device__ float b(int f, int img) const { return x[lin_index(f, img, hw, n)]; }
	__device__ void store(int o, int img, float v, int split) const
	{
		if (split == 0 && bias)
			v += bias[o];
		atomicAdd(&y[(size_t)o * n + img], v);
	}
};

void linear_fwd(int f, int hw, int n, int o, const float *x, const float *w, const float *b, float *y,
		cudaStream_t st)
{
	struct linear_fwd_p p;
	p.m = o;
	p.n = n;
	p.k = f;
	p.hw = hw;
	p.x = x;
	p.w = w;
	p.bias = b;
	p.y = y;
	CK(cudaMemsetAsync(y, 0, sizeof(float) * (size_t)o * n, st));
	gemm_launch(p, 1, st);
}

struct linear_bwd_data_p {
	enum { A_K_FAST = 0, B_K_FAST = 1 };
	int m, n, k, kchunk;
	int hw;
	const float *dy, *w;
	float *dx;
	__device__ float a(int f, int o) const { return w[(size_t)o * m + f]; }
	__device__ float b(int o, int img) const { return dy[(size_t)o * n + img]; }
	__device__ void store(int f, int img, float v, int split) const
	{
		dx[lin_index(f, img, hw, n)] += v;
		(void)split;
	}
};

void linear_bwd_data(int f, int hw, int n, int o, const float *dy, const float *w, float *dx, cudaStream_t st)
{
	struct linear_bwd_data_p p;
	p.m = f;
	p.n = n;
	p.k = o;
	p.hw = hw;
	p.dy = dy;
	p.w = w;
	p.dx = dx;
	gemm_launch(p, 0, st);
}

struct linear_bwd_weight_p {
	enum { A_K_FAST = 1, B_K_FAST = 0 };
	int m, n, k, kchunk;
	int hw;
	const float *dy, *x;
	float *dw;
	__device__ float a(int o, int img) const { return dy[(size_t)o * k + img]; }
	__device__ float b(int img, int f) const { return x[lin_index(f, img, hw, k)]; }
	__device__ void store(int o, int f, float v, int split) const
	{
		atomicAdd(&dw[(size_t)o * n + f], v);
		(void)split;
	}
};

void linear_bwd_weight(int f, int hw, int n, int o, const float *dy, const float *x, float *dw, cudaStream_t st)
{
	struct linear_bwd_weight_p p;
	p.m = o;
	p.n = f;
	p.k = n;
	p.hw = hw;
	p.dy = dy;
	p.x = x;
	p.dw = dw;
	gemm_launch(p, 1, st);
}

/* ---- elementwise ---- */
static __device__ __forceinline__ size_t ew_index(void)
{
	return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

/* Elementwise kernels stride over the grid, EW_PER_THREAD elements a thread,
 * as framework kernels do (one block per 256 elements would launch 100,000
 * blocks per layer of a batch-32 ResNet). */
static __device__ __forceinline__ size_t ew_stride(void)
{
	return (size_t)gridDim.x * blockDim.x;
}

__global__ void bias_act_fwd_kernel(const float *x, const float *b, float *y, size_t inner, size_t total, int relu)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < total; i += ew_stride()) {
		float v = x[i] + (b ? b[i / inner] : 0.f);
		y[i] = relu ? fmaxf(v, 0.f) : v;
	}
	SMTOP_BLOCK_END();
}

void bias_act_fwd(const float *x, const float *b, float *y, int c, size_t inner, int relu, cudaStream_t st)
{
	size_t total = (size_t)c * inner;
	bias_act_fwd_kernel<<<ew_blocks(total), EW_THREADS, 0, st>>>(x, b, y, inner, total, relu);
	LAUNCHED();
}

__global__ void affine_act_fwd_kernel(const float *x, const float *scale, const float *shift, float *y, size_t inner,
				      size_t total, int relu)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < total; i += ew_stride()) {
		size_t c = i / inner;
		float v = x[i] * scale[c] + shift[c];
		y[i] = relu ? fmaxf(v, 0.f) : v;
	}
	SMTOP_BLOCK_END();
}

void affine_act_fwd(const float *x, const float *scale, const float *shift, float *y, int c, size_t inner,
		    int relu, cudaStream_t st)
{
	size_t total = (size_t)c * inner;
	affine_act_fwd_kernel<<<ew_blocks(total), EW_THREADS, 0, st>>>(x, scale, shift, y, inner, total, relu);
	LAUNCHED();
}

__global__ void relu_bwd_kernel(const float *dy, const float *y, float *dx, size_t total)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < total; i += ew_stride())
		dx[i] += y[i] > 0.f ? dy[i] : 0.f;
	SMTOP_BLOCK_END();
}

void relu_fwd(const float *x, float *y, size_t n, cudaStream_t st)
{
	bias_act_fwd_kernel<<<ew_blocks(n), EW_THREADS, 0, st>>>(x, NULL, y, 1, n, 1);
	LAUNCHED();
}

void relu_bwd(const float *dy, const float *y, float *dx, size_t n, cudaStream_t st)
{
	relu_bwd_kernel<<<ew_blocks(n), EW_THREADS, 0, st>>>(dy, y, dx, n);
	LAUNCHED();
}

/* Per-channel sums are split over several blocks per channel (blockIdx.y)
 * so a big channel does not serialise on one SM; partial sums meet in
 * double atomics, which also keeps E[x^2] - E[x]^2 usable. */
#define RED_PER_BLOCK (EW_THREADS * 16)

static __device__ double block_sum(double v, double *scratch)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		scratch[warp] = v;
	__syncthreads();
	double t = 0;
	if (threadIdx.x == 0)
		for (int i = 0; i < (int)(blockDim.x >> 5); i++)
			t += scratch[i];
	__syncthreads();
	return t; /* valid in thread 0 */
}

static dim3 red_grid(int c, size_t inner)
{
	size_t parts = (inner + RED_PER_BLOCK - 1) / RED_PER_BLOCK;
	if (parts > 1024)
		parts = 1024;
	return dim3((unsigned)c, (unsigned)parts);
}

/* out[c] += sum(dy) (masked by y > 0 when y is given); float output. */
__global__ void channel_sum_kernel(const float *dy, const float *y, float *out, size_t inner)
{
	SMTOP_BLOCK_BEGIN();
	__shared__ double scratch[32];
	int c = blockIdx.x;
	const float *d = dy + (size_t)c * inner;
	const float *yy = y ? y + (size_t)c * inner : NULL;
	float s = 0.f;
	for (size_t i = (size_t)blockIdx.y * blockDim.x + threadIdx.x; i < inner; i += (size_t)gridDim.y * blockDim.x)
		s += (yy == NULL || yy[i] > 0.f) ? d[i] : 0.f;
	double t = block_sum(s, scratch);
	if (threadIdx.x == 0)
		atomicAdd(&out[c], (float)t);
	SMTOP_BLOCK_END();
}

void channel_sum(const float *dy, const float *y, float *db, int c, size_t inner, cudaStream_t st)
{
	channel_sum_kernel<<<red_grid(c, inner), EW_THREADS, 0, st>>>(dy, y, db, inner);
	LAUNCHED();
}

void bias_act_bwd(const float *dy, const float *y, float *dx, float *db, int c, size_t inner, int relu,
		  cudaStream_t st)
{
	size_t total = (size_t)c * inner;
	if (relu)
		relu_bwd(dy, y, dx, total, st);
	else
		accumulate(dy, dx, total, st);
	if (db)
		channel_sum(dy, relu ? y : NULL, db, c, inner, st);
}

__global__ void add_kernel(const float *a, const float *b, float *y, size_t n, int acc)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < n; i += ew_stride())
		y[i] = (acc ? y[i] : 0.f) + a[i] + (b ? b[i] : 0.f);
	SMTOP_BLOCK_END();
}

void add_fwd(const float *a, const float *b, float *y, size_t n, cudaStream_t st)
{
	add_kernel<<<ew_blocks(n), EW_THREADS, 0, st>>>(a, b, y, n, 0);
	LAUNCHED();
}

void copy_fwd(const float *x, float *y, size_t n, cudaStream_t st)
{
	add_kernel<<<ew_blocks(n), EW_THREADS, 0, st>>>(x, NULL, y, n, 0);
	LAUNCHED();
}

void accumulate(const float *dy, float *dx, size_t n, cudaStream_t st)
{
	add_kernel<<<ew_blocks(n), EW_THREADS, 0, st>>>(dy, NULL, dx, n, 1);
	LAUNCHED();
}

/* ---- batch norm ---- */
__global__ void bn_infer_kernel(const float *x, float *y, const float *gamma, const float *beta,
				const float *mean, const float *var, size_t inner, size_t total)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < total; i += ew_stride()) {
		int c = (int)(i / inner);
		y[i] = (x[i] - mean[c]) * rsqrtf(var[c] + BN_EPS) * gamma[c] + beta[c];
	}
	SMTOP_BLOCK_END();
}

void bn_fwd_infer(const float *x, float *y, const float *gamma, const float *beta, const float *rmean,
		  const float *rvar, int c, size_t inner, cudaStream_t st)
{
	size_t total = (size_t)c * inner;
	bn_infer_kernel<<<ew_blocks(total), EW_THREADS, 0, st>>>(x, y, gamma, beta, rmean, rvar, inner, total);
	LAUNCHED();
}

__global__ void bn_fold_kernel(const float *gamma, const float *beta, const float *mean, const float *var,
			       float *scale, float *shift, int c)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < c) {
		float sc = gamma[i] * rsqrtf(var[i] + BN_EPS);
		scale[i] = sc;
		shift[i] = beta[i] - mean[i] * sc;
	}
}

/* Set-up, not workload (once per model, like the fill kernels): uninstrumented. */
void bn_fold(const float *gamma, const float *beta, const float *rmean, const float *rvar, float *scale,
	     float *shift, int c, cudaStream_t st)
{
	bn_fold_kernel<<<(c + 127) / 128, 128, 0, st>>>(gamma, beta, rmean, rvar, scale, shift, c);
	LAUNCHED();
}

__global__ void bn_stats_kernel(const float *x, double *sums, size_t inner)
{
	SMTOP_BLOCK_BEGIN();
	__shared__ double scratch[32];
	int c = blockIdx.x;
	const float *xc = x + (size_t)c * inner;
	float s = 0.f, q = 0.f;
	for (size_t i = (size_t)blockIdx.y * blockDim.x + threadIdx.x; i < inner; i += (size_t)gridDim.y * blockDim.x) {
		float v = xc[i];
		s += v;
		q += v * v;
	}
	double ts = block_sum(s, scratch);
	double tq = block_sum(q, scratch);
	if (threadIdx.x == 0) {
		atomicAdd(&sums[2 * c], ts);
		atomicAdd(&sums[2 * c + 1], tq);
	}
	SMTOP_BLOCK_END();
}

__global__ void bn_finalize_kernel(const double *sums, float *rmean, float *rvar, float *smean, float *sinvstd,
				   int c, size_t inner)
{
	SMTOP_BLOCK_BEGIN();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < c) {
		double mean = sums[2 * i] / (double)inner;
		double var = sums[2 * i + 1] / (double)inner - mean * mean;
		if (var < 0)
			var = 0;
		smean[i] = (float)mean;
		sinvstd[i] = (float)(1.0 / sqrt(var + BN_EPS));
		double unbiased = inner > 1 ? var * (double)inner / (double)(inner - 1) : var;
		rmean[i] = (1.f - BN_MOMENTUM) * rmean[i] + BN_MOMENTUM * (float)mean;
		rvar[i] = (1.f - BN_MOMENTUM) * rvar[i] + BN_MOMENTUM * (float)unbiased;
	}
	SMTOP_BLOCK_END();
}

__global__ void bn_apply_kernel(const float *x, float *y, const float *gamma, const float *beta,
				const float *smean, const float *sinvstd, size_t inner, size_t total)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < total; i += ew_stride()) {
		int c = (int)(i / inner);
		y[i] = (x[i] - smean[c]) * sinvstd[c] * gamma[c] + beta[c];
	}
	SMTOP_BLOCK_END();
}

void bn_fwd_train(const float *x, float *y, const float *gamma, const float *beta, float *rmean, float *rvar,
		  float *smean, float *sinvstd, double *sums, int c, size_t inner, cudaStream_t st)
{
	size_t total = (size_t)c * inner;
	CK(cudaMemsetAsync(sums, 0, sizeof(double) * 2 * c, st));
	bn_stats_kernel<<<red_grid(c, inner), EW_THREADS, 0, st>>>(x, sums, inner);
	LAUNCHED();
	bn_finalize_kernel<<<(c + 127) / 128, 128, 0, st>>>(sums, rmean, rvar, smean, sinvstd, c, inner);
	LAUNCHED();
	bn_apply_kernel<<<ew_blocks(total), EW_THREADS, 0, st>>>(x, y, gamma, beta, smean, sinvstd, inner, total);
	LAUNCHED();
}

/* sums[2c] = sum(dy), sums[2c+1] = sum(dy * xhat). */
__global__ void bn_bwd_reduce_kernel(const float *dy, const float *x, const float *smean, const float *sinvstd,
				     double *sums, size_t inner)
{
	SMTOP_BLOCK_BEGIN();
	__shared__ double scratch[32];
	int c = blockIdx.x;
	const float *d = dy + (size_t)c * inner, *xc = x + (size_t)c * inner;
	float mean = smean[c], inv = sinvstd[c];
	float s = 0.f, sx = 0.f;
	for (size_t i = (size_t)blockIdx.y * blockDim.x + threadIdx.x; i < inner; i += (size_t)gridDim.y * blockDim.x) {
		s += d[i];
		sx += d[i] * (xc[i] - mean) * inv;
	}
	double ts = block_sum(s, scratch);
	double tx = block_sum(sx, scratch);
	if (threadIdx.x == 0) {
		atomicAdd(&sums[2 * c], ts);
		atomicAdd(&sums[2 * c + 1], tx);
	}
	SMTOP_BLOCK_END();
}

__global__ void bn_bwd_apply_kernel(const float *dy, const float *x, float *dx, const float *gamma, float *dgamma,
				    float *dbeta, const float *smean, const float *sinvstd, const double *sums,
				    size_t inner, size_t total)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < total; i += ew_stride()) {
		int c = (int)(i / inner);
		size_t j = i - (size_t)c * inner;
		float sdy = (float)sums[2 * c], sdx = (float)sums[2 * c + 1];
		float inv = sinvstd[c], m = (float)inner;
		float xhat = (x[i] - smean[c]) * inv;
		dx[i] += gamma[c] * inv / m * (m * dy[i] - sdy - xhat * sdx);
		if (j == 0) {
			dgamma[c] += sdx;
			dbeta[c] += sdy;
		}
	}
	SMTOP_BLOCK_END();
}

void bn_bwd(const float *dy, const float *x, float *dx, const float *gamma, float *dgamma, float *dbeta,
	    const float *smean, const float *sinvstd, double *sums, int c, size_t inner, cudaStream_t st)
{
	size_t total = (size_t)c * inner;
	CK(cudaMemsetAsync(sums, 0, sizeof(double) * 2 * c, st));
	bn_bwd_reduce_kernel<<<red_grid(c, inner), EW_THREADS, 0, st>>>(dy, x, smean, sinvstd, sums, inner);
	LAUNCHED();
	bn_bwd_apply_kernel<<<ew_blocks(total), EW_THREADS, 0, st>>>(dy, x, dx, gamma, dgamma, dbeta, smean, sinvstd,
								     sums, inner, total);
	LAUNCHED();
}

/* ---- pooling ---- */
__global__ void maxpool_fwd_kernel(struct pool_shape s, const float *x, float *y, int *idx, size_t total)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < total; i += ew_stride()) {
		int ow = (int)(i % s.ow), oh = (int)(i / s.ow % s.oh);
		size_t plane = i / ((size_t)s.oh * s.ow);
		const float *xp = x + plane * s.h * s.w;
		float best = -INFINITY;
		int arg = -1;
		for (int kh = 0; kh < s.k; kh++)
			for (int kw = 0; kw < s.k; kw++) {
				int ih = oh * s.stride - s.pad + kh, iw = ow * s.stride - s.pad + kw;
				if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w)
					continue;
				float v = xp[ih * s.w + iw];
				if (v > best || arg < 0) {
					best = v;
					arg = ih * s.w + iw;
				}
			}
		y[i] = best;
		idx[i] = arg;
	}
	SMTOP_BLOCK_END();
}

/* The output windows that can contain input row ih: a gather, so no atomics. */
static __device__ __forceinline__ void pool_range(int i, int pad, int k, int stride, int out, int *lo, int *hi)
{
	int t = i + pad - k + 1;
	*lo = t <= 0 ? 0 : (t + stride - 1) / stride;
	*hi = (i + pad) / stride;
	if (*hi >= out)
		*hi = out - 1;
}

__global__ void maxpool_bwd_kernel(struct pool_shape s, const float *dy, const int *idx, float *dx, size_t total)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < total; i += ew_stride()) {
		int iw = (int)(i % s.w), ih = (int)(i / s.w % s.h);
		size_t plane = i / ((size_t)s.h * s.w);
		int h0, h1, w0, w1;
		pool_range(ih, s.pad, s.k, s.stride, s.oh, &h0, &h1);
		pool_range(iw, s.pad, s.k, s.stride, s.ow, &w0, &w1);
		float g = 0.f;
		int me = ih * s.w + iw;
		for (int oh = h0; oh <= h1; oh++)
			for (int ow = w0; ow <= w1; ow++) {
				size_t o = (plane * s.oh + oh) * s.ow + ow;
				if (idx[o] == me)
					g += dy[o];
			}
		dx[i] += g;
	}
	SMTOP_BLOCK_END();
}

__global__ void avgpool_fwd_kernel(struct pool_shape s, const float *x, float *y, size_t total)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < total; i += ew_stride()) {
		int ow = (int)(i % s.ow), oh = (int)(i / s.ow % s.oh);
		size_t plane = i / ((size_t)s.oh * s.ow);
		const float *xp = x + plane * s.h * s.w;
		float sum = 0.f;
		for (int kh = 0; kh < s.k; kh++)
			for (int kw = 0; kw < s.k; kw++) {
				int ih = oh * s.stride - s.pad + kh, iw = ow * s.stride - s.pad + kw;
				if (ih >= 0 && ih < s.h && iw >= 0 && iw < s.w)
					sum += xp[ih * s.w + iw];
			}
		y[i] = sum / (float)(s.k * s.k);
	}
	SMTOP_BLOCK_END();
}

__global__ void avgpool_bwd_kernel(struct pool_shape s, const float *dy, float *dx, size_t total)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < total; i += ew_stride()) {
		int iw = (int)(i % s.w), ih = (int)(i / s.w % s.h);
		size_t plane = i / ((size_t)s.h * s.w);
		int h0, h1, w0, w1;
		pool_range(ih, s.pad, s.k, s.stride, s.oh, &h0, &h1);
		pool_range(iw, s.pad, s.k, s.stride, s.ow, &w0, &w1);
		float g = 0.f;
		for (int oh = h0; oh <= h1; oh++)
			for (int ow = w0; ow <= w1; ow++)
				g += dy[(plane * s.oh + oh) * s.ow + ow];
		dx[i] += g / (float)(s.k * s.k);
	}
	SMTOP_BLOCK_END();
}

void maxpool_fwd(const struct pool_shape *s, const float *x, float *y, int *idx, cudaStream_t st)
{
	size_t total = (size_t)s->c * s->n * s->oh * s->ow;
	maxpool_fwd_kernel<<<ew_blocks(total), EW_THREADS, 0, st>>>(*s, x, y, idx, total);
	LAUNCHED();
}

void maxpool_bwd(const struct pool_shape *s, const float *dy, const int *idx, float *dx, cudaStream_t st)
{
	size_t total = (size_t)s->c * s->n * s->h * s->w;
	maxpool_bwd_kernel<<<ew_blocks(total), EW_THREADS, 0, st>>>(*s, dy, idx, dx, total);
	LAUNCHED();
}

void avgpool_fwd(const struct pool_shape *s, const float *x, float *y, cudaStream_t st)
{
	size_t total = (size_t)s->c * s->n * s->oh * s->ow;
	avgpool_fwd_kernel<<<ew_blocks(total), EW_THREADS, 0, st>>>(*s, x, y, total);
	LAUNCHED();
}

void avgpool_bwd(const struct pool_shape *s, const float *dy, float *dx, cudaStream_t st)
{
	size_t total = (size_t)s->c * s->n * s->h * s->w;
	avgpool_bwd_kernel<<<ew_blocks(total), EW_THREADS, 0, st>>>(*s, dy, dx, total);
	LAUNCHED();
}

/* ---- softmax: one block per column ---- */
__global__ void softmax_kernel(const float *logits, float *p, int o, int n)
{
	SMTOP_BLOCK_BEGIN();
	__shared__ float red[EW_THREADS];
	int col = blockIdx.x;
	float mx = -INFINITY;
	for (int i = threadIdx.x; i < o; i += blockDim.x)
		mx = fmaxf(mx, logits[(size_t)i * n + col]);
	red[threadIdx.x] = mx;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s)
			red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
		__syncthreads();
	}
	mx = red[0];
	__syncthreads();
	float sum = 0.f;
	for (int i = threadIdx.x; i < o; i += blockDim.x)
		sum += __expf(logits[(size_t)i * n + col] - mx);
	red[threadIdx.x] = sum;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	sum = red[0];
	for (int i = threadIdx.x; i < o; i += blockDim.x)
		p[(size_t)i * n + col] = __expf(logits[(size_t)i * n + col] - mx) / sum;
	SMTOP_BLOCK_END();
}

void softmax_fwd(const float *logits, float *p, int o, int n, cudaStream_t st)
{
	softmax_kernel<<<n, EW_THREADS, 0, st>>>(logits, p, o, n);
	LAUNCHED();
}

__global__ void xent_bwd_kernel(const float *p, const int *labels, float *dl, int o, int n)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < (size_t)o * n; i += ew_stride()) {
		int cls = (int)(i / n), col = (int)(i % n);
		dl[i] += (p[i] - (labels[col] == cls ? 1.f : 0.f)) / (float)n;
	}
	SMTOP_BLOCK_END();
}

void softmax_xent_bwd(const float *p, const int *labels, float *dlogits, int o, int n, cudaStream_t st)
{
	size_t total = (size_t)o * n;
	xent_bwd_kernel<<<ew_blocks(total), EW_THREADS, 0, st>>>(p, labels, dlogits, o, n);
	LAUNCHED();
}

/* ---- optimiser and init ---- */
__global__ void sgd_kernel(float *w, const float *g, float *v, size_t n, float lr, float mu, float wd)
{
	SMTOP_BLOCK_BEGIN();
	for (size_t i = ew_index(); i < n; i += ew_stride()) {
		float vi = mu * v[i] + g[i] + wd * w[i];
		v[i] = vi;
		w[i] -= lr * vi;
	}
	SMTOP_BLOCK_END();
}

void sgd_update(float *w, const float *g, float *v, size_t n, float lr, float mu, float wd, cudaStream_t st)
{
	sgd_kernel<<<ew_blocks(n), EW_THREADS, 0, st>>>(w, g, v, n, lr, mu, wd);
	LAUNCHED();
}

static __device__ __forceinline__ unsigned hash_u32(unsigned x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

__global__ void fill_uniform_kernel(float *p, size_t n, float scale, unsigned seed)
{
	for (size_t i = ew_index(); i < n; i += ew_stride()) {
		unsigned h = hash_u32((unsigned)i ^ hash_u32(seed + (unsigned)(i >> 32) * 0x9e3779b9u));
		p[i] = scale * ((float)(h >> 8) * (2.f / 16777216.f) - 1.f);
	}
}

__global__ void fill_labels_kernel(int *l, int n, int classes, unsigned seed)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		l[i] = (int)(hash_u32((unsigned)i ^ hash_u32(seed)) % (unsigned)classes);
}

__global__ void fill_const_kernel(float *p, size_t n, float v)
{
	for (size_t i = ew_index(); i < n; i += ew_stride())
		p[i] = v;
}

/* Init kernels stay uninstrumented: they are set-up, not workload. */
void fill_uniform(float *p, size_t n, float scale, unsigned seed, cudaStream_t st)
{
	fill_uniform_kernel<<<ew_blocks(n), EW_THREADS, 0, st>>>(p, n, scale, seed);
	LAUNCHED();
}

void fill_labels(int *labels, int n, int classes, unsigned seed, cudaStream_t st)
{
	fill_labels_kernel<<<(n + 255) / 256, 256, 0, st>>>(labels, n, classes, seed);
	LAUNCHED();
}

void fill_const(float *p, size_t n, float v, cudaStream_t st)
{
	fill_const_kernel<<<ew_blocks(n), EW_THREADS, 0, st>>>(p, n, v);
	LAUNCHED();
}
