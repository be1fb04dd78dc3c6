#!/usr/bin/env python3
"""Every block of every kernel, checked through the product: reads the CSV
files of `smtop export SESSION --csv DIR` and the drop count of `smtop info`.

  check_blocks_complete.py SESSION [--expect-blocks N] [--expect-kernels K]

For each grid id: blocks stored against its launches' grid sizes; blocks
that join no kernel; blocks beyond the grid.  Prints a summary line and,
per kernel name, the kernels that came up short.  Exit 1 when a kernel's
stored + dropped blocks differ from its grid size in total, or a block joins
no kernel, or an expected count differs."""
import argparse
import collections
import csv
import os
import re
import subprocess
import sys
import tempfile

SMTOP = os.environ.get("SMTOP", "build/smtop")


def export(session, out):
    subprocess.run([SMTOP, "export", session, "--csv", out, "-q"], check=True)


def dropped_blocks(session):
    info = subprocess.run([SMTOP, "info", session], check=True, capture_output=True, text=True).stdout
    m = re.search(r"^dropped .* (\d+) blocks$", info, re.M)
    return int(m.group(1)) if m else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("session")
    ap.add_argument("--expect-blocks", type=int)
    ap.add_argument("--expect-kernels", type=int)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        export(a.session, d)
        # A graph replayed launches its kernel nodes with the same grid id
        # each time: a grid id's blocks are the sum of its launches' grids.
        kernels = {}
        launches = collections.Counter()
        with open(os.path.join(d, "kernels.csv")) as f:
            for r in csv.DictReader(f):
                key = (r["pid"], r["device"], r["context"], r["grid_id"])
                n = int(r["grid_x"]) * int(r["grid_y"]) * int(r["grid_z"])
                total, _ = kernels.get(key, (0, r["short_name"]))
                kernels[key] = (total + n, r["short_name"])
                launches[key] += 1
        seen = collections.Counter()
        orphans = 0
        stored = 0
        with open(os.path.join(d, "blocks.csv")) as f:
            for r in csv.DictReader(f):
                stored += 1
                key = (r["pid"], r["device"], r["context"], r["grid_id"])
                if key not in kernels:
                    orphans += 1
                    continue
                seen[key] += 1
    dropped = dropped_blocks(a.session)
    grid_total = sum(n for n, _ in kernels.values())
    short = collections.Counter()
    extra = 0
    for key, (n, name) in kernels.items():
        if seen[key] < n:
            short[name] += 1
        extra += max(0, seen[key] - n)
    n_kernels = sum(launches.values())
    complete = len(kernels) - sum(short.values())
    print(f"kernels {n_kernels} ({len(kernels)} grid ids), grid ids complete {complete}; "
          f"blocks stored {stored}, dropped {dropped}, grid total {grid_total}; "
          f"orphans {orphans}, extra {extra}")
    for name, n in short.most_common(20):
        print(f"  short: {name} x{n}")
    fail = orphans > 0 or extra > 0 or stored + dropped != grid_total
    if a.expect_blocks is not None and stored + dropped != a.expect_blocks:
        print(f"FAIL: stored + dropped {stored + dropped}, expected {a.expect_blocks}")
        fail = True
    if a.expect_kernels is not None and n_kernels != a.expect_kernels:
        print(f"FAIL: {n_kernels} kernels, expected {a.expect_kernels}")
        fail = True
    print("FAIL" if fail else "ok")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
