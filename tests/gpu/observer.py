#!/usr/bin/env python3
"""The observer effect of the block tracer, read from `smtop report --json`:
    observer.py MARKED_OUT MARKED_JSON ALL_OUT ALL_JSON
The same program (the placement demo) recorded with --sm marked and with
--sm all: *_OUT is the demo's output (what the CUDA runtime said inside the
workload: registers and cudaOccupancyMaxActiveBlocksPerMultiprocessor), *_JSON
the report of its session.  For each of the demo's four kernels (tiny, wide,
96 KiB shared memory, register heavy) it prints a table: the runtime's
registers and blocks per SM, and for each mode the registers smtop recorded,
smtop's occupancy limit (and what bounds it) and the most blocks resident on
one SM at once.  Patches that cost registers lower what an SM holds: the
--sm all limit (when the recorded registers are the patched ones) or its
most (when they are not) falls below the marked run's.

Exit status 1 when a kernel is missing from a report or has no block
records, or when smtop's limit differs from the runtime's with the same
registers (the calculator, src/core/occupancy_limit.c, is wrong there).
Registers that differ, a most that moved, or a most above the limit are
printed as findings, not failures."""
import json
import sys

FUNCS = {"tiny-32t": "place_tiny", "wide-1024t": "place_wide", "smem-96KiB": "place_smem",
         "regs-256t": "place_regs"}


def runtime_said(path):
    """Function name -> (registers, blocks per SM) from the 'alone' lines."""
    said = {}
    for line in open(path):
        if line.startswith("placement phase=alone"):
            f = dict(kv.split("=", 1) for kv in line.split()[1:])
            said[FUNCS.get(f["kernel"], f["kernel"])] = (int(f["regs"]), int(f["occupancy_blocks_per_sm"]))
    return said


def smtop_said(path):
    """Function name -> (registers, limit, limit_by, most, launches with blocks),
    over the report's launch configurations of that kernel (the demo launches
    each with one configuration; several are joined with '/')."""
    configs = json.load(open(path))["occupancy"]["configs"]
    out = {}
    def named(name, fn):
        # mangled, as CUPTI and the sanitizer give it (_Z10place_tinyPi), or demangled
        return f"_Z{len(fn)}{fn}" in name or name == fn or name.startswith(fn + "(")

    for fn in FUNCS.values():
        mine = [c for c in configs if named(c["name"] or "", fn)]
        if not mine:
            continue
        regs = "/".join(str(c["registers"]) for c in mine)
        limit = "/".join(str(c["limit"]) for c in mine)
        by = "/".join(c["limit_by"] for c in mine)
        most = max((c["most_per_sm"] or 0) for c in mine)
        seen = sum(c["launches_with_blocks"] for c in mine)
        out[fn] = (regs, limit, by, most, seen, mine)
    return out


def main():
    if len(sys.argv) != 5:
        print(__doc__.strip().splitlines()[1], file=sys.stderr)
        return 2
    said = {"marked": runtime_said(sys.argv[1]), "all": runtime_said(sys.argv[3])}
    rep = {"marked": smtop_said(sys.argv[2]), "all": smtop_said(sys.argv[4])}
    fails, findings = [], []
    print(f"{'kernel':11s} {'mode':6s} {'rt_regs':>7s} {'rt_occ':>6s} {'regs':>5s} {'limit':>5s} "
          f"{'by':10s} {'most':>4s}")
    for fn in FUNCS.values():
        for mode in ("marked", "all"):
            rt = said[mode].get(fn)
            s = rep[mode].get(fn)
            rt_regs, rt_occ = rt if rt else ("N/A", "N/A")
            if not s:
                print(f"{fn:11s} {mode:6s} {rt_regs:>7} {rt_occ:>6} {'N/A':>5s} {'N/A':>5s} {'':10s} {'N/A':>4s}")
                fails.append(f"{fn}: not in the --sm {mode} report")
                continue
            regs, limit, by, most, seen, mine = s
            print(f"{fn:11s} {mode:6s} {rt_regs:>7} {rt_occ:>6} {regs:>5s} {limit:>5s} {by:10s} {most:4d}")
            if not seen:
                fails.append(f"{fn}: no block records under --sm {mode}")
            if rt and regs == str(rt_regs) and limit != str(rt_occ):
                fails.append(f"{fn} --sm {mode}: limit {limit}, the runtime's {rt_occ} with the same {regs} registers")
            if rt and regs != str(rt_regs):
                findings.append(f"{fn} --sm {mode}: smtop recorded {regs} registers, the runtime said {rt_regs}")
            for c in mine:
                if c["launches_above_limit"]:
                    findings.append(f"{fn} --sm {mode}: {c['launches_above_limit']} launches above the limit "
                                    f"{c['limit']} (most {c['most_per_sm']}: a block's last warp outlived the next start)")
        m, a = rep["marked"].get(fn), rep["all"].get(fn)
        if m and a and (m[1] != a[1] or a[3] < m[3]):
            findings.append(f"{fn}: the patches moved it: limit {m[1]} -> {a[1]}, most {m[3]} -> {a[3]} "
                            "(--sm marked -> --sm all)")
    moved = any("the patches moved it" in f for f in findings)
    for f in findings:
        print("finding:", f)
    print("verdict: the patches " + ("moved" if moved else "did not move") +
          " the schedule smtop shows on these kernels")
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
