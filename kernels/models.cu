/* Models as a flat list of ops over tensors (a tiny tape): forward walks it in
 * order, backward in reverse.  Builders record offsets into a few arenas, not
 * pointers, so the arenas can be sized after building; one memset then zeroes
 * every gradient of a step and one launch updates every weight. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/cuda_check.cuh"
#include "kernels/layers.cuh"
#include "kernels/models.cuh"

#define MAX_TENSORS 2048
#define MAX_OPS 2048
#define MAX_INITS 1024
#define IMG 224
#define CLASSES 1000

enum op_kind { OP_CONV, OP_BN, OP_RELU, OP_BIAS_ACT, OP_ADD, OP_MAXPOOL, OP_AVGPOOL, OP_LINEAR, OP_COPY, OP_SOFTMAX };

struct tensor {
	size_t off; /* floats into the activation (and activation-gradient) arena */
	int c, n, h, w;
};

struct op {
	enum op_kind kind;
	int in, in2, out;
	int relu;
	struct conv_shape cs;
	struct pool_shape ps;
	size_t w_off, b_off;   /* parameters: conv/linear weight, bias or bn gamma/beta */
	size_t st_off;         /* bn state: running mean, var, saved mean, inv std (4c) */
	size_t idx_off;        /* maxpool argmax (ints) */
};

struct param_init {
	size_t off, count;
	float scale; /* > 0: uniform(-scale, scale); <= 0: constant -scale */
};

struct model {
	enum model_kind kind;
	int batch, training;
	unsigned seed;
	struct tensor t[MAX_TENSORS];
	int nt;
	struct op ops[MAX_OPS];
	int nops;
	struct param_init inits[MAX_INITS];
	int ninits;
	size_t act_n, param_n, state_n, idx_n;
	int max_c;
	int input, probs;
	float *act, *gact, *param, *gparam, *mom, *state;
	int *idx, *labels;
	double *sums;
};

static void die(const char *msg)
{
	fprintf(stderr, "%s: model: %s\n", program_invocation_short_name, msg);
	exit(1);
}

static size_t t_size(const struct tensor *t)
{
	return (size_t)t->c * t->n * t->h * t->w;
}

static int t_add(struct model *m, size_t off, int c, int h, int w)
{
	if (m->nt >= MAX_TENSORS)
		die("too many tensors");
	struct tensor *t = &m->t[m->nt];
	t->off = off;
	t->c = c;
	t->n = m->batch;
	t->h = h;
	t->w = w;
	if (c > m->max_c)
		m->max_c = c;
	return m->nt++;
}

static int t_new(struct model *m, int c, int h, int w)
{
	int id = t_add(m, m->act_n, c, h, w);
	m->act_n += t_size(&m->t[id]);
	m->act_n = (m->act_n + 63) & ~(size_t)63; /* 256-byte aligned tensors */
	return id;
}

/* Channels [c0, c0 + c) of a CNHW tensor are contiguous: a view is an offset. */
static int t_view(struct model *m, int parent, int c0, int c)
{
	struct tensor *p = &m->t[parent];
	return t_add(m, p->off + (size_t)c0 * p->n * p->h * p->w, c, p->h, p->w);
}

static size_t p_new(struct model *m, size_t count, float scale)
{
	size_t off = m->param_n;
	if (m->ninits >= MAX_INITS)
		die("too many parameter tensors");
	m->inits[m->ninits].off = off;
	m->inits[m->ninits].count = count;
	m->inits[m->ninits].scale = scale;
	m->ninits++;
	m->param_n += (count + 63) & ~(size_t)63;
	return off;
}

static struct op *op_new(struct model *m, enum op_kind kind, int in, int out)
{
	if (m->nops >= MAX_OPS)
		die("too many ops");
	struct op *o = &m->ops[m->nops++];
	memset(o, 0, sizeof *o);
	o->kind = kind;
	o->in = in;
	o->in2 = -1;
	o->out = out;
	return o;
}

static int conv_into(struct model *m, int in, int out, int k, int stride, int pad)
{
	struct tensor *x = &m->t[in];
	struct op *o = op_new(m, OP_CONV, in, out);
	conv_shape_init(&o->cs, x->c, x->n, x->h, x->w, m->t[out].c, k, stride, pad);
	o->w_off = p_new(m, (size_t)o->cs.cout * x->c * k * k, sqrtf(6.f / (x->c * k * k)));
	return out;
}

