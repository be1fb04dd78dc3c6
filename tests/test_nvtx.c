/* The collector's NVTX handlers (collectors/nvtx.c), installed through an
 * export table built here the way NVTX's own is laid out, and called
 * through the slots they were written into, as NVTX calls them.  Criterion
 * runs each test in its own process, so each starts with fresh state. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include "collectors/drops.h"
#include "collectors/nvtx.h"

/* ---- a fake NVTX: its function tables and export table ---- */

static NvtxFunctionPointer core_fn[NVTX_CBID_CORE_SIZE];
static NvtxFunctionPointer *core_table[NVTX_CBID_CORE_SIZE + 1];
static NvtxFunctionPointer core2_fn[NVTX_CBID_CORE2_SIZE];
static NvtxFunctionPointer *core2_table[NVTX_CBID_CORE2_SIZE + 1];

static int NVTX_API fake_module_table(NvtxCallbackModule m, NvtxFunctionTable *out, unsigned int *size)
{
	if (m == NVTX_CB_MODULE_CORE) {
		for (int i = 0; i < NVTX_CBID_CORE_SIZE; i++)
			core_table[i] = &core_fn[i];
		*out = core_table;
		*size = NVTX_CBID_CORE_SIZE;
		return 1;
	}
	if (m == NVTX_CB_MODULE_CORE2) {
		for (int i = 0; i < NVTX_CBID_CORE2_SIZE; i++)
			core2_table[i] = &core2_fn[i];
		*out = core2_table;
		*size = NVTX_CBID_CORE2_SIZE;
		return 1;
	}
	return 0;
}

static const NvtxExportTableCallbacks fake_callbacks = { sizeof(NvtxExportTableCallbacks),
							 fake_module_table };

static const void *NVTX_API fake_export_table(uint32_t id)
{
	return id == NVTX_ETID_CALLBACKS ? &fake_callbacks : NULL;
}

static const void *NVTX_API no_export_table(uint32_t id)
{
	(void)id;
	return NULL;
}

#define CORE(name) ((nvtx##name##_impl_fntype)core_fn[NVTX_CBID_CORE_##name])
#define CORE2(name) ((nvtx##name##_impl_fntype)core2_fn[NVTX_CBID_CORE2_##name])

/* ---- clock and sink ---- */

static _Atomic uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return atomic_fetch_add(&fake_now, 100) + 100;
}

#define MAX_SEEN 8192
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static struct smtop_nvtx seen[MAX_SEEN];
static size_t n_seen;

static void sink(struct smtop_record *r)
{
	cr_assert_eq(r->kind, SMTOP_REC_NVTX);
	pthread_mutex_lock(&seen_lock);
	cr_assert_lt(n_seen, MAX_SEEN);
	seen[n_seen++] = r->u.nvtx;
	pthread_mutex_unlock(&seen_lock);
}

static void teardown(void)
{
	for (size_t i = 0; i < n_seen; i++) {
		free((char *)seen[i].text);
		free((char *)seen[i].domain);
	}
	n_seen = 0;
}

static void setup(void)
{
	cr_assert_eq(nvtx_install((const void *)fake_export_table), 1);
	nvtx_set_clock(fake_clock);
	nvtx_attach(sink);
}

static struct nvtx_stats stats(void)
{
	struct nvtx_stats s;

	nvtx_get_stats(&s);
	return s;
}

static nvtxEventAttributes_t attrs_ascii(const char *text, uint32_t argb)
{
	nvtxEventAttributes_t a = { 0 };

	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.colorType = argb ? NVTX_COLOR_ARGB : NVTX_COLOR_UNKNOWN;
	a.color = argb;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = text;
	return a;
}

/* ---- tests ---- */

Test(nvtx, installs_core_and_domain_handlers)
{
	cr_assert_eq(nvtx_install((const void *)fake_export_table), 1);
	cr_assert_not_null(CORE(RangePushA));
	cr_assert_not_null(CORE(RangePop));
	cr_assert_not_null(CORE(RangeStartEx));
	cr_assert_not_null(CORE(MarkA));
	cr_assert_not_null(CORE2(DomainRangePushEx));
	cr_assert_not_null(CORE2(DomainCreateA));
	cr_assert_null(CORE(NameOsThreadA), "thread names stay NVTX's no-op");
	cr_assert_null(CORE(NameCategoryA));
}

