#!/usr/bin/env python3
"""Where smtop's kernel count and torch.profiler's differ, for the same
program run twice (make test-gpu section compile_count): kernels by process
in smtop's export, and the kernel names (reduced to an identifier: the last
`::` part before any template or argument list) whose counts differ.

  compare_kernel_names.py KERNELS_CSV PROFILER_NAMES_JSON

KERNELS_CSV is `smtop export --csv`'s kernels.csv, the JSON
torch_two_streams.py --profile --names's output.  Prints a few lines.
"""
import collections
import csv
import json
import re
import sys


def ident(name):
    n = re.sub(r"^void ", "", name or "")
    depth, cut = 0, len(n)
    for i, ch in enumerate(n):
        if ch in "<(":
            if depth == 0:
                cut = i
                break
        depth += ch in "<("
    base = n[:cut].strip()
    return base.split("::")[-1] or n[:40]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ours, pids = collections.Counter(), collections.Counter()
    with open(sys.argv[1], newline="") as f:
        for r in csv.DictReader(f):
            ours[r["short_name"] or ident(r["name"])] += 1
            pids[r["pid"]] += 1
    theirs = collections.Counter()
    for name, n in json.load(open(sys.argv[2])).items():
        theirs[ident(name)] += n
    print(f"smtop {sum(ours.values())} kernels in {len(pids)} processes: "
          + ", ".join(f"pid {p} {n}" for p, n in pids.most_common()))
    print(f"profiler {sum(theirs.values())} kernels")
    diff = sorted(((ours[k] - theirs[k], k) for k in set(ours) | set(theirs) if ours[k] != theirs[k]),
                  key=lambda d: -abs(d[0]))
    for d, k in diff[:20]:
        print(f"  {d:+6d}  {k}  (smtop {ours[k]}, profiler {theirs[k]})")
    print(f"{len(diff)} names differ, sum of differences {sum(d for d, _ in diff):+d}")


if __name__ == "__main__":
    main()
