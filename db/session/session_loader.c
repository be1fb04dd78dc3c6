#include "db/session/session_state.h"

#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/blockcodec.h"
#include "src/core/analysis.h"
#include "src/core/array.h"
#include "src/core/model.h"
#include "src/core/pool.h"
#include "src/core/threads.h"

/* ---- the analysis' side --------------------------------------------------- */

static int op_run(struct analysis *a, struct session_op *op)
{
	int rc = 0;
	switch (op->kind) {
	case OP_KERNELS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_kernel(a, &((struct smtop_kernel *)op->v)[i]);
		break;
	case OP_STREAMS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_stream(a, &((struct smtop_stream *)op->v)[i]);
		break;
	case OP_CONTEXTS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_context(a, &((struct smtop_context *)op->v)[i]);
		break;
	case OP_REQUESTS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_request(a, &((struct smtop_request *)op->v)[i]);
		break;
	case OP_DEVICE:
		rc = analysis_add_device(a, &op->dev);
		break;
	case OP_MEMCPYS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_memcpy(a, &((struct smtop_memcpy *)op->v)[i]);
		break;
	case OP_MEMSETS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_memset(a, &((struct smtop_memset *)op->v)[i]);
		break;
	case OP_SYNCS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_sync(a, &((struct smtop_sync *)op->v)[i]);
		break;
	case OP_CUDA_EVENTS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_cuda_event(a, &((struct smtop_cuda_event *)op->v)[i]);
		break;
	case OP_GRAPH_DEPS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_graph_dep(a, &((struct smtop_graph_dep *)op->v)[i]);
		break;
	case OP_APIS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_api(a, &((struct smtop_api *)op->v)[i]);
		break;
	case OP_BATCH: {
		const struct session_batch *b = op->v;
		for (size_t i = 0; i < b->n_chunks && !rc; i++) {
			const struct session_chunk *c = &b->chunks[i];
			if (c->n > 0)
				rc = analysis_add_blocks(a, c->pid, c->context_id, &b->blocks[c->first],
							 (size_t)c->n);
		}
		break;
	}
	case OP_UPDATE:
		rc = analysis_update(a, op->mark);
		break;
	}
	if (op->kind != OP_BATCH)
		free(op->v);
	return rc;
}

static void *analysis_main(void *arg)
{
	struct session_loader *L = arg;
	pthread_mutex_lock(&L->qlock);
	for (;;) {
		while (!L->quit && !L->op_n)
			pthread_cond_wait(&L->work, &L->qlock);
		if (L->quit)
			break;
		struct session_op op = L->ops[L->op_head];
		L->op_head = (L->op_head + 1) % SESSION_OPS;
		L->op_n--;
		L->a_busy = 1;
		pthread_cond_broadcast(&L->freed); /* a slot in the queue */
		pthread_mutex_unlock(&L->qlock);
		pthread_mutex_lock(&L->alock);
		double t = session_thread_cpu_s();
		int rc = op_run(L->analysis, &op);
		t = session_thread_cpu_s() - t;
		pthread_mutex_unlock(&L->alock);
		pthread_mutex_lock(&L->qlock);
		L->a_seconds += t;
		if (rc)
			L->a_failed = 1;
		if (op.kind == OP_BATCH)
			((struct session_batch *)op.v)->busy = 0;
		L->a_busy = 0;
		pthread_cond_broadcast(&L->freed);
		if (!L->op_n)
			pthread_cond_broadcast(&L->idle);
	}
	pthread_mutex_unlock(&L->qlock);
	return NULL;
}

/* Hands op to the analysis (or runs it now, without its thread). */
int session_loader_submit(struct session *s, struct session_op op)
{
	struct session_loader *L = s->loader;
	if (s->analysis_off) {
		if (op.kind == OP_BATCH)
			((struct session_batch *)op.v)->busy = 0;
		else
			free(op.v);
		return 0;
	}
	if (!L->athread_on) {
		double t = session_thread_cpu_s();
		int rc = op_run(s->analysis, &op);
		L->a_seconds += session_thread_cpu_s() - t;
		if (op.kind == OP_BATCH)
			((struct session_batch *)op.v)->busy = 0;
		return rc;
	}
	pthread_mutex_lock(&L->qlock);
	while (L->op_n == SESSION_OPS)
		pthread_cond_wait(&L->freed, &L->qlock);
	if (op.kind == OP_BATCH)
		((struct session_batch *)op.v)->busy = 1;
	L->ops[(L->op_head + L->op_n) % SESSION_OPS] = op;
	L->op_n++;
	pthread_cond_signal(&L->work);
	pthread_mutex_unlock(&L->qlock);
	return 0;
}

