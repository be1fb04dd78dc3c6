#!/usr/bin/env python3
"""The report's "occupancy" against the blocks themselves:
    check_occupancy.py REPORT_JSON CSV_DIR [--at-most-limit]
REPORT_JSON is `smtop report --json`, CSV_DIR `smtop export --csv` of the
same session.  For each launch configuration the report lists, the most
blocks resident on one SM at once is found again by an exact sweep over
blocks.csv (half-open intervals: a block that starts when another ends
does not overlap it), and the counts of launches, full grids and launches
above the limit are recounted; the limit is checked to be the least of
its resources, named by the first of them on a tie.  --at-most-limit also
asks that no launch was seen above its limit.  Prints one line per
failure and a last line "N configurations, F failed checks"."""
import collections
import csv
import json
import sys

ORDER = ["threads", "registers", "smem", "blocks"]


def exact_most(spans):
    ev = []
    for s, e in spans:
        if e > s:
            ev += [(s, 1), (e, -1)]
    ev.sort()  # at one instant the end (-1) comes first: touching is no overlap
    c = most = 0
    for _, x in ev:
        c += x
        most = max(most, c)
    return most or 1


def grids_of(d):
    kernels = {}
    for k in csv.DictReader(open(f"{d}/kernels.csv", newline="")):
        key = (k["pid"], k["device"], k["grid_id"])
        threads = int(k["block_x"] or 0) * int(k["block_y"] or 0) * int(k["block_z"] or 0)
        smem = int(k["static_smem"] or 0) + int(k["dynamic_smem"] or 0)
        kernels[key] = (int(k["device"]), k["name"], threads, int(k["registers"] or 0), smem)
    per_sm = collections.defaultdict(list)
    extent = {}
    for b in csv.DictReader(open(f"{d}/blocks.csv", newline="")):
        key = (b["pid"], b["device"], b["grid_id"])
        s, e = int(b["start_ns"]), int(b["end_ns"])
        e = max(e, s)
        per_sm[key + (b["sm"],)].append((s, e))
        n, last_start, first_end = extent.get(key, (0, 0, None))
        extent[key] = (n + 1, max(last_start, s), e if first_end is None else min(first_end, e))
    most = collections.defaultdict(int)
    for key, spans in per_sm.items():
        most[key[:3]] = max(most[key[:3]], exact_most(spans))
    return kernels, most, extent


def main():
    report = json.load(open(sys.argv[1]))
    kernels, most, extent = grids_of(sys.argv[2])
    at_most = "--at-most-limit" in sys.argv[3:]
    occ = report["occupancy"]
    fails = []

    def check(ok, what):
        if not ok:
            fails.append(what)

    by_config = collections.defaultdict(list)
    for key, cfg in kernels.items():
        by_config[cfg].append(key)
    check(occ["kernels"] == report["kernels"], f"occupancy.kernels {occ['kernels']} != kernels {report['kernels']}")
    check(sum(c["launches"] for c in occ["configs"]) == occ["kernels"], "launches do not sum to the kernels")
    for c in occ["configs"]:
        cfg = (c["device"], c["name"], c["threads"] or 0, c["registers"] or 0, c["smem_bytes"])
        name = f"{c['name'][:50]} {cfg[2]}t {cfg[3]}r {cfg[4]}B"
        keys = by_config.get(cfg, [])
        check(len(keys) == c["launches"], f"{name}: launches {c['launches']}, kernels.csv {len(keys)}")
        seen = [k for k in keys if k in extent]
        check(len(seen) == c["launches_with_blocks"],
              f"{name}: launches_with_blocks {c['launches_with_blocks']}, blocks.csv {len(seen)}")
        want = max((most[k] for k in seen), default=None)
        check(c["most_per_sm"] == want, f"{name}: most_per_sm {c['most_per_sm']}, sweep {want}")
        if c["limit"] is None:
            check(c["limit_by"] == "unknown", f"{name}: no limit but limit_by {c['limit_by']}")
            continue
        by = [c["by_" + r] for r in ORDER]
        least = min(b for b in by if b is not None)
        check(c["limit"] == least, f"{name}: limit {c['limit']} is not the least of {by}")
        first = ORDER[[b == least for b in by].index(True)]
        check(c["limit_by"] == first, f"{name}: limit_by {c['limit_by']}, the first least is {first}")
        full = [k for k in seen if extent[k][0] > c["limit"] * c["sms"] and extent[k][1] >= extent[k][2]]
        check(c["launches_full"] == len(full), f"{name}: launches_full {c['launches_full']}, recount {len(full)}")
        at = sum(1 for k in full if most[k] >= c["limit"])
        check(c["launches_full_at_limit"] == at,
              f"{name}: launches_full_at_limit {c['launches_full_at_limit']}, recount {at}")
        above = sum(1 for k in seen if most[k] > c["limit"])
        check(c["launches_above_limit"] == above,
              f"{name}: launches_above_limit {c['launches_above_limit']}, recount {above}")
        if at_most:
            check(above == 0, f"{name}: {above} launches above the limit {c['limit']} (most {want})")
    for f in fails:
        print("FAIL:", f)
    print(f"{len(occ['configs'])} configurations, {len(fails)} failed checks")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
