#!/usr/bin/env python3
"""How long after thread 0 a block's last warp exits, per kernel name, from
the blocks.csv of a session recorded with SMTOP_PATCH=gap (each block's
start then holds thread 0's exit, its end the last warp's)."""
import collections
import csv
import statistics
import sys

gaps = collections.defaultdict(list)
with open(sys.argv[1]) as f:
    for r in csv.DictReader(f):
        gaps[r["kernel"] or "?"].append(int(r["end_ns"]) - int(r["start_ns"]))
every = [g for v in gaps.values() for g in v]
if not every:
    print("no blocks")
    sys.exit(1)
every.sort()
print(f"all kernels: {len(every)} blocks, last warp after thread 0: median {statistics.median(every) / 1e3:.2f} us, "
      f"p90 {every[int(len(every) * .9)] / 1e3:.2f} us, p99 {every[int(len(every) * .99)] / 1e3:.2f} us, "
      f"max {every[-1] / 1e3:.2f} us")
for name, v in sorted(gaps.items(), key=lambda kv: -len(kv[1]))[:15]:
    v.sort()
    print(f"  {name[:60]:60} {len(v):>8} blocks  median {statistics.median(v) / 1e3:8.2f} us  "
          f"p99 {v[int(len(v) * .99)] / 1e3:8.2f} us")