static int conv(struct model *m, int in, int cout, int k, int stride, int pad)
{
	struct tensor *x = &m->t[in];
	int oh = (x->h + 2 * pad - k) / stride + 1, ow = (x->w + 2 * pad - k) / stride + 1;
	return conv_into(m, in, t_new(m, cout, oh, ow), k, stride, pad);
}

static int bn(struct model *m, int in)
{
	struct tensor *x = &m->t[in];
	int c = x->c;
	struct op *o = op_new(m, OP_BN, in, t_new(m, c, x->h, x->w));
	o->w_off = p_new(m, c, -1.f); /* gamma = 1 */
	o->b_off = p_new(m, c, -0.f); /* beta = 0 */
	o->st_off = m->state_n;
	m->state_n += 4 * (size_t)c;
	return o->out;
}

static int relu(struct model *m, int in)
{
	struct tensor *x = &m->t[in];
	return op_new(m, OP_RELU, in, t_new(m, x->c, x->h, x->w))->out;
}

static int bn_relu(struct model *m, int in)
{
	return relu(m, bn(m, in));
}

static int bias_act(struct model *m, int in, int do_relu)
{
	struct tensor *x = &m->t[in];
	struct op *o = op_new(m, OP_BIAS_ACT, in, t_new(m, x->c, x->h, x->w));
	o->relu = do_relu;
	o->b_off = p_new(m, x->c, -0.f);
	return o->out;
}

static int add(struct model *m, int a, int b)
{
	struct tensor *x = &m->t[a];
	struct op *o = op_new(m, OP_ADD, a, t_new(m, x->c, x->h, x->w));
	o->in2 = b;
	return o->out;
}

static int pool(struct model *m, int in, int is_max, int k, int stride, int pad)
{
	struct tensor *x = &m->t[in];
	int oh = (x->h + 2 * pad - k) / stride + 1, ow = (x->w + 2 * pad - k) / stride + 1;
	struct op *o = op_new(m, is_max ? OP_MAXPOOL : OP_AVGPOOL, in, t_new(m, x->c, oh, ow));
	pool_shape_init(&o->ps, x->c, x->n, x->h, x->w, k, stride, pad);
	if (is_max) {
		o->idx_off = m->idx_n;
		m->idx_n += t_size(&m->t[o->out]);
	}
	return o->out;
}

static int linear(struct model *m, int in, int outf)
{
	struct tensor *x = &m->t[in];
	int f = x->c * x->h * x->w;
	struct op *o = op_new(m, OP_LINEAR, in, t_new(m, outf, 1, 1));
	o->w_off = p_new(m, (size_t)outf * f, sqrtf(6.f / f));
	o->b_off = p_new(m, outf, -0.f);
	return o->out;
}

static void copy_into(struct model *m, int in, int out)
{
	op_new(m, OP_COPY, in, out);
}

static int input_layer(struct model *m)
{
	m->input = t_new(m, 3, IMG, IMG);
	return m->input;
}

static void head(struct model *m, int t)
{
	int logits = linear(m, t, CLASSES);
	m->probs = op_new(m, OP_SOFTMAX, logits, t_new(m, CLASSES, 1, 1))->out;
}

static int stem(struct model *m)
{
	int t = conv(m, input_layer(m), 64, 7, 2, 3);
	return pool(m, bn_relu(m, t), 1, 3, 2, 1);
}

/* ResNet-50: bottleneck blocks 1x1 -> 3x3 -> 1x1 (x4), projection shortcuts. */
static int bottleneck(struct model *m, int in, int width, int stride)
{
	int cout = 4 * width;
	int a = bn_relu(m, conv(m, in, width, 1, 1, 0));
	a = bn_relu(m, conv(m, a, width, 3, stride, 1));
	a = bn(m, conv(m, a, cout, 1, 1, 0));
	int sc = in;
	if (stride != 1 || m->t[in].c != cout)
		sc = bn(m, conv(m, in, cout, 1, stride, 0));
	return relu(m, add(m, a, sc));
}

