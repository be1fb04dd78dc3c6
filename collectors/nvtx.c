#include "collectors/nvtx.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wchar.h>

/* A tool needs NVTX's types, never its inline implementation. */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include "collectors/drops.h"
#include "src/core/clock.h"

/* NVTX leaves domains and registered strings for the tool to define.
 * Neither is ever freed: a workload may use a handle after destroying it. */
struct nvtxDomainRegistration_st {
	struct nvtxDomainRegistration_st *next;
	char *name;
};

struct nvtxStringRegistration_st {
	struct nvtxStringRegistration_st *next;
	char *text;
};

/* A push/pop range still open on its thread. */
struct nvtx_open {
	uint64_t start;
	nvtxDomainHandle_t domain;
	char *text;
	int32_t color;
};

/* Per thread, so push and pop take no lock.  Pushes past NVTX_MAX_DEPTH
 * are only counted (excess); the next pops, of any domain, end them first. */
struct nvtx_thread {
	uint32_t tid;
	uint32_t depth;
	uint32_t excess;
	struct nvtx_open open[NVTX_MAX_DEPTH];
};

/* A start/end range: it may end on another thread. id 0 marks a free slot. */
struct nvtx_started {
	uint64_t id;
	uint64_t start;
	nvtxDomainHandle_t domain;
	char *text;
	uint32_t tid;
	int32_t color;
};

static _Thread_local struct nvtx_thread nvtx_self;

static pthread_mutex_t nvtx_started_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvtx_started nvtx_started[NVTX_MAX_STARTED];
static _Atomic uint64_t nvtx_next_id;

static pthread_mutex_t nvtx_domain_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvtxDomainRegistration_st *nvtx_domains;
static struct nvtxStringRegistration_st *nvtx_strings; /* kept reachable, never freed */

static pthread_mutex_t nvtx_pending_lock = PTHREAD_MUTEX_INITIALIZER;
static struct smtop_nvtx nvtx_pending[NVTX_PENDING];
static size_t nvtx_n_pending;

static _Atomic(nvtx_sink_fn) nvtx_sink;
static atomic_int nvtx_closed;
static atomic_flag nvtx_atfork_once = ATOMIC_FLAG_INIT;
static _Atomic uint64_t nvtx_recorded, nvtx_lost, nvtx_unmatched;
static uint64_t (*nvtx_clock)(void);

static uint64_t nvtx_now(void)
{
	return nvtx_clock ? nvtx_clock() : clock_real_ns();
}

static void nvtx_count(_Atomic uint64_t *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/* A range that existed and will not reach the session: the session's ring
 * drops count it. */
static void nvtx_count_lost(void)
{
	nvtx_count(&nvtx_lost);
	drops_add(DROPS_NVTX, 1);
}

static uint32_t nvtx_tid(void)
{
	if (!nvtx_self.tid)
		nvtx_self.tid = (uint32_t)syscall(SYS_gettid);
	return nvtx_self.tid;
}

/* ---- messages --------------------------------------------------------------- */

static char *nvtx_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static size_t nvtx_utf8(uint32_t c, char *out)
{
	if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		c = 0xfffd;
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | (c >> 12));
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (c >> 18));
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* The W functions' text, as UTF-8 whatever the workload's locale. */
static char *nvtx_wide(const wchar_t *w)
{
	size_t n, len = 0;
	char *s;

	if (!w)
		return NULL;
	n = wcslen(w);
	if (n > (SIZE_MAX - 1) / 4 || !(s = malloc(n * 4 + 1)))
		return NULL;
	for (size_t i = 0; i < n; i++)
		len += nvtx_utf8((uint32_t)w[i], s + len);
	s[len] = '\0';
	return s;
}

/* Attributes are versioned by size: a field past a smaller struct's end
 * was never set. */
#define NVTX_HAS(a, field) \
	((a)->size >= offsetof(nvtxEventAttributes_t, field) + sizeof((a)->field))

