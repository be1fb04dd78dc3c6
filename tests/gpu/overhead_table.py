#!/usr/bin/env python3
"""Prints an overhead table from interleaved 'MODE [METRIC] TIME' lines: the
median per mode (and metric) and the added time relative to the first mode.
  overhead_table.py FILE [UNIT]   (UNIT of the times: ms unless given)"""
import statistics
import sys
from collections import OrderedDict

SPREAD_NOTED = 0.10
unit = sys.argv[2] if len(sys.argv) > 2 else "ms"
runs = OrderedDict()
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 2:
        f = [f[0], "ms_per_iter", f[1]]
    mode, metric, ms = f
    runs.setdefault(metric, OrderedDict()).setdefault(mode, []).append(float(ms))
for metric, modes in runs.items():
    base_mode, base_runs = next(iter(modes.items()))
    base = statistics.median(base_runs)
    print(f"{metric:16} {'mode':16} {'runs':>4} {'median ' + unit:>10} {'added':>8}  every run")
    for mode, v in modes.items():
        m = statistics.median(v)
        runs_ms = " ".join(f"{x:.2f}" for x in v)
        print(f"{'':16} {mode:16} {len(v):>4} {m:>10.3f} {100 * (m - base) / base:>7.1f}%  {runs_ms}")
    # processes of one mode can differ widely (ResNet-50 inference read
    # 4.51 and 6.92 ms plain on one machine): say so beside the table
    spread = max(base_runs) / min(base_runs) - 1 if min(base_runs) > 0 else 0
    if spread > SPREAD_NOTED:
        print(f"{'':16} noise: {base_mode}'s runs differ by {100 * spread:.0f}%; "
              "an added cost smaller than that is not measured here")
