/* layercheck: every layer of layers.cu on small random inputs against a plain
 * CPU reference.  One line per check: "layer NAME ok|FAIL relerr=E"; exit 1 on
 * any failure, 0 when all agree.  Backward layers accumulate, so each check
 * starts the gradient from random values on both sides.
 *
 * The inference fusion (docs/kernels.md) is checked three ways: the fused
 * convolution against the CPU reference, a DenseNet layer built from the
 * layers both ways, and each demo model's forward pass with and without its
 * fused plan ("kernels ..." lines give the launch counts).
 * `layercheck --check-fusion` runs only those. */
#include <initializer_list>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/cuda_check.cuh"
#include "kernels/layers.cuh"
#include "kernels/models.cuh"

#define TOL 2e-4
/* A whole model, fused against plain: the same GEMMs, but a folded batch
 * norm rounds differently, and that difference passes through every layer. */
#define MODEL_TOL 1e-3

static int failures;
static unsigned rng_state = 12345u;

static float frand(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return (float)((rng_state >> 8) & 0xffffff) / 16777216.f * 2.f - 1.f;
}

static float *host_rand(size_t n)
{
	float *p = (float *)malloc(n * sizeof(float));
	if (!p) {
		fprintf(stderr, "layercheck: out of host memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		p[i] = frand();
	return p;
}

static float *host_copy(const float *src, size_t n)
{
	float *p = host_rand(n);
	memcpy(p, src, n * sizeof(float));
	return p;
}

/* Frees what a check made: its host arrays, then its device ones. */
static void free_all(std::initializer_list<float *> host, std::initializer_list<float *> dev)
{
	for (float *p : host)
		free(p);
	for (float *p : dev)
		CK(cudaFree(p));
}

static float *dev_from(const float *h, size_t n)
{
	float *d;
	CK(cudaMalloc(&d, n * sizeof(float)));
	CK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
	return d;
}

static float *dev_to_host(const float *d, size_t n)
{
	float *h = host_rand(n);
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
	return h;
}

/* Relative error in the 2-norm: robust to the summation order of GPU sums. */
static void check_host(const char *name, const float *got, const float *ref, size_t n, double tol)
{
	double num = 0, den = 0;
	int finite = 1;
	for (size_t i = 0; i < n; i++) {
		double d = (double)got[i] - ref[i];
		if (!isfinite(got[i]))
			finite = 0;
		num += d * d;
		den += (double)ref[i] * ref[i];
	}
	double rel = sqrt(num) / (sqrt(den) > 1e-30 ? sqrt(den) : 1e-30);
	int ok = finite && rel < tol;
	printf("layer %s %s relerr=%.3g n=%zu\n", name, ok ? "ok" : "FAIL", rel, n);
	if (!ok)
		failures++;
}

static void check(const char *name, const float *dev, const float *ref, size_t n)
{
	float *got = dev_to_host(dev, n);
	check_host(name, got, ref, n, TOL);
	free(got);
}

/* A count that must equal its expected value. */
static void check_count(const char *name, long got, long want)
{
	int ok = got == want;
	printf("layer %s %s got=%ld want=%ld\n", name, ok ? "ok" : "FAIL", got, want);
	if (!ok)
		failures++;
}

static size_t cnhw(int c, int n, int h, int w, int C, int N, int H, int W)
{
	(void)C;
	return (((size_t)c * N + n) * H + h) * W + w;
}

/* Calls tap(yi, xi, wi) for every weight each output element of the
 * convolution reads, with the indices of the output, the input and the
 * weight: outputs in order, each output's taps in (ci, kh, kw) order. */
template <class Tap> static void cpu_conv_taps(const struct conv_shape *s, Tap tap)
{
	for (int co = 0; co < s->cout; co++)
		for (int n = 0; n < s->n; n++)
			for (int oh = 0; oh < s->oh; oh++)
				for (int ow = 0; ow < s->ow; ow++) {
					size_t yi = cnhw(co, n, oh, ow, s->cout, s->n, s->oh, s->ow);
					for (int ci = 0; ci < s->cin; ci++)
						for (int kh = 0; kh < s->kh; kh++)
							for (int kw = 0; kw < s->kw; kw++) {
								int ih = oh * s->stride - s->pad + kh;
								int iw = ow * s->stride - s->pad + kw;
								if (ih < 0 || ih >= s->h || iw < 0 || iw >= s->w)
									continue;
								tap(yi, cnhw(ci, n, ih, iw, s->cin, s->n, s->h, s->w),
								    ((co * s->cin + ci) * s->kh + kh) * s->kw + kw);
							}
				}
}

/* Sums in double, as the reference the GPU's float sums are checked against. */
static void cpu_conv_fwd(const struct conv_shape *s, const float *x, const float *w, float *y)
{
	size_t ny = (size_t)s->cout * s->n * s->oh * s->ow;
	double *acc = (double *)calloc(ny, sizeof *acc);
	if (!acc) {
		fprintf(stderr, "layercheck: out of host memory\n");
		exit(1);
	}
	cpu_conv_taps(s, [&](size_t yi, size_t xi, size_t wi) { acc[yi] += (double)x[xi] * w[wi]; });
	for (size_t i = 0; i < ny; i++)
		y[i] = (float)acc[i];
	free(acc);
}

/* dx += conv^T(dy); dw += correlation(dy, x). */
static void cpu_conv_bwd(const struct conv_shape *s, const float *x, const float *w, const float *dy, float *dx,
			 float *dw)
{
	cpu_conv_taps(s, [&](size_t yi, size_t xi, size_t wi) {
		dx[xi] += dy[yi] * w[wi];
		dw[wi] += dy[yi] * x[xi];
	});
}

static void check_conv(const char *tag, int cin, int n, int h, int w, int cout, int k, int stride, int pad)
{
	struct conv_shape s;
	char name[96];
	conv_shape_init(&s, cin, n, h, w, cout, k, stride, pad);
	size_t nx = (size_t)cin * n * h * w, nw = (size_t)cout * cin * k * k, ny = (size_t)cout * n * s.oh * s.ow;
	float *x = host_rand(nx), *wt = host_rand(nw), *dy = host_rand(ny);
	float *dx0 = host_rand(nx), *dw0 = host_rand(nw), *y = host_rand(ny);
	float *dx = host_copy(dx0, nx), *dw = host_copy(dw0, nw);
	float *d_x = dev_from(x, nx), *d_w = dev_from(wt, nw), *d_dy = dev_from(dy, ny);
	float *d_y = dev_from(y, ny), *d_dx = dev_from(dx0, nx), *d_dw = dev_from(dw0, nw);

	cpu_conv_fwd(&s, x, wt, y);
	cpu_conv_bwd(&s, x, wt, dy, dx, dw);
	conv2d_fwd(&s, d_x, d_w, d_y, 0);
	conv2d_bwd_data(&s, d_dy, d_w, d_dx, 0);
	conv2d_bwd_weight(&s, d_dy, d_x, d_dw, 0);
	snprintf(name, sizeof name, "conv2d_fwd%s", tag);
	check(name, d_y, y, ny);
	snprintf(name, sizeof name, "conv2d_bwd_data%s", tag);
	check(name, d_dx, dx, nx);
	snprintf(name, sizeof name, "conv2d_bwd_weight%s", tag);
	check(name, d_dw, dw, nw);
	free_all({x, wt, dy, dx0, dw0, y, dx, dw}, {d_x, d_w, d_dy, d_y, d_dx, d_dw});
}

static void check_linear(const char *tag, int c, int hw, int n, int o)
{
	int f = c * hw;
	char name[96];
	size_t nx = (size_t)f * n, nw = (size_t)o * f, ny = (size_t)o * n;
	float *x = host_rand(nx), *wt = host_rand(nw), *b = host_rand(o), *dy = host_rand(ny);
	float *y = host_rand(ny), *dx0 = host_rand(nx), *dw0 = host_rand(nw);
	float *dx = host_copy(dx0, nx), *dw = host_copy(dw0, nw);
	for (int oo = 0; oo < o; oo++)
		for (int nn = 0; nn < n; nn++) {
			double acc = b[oo];
			for (int ff = 0; ff < f; ff++) {
				size_t xi = ((size_t)(ff / hw) * n + nn) * hw + ff % hw;
				acc += (double)wt[(size_t)oo * f + ff] * x[xi];
				dx[xi] += dy[(size_t)oo * n + nn] * wt[(size_t)oo * f + ff];
				dw[(size_t)oo * f + ff] += dy[(size_t)oo * n + nn] * x[xi];
			}
			y[(size_t)oo * n + nn] = (float)acc;
		}
	float *d_x = dev_from(x, nx), *d_w = dev_from(wt, nw), *d_b = dev_from(b, o), *d_dy = dev_from(dy, ny);
	float *d_y = dev_from(dy, ny), *d_dx = dev_from(dx0, nx), *d_dw = dev_from(dw0, nw);
	linear_fwd(f, hw, n, o, d_x, d_w, d_b, d_y, 0);
	linear_bwd_data(f, hw, n, o, d_dy, d_w, d_dx, 0);
	linear_bwd_weight(f, hw, n, o, d_dy, d_x, d_dw, 0);
	snprintf(name, sizeof name, "linear_fwd%s", tag);
	check(name, d_y, y, ny);
	snprintf(name, sizeof name, "linear_bwd_data%s", tag);
	check(name, d_dx, dx, nx);
	snprintf(name, sizeof name, "linear_bwd_weight%s", tag);
	check(name, d_dw, dw, nw);
	free_all({x, wt, b, dy, y, dx0, dw0, dx, dw}, {d_x, d_w, d_b, d_dy, d_y, d_dx, d_dw});
}

static void check_elementwise(void)
{
	int c = 7;
	size_t inner = 3 * 45, n = c * inner;
	float *x = host_rand(n), *b = host_rand(c), *dy = host_rand(n), *dx0 = host_rand(n), *db0 = host_rand(c);
	float *y = host_copy(x, n), *dx = host_copy(dx0, n), *db = host_copy(db0, c), *r = host_copy(x, n);
	float *a2 = host_rand(n), *sum = host_copy(x, n), *acc = host_copy(dx0, n);
	for (size_t i = 0; i < n; i++) {
		float v = x[i] + b[i / inner];
		y[i] = v > 0 ? v : 0;
		r[i] = x[i] > 0 ? x[i] : 0;
		if (y[i] > 0) {
			dx[i] += dy[i];
			db[i / inner] += dy[i];
		}
		sum[i] = x[i] + a2[i];
		acc[i] = dx0[i] + dy[i];
	}
	float *d_x = dev_from(x, n), *d_b = dev_from(b, c), *d_dy = dev_from(dy, n), *d_y = dev_from(dy, n);
	float *d_dx = dev_from(dx0, n), *d_db = dev_from(db0, c), *d_r = dev_from(dy, n);
	float *d_a2 = dev_from(a2, n), *d_sum = dev_from(dy, n), *d_acc = dev_from(dx0, n);
	bias_act_fwd(d_x, d_b, d_y, c, inner, 1, 0);
	bias_act_bwd(d_dy, d_y, d_dx, d_db, c, inner, 1, 0);
	relu_fwd(d_x, d_r, n, 0);
	add_fwd(d_x, d_a2, d_sum, n, 0);
	accumulate(d_dy, d_acc, n, 0);
	check("bias_relu_fwd", d_y, y, n);
	check("bias_relu_bwd_data", d_dx, dx, n);
	check("bias_relu_bwd_bias", d_db, db, c);
	check("relu_fwd", d_r, r, n);
	add_fwd(d_x, d_a2, d_sum, n, 0);
	check("add_fwd", d_sum, sum, n);
	check("accumulate", d_acc, acc, n);

	/* relu backward on its own, against the relu output. */
	float *dx2 = host_copy(dx0, n);
	for (size_t i = 0; i < n; i++)
		if (r[i] > 0)
			dx2[i] += dy[i];
	float *d_dx2 = dev_from(dx0, n);
	relu_bwd(d_dy, d_r, d_dx2, n, 0);
	check("relu_bwd", d_dx2, dx2, n);
	free_all({x, b, dy, dx0, db0, y, dx, db, r, a2, sum, acc, dx2},
		 {d_x, d_b, d_dy, d_y, d_dx, d_db, d_r, d_a2, d_sum, d_acc, d_dx2});
}

static void check_batchnorm(void)
{
	int c = 5;
	size_t inner = 4 * 6 * 7, n = c * inner;
	float *x = host_rand(n), *g = host_rand(c), *be = host_rand(c), *rm = host_rand(c), *rv = host_rand(c);
	float *dy = host_rand(n), *dx0 = host_rand(n), *dg0 = host_rand(c), *db0 = host_rand(c);
	for (int i = 0; i < c; i++)
		rv[i] = fabsf(rv[i]) + 0.5f;
	for (size_t i = 0; i < n; i++)
		x[i] = 3.f * x[i] + 1.f; /* a mean and a spread to normalise away */
	float *yi = host_copy(x, n), *yt = host_copy(x, n), *mean = host_copy(g, c), *inv = host_copy(g, c);
	float *rm2 = host_copy(rm, c), *rv2 = host_copy(rv, c);
	float *dx = host_copy(dx0, n), *dg = host_copy(dg0, c), *db = host_copy(db0, c);
	for (int ch = 0; ch < c; ch++) {
		double s = 0, q = 0;
		for (size_t i = 0; i < inner; i++) {
			s += x[ch * inner + i];
			q += (double)x[ch * inner + i] * x[ch * inner + i];
		}
		double m = s / inner, var = q / inner - m * m;
		mean[ch] = (float)m;
		inv[ch] = (float)(1.0 / sqrt(var + BN_EPS));
		rm2[ch] = (1 - BN_MOMENTUM) * rm[ch] + BN_MOMENTUM * (float)m;
		rv2[ch] = (1 - BN_MOMENTUM) * rv[ch] + BN_MOMENTUM * (float)(var * inner / (inner - 1));
		double sdy = 0, sdx = 0;
		for (size_t i = 0; i < inner; i++) {
			size_t k = ch * inner + i;
			float xh = (x[k] - mean[ch]) * inv[ch];
			yi[k] = (x[k] - rm[ch]) / sqrtf(rv[ch] + BN_EPS) * g[ch] + be[ch];
			yt[k] = xh * g[ch] + be[ch];
			sdy += dy[k];
			sdx += dy[k] * xh;
		}
		for (size_t i = 0; i < inner; i++) {
			size_t k = ch * inner + i;
			float xh = (x[k] - mean[ch]) * inv[ch];
			dx[k] += g[ch] * inv[ch] / inner * (inner * dy[k] - (float)sdy - xh * (float)sdx);
		}
		dg[ch] += (float)sdx;
		db[ch] += (float)sdy;
	}
	float *d_x = dev_from(x, n), *d_g = dev_from(g, c), *d_be = dev_from(be, c), *d_rm = dev_from(rm, c);
	float *d_rv = dev_from(rv, c), *d_yi = dev_from(x, n), *d_yt = dev_from(x, n), *d_mean = dev_from(g, c);
	float *d_inv = dev_from(g, c), *d_dy = dev_from(dy, n), *d_dx = dev_from(dx0, n), *d_dg = dev_from(dg0, c);
	float *d_db = dev_from(db0, c);
	double *d_sums;
	CK(cudaMalloc(&d_sums, 2 * c * sizeof(double)));
	bn_fwd_infer(d_x, d_yi, d_g, d_be, d_rm, d_rv, c, inner, 0);
	check("bn_fwd_inference", d_yi, yi, n);
	bn_fwd_train(d_x, d_yt, d_g, d_be, d_rm, d_rv, d_mean, d_inv, d_sums, c, inner, 0);
	check("bn_fwd_training", d_yt, yt, n);
	check("bn_fwd_training_mean", d_mean, mean, c);
	check("bn_fwd_training_invstd", d_inv, inv, c);
	check("bn_fwd_training_running_mean", d_rm, rm2, c);
	check("bn_fwd_training_running_var", d_rv, rv2, c);
	bn_bwd(d_dy, d_x, d_dx, d_g, d_dg, d_db, d_mean, d_inv, d_sums, c, inner, 0);
	check("bn_bwd_data", d_dx, dx, n);
	check("bn_bwd_gamma", d_dg, dg, c);
	check("bn_bwd_beta", d_db, db, c);
	free_all({x, g, be, rm, rv, dy, dx0, dg0, db0, yi, yt, mean, inv, rm2, rv2, dx, dg, db},
		 {d_x, d_g, d_be, d_rm, d_rv, d_yi, d_yt, d_mean, d_inv, d_dy, d_dx, d_dg, d_db});
	CK(cudaFree(d_sums));
}

static void check_pool(const char *tag, int is_max, int c, int n, int h, int w, int k, int stride, int pad)
{
	struct pool_shape s;
	char name[96];
	pool_shape_init(&s, c, n, h, w, k, stride, pad);
	size_t nx = (size_t)c * n * h * w, ny = (size_t)c * n * s.oh * s.ow;
	float *x = host_rand(nx), *dy = host_rand(ny), *y = host_rand(ny), *dx0 = host_rand(nx);
	float *dx = host_copy(dx0, nx);
	for (size_t pl = 0; pl < (size_t)c * n; pl++)
		for (int oh = 0; oh < s.oh; oh++)
			for (int ow = 0; ow < s.ow; ow++) {
				float best = -INFINITY, sum = 0;
				int arg = -1;
				for (int kh = 0; kh < k; kh++)
					for (int kw = 0; kw < k; kw++) {
						int ih = oh * stride - pad + kh, iw = ow * stride - pad + kw;
						if (ih < 0 || ih >= h || iw < 0 || iw >= w)
							continue;
						float v = x[pl * h * w + ih * w + iw];
						sum += v;
						if (v > best || arg < 0) {
							best = v;
							arg = ih * w + iw;
						}
					}
				size_t o = (pl * s.oh + oh) * s.ow + ow;
				y[o] = is_max ? best : sum / (k * k);
				if (is_max) {
					dx[pl * h * w + arg] += dy[o];
					continue;
				}
				for (int kh = 0; kh < k; kh++)
					for (int kw = 0; kw < k; kw++) {
						int ih = oh * stride - pad + kh, iw = ow * stride - pad + kw;
						if (ih >= 0 && ih < h && iw >= 0 && iw < w)
							dx[pl * h * w + ih * w + iw] += dy[o] / (k * k);
					}
			}
	float *d_x = dev_from(x, nx), *d_dy = dev_from(dy, ny), *d_y = dev_from(y, ny), *d_dx = dev_from(dx0, nx);
	int *d_idx;
	CK(cudaMalloc(&d_idx, ny * sizeof(int)));
	if (is_max) {
		maxpool_fwd(&s, d_x, d_y, d_idx, 0);
		maxpool_bwd(&s, d_dy, d_idx, d_dx, 0);
	} else {
		avgpool_fwd(&s, d_x, d_y, 0);
		avgpool_bwd(&s, d_dy, d_dx, 0);
	}
	snprintf(name, sizeof name, "%s_fwd%s", is_max ? "maxpool" : "avgpool", tag);
	check(name, d_y, y, ny);
	snprintf(name, sizeof name, "%s_bwd%s", is_max ? "maxpool" : "avgpool", tag);
	check(name, d_dx, dx, nx);
	free(x);
	free(dy);
	free(y);
	free(dx0);
	free(dx);
	CK(cudaFree(d_x));
	CK(cudaFree(d_dy));
	CK(cudaFree(d_y));
	CK(cudaFree(d_dx));
	CK(cudaFree(d_idx));
}

static void check_softmax_sgd(void)
{
	int o = 300, n = 3;
	size_t t = (size_t)o * n;
	float *l = host_rand(t), *p = host_copy(l, t), *dl0 = host_rand(t), *dl = host_copy(dl0, t);
	int labels[3] = {5, 299, 0};
	for (int col = 0; col < n; col++) {
		double mx = -1e30, s = 0;
		for (int i = 0; i < o; i++)
			mx = fmax(mx, l[i * n + col] * 4.0);
		for (int i = 0; i < o; i++)
			s += exp(l[i * n + col] * 4.0 - mx);
		for (int i = 0; i < o; i++) {
			p[i * n + col] = (float)(exp(l[i * n + col] * 4.0 - mx) / s);
			dl[i * n + col] += (p[i * n + col] - (labels[col] == i)) / n;
		}
	}
	for (size_t i = 0; i < t; i++)
		l[i] *= 4.f; /* sharper distribution: exercises the max shift */
	float *d_l = dev_from(l, t), *d_p = dev_from(l, t), *d_dl = dev_from(dl0, t);
	int *d_lab;
	CK(cudaMalloc(&d_lab, sizeof labels));
	CK(cudaMemcpy(d_lab, labels, sizeof labels, cudaMemcpyHostToDevice));
	softmax_fwd(d_l, d_p, o, n, 0);
	check("softmax_fwd", d_p, p, t);
	softmax_xent_bwd(d_p, d_lab, d_dl, o, n, 0);
	check("softmax_xent_bwd", d_dl, dl, t);

	size_t m = 1000;
	float *w = host_rand(m), *g = host_rand(m), *v = host_rand(m);
	float *w2 = host_copy(w, m), *v2 = host_copy(v, m);
	for (size_t i = 0; i < m; i++) {
		v2[i] = 0.9f * v[i] + g[i] + 1e-4f * w[i];
		w2[i] = w[i] - 0.01f * v2[i];
	}
	float *d_w = dev_from(w, m), *d_g = dev_from(g, m), *d_v = dev_from(v, m);
	sgd_update(d_w, d_g, d_v, m, 0.01f, 0.9f, 1e-4f, 0);
	check("sgd_update_weight", d_w, w2, m);
	check("sgd_update_momentum", d_v, v2, m);
	free_all({l, p, dl0, dl, w, g, v, w2, v2}, {d_l, d_p, d_dl, d_w, d_g, d_v});
	CK(cudaFree(d_lab));
}

/* ---- inference fusion ---- */

/* y = relu?(x * scale[c] + shift[c]) over c channels of `inner` values. */
static void cpu_affine(const float *x, const float *scale, const float *shift, float *y, int c, size_t inner,
		       int relu)
{
	for (size_t i = 0; i < (size_t)c * inner; i++) {
		float v = x[i] * (scale ? scale[i / inner] : 1.f) + (shift ? shift[i / inner] : 0.f);
		y[i] = relu && v < 0.f ? 0.f : v;
	}
}

/* Batch norm with running statistics then ReLU, as the unfused layers
 * compute it (the definition the fold must reproduce). */
static void cpu_bn_relu(const float *x, const float *g, const float *b, const float *mean, const float *var,
			float *y, int c, size_t inner)
{
	for (size_t i = 0; i < (size_t)c * inner; i++) {
		size_t ch = i / inner;
		float v = (x[i] - mean[ch]) / sqrtf(var[ch] + BN_EPS) * g[ch] + b[ch];
		y[i] = v > 0.f ? v : 0.f;
	}
}

enum { FUSE_IN = 1, FUSE_OUT_BN = 2, FUSE_OUT_BIAS = 4, FUSE_RES = 8 };

/* The fused convolution against transform -> CPU convolution -> epilogue.
 * Shifts are random in [-1, 1): positive ones make relu(shift) non-zero, so
 * a padded position that took the transform would show. */
static void check_conv_fused(const char *tag, int what, int cin, int n, int h, int w, int cout, int k, int stride,
			     int pad)
{
	struct conv_shape s;
	char name[96];
	conv_shape_init(&s, cin, n, h, w, cout, k, stride, pad);
	size_t nx = (size_t)cin * n * h * w, nw = (size_t)cout * cin * k * k, ny = (size_t)cout * n * s.oh * s.ow;
	size_t in_inner = (size_t)n * h * w, out_inner = (size_t)n * s.oh * s.ow;
	float *x = host_rand(nx), *wt = host_rand(nw), *isc = host_rand(cin), *ish = host_rand(cin);
	float *osc = host_rand(cout), *osh = host_rand(cout), *res = host_rand(ny);
	float *xt = host_copy(x, nx), *y = host_rand(ny);
	if (what & FUSE_IN)
		cpu_affine(x, isc, ish, xt, cin, in_inner, 1);
	cpu_conv_fwd(&s, xt, wt, y);
	for (size_t i = 0; i < ny; i++) {
		size_t co = i / out_inner;
		float v = y[i];
		if (what & FUSE_OUT_BN)
			v = v * osc[co] + osh[co];
		if (what & FUSE_OUT_BIAS)
			v += osh[co];
		if (what & FUSE_RES)
			v += res[i];
		y[i] = (what & (FUSE_OUT_BN | FUSE_OUT_BIAS)) && v < 0.f ? 0.f : v;
	}
	float *d_x = dev_from(x, nx), *d_w = dev_from(wt, nw), *d_isc = dev_from(isc, cin), *d_ish = dev_from(ish, cin);
	float *d_osc = dev_from(osc, cout), *d_osh = dev_from(osh, cout), *d_res = dev_from(res, ny);
	float *d_y = dev_from(res, ny);
	struct conv_fusion f;
	memset(&f, 0, sizeof f);
	if (what & FUSE_IN) {
		f.in_scale = d_isc;
		f.in_shift = d_ish;
		f.in_relu = 1;
	}
	if (what & FUSE_OUT_BN)
		f.out_scale = d_osc;
	if (what & (FUSE_OUT_BN | FUSE_OUT_BIAS)) {
		f.out_shift = d_osh;
		f.out_relu = 1;
	}
	if (what & FUSE_RES)
		f.res = d_res;
	conv2d_fwd_fused(&s, d_x, d_w, d_y, &f, 0);
	snprintf(name, sizeof name, "conv2d_fwd_fused%s", tag);
	check(name, d_y, y, ny);
	free_all({x, wt, isc, ish, osc, osh, res, xt, y},
		 {d_x, d_w, d_isc, d_ish, d_osc, d_osh, d_res, d_y});
}

/* bn_fold against the batch-norm definition, and affine_act_fwd with the
 * folded values against batch norm then ReLU. */
static void check_bn_fold(void)
{
	int c = 6;
	size_t inner = 2 * 5 * 7, n = c * inner;
	float *x = host_rand(n), *g = host_rand(c), *b = host_rand(c), *mean = host_rand(c), *var = host_rand(c);
	for (int i = 0; i < c; i++)
		var[i] = fabsf(var[i]) + 0.25f;
	float *sc = host_copy(g, c), *sh = host_copy(b, c), *y = host_copy(x, n);
	for (int i = 0; i < c; i++) {
		sc[i] = (float)(g[i] / sqrt((double)var[i] + BN_EPS));
		sh[i] = b[i] - mean[i] * sc[i];
	}
	cpu_bn_relu(x, g, b, mean, var, y, c, inner);
	float *d_x = dev_from(x, n), *d_g = dev_from(g, c), *d_b = dev_from(b, c), *d_mean = dev_from(mean, c);
	float *d_var = dev_from(var, c), *d_sc = dev_from(g, c), *d_sh = dev_from(g, c), *d_y = dev_from(x, n);
	bn_fold(d_g, d_b, d_mean, d_var, d_sc, d_sh, c, 0);
	check("bn_fold_scale", d_sc, sc, c);
	check("bn_fold_shift", d_sh, sh, c);
	affine_act_fwd(d_x, d_sc, d_sh, d_y, c, inner, 1, 0);
	check("bn_relu_folded_fwd", d_y, y, n);
	free_all({x, g, b, mean, var, sc, sh, y}, {d_x, d_g, d_b, d_mean, d_var, d_sc, d_sh, d_y});
}

/* One DenseNet layer, BN -> ReLU -> 1x1 conv -> BN -> ReLU -> 3x3 conv, on a
 * concatenated input: the six layers, then fused with both BN+ReLU in the
 * convolutions' loads (2 kernels), then as the model's plan has it (the
 * second BN+ReLU in the 1x1 convolution's store; 2 kernels); each against
 * the CPU, and the kernels each way counted. */
static void check_dense_layer(void)
{
	const int cin = 24, n = 2, h = 9, w = 9, mid = 16, growth = 8;
	size_t inner = (size_t)n * h * w, nx = cin * inner, nu = mid * inner, ny = growth * inner;
	struct conv_shape s1, s2;
	conv_shape_init(&s1, cin, n, h, w, mid, 1, 1, 0);
	conv_shape_init(&s2, mid, n, h, w, growth, 3, 1, 1);
	float *x = host_rand(nx), *w1 = host_rand((size_t)mid * cin), *w2 = host_rand((size_t)growth * mid * 9);
	float *bn[2][4]; /* gamma, beta, running mean, running variance */
	int ch[2] = {cin, mid};
	for (int l = 0; l < 2; l++) {
		for (int j = 0; j < 4; j++)
			bn[l][j] = host_rand(ch[l]);
		for (int i = 0; i < ch[l]; i++)
			bn[l][3][i] = fabsf(bn[l][3][i]) + 0.5f;
	}
	float *a = host_rand(nx), *u = host_rand(nu), *v = host_rand(nu), *y = host_rand(ny);
	cpu_bn_relu(x, bn[0][0], bn[0][1], bn[0][2], bn[0][3], a, cin, inner);
	cpu_conv_fwd(&s1, a, w1, u);
	cpu_bn_relu(u, bn[1][0], bn[1][1], bn[1][2], bn[1][3], v, mid, inner);
	cpu_conv_fwd(&s2, v, w2, y);

	float *d_bn[2][4], *d_sc[2], *d_sh[2];
	for (int l = 0; l < 2; l++) {
		for (int j = 0; j < 4; j++)
			d_bn[l][j] = dev_from(bn[l][j], ch[l]);
		d_sc[l] = dev_from(bn[l][0], ch[l]);
		d_sh[l] = dev_from(bn[l][0], ch[l]);
		bn_fold(d_bn[l][0], d_bn[l][1], d_bn[l][2], d_bn[l][3], d_sc[l], d_sh[l], ch[l], 0);
	}
	float *d_x = dev_from(x, nx), *d_w1 = dev_from(w1, (size_t)mid * cin);
	float *d_w2 = dev_from(w2, (size_t)growth * mid * 9);
	float *d_t1 = dev_from(a, nx), *d_t2 = dev_from(a, nx), *d_u = dev_from(u, nu), *d_v = dev_from(u, nu);
	float *d_y = dev_from(y, ny);

	unsigned long k0 = layers_launches();
	bn_fwd_infer(d_x, d_t1, d_bn[0][0], d_bn[0][1], d_bn[0][2], d_bn[0][3], cin, inner, 0);
	relu_fwd(d_t1, d_t2, nx, 0);
	conv2d_fwd(&s1, d_t2, d_w1, d_u, 0);
	bn_fwd_infer(d_u, d_v, d_bn[1][0], d_bn[1][1], d_bn[1][2], d_bn[1][3], mid, inner, 0);
	relu_fwd(d_v, d_u, nu, 0);
	conv2d_fwd(&s2, d_u, d_w2, d_y, 0);
	check_count("dense_layer_unfused_kernels", (long)(layers_launches() - k0), 6);
	check("dense_layer_unfused", d_y, y, ny);

	struct conv_fusion f1, f2;
	memset(&f1, 0, sizeof f1);
	memset(&f2, 0, sizeof f2);
	f1.in_scale = d_sc[0];
	f1.in_shift = d_sh[0];
	f1.in_relu = 1;
	f2.in_scale = d_sc[1];
	f2.in_shift = d_sh[1];
	f2.in_relu = 1;
	CK(cudaMemset(d_y, 0, ny * sizeof(float)));
	k0 = layers_launches();
	conv2d_fwd_fused(&s1, d_x, d_w1, d_u, &f1, 0);
	conv2d_fwd_fused(&s2, d_u, d_w2, d_y, &f2, 0);
	check_count("dense_layer_fused_kernels", (long)(layers_launches() - k0), 2);
	check("dense_layer_fused_input", d_y, y, ny);

	struct conv_fusion f3 = f1;
	f3.out_scale = d_sc[1];
	f3.out_shift = d_sh[1];
	f3.out_relu = 1;
	CK(cudaMemset(d_y, 0, ny * sizeof(float)));
	CK(cudaMemset(d_v, 0, nu * sizeof(float)));
	conv2d_fwd_fused(&s1, d_x, d_w1, d_v, &f3, 0);
	conv2d_fwd(&s2, d_v, d_w2, d_y, 0);
	check("dense_layer_fused_epilogue", d_y, y, ny);

	free_all({x, w1, w2, a, u, v, y}, {});
	for (int l = 0; l < 2; l++) {
		for (int j = 0; j < 4; j++) {
			free(bn[l][j]);
			CK(cudaFree(d_bn[l][j]));
		}
		CK(cudaFree(d_sc[l]));
		CK(cudaFree(d_sh[l]));
	}
	free_all({}, {d_x, d_w1, d_w2, d_t1, d_t2, d_u, d_v, d_y});
}

/* A demo model's batch-1 inference with its fused plan against the plain
 * tape, with random batch norms and biases: logits and probabilities agree;
 * each way launches the kernels its plan says (smtop-demo --kernels), the
 * fused way fewer.  The fused pass runs first, on the zeroed activations of
 * a new model, so no value of the plain pass can stand in for one it failed
 * to write. */
static void check_model_fusion(enum model_kind kind)
{
	char name[96];
	const char *mk = model_kind_name(kind);
	struct model *m = model_create(kind, 1, 0, 7);
	model_randomize_affine(m, 11);
	size_t n = model_outputs(m, 0, NULL, NULL);
	float *lg[2], *pr[2];
	int launched[2];
	for (int fused = 1; fused >= 0; fused--) {
		lg[fused] = host_rand(n);
		pr[fused] = host_rand(n);
		model_set_fusion(m, fused);
		model_forward(m, 0);
		model_outputs(m, 0, lg[fused], pr[fused]);
		launched[fused] = model_last_forward_kernels(m);
		snprintf(name, sizeof name, "model_%s_%s_kernels", mk, fused ? "fused" : "unfused");
		check_count(name, launched[fused], model_inference_kernels(kind, fused));
		if (model_verify(m, 0) != 0)
			failures++;
	}
	snprintf(name, sizeof name, "model_%s_fused_logits", mk);
	check_host(name, lg[1], lg[0], n, MODEL_TOL);
	snprintf(name, sizeof name, "model_%s_fused_probs", mk);
	check_host(name, pr[1], pr[0], n, MODEL_TOL);
	int fewer = launched[1] < launched[0];
	printf("kernels model=%s unfused=%d fused=%d %s\n", mk, launched[0], launched[1], fewer ? "ok" : "FAIL");
	if (!fewer)
		failures++;
	for (int i = 0; i < 2; i++) {
		free(lg[i]);
		free(pr[i]);
	}
	model_destroy(m);
}

static void check_fusion(void)
{
	check_conv_fused("_in_3x3", FUSE_IN, 5, 2, 9, 11, 7, 3, 1, 1);
	check_conv_fused("_in_3x3s2", FUSE_IN, 3, 2, 9, 10, 5, 3, 2, 1);
	check_conv_fused("_in_1x1", FUSE_IN, 12, 3, 5, 5, 9, 1, 1, 0);
	check_conv_fused("_in_1x1s2", FUSE_IN, 6, 2, 8, 8, 4, 1, 2, 0);
	check_conv_fused("_in_tile64", FUSE_IN, 8, 8, 34, 34, 64, 3, 1, 1);
	check_conv_fused("_bn_relu_7x7s2", FUSE_OUT_BN, 3, 1, 23, 23, 8, 7, 2, 3);
	check_conv_fused("_bn_res_relu_1x1", FUSE_OUT_BN | FUSE_RES, 6, 3, 5, 5, 9, 1, 1, 0);
	check_conv_fused("_bias_relu_3x3", FUSE_OUT_BIAS, 4, 2, 7, 7, 6, 3, 1, 1);
	check_conv_fused("_in_out_1x1", FUSE_IN | FUSE_OUT_BN, 10, 2, 6, 6, 8, 1, 1, 0);
	check_conv_fused("_in_out_3x3_tile64", FUSE_IN | FUSE_OUT_BN, 8, 8, 34, 34, 64, 3, 1, 1);
	check_bn_fold();
	check_dense_layer();
	check_model_fusion(MODEL_DENSENET);
	check_model_fusion(MODEL_RESNET);
	check_model_fusion(MODEL_VGG);
}

int main(int argc, char **argv)
{
	int fusion_only = argc > 1 && strcmp(argv[1], "--check-fusion") == 0;
	if (argc > 2 || (argc == 2 && !fusion_only)) {
		fprintf(stderr, "usage: layercheck [--check-fusion]\n");
		return 2;
	}
	int ndev = 0;
	cudaError_t e = cudaGetDeviceCount(&ndev);
	if (e != cudaSuccess || ndev == 0) {
		fprintf(stderr, "layercheck: no CUDA device (%s)\n", e != cudaSuccess ? ck_error_text(e) : "0");
		return 1;
	}
	if (fusion_only) {
		check_fusion();
		printf("layercheck %s failures=%d\n", failures ? "FAIL" : "ok", failures);
		return failures ? 1 : 0;
	}
	check_conv("_3x3s2", 3, 2, 9, 11, 5, 3, 2, 1);
	check_conv("_1x1", 6, 3, 5, 5, 9, 1, 1, 0);
	check_conv("_7x7s2", 3, 1, 23, 23, 8, 7, 2, 3);
	check_conv("_tile64", 8, 8, 34, 34, 64, 3, 1, 1);
	check_linear("_flatten", 6, 4, 3, 10);
	check_linear("_wide", 512, 1, 2, 300);
	check_elementwise();
	check_batchnorm();
	check_pool("_3x3s2", 1, 3, 2, 9, 10, 3, 2, 1);
	check_pool("_2x2s2", 0, 3, 2, 8, 8, 2, 2, 0);
	check_pool("_2x2s2", 1, 2, 2, 8, 8, 2, 2, 0);
	check_pool("_global", 0, 4, 2, 7, 7, 7, 1, 0);
	check_softmax_sgd();
	check_fusion();
	printf("layercheck %s failures=%d\n", failures ? "FAIL" : "ok", failures);
	return failures ? 1 : 0;
}