void session_sync(struct session *s)
{
	struct session_loader *L = s->loader;
	if (!L || !L->athread_on)
		return;
	pthread_mutex_lock(&L->qlock);
	while (L->op_n || L->a_busy)
		pthread_cond_wait(&L->idle, &L->qlock);
	pthread_mutex_unlock(&L->qlock);
}

static void loader_stop(struct session_loader *L)
{
	if (!L->athread_on)
		return;
	pthread_mutex_lock(&L->qlock);
	L->quit = 1;
	pthread_cond_broadcast(&L->work);
	pthread_mutex_unlock(&L->qlock);
	pthread_join(L->athread, NULL);
	L->athread_on = 0;
	L->quit = 0;
	for (; L->op_n; L->op_n--, L->op_head = (L->op_head + 1) % SESSION_OPS) {
		struct session_op *op = &L->ops[L->op_head];
		if (op->kind == OP_BATCH)
			((struct session_batch *)op->v)->busy = 0;
		else
			free(op->v);
	}
}

void session_loader_free(struct session_loader *L)
{
	if (!L)
		return;
	loader_stop(L);
	pool_free(L->pool);
	for (int i = 0; i < SESSION_BATCHES; i++) {
		free(L->batches[i].chunks);
		free(L->batches[i].raw);
		free(L->batches[i].blocks);
	}
	free(L->held);
	free(L->order);
	free(L->released);
	free(L->kern);
	free(L->small);
	pthread_cond_destroy(&L->freed);
	pthread_cond_destroy(&L->idle);
	pthread_cond_destroy(&L->work);
	pthread_mutex_destroy(&L->alock);
	pthread_mutex_destroy(&L->qlock);
	free(L);
}

int session_set_threads(struct session *s, int n)
{
	struct session_loader *L = s->loader;
	if (n < 1)
		n = 1;
	/* one thread is the analysis' own; the pool has the rest, the caller's
	 * among them */
	struct pool *p = pool_new(n > 1 ? n - 1 : 1);
	if (!p)
		return -1;
	session_sync(s);
	loader_stop(L);
	pool_free(L->pool);
	L->pool = p;
	L->threads = n;
	if (s->model)
		model_set_pool(s->model, p);
	if (n > 1 && thread_start(&L->athread, "smtop-analysis", analysis_main, L) == 0)
		L->athread_on = 1;
	return 0;
}

struct session_loader *session_loader_new(struct analysis *a)
{
	struct session_loader *L = calloc(1, sizeof *L);
	if (!L)
		return NULL;
	L->analysis = a;
	pthread_mutex_init(&L->qlock, NULL);
	pthread_mutex_init(&L->alock, NULL);
	pthread_cond_init(&L->work, NULL);
	pthread_cond_init(&L->idle, NULL);
	pthread_cond_init(&L->freed, NULL);
	return L;
}

/* A session read to its end takes no more blocks: the batches and the
 * model's binning stage go back (docs/ui.md), so that what the view needs
 * next (the detail level of a zoom) fits in what loading took. */
void session_loader_trim(struct session *s)
{
	struct session_loader *L = s->loader;
	session_sync(s);
	for (int i = 0; i < SESSION_BATCHES; i++) {
		struct session_batch *b = &L->batches[i];
		free(b->chunks);
		free(b->raw);
		free(b->blocks);
		memset(b, 0, sizeof *b);
	}
	if (!L->n_held) {
		free(L->held);
		free(L->order);
		free(L->released);
		L->held = NULL;
		L->order = NULL;
		L->released = NULL;
		L->cap_held = L->n_order = L->cursor = L->n_released = 0;
	}
	if (s->model)
		model_trim(s->model);
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	L->trimmed = 1;
}
