/* Models as a flat list of ops over tensors (a tiny tape): forward walks it in
 * order, backward in reverse.  Builders record offsets into a few arenas, not
 * pointers, so the arenas can be sized after building; one memset then zeroes
 * every gradient of a step and one launch updates every weight.
 *
 * Inference models also get a plan (plan_build): the tape with batch norm,
 * ReLU, bias and residual adds folded into the convolutions next to them, as
 * inference engines do, so a request launches fewer, larger kernels. */
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

enum op_kind {
	OP_CONV, OP_BN, OP_RELU, OP_BIAS_ACT, OP_ADD, OP_MAXPOOL, OP_AVGPOOL, OP_LINEAR, OP_COPY, OP_SOFTMAX,
	OP_AFFINE_ACT /* plan only: a folded batch norm and its ReLU */
};

struct tensor {
	size_t off; /* floats into the activation (and activation-gradient) arena */
	int c, n, h, w;
	int view_of; /* parent tensor of a channel view, -1 for a tensor of its own */
	int views;   /* views taken of it */
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
	/* Plan only (plan_build): the batch norms (indices into the tape) whose
	 * folded affine a convolution applies to its input or output, or an
	 * OP_AFFINE_ACT applies; -1 when none. */
	int pre_bn, post_bn;
	int pre_relu, post_relu;
	int post_bias;         /* 1: b_off is a bias the convolution adds */
	int res;               /* tensor the convolution adds before its ReLU, -1 none */
	/* On a tape batch norm the plan folds: its scale and shift (2c) in aff. */
	int folded;
	size_t aff_off;
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
	struct op plan[MAX_OPS]; /* inference: the tape with fusions, plan_build */
	int nplan;
	int fused;               /* model_forward runs the plan */
	int fwd_kernels;         /* launched by the last model_forward */
	struct param_init inits[MAX_INITS];
	int ninits;
	size_t act_n, param_n, state_n, idx_n, aff_n;
	int max_c;
	int input, logits, probs;
	float *act, *gact, *param, *gparam, *mom, *state, *aff;
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
	t->view_of = -1;
	t->views = 0;
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
	int id = t_add(m, p->off + (size_t)c0 * p->n * p->h * p->w, c, p->h, p->w);
	m->t[id].view_of = parent;
	m->t[parent].views++;
	return id;
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
	o->pre_bn = o->post_bn = o->res = -1;
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
	m->logits = linear(m, t, CLASSES);
	m->probs = op_new(m, OP_SOFTMAX, m->logits, t_new(m, CLASSES, 1, 1))->out;
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

/* ---- inference plan ------------------------------------------------------
 * The tape with its batch norms, ReLUs, biases and residual adds folded into
 * the convolutions around them (docs/kernels.md).  Inference only: training
 * needs the intermediate tensors for its backward pass, and its batch norm
 * uses batch statistics, not a fixed affine. */

/* Nothing but one reader needs t, and no view shares its memory: its
 * producer may hand the value to that reader without writing t. */
static int t_private(const struct model *m, const int *uses, int t)
{
	const struct tensor *x = &m->t[t];
	return uses[t] == 1 && x->view_of < 0 && x->views == 0;
}

/* The first op of the tape after `from` that reads t, or -1. */
static int reader_of(const struct model *m, int from, int t)
{
	for (int j = from + 1; j < m->nops; j++)
		if (m->ops[j].in == t || m->ops[j].in2 == t)
			return j;
	return -1;
}

/* The op reading t when t has no other reader and that op is still free. */
static int sole_reader(const struct model *m, const int *uses, const char *absorbed, int from, int t)
{
	if (!t_private(m, uses, t))
		return -1;
	int j = reader_of(m, from, t);
	return j >= 0 && !absorbed[j] ? j : -1;
}

/* Output side (post-activation: ResNet, VGG, the stems): conv -> BN [->
 * ReLU], conv -> BN -> add -> ReLU, conv -> bias+ReLU.  The ops after the
 * convolution are absorbed; the fused convolution (f[i]) takes the last
 * one's output and runs at the last one's place, when the residual is
 * ready.  Running it later than the tape did is safe: every value is written
 * once, so its input still holds the same values then.  Returns that place. */
static int fuse_epilogue(struct model *m, const int *uses, struct op *f, char *absorbed, int i)
{
	struct op *o = &f[i];
	int j = sole_reader(m, uses, absorbed, i, o->out), last;
	if (j < 0)
		return i;
	const struct op *r = &m->ops[j];
	if (r->kind == OP_BIAS_ACT) {
		o->post_bias = 1;
		o->b_off = r->b_off;
		o->post_relu = r->relu;
		o->out = r->out;
		absorbed[j] = 1;
		return j;
	}
	if (r->kind != OP_BN)
		return i;
	o->post_bn = j;
	o->out = r->out;
	absorbed[last = j] = 1;
	if ((j = sole_reader(m, uses, absorbed, last, o->out)) < 0)
		return last;
	r = &m->ops[j];
	if (r->kind == OP_ADD) {
		o->res = r->in == o->out ? r->in2 : r->in;
		o->out = r->out;
		absorbed[last = j] = 1;
		if ((j = sole_reader(m, uses, absorbed, last, o->out)) < 0)
			return last;
		r = &m->ops[j];
	}
	if (r->kind == OP_RELU) {
		o->post_relu = 1;
		o->out = r->out;
		absorbed[last = j] = 1;
	}
	return last;
}

/* Input side (pre-activation: DenseNet): BN -> ReLU whose output only
 * convolutions read.  Each of them reads the BN's input instead and applies
 * the affine and the ReLU as it loads; the BN and the ReLU go.  A BN -> ReLU
 * read by anything else becomes one OP_AFFINE_ACT. */
static void fuse_prologue(struct model *m, const int *uses, struct op *f, char *absorbed, int i)
{
	struct op *o = &f[i];
	int j = sole_reader(m, uses, absorbed, i, o->out);
	if (j < 0 || m->ops[j].kind != OP_RELU)
		return;
	int r = m->ops[j].out, convs = 0;
	absorbed[j] = 1;
	if (m->t[r].view_of < 0 && m->t[r].views == 0) {
		for (int k = j; (k = reader_of(m, k, r)) >= 0;)
			convs += m->ops[k].kind == OP_CONV && !absorbed[k];
	}
	if (convs > 0 && convs == uses[r]) {
		for (int k = j; (k = reader_of(m, k, r)) >= 0;) {
			f[k].in = o->in;
			f[k].pre_bn = i;
			f[k].pre_relu = 1;
		}
		absorbed[i] = 1;
		return;
	}
	o->kind = OP_AFFINE_ACT;
	o->pre_bn = i;
	o->relu = 1;
	o->out = r;
}

/* A copy out of a tensor nobody else reads (DenseNet's pool output into the
 * next block's buffer): its producer writes the destination itself. */
static int elide_copy(struct model *m, const int *uses, int i)
{
	const struct op *o = &m->ops[i];
	if (!t_private(m, uses, o->in) || t_size(&m->t[o->in]) != t_size(&m->t[o->out]))
		return 0;
	for (int k = m->nplan - 1; k >= 0; k--)
		if (m->plan[k].out == o->in) {
			m->plan[k].out = o->out;
			return 1;
		}
	return 0;
}

/* Every value an op reads was written by an earlier op, and none is written
 * twice.  The tape holds this by construction; the plan must keep it
 * through the moves and rewrites above, so a failure is a bug here. */
static void check_order(const struct model *m, const struct op *ops, int n, const char *what)
{
	unsigned char *done = (unsigned char *)calloc(m->act_n / 8 + 1, 1);
	if (!done)
		die("out of host memory");
	const char *bad = NULL;
	const struct tensor *in = &m->t[m->input];
	for (size_t k = in->off; k < in->off + t_size(in); k++)
		done[k / 8] |= (unsigned char)(1u << (k % 8));
	for (int i = 0; i < n && !bad; i++) {
		const struct op *o = &ops[i];
		int reads[3] = {o->in, o->in2, o->res};
		for (int r = 0; r < 3 && !bad; r++) {
			if (reads[r] < 0)
				continue;
			const struct tensor *t = &m->t[reads[r]];
			for (size_t k = t->off; k < t->off + t_size(t) && !bad; k++)
				if (!(done[k / 8] & (1u << (k % 8))))
					bad = "reads a value no earlier op wrote";
		}
		const struct tensor *t = &m->t[o->out];
		for (size_t k = t->off; k < t->off + t_size(t) && !bad; k++) {
			if (done[k / 8] & (1u << (k % 8)))
				bad = "writes a value twice";
			done[k / 8] |= (unsigned char)(1u << (k % 8));
		}
		if (bad)
			fprintf(stderr, "%s: model %s: %s op %d of %d %s\n", program_invocation_short_name,
				model_kind_name(m->kind), what, i, n, bad);
	}
	free(done);
	if (bad)
		exit(1);
}

static void plan_build(struct model *m)
{
	int *uses = (int *)calloc(m->nt, sizeof(int));
	int *delayed = (int *)malloc(m->nops * sizeof(int)); /* a convolution to run at this place */
	char *absorbed = (char *)calloc(m->nops, 1);
	struct op *f = (struct op *)malloc(m->nops * sizeof(struct op));
	if (!uses || !delayed || !absorbed || !f)
		die("out of host memory");
	memcpy(f, m->ops, m->nops * sizeof(struct op));
	for (int i = 0; i < m->nops; i++) {
		uses[m->ops[i].in]++;
		if (m->ops[i].in2 >= 0)
			uses[m->ops[i].in2]++;
		delayed[i] = -1;
	}
	m->nplan = 0;
	for (int i = 0; i < m->nops; i++) {
		int at = i;
		if (!absorbed[i] && f[i].kind == OP_CONV)
			at = fuse_epilogue(m, uses, f, absorbed, i);
		else if (!absorbed[i] && f[i].kind == OP_BN)
			fuse_prologue(m, uses, f, absorbed, i);
		else if (!absorbed[i] && f[i].kind == OP_COPY)
			absorbed[i] = (char)elide_copy(m, uses, i);
		if (!absorbed[i] && at == i)
			m->plan[m->nplan++] = f[i];
		else if (!absorbed[i])
			delayed[at] = i;
		if (delayed[i] >= 0)
			m->plan[m->nplan++] = f[delayed[i]];
	}
	/* Each batch norm the plan applies gets its folded scale and shift. */
	m->aff_n = 0;
	for (int k = 0; k < m->nplan; k++) {
		int bns[2] = {m->plan[k].pre_bn, m->plan[k].post_bn};
		for (int b = 0; b < 2; b++) {
			struct op *bn = bns[b] >= 0 ? &m->ops[bns[b]] : NULL;
			if (!bn || bn->folded)
				continue;
			bn->folded = 1;
			bn->aff_off = m->aff_n;
			m->aff_n += (2 * (size_t)m->t[bn->in].c + 63) & ~(size_t)63;
		}
	}
	check_order(m, m->ops, m->nops, "tape");
	check_order(m, m->plan, m->nplan, "inference plan");
	free(uses);
	free(delayed);
	free(absorbed);
	free(f);
}

static const float *aff_scale(const struct model *m, int bn)
{
	return m->aff + m->ops[bn].aff_off;
}

static const float *aff_shift(const struct model *m, int bn)
{
	return aff_scale(m, bn) + m->t[m->ops[bn].in].c;
}

/* The folded affine of every batch norm the plan applies, from its current
 * parameters and running statistics (inference engines do this once). */
static void fold_bn(struct model *m, cudaStream_t st)
{
	for (int i = 0; i < m->nops; i++) {
		struct op *o = &m->ops[i];
		if (o->kind != OP_BN || !o->folded)
			continue;
		int c = m->t[o->in].c;
		const float *S = m->state + o->st_off;
		bn_fold(m->param + o->w_off, m->param + o->b_off, S, S + c, m->aff + o->aff_off,
			m->aff + o->aff_off + c, c, st);
	}
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

/* The host side: tape, plan and sizes; no CUDA call. */
static struct model *model_new(enum model_kind kind, int batch, int training, unsigned seed)
{
	struct model *m = (struct model *)calloc(1, sizeof *m);
	if (!m)
		die("out of host memory");
	m->kind = kind;
	m->batch = batch;
	m->training = training;
	m->seed = seed;
	build(m); /* sizes only; pointers are resolved from offsets at run time */
	if (!training)
		plan_build(m);
	m->fused = !training;
	return m;
}

struct model *model_create(enum model_kind kind, int batch, int training, unsigned seed)
{
	struct model *m = model_new(kind, batch, training, seed);
	m->act = (float *)dev_alloc(m->act_n * sizeof(float));
	m->param = (float *)dev_alloc(m->param_n * sizeof(float));
	m->state = (float *)dev_alloc(m->state_n * sizeof(float));
	m->idx = (int *)dev_alloc(m->idx_n * sizeof(int));
	m->labels = (int *)dev_alloc(batch * sizeof(int));
	m->sums = (double *)dev_alloc(2 * (size_t)m->max_c * sizeof(double));
	m->aff = (float *)dev_alloc(m->aff_n * sizeof(float));
	if (training) {
		m->gact = (float *)dev_alloc(m->act_n * sizeof(float));
		m->gparam = (float *)dev_alloc(m->param_n * sizeof(float));
		m->mom = (float *)dev_alloc(m->param_n * sizeof(float));
		CK(cudaMemset(m->mom, 0, m->param_n * sizeof(float)));
	}
	CK(cudaMemset(m->act, 0, m->act_n * sizeof(float)));
	init_params(m, 0);
	fold_bn(m, 0);
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

/* What a plan convolution does around its GEMM; 0 for a plain one. */
static int conv_fusion_of(struct model *m, const struct op *o, struct conv_fusion *f)
{
	memset(f, 0, sizeof *f);
	if (o->pre_bn >= 0) {
		f->in_scale = aff_scale(m, o->pre_bn);
		f->in_shift = aff_shift(m, o->pre_bn);
	}
	f->in_relu = o->pre_relu;
	if (o->post_bn >= 0) {
		f->out_scale = aff_scale(m, o->post_bn);
		f->out_shift = aff_shift(m, o->post_bn);
	} else if (o->post_bias) {
		f->out_shift = m->param + o->b_off;
	}
	f->res = o->res >= 0 ? A(m, o->res) : NULL;
	f->out_relu = o->post_relu;
	return f->in_scale || f->in_relu || f->out_scale || f->out_shift || f->res || f->out_relu;
}

static void op_forward(struct model *m, const struct op *o, cudaStream_t st)
{
	struct tensor *x = &m->t[o->in], *y = &m->t[o->out];
	float *P = m->param, *S = m->state + o->st_off;
	int c = x->c;
	struct conv_fusion fu;
	switch (o->kind) {
	case OP_CONV:
		if (conv_fusion_of(m, o, &fu))
			conv2d_fwd_fused(&o->cs, A(m, o->in), P + o->w_off, A(m, o->out), &fu, st);
		else
			conv2d_fwd(&o->cs, A(m, o->in), P + o->w_off, A(m, o->out), st);
		break;
	case OP_AFFINE_ACT:
		affine_act_fwd(A(m, o->in), aff_scale(m, o->pre_bn), aff_shift(m, o->pre_bn), A(m, o->out), c,
			       inner_of(m, o->in), o->relu, st);
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
	case OP_AFFINE_ACT:
		die("a fused op in the training tape");
	}
}

void model_forward(struct model *m, cudaStream_t st)
{
	unsigned long k0 = layers_launches();
	const struct op *ops = m->fused ? m->plan : m->ops;
	int n = m->fused ? m->nplan : m->nops;
	for (int i = 0; i < n; i++)
		op_forward(m, &ops[i], st);
	m->fwd_kernels = (int)(layers_launches() - k0);
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
	void *ptrs[] = {m->act, m->gact, m->param, m->gparam, m->mom, m->state, m->idx, m->labels, m->sums, m->aff};
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
	size_t f = m->act_n + m->param_n + m->state_n + m->aff_n + (m->training ? m->act_n + 2 * m->param_n : 0);
	return f * sizeof(float) + m->idx_n * sizeof(int);
}

void model_set_fusion(struct model *m, int on)
{
	m->fused = on && !m->training;
}

int model_fused(const struct model *m)
{
	return m->fused;
}

/* Kernels op_forward launches: one per op, but three for a batch norm with
 * batch statistics (sums, finalize, apply). */
static int forward_kernels(const struct model *m)
{
	const struct op *ops = m->fused ? m->plan : m->ops;
	int n = m->fused ? m->nplan : m->nops, k = 0;
	for (int i = 0; i < n; i++)
		k += ops[i].kind == OP_BN && m->training ? 3 : 1;
	return k;
}

int model_forward_kernels(const struct model *m)
{
	return forward_kernels(m);
}

int model_last_forward_kernels(const struct model *m)
{
	return m->fwd_kernels;
}

int model_inference_kernels(enum model_kind kind, int fused)
{
	struct model *m = model_new(kind, 1, 0, 0);
	m->fused = fused;
	int k = forward_kernels(m);
	free(m);
	return k;
}

/* Host values in [lo, hi), a fixed sequence per seed. */
static void host_uniform(float *p, int n, float lo, float hi, unsigned *state)
{
	for (int i = 0; i < n; i++) {
		*state = *state * 1664525u + 1013904223u;
		p[i] = lo + (hi - lo) * (float)(*state >> 8) / 16777216.f;
	}
}

void model_randomize_affine(struct model *m, unsigned seed)
{
	float *h = (float *)malloc(4 * (size_t)m->max_c * sizeof(float));
	if (!h)
		die("out of host memory");
	for (int i = 0; i < m->nops; i++) {
		const struct op *o = &m->ops[i];
		int c = m->t[o->in].c;
		if (o->kind == OP_BN) {
			host_uniform(h, c, 0.75f, 1.25f, &seed);         /* gamma */
			host_uniform(h + c, c, -0.1f, 0.1f, &seed);      /* beta */
			host_uniform(h + 2 * c, c, -0.1f, 0.1f, &seed);  /* running mean */
			host_uniform(h + 3 * c, c, 0.75f, 1.25f, &seed); /* running variance */
			CK(cudaMemcpy(m->param + o->w_off, h, c * sizeof(float), cudaMemcpyHostToDevice));
			CK(cudaMemcpy(m->param + o->b_off, h + c, c * sizeof(float), cudaMemcpyHostToDevice));
			CK(cudaMemcpy(m->state + o->st_off, h + 2 * c, 2 * c * sizeof(float), cudaMemcpyHostToDevice));
		} else if (o->kind == OP_BIAS_ACT) {
			host_uniform(h, c, -0.1f, 0.1f, &seed);
			CK(cudaMemcpy(m->param + o->b_off, h, c * sizeof(float), cudaMemcpyHostToDevice));
		}
	}
	free(h);
	fold_bn(m, 0);
	CK(cudaDeviceSynchronize());
}

size_t model_outputs(struct model *m, cudaStream_t st, float *logits, float *probs)
{
	size_t n = t_size(&m->t[m->probs]);
	CK(cudaStreamSynchronize(st));
	if (logits)
		CK(cudaMemcpy(logits, A(m, m->logits), n * sizeof(float), cudaMemcpyDeviceToHost));
	if (probs)
		CK(cudaMemcpy(probs, A(m, m->probs), n * sizeof(float), cudaMemcpyDeviceToHost));
	return n;
}