static char *nvtx_attr_text(const nvtxEventAttributes_t *a)
{
	if (!a || !NVTX_HAS(a, message))
		return NULL;
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		return nvtx_strdup(a->message.ascii);
	case NVTX_MESSAGE_TYPE_UNICODE:
		return nvtx_wide(a->message.unicode);
	case NVTX_MESSAGE_TYPE_REGISTERED:
		return a->message.registered ? nvtx_strdup(a->message.registered->text) : NULL;
	default:
		return NULL;
	}
}

static int32_t nvtx_attr_color(const nvtxEventAttributes_t *a)
{
	if (!a || !NVTX_HAS(a, color) || a->colorType != NVTX_COLOR_ARGB)
		return 0;
	return (int32_t)a->color;
}

/* ---- records ------------------------------------------------------------------ */

static void nvtx_free(struct smtop_nvtx *n)
{
	free((char *)n->text);
	free((char *)n->domain);
}

static void nvtx_lose(char *text)
{
	free(text);
	nvtx_count_lost();
}

static void nvtx_hand(nvtx_sink_fn sink, const struct smtop_nvtx *n)
{
	struct smtop_record r = { .kind = SMTOP_REC_NVTX };

	r.u.nvtx = *n;
	nvtx_count(&nvtx_recorded);
	sink(&r);
}

/* Before the collector started (NVTX may come before cuInit) records wait
 * in the buffer; once closed they go nowhere.  A closed module takes no
 * lock: in a forked child a lock may be held by a thread that is gone. */
static void nvtx_emit(struct smtop_nvtx *n)
{
	nvtx_sink_fn sink = atomic_load_explicit(&nvtx_sink, memory_order_acquire);

	if (!sink && !atomic_load(&nvtx_closed)) {
		pthread_mutex_lock(&nvtx_pending_lock);
		sink = atomic_load(&nvtx_sink);
		if (!sink && !atomic_load(&nvtx_closed) && nvtx_n_pending < NVTX_PENDING) {
			nvtx_pending[nvtx_n_pending++] = *n;
			pthread_mutex_unlock(&nvtx_pending_lock);
			return;
		}
		pthread_mutex_unlock(&nvtx_pending_lock);
	}
	if (!sink) {
		nvtx_free(n);
		nvtx_count_lost();
		return;
	}
	nvtx_hand(sink, n);
}

/* Takes text. */
static void nvtx_out(uint64_t start, uint64_t end, uint32_t tid, nvtxDomainHandle_t domain,
		     char *text, int32_t color)
{
	struct smtop_nvtx n = {
		.start = start, .end = end, .tid = tid, .color = color, .text = text,
		.domain = domain ? nvtx_strdup(domain->name) : NULL,
	};

	nvtx_emit(&n);
}

/* ---- push/pop, start/end, marks ------------------------------------------------------ */

/* NVTX returns the 0-based level of the range started, or ended; below 0
 * for a pop with nothing open. */
static int nvtx_push(uint64_t t, nvtxDomainHandle_t domain, char *text, int32_t color)
{
	struct nvtx_thread *self = &nvtx_self;
	int level = (int)(self->depth + self->excess);

	if (self->depth == NVTX_MAX_DEPTH) {
		self->excess++;
		nvtx_lose(text);
		return level;
	}
	self->open[self->depth++] = (struct nvtx_open){ .start = t, .domain = domain, .text = text,
							.color = color };
	return level;
}

static long nvtx_top_of(const struct nvtx_thread *self, nvtxDomainHandle_t domain)
{
	for (uint32_t i = self->depth; i-- > 0;)
		if (self->open[i].domain == domain)
			return (long)i;
	return -1;
}

