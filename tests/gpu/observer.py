#!/usr/bin/env python3
"""The observer effect of the block tracer, read from `smtop report --json`:
    observer.py MARKED_OUT MARKED_JSON ALL_OUT ALL_JSON
The same program recorded with --sm marked and with --sm all: the placement
demo (`placement phase=alone kernel=...` lines) or tests/gpu/observer_full.cu
(`observer kernel=...` lines).  *_OUT is the program's output (what the CUDA
runtime said inside the workload: registers and
cudaOccupancyMaxActiveBlocksPerMultiprocessor), *_JSON the report of its
session.  For each kernel it prints a table: the runtime's registers and
blocks per SM, and for each mode the registers smtop recorded, smtop's
occupancy limit (and what bounds it), the most blocks resident on one SM at
once, and its full launches (more blocks than limit x SMs, some waiting)
and how many of them reached the limit.  Patches that cost registers lower
what an SM holds: the --sm all limit (when the recorded registers are the
patched ones) or its most (when they are not) falls below the marked run's.

Exit status 1 when a kernel is missing from a report or has no block
records, when smtop's limit differs from the runtime's with the same
registers (the calculator, src/core/occupancy_limit.c, is wrong there), or
when a full launch alone on the GPU stayed below its limit under
--sm marked.  Registers that differ, a most that moved, a full launch below
its limit under --sm all, or a most above the limit are printed as
findings, not failures."""
import json
import sys

PLACEMENT = {"tiny-32t": "place_tiny", "wide-1024t": "place_wide", "smem-96KiB": "place_smem",
             "regs-256t": "place_regs"}


def runtime_said(path):
    """Function name -> (registers, blocks per SM) from the program's lines."""
    said = {}
    for line in open(path):
        if line.startswith("placement phase=alone") or line.startswith("observer kernel="):
            f = dict(kv.split("=", 1) for kv in line.split()[1:])
            fn = PLACEMENT.get(f["kernel"], f["kernel"])
            said[fn] = (int(f["regs"]), int(f["occupancy_blocks_per_sm"]))
    return said


def named(name, fn):
    # mangled, as CUPTI and the sanitizer give it (_Z10place_tinyPi), or demangled
    return f"_Z{len(fn)}{fn}" in name or name == fn or name.startswith(fn + "(")


def smtop_said(path, fns):
    """Function name -> the report's launch configurations of that kernel."""
    configs = json.load(open(path))["occupancy"]["configs"]
    return {fn: [c for c in configs if named(c["name"] or "", fn)] for fn in fns}


def joined(mine, key):
    return "/".join(str(c[key]) for c in mine) or "N/A"


def main():
    if len(sys.argv) != 5:
        print(__doc__.strip().splitlines()[1], file=sys.stderr)
        return 2
    said = {"marked": runtime_said(sys.argv[1]), "all": runtime_said(sys.argv[3])}
    fns = sorted(set(said["marked"]) | set(said["all"]))
    rep = {"marked": smtop_said(sys.argv[2], fns), "all": smtop_said(sys.argv[4], fns)}
    fails, findings = [], []
    if not fns:
        fails.append("the programs printed no kernel lines")
    print(f"{'kernel':11s} {'mode':6s} {'rt_regs':>7s} {'rt_occ':>6s} {'regs':>5s} {'limit':>5s} "
          f"{'by':10s} {'most':>4s} {'full':>4s} {'at_lim':>6s}")
    most = {}
    for fn in fns:
        for mode in ("marked", "all"):
            rt = said[mode].get(fn)
            mine = rep[mode][fn]
            rt_regs, rt_occ = rt if rt else ("N/A", "N/A")
            regs, limit, by = joined(mine, "registers"), joined(mine, "limit"), joined(mine, "limit_by")
            m = max((c["most_per_sm"] or 0 for c in mine), default=0)
            full = sum(c["launches_full"] for c in mine)
            at = sum(c["launches_full_at_limit"] for c in mine)
            most[(fn, mode)] = (limit, m)
            print(f"{fn:11s} {mode:6s} {rt_regs:>7} {rt_occ:>6} {regs:>5s} {limit:>5s} {by:10s} {m:4d} "
                  f"{full:4d} {at:6d}")
            if not mine:
                fails.append(f"{fn}: not in the --sm {mode} report")
                continue
            if not sum(c["launches_with_blocks"] for c in mine):
                fails.append(f"{fn}: no block records under --sm {mode}")
            if rt and regs == str(rt_regs) and limit != str(rt_occ):
                fails.append(f"{fn} --sm {mode}: limit {limit}, the runtime's {rt_occ} with the same {regs} registers")
            if rt and regs != str(rt_regs):
                findings.append(f"{fn} --sm {mode}: smtop recorded {regs} registers, the runtime said {rt_regs}")
            if full > at:
                what = f"{fn} --sm {mode}: {full - at} of {full} full launches below the limit {limit} (most {m})"
                if mode == "marked":
                    fails.append(what + ", alone on the GPU")
                else:
                    findings.append(what + ": the patches' doing when alone on the GPU")
            for c in mine:
                if c["launches_above_limit"]:
                    findings.append(f"{fn} --sm {mode}: {c['launches_above_limit']} launches above the limit "
                                    f"{c['limit']} (most {c['most_per_sm']}: a block's last warp outlived the next start)")
        (lm, mm), (la, ma) = most[(fn, "marked")], most[(fn, "all")]
        if rep["marked"][fn] and rep["all"][fn] and (lm != la or ma < mm):
            findings.append(f"{fn}: the patches moved it: limit {lm} -> {la}, most {mm} -> {ma} "
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
