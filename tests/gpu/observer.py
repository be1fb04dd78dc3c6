#!/usr/bin/env python3
"""The observer effect of a block tracer on the placement demo's kernels:
    observer.py DEMO_OUTPUT EXPORT_DIR
For each kernel the demo names (tiny, wide, 96 KiB shared memory, register
heavy), prints what the CUDA runtime said inside the workload (registers,
the occupancy calculator's blocks per SM), the registers smtop recorded, and
the most of its blocks resident on one SM at once, read from
`smtop export --csv` (blocks.csv, kernels.csv).  A patch that costs
registers lowers the blocks an SM can hold: the last column falls below the
calculator's."""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from check_demos import max_resident  # noqa: E402

FUNCS = {"tiny-32t": "place_tiny", "wide-1024t": "place_wide", "smem-96KiB": "place_smem",
         "regs-256t": "place_regs"}


def main():
    out, d = sys.argv[1], sys.argv[2]
    said = {}
    for line in open(out):
        if line.startswith("placement phase=alone"):
            f = dict(kv.split("=", 1) for kv in line.split()[1:])
            said[FUNCS.get(f["kernel"], f["kernel"])] = (int(f["regs"]), int(f["occupancy_blocks_per_sm"]))
    kernels = {}
    for k in csv.DictReader(open(f"{d}/kernels.csv")):
        if k["short_name"] in said:
            kernels[(k["pid"], k["device"], k["grid_id"])] = (k["short_name"], int(k["registers"] or 0))
    spans = {}
    for b in csv.DictReader(open(f"{d}/blocks.csv")):
        k = kernels.get((b["pid"], b["device"], b["grid_id"]))
        if k:
            spans.setdefault((k[0], b["sm"], b["grid_id"]), []).append((int(b["start_ns"]), int(b["end_ns"])))
    most = {}
    for (name, _, _), s in spans.items():
        most[name] = max(most.get(name, 0), max_resident(s))
    regs = {name: r for name, r in kernels.values()}
    print("kernel      runtime_regs  runtime_occupancy  smtop_regs  most_resident_per_sm")
    for name, (r, occ) in sorted(said.items()):
        print(f"{name:11s} {r:12d} {occ:18d} {regs.get(name, -1):11d} {most.get(name, 0):21d}")
    return 0 if most else 1


if __name__ == "__main__":
    sys.exit(main())
