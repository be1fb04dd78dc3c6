#ifndef SMTOP_CORE_ANALYSIS_VERSION_H
#define SMTOP_CORE_ANALYSIS_VERSION_H

/* The version of the analysis' rules: what a session file keeps of an
 * analysis (its episodes, the report's findings, the library's summary) is
 * believed only when it was computed under this version, and is computed
 * again otherwise.  Bump it with any change that can give the same file
 * other verdicts: ready-time rules, culprit weights, what counts as an
 * episode.  History: 2, a clock per GPU; 3, ready times read copies,
 * memsets, event waits and launch calls; 4, and the work an event waits
 * for, the legacy default stream, graph order, copies without times; 5, a
 * graph's edges; 6, a green context's kernels weigh culprits on its SMs
 * only; 7, a time slice of the other process need not stamp a block event;
 * 8, a bounded block end (--sm entry) sets ready times at its kernel's last
 * block start, and verdicts on bounded ends are possible; 9, a kernel that
 * never started makes the waits that depend on it unknown; 10, a kernel
 * whose CUPTI submitted time came after another process's slice is ready
 * at its launch call; 11, a victim without block records can be judged
 * time-slicing from the culprits' block events (rows before 2 carry no
 * version). */
#define ANALYSIS_VERSION 11

#endif
