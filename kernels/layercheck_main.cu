/* layercheck: every layer of layers.cu on small random inputs against a plain
 * CPU reference.  One line per check: "layer NAME ok|FAIL relerr=E"; exit 1 on
 * any failure, 0 when all agree.  Backward layers accumulate, so each check
 * starts the gradient from random values on both sides. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/cuda_check.cuh"
#include "kernels/layers.cuh"

#define TOL 2e-4

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
static void check(const char *name, const float *dev, const float *ref, size_t n)
{
	float *got = dev_to_host(dev, n);
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
	int ok = finite && rel < TOL;
	printf("layer %s %s relerr=%.3g n=%zu\n", name, ok ? "ok" : "FAIL", rel, n);
	if (!ok)
		failures++;
	free(got);
}

static size_t cnhw(int c, int n, int h, int w, int C, int N, int H, int W)
{
	(void)C;
	return (((size_t)c * N + n) * H + h) * W + w;
}

static void cpu_conv_fwd(const struct conv_shape *s, const float *x, const float *w, float *y)
{
	for (int co = 0; co < s->cout; co++)
		for (int n = 0; n < s->n; n++)
			for (int oh = 0; oh < s->oh; oh++)
				for (int ow = 0; ow < s->ow; ow++) {
					double acc = 0;
					for (int ci = 0; ci < s->cin; ci++)
						for (int kh = 0; kh < s->kh; kh++)
							for (int kw = 0; kw < s->kw; kw++) {
								int ih = oh * s->stride - s->pad + kh;
								int iw = ow * s->stride - s->pad + kw;
								if (ih < 0 || ih >= s->h || iw < 0 || iw >= s->w)
									continue;
								acc += (double)x[cnhw(ci, n, ih, iw, s->cin, s->n, s->h, s->w)] *
								       w[((co * s->cin + ci) * s->kh + kh) * s->kw + kw];
							}
					y[cnhw(co, n, oh, ow, s->cout, s->n, s->oh, s->ow)] = (float)acc;
				}
}

/* dx += conv^T(dy); dw += correlation(dy, x). */
static void cpu_conv_bwd(const struct conv_shape *s, const float *x, const float *w, const float *dy, float *dx,
			 float *dw)
{
	for (int co = 0; co < s->cout; co++)
		for (int n = 0; n < s->n; n++)
			for (int oh = 0; oh < s->oh; oh++)
				for (int ow = 0; ow < s->ow; ow++) {
					float g = dy[cnhw(co, n, oh, ow, s->cout, s->n, s->oh, s->ow)];
					for (int ci = 0; ci < s->cin; ci++)
						for (int kh = 0; kh < s->kh; kh++)
							for (int kw = 0; kw < s->kw; kw++) {
								int ih = oh * s->stride - s->pad + kh;
								int iw = ow * s->stride - s->pad + kw;
								if (ih < 0 || ih >= s->h || iw < 0 || iw >= s->w)
									continue;
								size_t xi = cnhw(ci, n, ih, iw, s->cin, s->n, s->h, s->w);
								size_t wi = ((co * s->cin + ci) * s->kh + kh) * s->kw + kw;
								dx[xi] += g * w[wi];
								dw[wi] += g * x[xi];
							}
				}
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
	float *all[] = {x, wt, dy, dx0, dw0, y, dx, dw};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		free(all[i]);
	float *dall[] = {d_x, d_w, d_dy, d_y, d_dx, d_dw};
	for (size_t i = 0; i < sizeof dall / sizeof dall[0]; i++)
		CK(cudaFree(dall[i]));
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
	float *all[] = {x, wt, b, dy, y, dx0, dw0, dx, dw};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		free(all[i]);
	float *dall[] = {d_x, d_w, d_b, d_dy, d_y, d_dx, d_dw};
	for (size_t i = 0; i < sizeof dall / sizeof dall[0]; i++)
		CK(cudaFree(dall[i]));
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
	float *all[] = {x, b, dy, dx0, db0, y, dx, db, r, a2, sum, acc, dx2};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		free(all[i]);
	float *dall[] = {d_x, d_b, d_dy, d_y, d_dx, d_db, d_r, d_a2, d_sum, d_acc, d_dx2};
	for (size_t i = 0; i < sizeof dall / sizeof dall[0]; i++)
		CK(cudaFree(dall[i]));
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
	float *all[] = {x, g, be, rm, rv, dy, dx0, dg0, db0, yi, yt, mean, inv, rm2, rv2, dx, dg, db};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		free(all[i]);
	float *dall[] = {d_x, d_g, d_be, d_rm, d_rv, d_yi, d_yt, d_mean, d_inv, d_dy, d_dx, d_dg, d_db};
	for (size_t i = 0; i < sizeof dall / sizeof dall[0]; i++)
		CK(cudaFree(dall[i]));
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
	float *all[] = {l, p, dl0, dl, w, g, v, w2, v2};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		free(all[i]);
	float *dall[] = {d_l, d_p, d_dl, d_w, d_g, d_v};
	for (size_t i = 0; i < sizeof dall / sizeof dall[0]; i++)
		CK(cudaFree(dall[i]));
	CK(cudaFree(d_lab));
}

int main(void)
{
	int ndev = 0;
	cudaError_t e = cudaGetDeviceCount(&ndev);
	if (e != cudaSuccess || ndev == 0) {
		fprintf(stderr, "layercheck: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0");
		return 1;
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
	printf("layercheck %s failures=%d\n", failures ? "FAIL" : "ok", failures);
	return failures ? 1 : 0;
}