static int nvtx_pop(uint64_t t, nvtxDomainHandle_t domain)
{
	struct nvtx_thread *self = &nvtx_self;
	struct nvtx_open o;
	long i;

	if (self->excess) {
		self->excess--;
		return (int)(self->depth + self->excess);
	}
	i = nvtx_top_of(self, domain);
	if (i < 0) {
		nvtx_count(&nvtx_unmatched);
		return -1;
	}
	o = self->open[i];
	memmove(&self->open[i], &self->open[i + 1], (self->depth - (uint32_t)i - 1) * sizeof(o));
	self->depth--;
	nvtx_out(o.start, t, nvtx_tid(), o.domain, o.text, o.color);
	return (int)self->depth;
}

/* Ids count up, so a range's home slot is id % NVTX_MAX_STARTED unless a
 * range 4,096 starts older still holds it. */
static nvtxRangeId_t nvtx_start(uint64_t t, nvtxDomainHandle_t domain, char *text, int32_t color)
{
	uint64_t id = atomic_fetch_add_explicit(&nvtx_next_id, 1, memory_order_relaxed) + 1;
	uint32_t tid = nvtx_tid();

	pthread_mutex_lock(&nvtx_started_lock);
	for (size_t k = 0; k < NVTX_MAX_STARTED; k++) {
		struct nvtx_started *s = &nvtx_started[(id + k) % NVTX_MAX_STARTED];

		if (s->id)
			continue;
		*s = (struct nvtx_started){ .id = id, .start = t, .domain = domain, .text = text,
					    .tid = tid, .color = color };
		pthread_mutex_unlock(&nvtx_started_lock);
		return id;
	}
	pthread_mutex_unlock(&nvtx_started_lock);
	nvtx_lose(text);
	return id;
}

static void nvtx_end(uint64_t t, nvtxRangeId_t id)
{
	struct nvtx_started s = { 0 };

	pthread_mutex_lock(&nvtx_started_lock);
	for (size_t k = 0; id && k < NVTX_MAX_STARTED; k++) {
		struct nvtx_started *e = &nvtx_started[(id + k) % NVTX_MAX_STARTED];

		if (e->id == id) {
			s = *e;
			e->id = 0;
			break;
		}
	}
	pthread_mutex_unlock(&nvtx_started_lock);
	if (!s.id) {
		nvtx_count(&nvtx_unmatched);
		return;
	}
	nvtx_out(s.start, t, s.tid, s.domain, s.text, s.color);
}

/* A mark is a record with no end. */
static void nvtx_mark(uint64_t t, nvtxDomainHandle_t domain, char *text, int32_t color)
{
	nvtx_out(t, 0, nvtx_tid(), domain, text, color);
}

/* ---- domains and registered strings --------------------------------------------------- */

