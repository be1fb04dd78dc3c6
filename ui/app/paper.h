/* `smtop demo paper`: the comparison of Gilman & Walls (2021) on the GPU at
 * hand.  For ResNet-, VGG- and DenseNet-style models it records the
 * inference-beside-training demo under each sharing mechanism (priority
 * streams, equal priority, time-slicing, MPS when a daemon runs, green
 * contexts), keeps every session in the library, and prints inference
 * turnaround alone and beside training next to the paper's RTX 3090
 * figures. */
#ifndef SMTOP_APP_PAPER_H
#define SMTOP_APP_PAPER_H

/* Inference turnaround in ms, alone and beside training. */
struct paper_turnaround {
	double solo_p50, solo_p99, p50, p99;
	int requests;
};

/* Reads smtop-demo's "summary scenario=... median_ms=... p99_ms=...
 * solo_median_ms=... solo_p99_ms=..." line; 0, or -1 when line is not a
 * complete one. */
int paper_parse_summary(const char *line, struct paper_turnaround *t);

/* seconds per scenario; sm_mode as record's --sm; json: print JSON instead
 * of the table.  0 when at least one row ran. */
int paper_main(double seconds, const char *sm_mode, int json);

#endif
