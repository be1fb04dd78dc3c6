#!/usr/bin/env python3
"""Which kernels of a --sm entry session's exact windows got exact ends.

  window_ends.py CSV_DIR [--top N]

CSV_DIR is `smtop export SESSION --csv CSV_DIR`.  A kernel submitted inside
an exact window (smtop's NVTX range "exact block ends") ran with its exits
patched, so each of its blocks should have its exact end (end_bound 0).
Prints the windows, those kernels' blocks with and without exact ends, and
the kernels (by short name) with the most blocks left without, so that a
kind of kernel whose exits the windows miss (a library's lazily loaded
functions, say) stands out.  Exits 1 when a window's kernels got no exact
end at all.
"""
import argparse
import csv
import os
import sys
from collections import Counter


def windows_of(csv_dir):
    with open(os.path.join(csv_dir, "nvtx.csv"), newline="") as f:
        return sorted((int(r["start_ns"]), int(r["end_ns"])) for r in csv.DictReader(f)
                      if r["domain"] == "smtop" and r["text"] == "exact block ends" and r["end_ns"])


def in_windows(t, windows):
    return any(a <= t < b for a, b in windows)


def window_kernels(csv_dir, windows):
    """(pid, grid_id) -> short name of the kernels submitted in a window."""
    out = {}
    with open(os.path.join(csv_dir, "kernels.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["submitted_ns"] and in_windows(int(r["submitted_ns"]), windows):
                out[(r["pid"], r["grid_id"])] = r["short_name"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv_dir")
    ap.add_argument("--top", type=int, default=10)
    a = ap.parse_args()
    windows = windows_of(a.csv_dir)
    kernels = window_kernels(a.csv_dir, windows)
    exact, bound = Counter(), Counter()
    with open(os.path.join(a.csv_dir, "blocks.csv"), newline="") as f:
        for r in csv.DictReader(f):
            name = kernels.get((r["pid"], r["grid_id"]))
            if name is not None:
                (bound if r["end_bound"] == "1" else exact)[name] += 1
    n_exact, n_bound = sum(exact.values()), sum(bound.values())
    names = set(exact) | set(bound)
    print(f"windows {len(windows)} ({sum(b - a for a, b in windows) / 1e6:.1f} ms); "
          f"kernels submitted in them {len(kernels)}, {len(names)} names")
    print(f"their blocks: {n_exact} exact, {n_bound} without an exact end; "
          f"names with no exact end: {sum(1 for k in names if not exact[k])}")
    for name, n in bound.most_common(a.top):
        print(f"  without: {n:>10} exact: {exact[name]:>10}  {name}")
    return 1 if kernels and n_exact == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