static void build_resnet(struct model *m)
{
	static const int blocks[4] = {3, 4, 6, 3};
	int t = stem(m);
	for (int s = 0; s < 4; s++)
		for (int b = 0; b < blocks[s]; b++)
			t = bottleneck(m, t, 64 << s, (b == 0 && s > 0) ? 2 : 1);
	head(m, pool(m, t, 0, 7, 1, 0));
}

/* VGG-16 (configuration D): 3x3 conv + bias + ReLU stacks, max pools, 3 FC. */
static void build_vgg(struct model *m)
{
	static const int cfg[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0};
	int t = input_layer(m);
	for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++)
		t = cfg[i] ? bias_act(m, conv(m, t, cfg[i], 3, 1, 1), 1) : pool(m, t, 1, 2, 2, 0);
	t = relu(m, linear(m, t, 4096));
	t = relu(m, linear(m, t, 4096));
	head(m, t);
}

/* DenseNet-121: each layer reads all earlier features (a channel prefix of
 * the block's buffer) and writes its 32 new channels in place after them. */
static void build_densenet(struct model *m)
{
	static const int layers[4] = {6, 12, 24, 16};
	const int growth = 32;
	int t = stem(m);
	for (int b = 0; b < 4; b++) {
		struct tensor x = m->t[t];
		int ctot = x.c + layers[b] * growth;
		int buf = t_new(m, ctot, x.h, x.w);
		copy_into(m, t, t_view(m, buf, 0, x.c));
		for (int l = 0; l < layers[b]; l++) {
			int cin = x.c + l * growth;
			int u = conv(m, bn_relu(m, t_view(m, buf, 0, cin)), 4 * growth, 1, 1, 0);
			conv_into(m, bn_relu(m, u), t_view(m, buf, cin, growth), 3, 1, 1);
		}
		t = buf;
		if (b < 3)
			t = pool(m, conv(m, bn_relu(m, t), ctot / 2, 1, 1, 0), 0, 2, 2, 0);
	}
	head(m, pool(m, bn_relu(m, t), 0, 7, 1, 0));
}

static void build(struct model *m)
{
	m->nt = m->nops = m->ninits = 0;
	m->act_n = m->param_n = m->state_n = m->idx_n = 0;
	m->max_c = 0;
	if (m->kind == MODEL_RESNET)
		build_resnet(m);
	else if (m->kind == MODEL_VGG)
		build_vgg(m);
	else
		build_densenet(m);
}

static void *dev_alloc(size_t bytes)
{
	void *p = NULL;
	CK(cudaMalloc(&p, bytes ? bytes : 16));
	return p;
}

static void init_params(struct model *m, cudaStream_t st)
{
	for (int i = 0; i < m->ninits; i++) {
		struct param_init *pi = &m->inits[i];
		if (pi->scale > 0)
			fill_uniform(m->param + pi->off, pi->count, pi->scale, m->seed * 7919u + i, st);
		else
			fill_const(m->param + pi->off, pi->count, -pi->scale, st);
	}
	for (int i = 0; i < m->nops; i++) {
		struct op *o = &m->ops[i];
		if (o->kind != OP_BN)
			continue;
		int c = m->t[o->in].c;
		fill_const(m->state + o->st_off, c, 0.f, st);         /* running mean */
		fill_const(m->state + o->st_off + c, c, 1.f, st);     /* running var */
		fill_const(m->state + o->st_off + 2 * c, 2 * c, 0.f, st);
	}
}

int model_kind_parse(const char *s, enum model_kind *kind)
{
	if (strcmp(s, "resnet") == 0)
		*kind = MODEL_RESNET;
	else if (strcmp(s, "vgg") == 0)
		*kind = MODEL_VGG;
	else if (strcmp(s, "densenet") == 0)
		*kind = MODEL_DENSENET;
	else
		return -1;
	return 0;
}

const char *model_kind_name(enum model_kind kind)
{
	return kind == MODEL_RESNET ? "resnet" : kind == MODEL_VGG ? "vgg" : "densenet";
}