static nvtxDomainHandle_t nvtx_domain_find(const char *name)
{
	for (nvtxDomainHandle_t d = nvtx_domains; d; d = d->next)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

/* One handle per name, however often it is created.  Allocated before the
 * lock is taken; NULL (the default domain) when out of memory. */
static nvtxDomainHandle_t nvtx_domain_create(char *name)
{
	nvtxDomainHandle_t d = name ? calloc(1, sizeof(*d)) : NULL, found;

	if (!d) {
		free(name);
		return NULL;
	}
	d->name = name;
	pthread_mutex_lock(&nvtx_domain_lock);
	found = nvtx_domain_find(name);
	if (!found) {
		d->next = nvtx_domains;
		nvtx_domains = d;
	}
	pthread_mutex_unlock(&nvtx_domain_lock);
	if (found) {
		free(name);
		free(d);
		return found;
	}
	return d;
}

/* Takes text. */
static nvtxStringHandle_t nvtx_register(char *text)
{
	nvtxStringHandle_t s = text ? malloc(sizeof(*s)) : NULL;

	if (!s) {
		free(text);
		return NULL;
	}
	s->text = text;
	pthread_mutex_lock(&nvtx_domain_lock);
	s->next = nvtx_strings;
	nvtx_strings = s;
	pthread_mutex_unlock(&nvtx_domain_lock);
	return s;
}

/* ---- NVTX's entry points ------------------------------------------------------------- */

static void NVTX_API nvtx_on_mark_ex(const nvtxEventAttributes_t *a)
{
	uint64_t t = nvtx_now();

	nvtx_mark(t, NULL, nvtx_attr_text(a), nvtx_attr_color(a));
}

static void NVTX_API nvtx_on_mark_a(const char *message)
{
	uint64_t t = nvtx_now();

	nvtx_mark(t, NULL, nvtx_strdup(message), 0);
}

static void NVTX_API nvtx_on_mark_w(const wchar_t *message)
{
	uint64_t t = nvtx_now();

	nvtx_mark(t, NULL, nvtx_wide(message), 0);
}

static nvtxRangeId_t NVTX_API nvtx_on_start_ex(const nvtxEventAttributes_t *a)
{
	uint64_t t = nvtx_now();

	return nvtx_start(t, NULL, nvtx_attr_text(a), nvtx_attr_color(a));
}

static nvtxRangeId_t NVTX_API nvtx_on_start_a(const char *message)
{
	uint64_t t = nvtx_now();

	return nvtx_start(t, NULL, nvtx_strdup(message), 0);
}

static nvtxRangeId_t NVTX_API nvtx_on_start_w(const wchar_t *message)
{
	uint64_t t = nvtx_now();

	return nvtx_start(t, NULL, nvtx_wide(message), 0);
}

static void NVTX_API nvtx_on_end(nvtxRangeId_t id)
{
	nvtx_end(nvtx_now(), id);
}

static int NVTX_API nvtx_on_push_ex(const nvtxEventAttributes_t *a)
{
	uint64_t t = nvtx_now();

	return nvtx_push(t, NULL, nvtx_attr_text(a), nvtx_attr_color(a));
}

static int NVTX_API nvtx_on_push_a(const char *message)
{
	uint64_t t = nvtx_now();

	return nvtx_push(t, NULL, nvtx_strdup(message), 0);
}

static int NVTX_API nvtx_on_push_w(const wchar_t *message)
{
	uint64_t t = nvtx_now();

	return nvtx_push(t, NULL, nvtx_wide(message), 0);
}

static int NVTX_API nvtx_on_pop(void)
{
	return nvtx_pop(nvtx_now(), NULL);
}

static void NVTX_API nvtx_on_domain_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	uint64_t t = nvtx_now();

	nvtx_mark(t, d, nvtx_attr_text(a), nvtx_attr_color(a));
}

static nvtxRangeId_t NVTX_API nvtx_on_domain_start_ex(nvtxDomainHandle_t d,
						       const nvtxEventAttributes_t *a)
{
	uint64_t t = nvtx_now();

	return nvtx_start(t, d, nvtx_attr_text(a), nvtx_attr_color(a));
}

/* The range's domain is the one it started in. */
static void NVTX_API nvtx_on_domain_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	(void)d;
	nvtx_end(nvtx_now(), id);
}

static int NVTX_API nvtx_on_domain_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	uint64_t t = nvtx_now();

	return nvtx_push(t, d, nvtx_attr_text(a), nvtx_attr_color(a));
}

static int NVTX_API nvtx_on_domain_pop(nvtxDomainHandle_t d)
{
	return nvtx_pop(nvtx_now(), d);
}

static nvtxStringHandle_t NVTX_API nvtx_on_register_a(nvtxDomainHandle_t d, const char *s)
{
	(void)d;
	return nvtx_register(nvtx_strdup(s));
}

static nvtxStringHandle_t NVTX_API nvtx_on_register_w(nvtxDomainHandle_t d, const wchar_t *s)
{
	(void)d;
	return nvtx_register(nvtx_wide(s));
}

static nvtxDomainHandle_t NVTX_API nvtx_on_domain_create_a(const char *name)
{
	return nvtx_domain_create(nvtx_strdup(name));
}