Test(nvtx, refuses_without_a_callback_table)
{
	cr_assert_eq(nvtx_install((const void *)no_export_table), 0);
	cr_assert_eq(nvtx_install(NULL), 0);
	cr_assert_null(CORE(RangePushA));
}

Test(nvtx, push_pop_nest, .init = setup, .fini = teardown)
{
	char text[] = "outer";

	cr_assert_eq(CORE(RangePushA)(text), 0);               /* t=100 */
	text[0] = 'X';                                         /* copied at the push */
	cr_assert_eq(CORE(RangePushA)("inner"), 1);            /* t=200 */
	cr_assert_eq(n_seen, 0, "nothing before a range ends");
	cr_assert_eq(CORE(RangePop)(), 1);                     /* t=300 */
	cr_assert_eq(CORE(RangePop)(), 0);                     /* t=400 */
	cr_assert_eq(n_seen, 2);
	cr_assert_str_eq(seen[0].text, "inner");
	cr_assert_eq(seen[0].start, 200);
	cr_assert_eq(seen[0].end, 300);
	cr_assert_str_eq(seen[1].text, "outer");
	cr_assert_eq(seen[1].start, 100);
	cr_assert_eq(seen[1].end, 400);
	cr_assert_null(seen[1].domain, "the default domain");
	cr_assert_neq(seen[0].tid, 0);
	cr_assert_eq(seen[0].tid, seen[1].tid);
	cr_assert_eq(stats().recorded, 2);
}

Test(nvtx, pop_without_push, .init = setup, .fini = teardown)
{
	cr_assert_lt(CORE(RangePop)(), 0);
	cr_assert_eq(n_seen, 0);
	cr_assert_eq(stats().unmatched, 1);
	cr_assert_eq(stats().lost, 0, "a stray pop loses nothing");
	cr_assert_eq(CORE(RangePushA)("after"), 0, "the stack is intact");
	cr_assert_eq(CORE(RangePop)(), 0);
	cr_assert_eq(n_seen, 1);
	cr_assert_str_eq(seen[0].text, "after");
}

struct ender {
	nvtxRangeId_t id;
};

static void *end_elsewhere(void *arg)
{
	struct ender *e = arg;

	CORE(RangeEnd)(e->id);
	return NULL;
}

Test(nvtx, start_end_across_threads, .init = setup, .fini = teardown)
{
	nvtxEventAttributes_t a = attrs_ascii("request 7", 0xff112233u);
	struct ender e;
	pthread_t th;

	e.id = CORE(RangeStartEx)(&a);                         /* t=100 */
	cr_assert_neq(e.id, 0);
	nvtxRangeId_t other = CORE(RangeStartA)("other");      /* t=200 */
	cr_assert_neq(other, e.id);
	cr_assert_eq(pthread_create(&th, NULL, end_elsewhere, &e), 0);
	pthread_join(th, NULL);                                /* t=300 */
	cr_assert_eq(n_seen, 1);
	cr_assert_str_eq(seen[0].text, "request 7");
	cr_assert_eq(seen[0].start, 100);
	cr_assert_eq(seen[0].end, 300);
	cr_assert_eq((uint32_t)seen[0].color, 0xff112233u);
	CORE(RangeEnd)(e.id);
	cr_assert_eq(n_seen, 1, "a range ends once");
	CORE(RangeEnd)(987654);
	cr_assert_eq(stats().unmatched, 2);
	CORE(RangeEnd)(other);
	cr_assert_eq(n_seen, 2);
	cr_assert_str_eq(seen[1].text, "other");
	cr_assert_eq(seen[0].tid, seen[1].tid, "the tid is the starting thread's");
}

