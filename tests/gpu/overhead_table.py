#!/usr/bin/env python3
"""Prints an overhead table from interleaved 'MODE [METRIC] ms' lines: the
median per mode (and metric) and the added time relative to the first mode."""
import statistics
import sys
from collections import OrderedDict

runs = OrderedDict()
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 2:
        f = [f[0], "ms_per_iter", f[1]]
    mode, metric, ms = f
    runs.setdefault(metric, OrderedDict()).setdefault(mode, []).append(float(ms))
for metric, modes in runs.items():
    base = statistics.median(next(iter(modes.values())))
    print(f"{metric:16} {'mode':16} {'runs':>4} {'median ms':>10} {'added':>8}  every run")
    for mode, v in modes.items():
        m = statistics.median(v)
        runs_ms = " ".join(f"{x:.2f}" for x in v)
        print(f"{'':16} {mode:16} {len(v):>4} {m:>10.3f} {100 * (m - base) / base:>7.1f}%  {runs_ms}")
