#!/usr/bin/env python3
"""Prints the overhead table from interleaved 'MODE ms' lines: median per mode
and the added time relative to plain."""
import statistics
import sys

runs = {}
for line in open(sys.argv[1]):
    mode, ms = line.split()
    runs.setdefault(mode, []).append(float(ms))
plain = statistics.median(runs.get("plain", [float("nan")]))
print(f"{'mode':10} {'runs':>4} {'median ms/iter':>15} {'added':>8}")
for mode in ("plain", "smtop", "profiler"):
    if mode not in runs:
        continue
    m = statistics.median(runs[mode])
    print(f"{mode:10} {len(runs[mode]):>4} {m:>15.3f} {100 * (m - plain) / plain:>7.1f}%")
