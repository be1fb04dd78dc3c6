#!/usr/bin/env python3
"""How close --sm entry's bounded block ends come to exact ones, through the
product: `smtop export --csv` of two sessions of the same program, one with
exact ends (--sm marked or --sm all) and one recorded with --sm entry.

  entry_accuracy.py EXACT_SESSION ENTRY_SESSION

Blocks of two runs cannot be paired one to one, so each kernel name is
compared by its blocks' durations: per name, the inferred durations against
the exact run's median for that name (error = inferred - exact median), and
the blocks' residency (summed block time per SM over the span) of both.
Prints one line per kernel name and a summary line."""
import collections
import csv
import os
import statistics
import subprocess
import sys
import tempfile

SMTOP = os.environ.get("SMTOP", "build/smtop")


def blocks(session):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([SMTOP, "export", session, "--csv", d, "-q"], check=True)
        with open(os.path.join(d, "blocks.csv")) as f:
            return list(csv.DictReader(f))


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0


def by_name(rows):
    out = collections.defaultdict(list)
    for r in rows:
        out[r["kernel"]].append(int(r["end_ns"]) - int(r["start_ns"]))
    return out


def residency(rows):
    if not rows:
        return 0.0
    t0 = min(int(r["start_ns"]) for r in rows)
    t1 = max(int(r["end_ns"]) for r in rows)
    sms = {r["sm"] for r in rows}
    busy = sum(int(r["end_ns"]) - int(r["start_ns"]) for r in rows)
    return busy / max(1, t1 - t0) / max(1, len(sms))


def main():
    exact, entry = blocks(sys.argv[1]), blocks(sys.argv[2])
    ex, en = by_name(exact), by_name(entry)
    bounded = sum(1 for r in entry if r.get("end_bound") == "1")
    errors = []
    for name in sorted(en, key=lambda n: -len(en[n])):
        if name not in ex:
            continue
        ref = statistics.median(ex[name])
        errs = [d - ref for d in en[name]]
        errors += errs
        print(f"{name[:40]:40} blocks {len(en[name]):9} exact median {ref / 1e3:9.2f} us  "
              f"inferred median {statistics.median(en[name]) / 1e3:9.2f} us  "
              f"error p50 {pct(errs, 0.5) / 1e3:8.2f} p90 {pct(errs, 0.9) / 1e3:8.2f} "
              f"p99 {pct(errs, 0.99) / 1e3:8.2f} us")
    print(f"summary: {len(entry)} blocks, {bounded} with a bounded end; error of inferred ends "
          f"(us, against the exact run's median per kernel) p50 {pct(errors, 0.5) / 1e3:.2f} "
          f"p90 {pct(errors, 0.9) / 1e3:.2f} p99 {pct(errors, 0.99) / 1e3:.2f}; mean blocks "
          f"resident per SM: exact {residency(exact):.2f}, inferred {residency(entry):.2f}")


if __name__ == "__main__":
    main()