static nvtxDomainHandle_t NVTX_API nvtx_on_domain_create_w(const wchar_t *name)
{
	return nvtx_domain_create(nvtx_wide(name));
}

static void NVTX_API nvtx_on_domain_destroy(nvtxDomainHandle_t d)
{
	(void)d;
}

/* ---- installation ------------------------------------------------------------------ */

struct nvtx_slot {
	unsigned id;
	NvtxFunctionPointer fn;
};

#define NVTX_SLOT(id, fn) { id, (NvtxFunctionPointer)(fn) }

/* Category and thread names, resources and the CUDA/OpenCL naming modules
 * stay unassigned: NVTX makes what no tool claimed a no-op. */
static const struct nvtx_slot nvtx_core_slots[] = {
	NVTX_SLOT(NVTX_CBID_CORE_MarkEx, nvtx_on_mark_ex),
	NVTX_SLOT(NVTX_CBID_CORE_MarkA, nvtx_on_mark_a),
	NVTX_SLOT(NVTX_CBID_CORE_MarkW, nvtx_on_mark_w),
	NVTX_SLOT(NVTX_CBID_CORE_RangeStartEx, nvtx_on_start_ex),
	NVTX_SLOT(NVTX_CBID_CORE_RangeStartA, nvtx_on_start_a),
	NVTX_SLOT(NVTX_CBID_CORE_RangeStartW, nvtx_on_start_w),
	NVTX_SLOT(NVTX_CBID_CORE_RangeEnd, nvtx_on_end),
	NVTX_SLOT(NVTX_CBID_CORE_RangePushEx, nvtx_on_push_ex),
	NVTX_SLOT(NVTX_CBID_CORE_RangePushA, nvtx_on_push_a),
	NVTX_SLOT(NVTX_CBID_CORE_RangePushW, nvtx_on_push_w),
	NVTX_SLOT(NVTX_CBID_CORE_RangePop, nvtx_on_pop),
};

static const struct nvtx_slot nvtx_core2_slots[] = {
	NVTX_SLOT(NVTX_CBID_CORE2_DomainMarkEx, nvtx_on_domain_mark_ex),
	NVTX_SLOT(NVTX_CBID_CORE2_DomainRangeStartEx, nvtx_on_domain_start_ex),
	NVTX_SLOT(NVTX_CBID_CORE2_DomainRangeEnd, nvtx_on_domain_end),
	NVTX_SLOT(NVTX_CBID_CORE2_DomainRangePushEx, nvtx_on_domain_push_ex),
	NVTX_SLOT(NVTX_CBID_CORE2_DomainRangePop, nvtx_on_domain_pop),
	NVTX_SLOT(NVTX_CBID_CORE2_DomainRegisterStringA, nvtx_on_register_a),
	NVTX_SLOT(NVTX_CBID_CORE2_DomainRegisterStringW, nvtx_on_register_w),
	NVTX_SLOT(NVTX_CBID_CORE2_DomainCreateA, nvtx_on_domain_create_a),
	NVTX_SLOT(NVTX_CBID_CORE2_DomainCreateW, nvtx_on_domain_create_w),
	NVTX_SLOT(NVTX_CBID_CORE2_DomainDestroy, nvtx_on_domain_destroy),
};

/* An older NVTX has a shorter table: ids past its end are left alone. */
static int nvtx_fill(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module,
		     const struct nvtx_slot *slots, size_t n)
{
	NvtxFunctionTable table = NULL;
	unsigned int size = 0;

	if (!cb->GetModuleFunctionTable(module, &table, &size) || !table)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (slots[i].id < size && table[slots[i].id])
			*table[slots[i].id] = slots[i].fn;
	return 0;
}

/* The locks are leaves (nothing is called while one is held but the sink,
 * under the pending lock in nvtx_attach), so holding them all across fork
 * cannot deadlock, and the child finds them free. */
