/* The lesson texts, one entry per demo scenario, and the captions of guided
 * stops.  Findings are those of Gilman & Walls, "Characterizing Concurrency
 * Mechanisms for NVIDIA GPUs under Deep Learning Workloads" (2021). */
#include "src/core/lessons.h"

#include <string.h>

static const struct lesson lessons[] = {
	{
		"priority-vs-training",
		"Priority vs. training",
		"Batch-1 inference runs on a priority -5 stream beside a training loop on a "
		"priority 0 stream of the same process. When an inference kernel becomes ready, "
		"training blocks already fill most SMs; the scheduler starts the inference "
		"blocks only as training blocks retire, on the few SMs they free.",
		"No fine-grained preemption, and stream priorities only reorder pending thread "
		"blocks: a resident low-priority block runs to its end. Every layer of a request "
		"waits again, so the delay compounds over the request.",
		"Red ! cells: an inference kernel waiting behind this stream's blocks. In the "
		"lanes, shaded waits before A's kernels; in the events, resident inversions "
		"(blocks already there) and dispatch ones (training blocks started after the "
		"inference kernel was ready).",
		"Compare with equal-priority (same pair, both priority 0) and green-contexts "
		"(disjoint SM sets). Press n to step to the next episode, . to watch single "
		"blocks land.",
	},
	{
		"equal-priority",
		"Equal priority",
		"The same inference and training pair, both streams at priority 0. Nothing tells "
		"the scheduler that inference is urgent: its blocks queue behind pending training "
		"blocks as well as resident ones.",
		"Stream priority is the only ordering the block scheduler honours, and it only "
		"reorders pending blocks; without it, dispatch order is first come, first served "
		"across streams.",
		"Blocking episodes (no inversion: the priorities are equal) with long waits, "
		"training's letter holding nearly every SM, and inference kernels squeezed "
		"between training waves.",
		"Replay priority-vs-training next to this one: the waits shrink but do not go "
		"away, since resident blocks still cannot be preempted.",
	},
	{
		"head-of-line",
		"Head-of-line blocking",
		"A long kernel (two 1024-thread blocks per SM, each spinning 20 ms) fills every "
		"SM. 2 ms later a short kernel arrives on a priority -5 stream. Its blocks cannot "
		"start until the long blocks retire.",
		"No fine-grained preemption: priority cannot evict resident blocks. The short "
		"kernel waits for the whole remaining run of the long blocks, about 18 ms.",
		"The short kernel's lane shaded for ~18 ms, red ! over every SM held by the long "
		"kernel, and the short kernel's blocks landing the moment the long wave retires.",
		"Step with . around the end of the long wave to see the short kernel's blocks take "
		"the freed SMs one by one; then try green-contexts, where SMs are partitioned.",
	},
	{
		"placement",
		"Block placement",
		"Four kernels differing in block size and resources (32 threads, 1024 threads, "
		"96 KiB shared memory, many registers) run first alone, then together on four "
		"streams. The scheduler puts each block wherever its resources fit.",
		"Block placement ignores contention: blocks go where resources are free, not where "
		"the load is lowest, so one kernel's blocks can stack on a few SMs while others "
		"hold few.",
		"Uneven rows in the SM view when the four run together: press Enter on a row for "
		"one SM per row and compare how many blocks of each stream share an SM.",
		"Replay slowly (--speed 1e5) and step with . to see where each new block lands; "
		"compare the alone and together phases.",
	},
	{
		"timeslice",
		"Time-slicing between processes",
		"Inference and training run in two processes, so two CUDA contexts without MPS. "
		"The GPU runs one context at a time and switches between them in time slices.",
		"Separate processes are time-sliced, not run side by side, and stream priorities "
		"do not cross processes: the inference process waits for the training process's "
		"slice to end.",
		"Whole-GPU stretches of one process's letter, then the other's; timeslice events "
		"whose culprits are in the other process.",
		"Try mps (the same two processes as MPS clients) to see both share SMs at once.",
	},
	{
		"green-contexts",
		"Green contexts: partitioned SMs",
		"The device's SMs are split: 16 for inference, the rest for training, each in "
		"its own green context. Each stream's blocks stay on its own SMs.",
		"Not a finding but the remedy to the findings: without preemption or "
		"contention-aware placement, spatial partitioning is what keeps inference from "
		"waiting behind training.",
		"Rows of SMs that only ever show one stream's letter, inference waits gone from "
		"the events, and training running on fewer SMs.",
		"Compare with priority-vs-training: what did inference gain, and what did "
		"training lose?",
	},
	{
		"mps",
		"MPS clients",
		"The same two processes as timeslice, now as clients of an MPS server: their "
		"blocks share SMs at once, as if they were streams of one process.",
		"MPS removes time-slicing between processes but brings back the intra-process "
		"behaviour without its one remedy: no preemption, and no priorities across "
		"clients, so blocks are dispatched first come, first served. The paper found "
		"inference beside training slower under MPS and time-slicing than with priority "
		"streams (+103% ResNet-50, +300% VGG-19, +75% DenseNet-201 there, on an RTX 3090).",
		"Both processes' letters in the same columns, and dispatch inversions whose "
		"culprits are the other process's training blocks: the -5 stream's priority "
		"does not reach them.",
		"Compare with timeslice (no MPS: the processes take turns) and "
		"priority-vs-training (one process: priorities work); smtop demo paper measures "
		"all three on this GPU.",
	},
};

