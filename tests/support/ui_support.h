/* Helpers for the UI suites: a deterministic H200-like model and golden
 * screens (tests/golden/<name>.txt, name may hold a directory;
 * SMTOP_UPDATE_GOLDEN=1 rewrites them; a mismatch prints a line diff). */
#ifndef SMTOP_TESTS_UI_SUPPORT_H
#define SMTOP_TESTS_UI_SUPPORT_H

#include <stdint.h>
#include <stdio.h>

#include "src/core/model.h"
#include "ui/app.h"
#include "ui/canvas.h"

#define UI_SUPPORT_T0 1764460800000000000ULL   /* 2025-11-30 00:00 UTC, ns */
#define UI_SUPPORT_US(x) (UI_SUPPORT_T0 + (uint64_t)(x) * 1000ULL)

/* 132 SMs of 2048 threads; streams A (s14, prio -5, inference), B (s13,
 * prio 0, training), C (s15, prio 0); six kernels over 2 ms with their
 * blocks; a resident inversion at 300-500 us, a blocking episode at
 * 1000-1100 us, another inversion at 1500-1600 us; two NVTX ranges. */
void ui_support_model(struct model *m);

/* Draws a w x h screen of a and m into c (re-sized). */
void ui_support_render(struct canvas *c, struct app *a, const struct model *m, int w, int h);

/* 1 if text equals the golden file (or it was rewritten); else 0 and the
 * actual text is left in build/tests/golden/<name>.txt. */
int ui_support_golden(const char *name, const char *text);

/* Prints the lines where got differs from want: the expected line, the drawn
 * one and a caret under the first differing column (at most 12 lines). */
void ui_support_diff(FILE *f, const char *want, const char *got);

#endif
