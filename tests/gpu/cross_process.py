#!/usr/bin/env python3
"""Whether two processes' thread blocks started side by side on the same SMs,
read from `smtop export --csv`'s blocks.csv (the product's own join):
    cross_process.py BLOCKS_CSV [--bin-us 50] [--expect shared|apart]
Cuts each SM's time into bins and prints, of the bins in which the quieter
process started blocks, the share in which another process started blocks
too.  MPS clients' blocks start
side by side on one SM; without MPS the GPU time-slices between the
processes, so only the bins at a slice's edge hold both (a block's own
start..end cannot tell: a time slice preempts running blocks and resumes
them later, so their spans overlap the other process's).
Exit status 1 when --expect does not hold."""
import argparse
import csv
import sys


def shared_bins(path, bin_ns):
    bins = {}
    for r in csv.DictReader(open(path)):
        key = (r["device"], r["sm"], int(r["start_ns"]) // bin_ns)
        bins.setdefault(key, set()).add(r["pid"])
    pids = set().union(*bins.values()) if bins else set()
    # of each process's bins, the share it shared: the busier process fills
    # most bins alone, so the quieter one says whether they ran side by side
    own = {p: sum(1 for q in bins.values() if p in q) for p in pids}
    quiet = min(own, key=own.get) if own else None
    return len(pids), own.get(quiet, 0), sum(1 for q in bins.values() if len(q) >= 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("blocks_csv")
    ap.add_argument("--bin-us", type=float, default=50.0)
    ap.add_argument("--expect", choices=("shared", "apart"))
    a = ap.parse_args()
    n, active, shared = shared_bins(a.blocks_csv, int(a.bin_us * 1000))
    frac = shared / active if active else 0.0
    print(f"processes={n} quieter_process_bins={active} bins_shared={shared} "
          f"shared_fraction={frac:.4f} bin_us={a.bin_us:g}")
    if a.expect == "shared" and not (n >= 2 and frac >= 0.05):
        print("FAIL: the processes' blocks did not start side by side")
        return 1
    if a.expect == "apart" and not (n >= 2 and frac < 0.05):
        print("FAIL: the processes' blocks started side by side")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