#define N_LESSONS (sizeof lessons / sizeof lessons[0])

size_t lessons_count(void)
{
	return N_LESSONS;
}

const struct lesson *lessons_at(size_t i)
{
	return i < N_LESSONS ? &lessons[i] : NULL;
}

const struct lesson *lessons_find(const char *scenario)
{
	if (!scenario)
		return NULL;
	for (size_t i = 0; i < N_LESSONS; i++)
		if (!strcmp(lessons[i].scenario, scenario))
			return &lessons[i];
	return NULL;
}

/* The word of s that starts at *p, as [start, end); *p moves past it. */
static const char *word(const char **p, size_t *len)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	const char *e = s;
	while (*e && *e != ' ' && *e != '\t')
		e++;
	*len = (size_t)(e - s);
	*p = e;
	return s;
}

const struct lesson *lessons_for_command(const char *command)
{
	if (!command)
		return NULL;
	const char *p = command;
	size_t n;
	const char *w = word(&p, &n);
	const char *base = w;
	for (const char *q = w; q < w + n; q++)
		if (*q == '/')
			base = q + 1;
	if ((size_t)(w + n - base) != strlen("smtop-demo") || strncmp(base, "smtop-demo", (size_t)(w + n - base)))
		return NULL;
	w = word(&p, &n);
	char name[64];
	if (!n || n >= sizeof name)
		return NULL;
	memcpy(name, w, n);
	name[n] = 0;
	return lessons_find(name);
}

/* ---- guided stops -------------------------------------------------------------- */

static const char *const stop_titles[GUIDE_KIND_COUNT] = {
	[GUIDE_FIRST_INVERSION] = "First priority inversion",
	[GUIDE_OTHER_INVERSION] = "Another kind of inversion",
	[GUIDE_FIRST_BLOCKING] = "First blocking episode",
	[GUIDE_FIRST_TIMESLICE] = "First time slice",
	[GUIDE_WORST] = "The longest wait begins",
	[GUIDE_VICTIM_STARTS] = "It finally starts",
	[GUIDE_WORST_BLOCKING] = "The worst blocking episode",
	[GUIDE_END] = "End of the session",
};

static const char *kind_text(enum smtop_event_kind k)
{
	switch (k) {
	case SMTOP_EV_INVERSION_RESIDENT:
		return "A high-priority kernel is ready, but lower-priority blocks already run on "
		       "the SMs. The GPU cannot preempt a running thread block, and priority only "
		       "reorders pending blocks, so it waits until they retire.";
	case SMTOP_EV_INVERSION_DISPATCH:
		return "A high-priority kernel is ready and has blocks waiting, yet lower-priority "
		       "blocks are still being started on the SMs that free up: the scheduler put "
		       "lower-priority work first.";
	case SMTOP_EV_TIMESLICE:
		return "Another process's context holds the GPU. Contexts take turns in time "
		       "slices, and stream priorities do not cross processes.";
	case SMTOP_EV_BLOCKING:
	default:
		return "A kernel is ready, but other kernels' blocks hold the SMs it needs. "
		       "Nothing preempts them, so it waits past the blocking threshold.";
	}
}

const char *lessons_stop_title(enum guide_kind kind, enum smtop_event_kind ev_kind)
{
	if (kind == GUIDE_OTHER_INVERSION)
		return ev_kind == SMTOP_EV_INVERSION_DISPATCH ? "First dispatch inversion"
							      : "First resident inversion";
	return kind < GUIDE_KIND_COUNT ? stop_titles[kind] : "";
}

const char *lessons_stop_text(enum guide_kind kind, enum smtop_event_kind ev_kind)
{
	switch (kind) {
	case GUIDE_WORST:
		return "The longest wait of the session starts here. Watch which stream's "
		       "blocks hold the SMs while it waits (red ! cells).";
	case GUIDE_VICTIM_STARTS:
		return "The waiting kernel finally starts: its blocks land on SMs as the "
		       "culprit's blocks retire, not before. Nothing was preempted for it.";
	case GUIDE_END:
		return "That is the whole session. Press r to replay it, or q to quit; "
		       "smtop report prints every episode.";
	default:
		return kind_text(ev_kind);
	}
}