Test(nvtx, marks, .init = setup, .fini = teardown)
{
	nvtxEventAttributes_t a = attrs_ascii("ex", 0);

	CORE(MarkA)("here");
	CORE(MarkEx)(&a);
	CORE(MarkW)(L"caf\u00e9");
	cr_assert_eq(n_seen, 3);
	cr_assert_str_eq(seen[0].text, "here");
	cr_assert_eq(seen[0].end, 0, "a mark has no end");
	cr_assert_eq(seen[0].start, 100);
	cr_assert_str_eq(seen[1].text, "ex");
	cr_assert_str_eq(seen[2].text, "caf\xc3\xa9", "wide text as UTF-8");
}

Test(nvtx, domain_variants, .init = setup, .fini = teardown)
{
	nvtxDomainHandle_t torch = CORE2(DomainCreateA)("torch");
	nvtxEventAttributes_t layer = attrs_ascii("conv1", 0xff00ff00u);
	nvtxEventAttributes_t reg = attrs_ascii(NULL, 0);

	cr_assert_not_null(torch);
	cr_assert_eq(CORE2(DomainCreateA)("torch"), torch, "one handle per name");
	cr_assert_neq(CORE2(DomainCreateW)(L"other"), torch);
	cr_assert_eq(CORE2(DomainRangePushEx)(torch, &layer), 0);         /* t=100 */
	cr_assert_eq(CORE(RangePushA)("default"), 1);                     /* t=200 */
	/* each domain keeps its own stack: torch's pop ends conv1 */
	CORE2(DomainRangePop)(torch);                                     /* t=300 */
	cr_assert_eq(n_seen, 1);
	cr_assert_str_eq(seen[0].text, "conv1");
	cr_assert_str_eq(seen[0].domain, "torch");
	cr_assert_eq((uint32_t)seen[0].color, 0xff00ff00u);
	cr_assert_eq(seen[0].start, 100);
	cr_assert_eq(seen[0].end, 300);
	cr_assert_lt(CORE2(DomainRangePop)(torch), 0, "torch has nothing open");
	CORE(RangePop)();
	cr_assert_eq(n_seen, 2);
	cr_assert_str_eq(seen[1].text, "default");
	cr_assert_null(seen[1].domain);

	reg.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	reg.message.registered = CORE2(DomainRegisterStringA)(torch, "registered");
	cr_assert_not_null(reg.message.registered);
	nvtxRangeId_t id = CORE2(DomainRangeStartEx)(torch, &reg);
	CORE2(DomainRangeEnd)(torch, id);
	CORE2(DomainMarkEx)(torch, &layer);
	cr_assert_eq(n_seen, 4);
	cr_assert_str_eq(seen[2].text, "registered");
	cr_assert_str_eq(seen[2].domain, "torch");
	cr_assert_neq(seen[2].end, 0);
	cr_assert_eq(seen[3].end, 0, "a domain mark");
	cr_assert_str_eq(seen[3].domain, "torch");
	CORE2(DomainDestroy)(torch);
	cr_assert_eq(CORE2(DomainCreateA)("torch"), torch, "a handle outlives its destroy");
}

Test(nvtx, attributes_of_an_older_size, .init = setup, .fini = teardown)
{
	nvtxEventAttributes_t a = attrs_ascii("cut", 0xff000000u);

	a.size = (uint16_t)offsetof(nvtxEventAttributes_t, messageType);
	CORE(MarkEx)(&a);
	CORE(MarkEx)(NULL);
	cr_assert_eq(n_seen, 2);
	cr_assert_null(seen[0].text, "no message field in a struct that small");
	cr_assert_eq((uint32_t)seen[0].color, 0xff000000u);
	cr_assert_null(seen[1].text);
}