struct model *model_create(enum model_kind kind, int batch, int training, unsigned seed)
{
	struct model *m = (struct model *)calloc(1, sizeof *m);
	if (!m)
		die("out of host memory");
	m->kind = kind;
	m->batch = batch;
	m->training = training;
	m->seed = seed;
	build(m); /* sizes only; pointers are resolved from offsets at run time */
	m->act = (float *)dev_alloc(m->act_n * sizeof(float));
	m->param = (float *)dev_alloc(m->param_n * sizeof(float));
	m->state = (float *)dev_alloc(m->state_n * sizeof(float));
	m->idx = (int *)dev_alloc(m->idx_n * sizeof(int));
	m->labels = (int *)dev_alloc(batch * sizeof(int));
	m->sums = (double *)dev_alloc(2 * (size_t)m->max_c * sizeof(double));
	if (training) {
		m->gact = (float *)dev_alloc(m->act_n * sizeof(float));
		m->gparam = (float *)dev_alloc(m->param_n * sizeof(float));
		m->mom = (float *)dev_alloc(m->param_n * sizeof(float));
		CK(cudaMemset(m->mom, 0, m->param_n * sizeof(float)));
	}
	CK(cudaMemset(m->act, 0, m->act_n * sizeof(float)));
	init_params(m, 0);
	fill_uniform(m->act + m->t[m->input].off, t_size(&m->t[m->input]), 1.f, seed, 0);
	fill_labels(m->labels, batch, CLASSES, seed, 0);
	CK(cudaDeviceSynchronize());
	return m;
}

static float *A(struct model *m, int t)
{
	return m->act + m->t[t].off;
}

static float *G(struct model *m, int t)
{
	return m->gact + m->t[t].off;
}

static size_t inner_of(const struct model *m, int t)
{
	const struct tensor *x = &m->t[t];
	return (size_t)x->n * x->h * x->w;
}

static void op_forward(struct model *m, struct op *o, cudaStream_t st)
{
	struct tensor *x = &m->t[o->in], *y = &m->t[o->out];
	float *P = m->param, *S = m->state + o->st_off;
	int c = x->c;
	switch (o->kind) {
	case OP_CONV:
		conv2d_fwd(&o->cs, A(m, o->in), P + o->w_off, A(m, o->out), st);
		break;
	case OP_BN:
		if (m->training)
			bn_fwd_train(A(m, o->in), A(m, o->out), P + o->w_off, P + o->b_off, S, S + c, S + 2 * c,
				     S + 3 * c, m->sums, c, inner_of(m, o->in), st);
		else
			bn_fwd_infer(A(m, o->in), A(m, o->out), P + o->w_off, P + o->b_off, S, S + c, c,
				     inner_of(m, o->in), st);
		break;
	case OP_RELU:
		relu_fwd(A(m, o->in), A(m, o->out), t_size(x), st);
		break;
	case OP_BIAS_ACT:
		bias_act_fwd(A(m, o->in), P + o->b_off, A(m, o->out), c, inner_of(m, o->in), o->relu, st);
		break;
	case OP_ADD:
		add_fwd(A(m, o->in), A(m, o->in2), A(m, o->out), t_size(x), st);
		break;
	case OP_MAXPOOL:
		maxpool_fwd(&o->ps, A(m, o->in), A(m, o->out), m->idx + o->idx_off, st);
		break;
	case OP_AVGPOOL:
		avgpool_fwd(&o->ps, A(m, o->in), A(m, o->out), st);
		break;
	case OP_LINEAR:
		linear_fwd(c * x->h * x->w, x->h * x->w, x->n, y->c, A(m, o->in), P + o->w_off, P + o->b_off,
			   A(m, o->out), st);
		break;
	case OP_COPY:
		copy_fwd(A(m, o->in), A(m, o->out), t_size(x), st);
		break;
	case OP_SOFTMAX:
		softmax_fwd(A(m, o->in), A(m, o->out), c, x->n, st);
		break;
	}
}

