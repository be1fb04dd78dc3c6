/* DNN layers in plain CUDA C, every kernel instrumented with the block tracer.
 *
 * Layout: activations are CNHW (channel-major: index ((c*N + n)*H + h)*W + w).
 * A channel is then one contiguous run of N*H*W values, which keeps per-channel
 * work (bias, batch norm) simple and makes a channel slice of a tensor a
 * contiguous view (DenseNet's concatenation writes in place).  A linear layer
 * sees its input as X(f, n) with f = c*HW + hw, output Y[o][n].
 *
 * Forward functions overwrite their outputs.  Backward functions ADD into
 * their gradient outputs (dx, dw, db): a tensor used twice (residual branch,
 * dense block) then sums its gradients without extra code; callers zero the
 * gradients once per step.  Every launch is checked; errors exit(1). */
#ifndef SMTOP_LAYERS_CUH
#define SMTOP_LAYERS_CUH

#include <stddef.h>
#include <cuda_runtime.h>

struct conv_shape {
	int cin, n, h, w;
	int cout, kh, kw, stride, pad;
	int oh, ow;
};

struct pool_shape {
	int c, n, h, w;
	int k, stride, pad;
	int oh, ow;
};

void conv_shape_init(struct conv_shape *s, int cin, int n, int h, int w, int cout, int k, int stride, int pad);
void pool_shape_init(struct pool_shape *s, int c, int n, int h, int w, int k, int stride, int pad);

/* Implicit GEMM convolution (no bias): y[cout][n][oh][ow]. */
void conv2d_fwd(const struct conv_shape *s, const float *x, const float *w, float *y, cudaStream_t st);
/* Inference fusion (docs/kernels.md): the work of the layers around a
 * convolution done inside it, so one kernel replaces up to five.
 * Input side: each input element becomes x * in_scale[ci] + in_shift[ci]
 * (then max(., 0) when in_relu) as the GEMM loads it; padded positions stay
 * 0 after the transform, as they are when a separate BN+ReLU writes the
 * tensor the convolution then pads.  Output side: each output becomes
 * acc * out_scale[co] + out_shift[co] (+ res at the same index), then
 * max(., 0) when out_relu.  A NULL scale is 1, a NULL shift or res 0: all
 * zero, the struct gives conv2d_fwd's result (through another kernel). */
struct conv_fusion {
	const float *in_scale, *in_shift;
	int in_relu;
	const float *out_scale, *out_shift, *res;
	int out_relu;
};
void conv2d_fwd_fused(const struct conv_shape *s, const float *x, const float *w, float *y,
		      const struct conv_fusion *f, cudaStream_t st);
void conv2d_bwd_data(const struct conv_shape *s, const float *dy, const float *w, float *dx, cudaStream_t st);
void conv2d_bwd_weight(const struct conv_shape *s, const float *dy, const float *x, float *dw, cudaStream_t st);

/* Linear: x is (f = c*hw + i, n) in CNHW with `hw` spatial values per channel;
 * w[o][f]; y[o][n] = w x + b (b may be NULL). */
void linear_fwd(int f, int hw, int n, int o, const float *x, const float *w, const float *b, float *y,
		cudaStream_t st);
void linear_bwd_data(int f, int hw, int n, int o, const float *dy, const float *w, float *dx, cudaStream_t st);
void linear_bwd_weight(int f, int hw, int n, int o, const float *dy, const float *x, float *dw, cudaStream_t st);

/* y = act(x + b[c]) over c channels of `inner` values each; relu 0 or 1. */
void bias_act_fwd(const float *x, const float *b, float *y, int c, size_t inner, int relu, cudaStream_t st);
void bias_act_bwd(const float *dy, const float *y, float *dx, float *db, int c, size_t inner, int relu,
		  cudaStream_t st);
/* db[c] += sum over the channel of dy (masked by y > 0 when y is not NULL). */
void channel_sum(const float *dy, const float *y, float *db, int c, size_t inner, cudaStream_t st);

/* y = act(x * scale[c] + shift[c]): batch norm with running statistics
 * folded by bn_fold, and its ReLU, in one pass (inference). */
void affine_act_fwd(const float *x, const float *scale, const float *shift, float *y, int c, size_t inner,
		    int relu, cudaStream_t st);

void relu_fwd(const float *x, float *y, size_t n, cudaStream_t st);
void relu_bwd(const float *dy, const float *y, float *dx, size_t n, cudaStream_t st);
void add_fwd(const float *a, const float *b, float *y, size_t n, cudaStream_t st);
void copy_fwd(const float *x, float *y, size_t n, cudaStream_t st);
void accumulate(const float *dy, float *dx, size_t n, cudaStream_t st); /* dx += dy */

/* Batch norm over channels of `inner` = N*H*W values. */
#define BN_EPS 1e-5f
#define BN_MOMENTUM 0.1f
void bn_fwd_infer(const float *x, float *y, const float *gamma, const float *beta, const float *rmean,
		  const float *rvar, int c, size_t inner, cudaStream_t st);
/* Inference batch norm as a per-channel affine: scale = gamma / sqrt(var +
 * eps), shift = beta - mean * scale, as inference engines fold it once. */
void bn_fold(const float *gamma, const float *beta, const float *rmean, const float *rvar, float *scale,
	     float *shift, int c, cudaStream_t st);
/* Training: batch statistics; saves mean and 1/std per channel, updates the
 * running statistics; `sums` is scratch of 2*c doubles. */
void bn_fwd_train(const float *x, float *y, const float *gamma, const float *beta, float *rmean, float *rvar,
		  float *smean, float *sinvstd, double *sums, int c, size_t inner, cudaStream_t st);
void bn_bwd(const float *dy, const float *x, float *dx, const float *gamma, float *dgamma, float *dbeta,
	    const float *smean, const float *sinvstd, double *sums, int c, size_t inner, cudaStream_t st);

/* Pooling (padding counts as -inf for max, as 0 for average). idx holds the
 * argmax offset inside each (c, n) plane for the backward pass. */
void maxpool_fwd(const struct pool_shape *s, const float *x, float *y, int *idx, cudaStream_t st);
void maxpool_bwd(const struct pool_shape *s, const float *dy, const int *idx, float *dx, cudaStream_t st);
void avgpool_fwd(const struct pool_shape *s, const float *x, float *y, cudaStream_t st);
void avgpool_bwd(const struct pool_shape *s, const float *dy, float *dx, cudaStream_t st);

/* Softmax over o classes for each of n columns: logits[o][n]. */
void softmax_fwd(const float *logits, float *p, int o, int n, cudaStream_t st);
/* d(mean cross-entropy)/d(logits) from the softmax output and labels. */
void softmax_xent_bwd(const float *p, const int *labels, float *dlogits, int o, int n, cudaStream_t st);

/* Momentum SGD: v = mu v + g + wd w; w -= lr v. */
void sgd_update(float *w, const float *g, float *v, size_t n, float lr, float mu, float wd, cudaStream_t st);

/* Deterministic uniform values in [-scale, scale) (no curand: nothing to link). */
void fill_uniform(float *p, size_t n, float scale, unsigned seed, cudaStream_t st);
void fill_labels(int *labels, int n, int classes, unsigned seed, cudaStream_t st);
void fill_const(float *p, size_t n, float v, cudaStream_t st);

int layers_sm_count(void);
/* Kernels this thread has launched through these functions so far (the
 * uninstrumented fill kernels included): a model counts its forward pass. */
unsigned long layers_launches(void);

#endif