Test(nvtx, push_overflow_is_counted, .init = setup, .fini = teardown)
{
	int extra = 5;

	drops_take(DROPS_NVTX);
	for (int i = 0; i < NVTX_MAX_DEPTH + extra; i++)
		cr_assert_eq(CORE(RangePushA)("deep"), i, "the level counts every push");
	cr_assert_eq(stats().lost, (uint64_t)extra);
	cr_assert_eq(drops_take(DROPS_NVTX), (uint64_t)extra, "counted as drops");
	for (int i = 0; i < extra; i++)
		CORE(RangePop)();
	cr_assert_eq(n_seen, 0, "the pops of the uncounted pushes come first");
	for (int i = 0; i < NVTX_MAX_DEPTH; i++)
		cr_assert_eq(CORE(RangePop)(), NVTX_MAX_DEPTH - 1 - i);
	cr_assert_eq(n_seen, NVTX_MAX_DEPTH);
	cr_assert_lt(CORE(RangePop)(), 0);
	/* push i read t = (i + 1) * 100; the 5 excess pops came before the
	 * first kept range ended */
	cr_assert_eq(seen[0].start, 100ull * NVTX_MAX_DEPTH, "the innermost kept range ends first");
	cr_assert_eq(seen[0].end, 100ull * (NVTX_MAX_DEPTH + 2 * extra + 1));
	cr_assert_eq(seen[NVTX_MAX_DEPTH - 1].start, 100);
}

Test(nvtx, open_start_ranges_are_bounded, .init = setup, .fini = teardown)
{
	static nvtxRangeId_t ids[NVTX_MAX_STARTED + 3];

	for (size_t i = 0; i < NVTX_MAX_STARTED + 3; i++)
		ids[i] = CORE(RangeStartA)("r");
	cr_assert_eq(stats().lost, 3);
	for (size_t i = 0; i < NVTX_MAX_STARTED + 3; i++)
		CORE(RangeEnd)(ids[i]);
	cr_assert_eq(n_seen, NVTX_MAX_STARTED);
	cr_assert_eq(stats().unmatched, 3);
}

Test(nvtx, ranges_before_attach_wait, .fini = teardown)
{
	cr_assert_eq(nvtx_install((const void *)fake_export_table), 1);
	nvtx_set_clock(fake_clock);
	CORE(RangePushA)("early");
	CORE(RangePop)();
	CORE(MarkA)("early mark");
	cr_assert_eq(n_seen, 0);
	nvtx_attach(sink);
	cr_assert_eq(n_seen, 2, "handed over at attach, in order");
	cr_assert_str_eq(seen[0].text, "early");
	cr_assert_str_eq(seen[1].text, "early mark");
	CORE(MarkA)("live");
	cr_assert_eq(n_seen, 3);
	nvtx_detach();
	CORE(MarkA)("after the end");
	cr_assert_eq(CORE(RangePushA)("x"), 0, "the workload's calls still succeed");
	CORE(RangePop)();
	cr_assert_eq(n_seen, 3);
	cr_assert_eq(stats().lost, 2);
}

Test(nvtx, buffer_before_attach_is_bounded, .fini = teardown)
{
	cr_assert_eq(nvtx_install((const void *)fake_export_table), 1);
	for (int i = 0; i < NVTX_PENDING + 7; i++)
		CORE(MarkA)("m");
	cr_assert_eq(stats().lost, 7);
	nvtx_attach(sink);
	cr_assert_eq(n_seen, NVTX_PENDING);
}

Test(nvtx, detach_before_attach_frees_the_buffer)
{
	cr_assert_eq(nvtx_install((const void *)fake_export_table), 1);
	CORE(MarkA)("m");
	CORE(MarkA)("m");
	nvtx_detach();
	cr_assert_eq(stats().lost, 2);
	nvtx_attach(sink);
	cr_assert_eq(n_seen, 0, "a closed module stays closed");
}

Test(nvtx, a_forked_child_hands_over_none_of_the_parents_ranges, .fini = teardown)
{
	int status = -1;
	pid_t pid;

	cr_assert_eq(nvtx_install((const void *)fake_export_table), 1);
	CORE(MarkA)("parent's");
	pid = fork();
	if (pid == 0) {
		nvtx_attach(sink);
		CORE(MarkA)("child's");
		_exit(n_seen == 1 && !strcmp(seen[0].text, "child's") ? 0 : 1);
	}
	cr_assert_gt(pid, 0);
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child saw only its own mark");
	nvtx_attach(sink);
	cr_assert_eq(n_seen, 1, "the parent keeps its own");
	cr_assert_str_eq(seen[0].text, "parent's");
}