static void op_backward(struct model *m, struct op *o, cudaStream_t st)
{
	struct tensor *x = &m->t[o->in], *y = &m->t[o->out];
	float *P = m->param, *GP = m->gparam, *S = m->state + o->st_off;
	int c = x->c;
	switch (o->kind) {
	case OP_CONV:
		if (o->in != m->input) /* nobody needs the image's gradient */
			conv2d_bwd_data(&o->cs, G(m, o->out), P + o->w_off, G(m, o->in), st);
		conv2d_bwd_weight(&o->cs, G(m, o->out), A(m, o->in), GP + o->w_off, st);
		break;
	case OP_BN:
		bn_bwd(G(m, o->out), A(m, o->in), G(m, o->in), P + o->w_off, GP + o->w_off, GP + o->b_off, S + 2 * c,
		       S + 3 * c, m->sums, c, inner_of(m, o->in), st);
		break;
	case OP_RELU:
		relu_bwd(G(m, o->out), A(m, o->out), G(m, o->in), t_size(x), st);
		break;
	case OP_BIAS_ACT:
		bias_act_bwd(G(m, o->out), A(m, o->out), G(m, o->in), GP + o->b_off, c, inner_of(m, o->in), o->relu,
			     st);
		break;
	case OP_ADD:
		accumulate(G(m, o->out), G(m, o->in), t_size(x), st);
		accumulate(G(m, o->out), G(m, o->in2), t_size(x), st);
		break;
	case OP_MAXPOOL:
		maxpool_bwd(&o->ps, G(m, o->out), m->idx + o->idx_off, G(m, o->in), st);
		break;
	case OP_AVGPOOL:
		avgpool_bwd(&o->ps, G(m, o->out), G(m, o->in), st);
		break;
	case OP_LINEAR: {
		int f = c * x->h * x->w, hw = x->h * x->w;
		linear_bwd_data(f, hw, x->n, y->c, G(m, o->out), P + o->w_off, G(m, o->in), st);
		linear_bwd_weight(f, hw, x->n, y->c, G(m, o->out), A(m, o->in), GP + o->w_off, st);
		channel_sum(G(m, o->out), NULL, GP + o->b_off, y->c, y->n, st);
		break;
	}
	case OP_COPY:
		accumulate(G(m, o->out), G(m, o->in), t_size(x), st);
		break;
	case OP_SOFTMAX:
		softmax_xent_bwd(A(m, o->out), m->labels, G(m, o->in), c, x->n, st);
		break;
	}
}

void model_forward(struct model *m, cudaStream_t st)
{
	for (int i = 0; i < m->nops; i++)
		op_forward(m, &m->ops[i], st);
}

void model_train_step(struct model *m, cudaStream_t st, float lr)
{
	if (!m->training)
		die("model_train_step on an inference-only model");
	CK(cudaMemsetAsync(m->gact, 0, m->act_n * sizeof(float), st));
	CK(cudaMemsetAsync(m->gparam, 0, m->param_n * sizeof(float), st));
	model_forward(m, st);
	for (int i = m->nops - 1; i >= 0; i--)
		op_backward(m, &m->ops[i], st);
	sgd_update(m->param, m->gparam, m->mom, m->param_n, lr, 0.9f, 1e-4f, st);
}

int model_verify(struct model *m, cudaStream_t st)
{
	size_t n = t_size(&m->t[m->probs]);
	float *h = (float *)malloc(n * sizeof(float));
	if (!h)
		die("out of host memory");
	CK(cudaStreamSynchronize(st));
	CK(cudaMemcpy(h, A(m, m->probs), n * sizeof(float), cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int col = 0; col < m->batch && !bad; col++) {
		double s = 0;
		for (int i = 0; i < CLASSES; i++) {
			float v = h[(size_t)i * m->batch + col];
			if (!isfinite(v) || v < 0.f)
				bad = 1;
			s += v;
		}
		if (fabs(s - 1.0) > 1e-3)
			bad = 1;
	}
	free(h);
	if (bad)
		fprintf(stderr, "%s: model %s: class probabilities are not a distribution (NaN or overflow)\n",
			program_invocation_short_name, model_kind_name(m->kind));
	return bad ? -1 : 0;
}

void model_destroy(struct model *m)
{
	if (!m)
		return;
	void *ptrs[] = {m->act, m->gact, m->param, m->gparam, m->mom, m->state, m->idx, m->labels, m->sums};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		if (ptrs[i])
			CK(cudaFree(ptrs[i]));
	free(m);
}

int model_ops(const struct model *m)
{
	return m->nops;
}

size_t model_params(const struct model *m)
{
	return m->param_n;
}

size_t model_bytes(const struct model *m)
{
	size_t f = m->act_n + m->param_n + m->state_n + (m->training ? m->act_n + 2 * m->param_n : 0);
	return f * sizeof(float) + m->idx_n * sizeof(int);
}
