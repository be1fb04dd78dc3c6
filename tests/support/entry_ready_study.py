#!/usr/bin/env python3
"""How far estimates of a kernel's end from bounded block ends get toward
the exact waits (docs/performance.md, "The demos' verdicts").

  entry_ready_study.py MARKED_CSV_DIR BOUNDED_CSV_DIR

Both directories are `smtop export --csv` outputs: of a session with exact
ends, and of its copy by entry_from_exact.py.  For each kernel that follows
another on its stream, the wait from its predecessor's end (or its own
submission, the later) to its first block: counted when over 20 us, with the
exact end, and with each estimate of the end from the bounded copy:
  least     the latest start of its blocks (what the analysis takes);
  own       + the shortest of its blocks whose bound is not its latest;
  pool-min  the same, else the least such of its kernel name's launches;
  pool-med  the same, else their median;
  at-word   each block's bound, but a bound at or past the successor's
            first block counts as the block's start."""
import csv
import statistics
import sys

THRESHOLD_NS = 20000


def load(d):
    kernels = {r["correlation_id"]: r for r in csv.DictReader(open(f"{d}/kernels.csv", newline=""))}
    blocks = {}
    for r in csv.DictReader(open(f"{d}/blocks.csv", newline="")):
        blocks.setdefault(r["grid_id"], []).append((int(r["start_ns"]), int(r["end_ns"])))
    return kernels, blocks


def grid_stats(blocks):
    out = {}
    for gid, bs in blocks.items():
        latest = max(e for _, e in bs)
        inner = [e - s for s, e in bs if e < latest]
        out[gid] = {"first": min(s for s, _ in bs), "last_start": max(s for s, _ in bs), "latest": latest,
                    "shortest": min(inner) if inner else None}
    return out


def main():
    km, bm = load(sys.argv[1])
    ke, be = load(sys.argv[2])
    g = grid_stats(be)
    pool = {}
    for k in ke.values():
        if k["grid_id"] in g and g[k["grid_id"]]["shortest"] is not None:
            pool.setdefault(k["name"], []).append(g[k["grid_id"]]["shortest"])
    streams = {}
    for k in ke.values():
        streams.setdefault((k["pid"], k["stream"]), []).append(k)
    counts = {m: 0 for m in ("exact", "least", "own", "pool-min", "pool-med", "at-word")}
    pairs = 0
    for ks in streams.values():
        ks.sort(key=lambda k: int(k["correlation_id"]))
        for p, k in zip(ks, ks[1:]):
            if p["grid_id"] not in g or k["grid_id"] not in g or p["grid_id"] not in bm or k["grid_id"] not in bm:
                continue
            pairs += 1
            gp, first = g[p["grid_id"]], g[k["grid_id"]]["first"]
            # the kernels' CUPTI times against their blocks' clock
            k_first_exact = min(s for s, _ in bm[k["grid_id"]])
            off = int(km[k["correlation_id"]]["start_ns"]) - k_first_exact
            sub_m = int(km[k["correlation_id"]]["submitted_ns"] or 0) - off
            sub_e = int(ke[k["correlation_id"]]["submitted_ns"] or 0) - off
            exact_end = max(e for _, e in bm[p["grid_id"]])
            counts["exact"] += k_first_exact - max(exact_end, sub_m) > THRESHOLD_NS
            names = pool.get(p["name"], [])
            own = gp["shortest"]
            ends = {
                "least": gp["last_start"],
                "own": gp["last_start"] + own if own else gp["last_start"],
                "pool-min": gp["last_start"] + (own or (min(names) if names else 0)),
                "pool-med": gp["last_start"] + (own or (statistics.median(names) if names else 0)),
                "at-word": max((e if e < first else s) for s, e in be[p["grid_id"]]),
            }
            for m, end in ends.items():
                counts[m] += first - max(min(end, gp["latest"]), sub_e) > THRESHOLD_NS
    print(f"successors {pairs}: waits over {THRESHOLD_NS // 1000} us " +
          ", ".join(f"{m} {n}" for m, n in counts.items()))


if __name__ == "__main__":
    main()