static void nvtx_prefork(void)
{
	pthread_mutex_lock(&nvtx_pending_lock);
	pthread_mutex_lock(&nvtx_started_lock);
	pthread_mutex_lock(&nvtx_domain_lock);
}

static void nvtx_postfork(void)
{
	pthread_mutex_unlock(&nvtx_domain_lock);
	pthread_mutex_unlock(&nvtx_started_lock);
	pthread_mutex_unlock(&nvtx_pending_lock);
}

/* A child that starts CUDA of its own joins the session as a process of
 * its own: the parent's buffered ranges are not its to hand over, and its
 * thread has a tid of its own. */
static void nvtx_postfork_child(void)
{
	for (size_t i = 0; i < nvtx_n_pending; i++)
		nvtx_free(&nvtx_pending[i]);
	nvtx_n_pending = 0;
	nvtx_self.tid = 0;
	nvtx_postfork();
}

int nvtx_install(const void *get_export_table)
{
	NvtxGetExportTableFunc_t get = (NvtxGetExportTableFunc_t)get_export_table;
	const NvtxExportTableCallbacks *cb;
	const NvtxExportTableVersionInfo *version;

	cb = get ? get(NVTX_ETID_CALLBACKS) : NULL;
	if (!cb || cb->struct_size < sizeof(*cb) || !cb->GetModuleFunctionTable)
		return 0;
	if (nvtx_fill(cb, NVTX_CB_MODULE_CORE, nvtx_core_slots,
		      sizeof(nvtx_core_slots) / sizeof(nvtx_core_slots[0])) != 0)
		return 0;
	/* NVTX v1 had no domains: the core module alone still records. */
	nvtx_fill(cb, NVTX_CB_MODULE_CORE2, nvtx_core2_slots,
		  sizeof(nvtx_core2_slots) / sizeof(nvtx_core2_slots[0]));
	version = get(NVTX_ETID_VERSIONINFO);
	if (version && version->struct_size >= sizeof(*version) && version->SetInjectionNvtxVersion)
		version->SetInjectionNvtxVersion(NVTX_VERSION);
	if (!atomic_flag_test_and_set(&nvtx_atfork_once))
		pthread_atfork(nvtx_prefork, nvtx_postfork, nvtx_postfork_child);
	return 1;
}

/* ---- where records go ---------------------------------------------------------------- */

void nvtx_attach(nvtx_sink_fn sink)
{
	pthread_mutex_lock(&nvtx_pending_lock);
	if (!atomic_load(&nvtx_closed)) {
		for (size_t i = 0; i < nvtx_n_pending; i++)
			nvtx_hand(sink, &nvtx_pending[i]);
		nvtx_n_pending = 0;
		atomic_store_explicit(&nvtx_sink, sink, memory_order_release);
	}
	pthread_mutex_unlock(&nvtx_pending_lock);
}

/* A forked child may run this while the lock is held by the fork itself
 * (atfork handlers run in no set order): then the buffer is left as it is,
 * closed, never to be read. */
void nvtx_detach(void)
{
	atomic_store(&nvtx_closed, 1);
	atomic_store(&nvtx_sink, NULL);
	if (pthread_mutex_trylock(&nvtx_pending_lock) != 0)
		return;
	for (size_t i = 0; i < nvtx_n_pending; i++)
		nvtx_free(&nvtx_pending[i]);
	atomic_fetch_add(&nvtx_lost, nvtx_n_pending);
	drops_add(DROPS_NVTX, nvtx_n_pending);
	nvtx_n_pending = 0;
	pthread_mutex_unlock(&nvtx_pending_lock);
}

void nvtx_get_stats(struct nvtx_stats *out)
{
	out->recorded = atomic_load(&nvtx_recorded);
	out->lost = atomic_load(&nvtx_lost);
	out->unmatched = atomic_load(&nvtx_unmatched);
}

void nvtx_set_clock(uint64_t (*now)(void))
{
	nvtx_clock = now;
}
