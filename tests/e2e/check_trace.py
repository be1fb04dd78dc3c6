#!/usr/bin/env python3
"""Checks a trace written by `smtop export --perfetto` against the session
it came from, read independently (SQL and the documented chunk format in
tests/gpu/check_session.py): one SM track per SM that ran blocks with that
SM's blocks, one kernel slice per kernel on its stream's track at the
kernel's own start in microseconds, one NVTX slice per NVTX range at its
start, tracks in time order without overlap, every slice within the
session's span.

    check_trace.py TRACE.json SESSION [EPISODES]     (full-session export)
    check_trace.py TRACE.json SESSION --window FROM_US TO_US
Prints one line per failed check and exits 1 if any failed."""
import collections
import json
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
import check_session  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def int32(v):
    """A stored int32 read back; None (not known) stays None."""
    return v - (1 << 32) if v is not None and v >= 1 << 31 else v


def main():
    trace, session = sys.argv[1], sys.argv[2]
    window = None
    episodes = None
    if len(sys.argv) > 3 and sys.argv[3] == "--window":
        window = (float(sys.argv[4]), float(sys.argv[5]))
    elif len(sys.argv) > 3:
        episodes = int(sys.argv[3])
    d = json.load(open(trace))
    ev = d["traceEvents"]
    origin = d["otherData"]["origin_unix_ns"]
    db = sqlite3.connect(f"file:{session}?mode=ro", uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    proc = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    thread = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
              if e["ph"] == "M" and e["name"] == "thread_name"}
    slices = [e for e in ev if e["ph"] == "X"]

    # the session's span, independently
    k0, k1 = db.execute("SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
    first, last = k0, k1
    blocks = {}
    if "smtop_block_chunk" in tables:
        blocks = check_session.blocks_by_sm(db)
        for (pid, dev, sm), v in blocks.items():
            # each GPU's blocks by its own clock
            cupti = check_session.session_clock(db, dev) or (lambda g: g)
            if v:
                first = min(first, cupti(min(b[0] for b in v)))
                last = max(last, cupti(max(b[1] for b in v)))
    several = len({dev for (_, dev, _) in blocks}) > 1
    check(origin == first, f"origin {origin} is not the session's first record {first}")
    span_us = (last - first) / 1e3
    lo, hi = window if window else (0.0, span_us)
    for e in slices:
        if not (e["ts"] >= lo - 1e-6 and e["ts"] + e["dur"] <= hi + 1e-3):
            check(False, f"slice outside [{lo}, {hi}] us: {e['name']} {e['ts']} +{e['dur']}")
            break

    # every track in time order, slices not overlapping
    tracks = collections.defaultdict(list)
    for e in slices:
        tracks[(e["pid"], e["tid"])].append(e)
    for key, es in tracks.items():
        end = -1.0
        for e in es:
            if e["ts"] < end - 1e-6:
                check(False, f"track {proc.get(key[0])}/{thread.get(key)} goes back at {e['ts']}")
                break
            end = e["ts"] + e["dur"]
        check(key in thread, f"track {key} has no thread name")

    # SM tracks: one per SM that ran blocks (per GPU, "GPU d SM n", with
    # several), with its blocks
    per_sm = collections.Counter()
    for e in slices:
        m = re.match(r"^(?:GPU (\d+) )?SM (\d+)$", proc.get(e["pid"], ""))
        if m:
            per_sm[(int(m.group(1)) if m.group(1) else None, int(m.group(2)))] += 1
    if window is None:
        want = collections.Counter()
        for (pid, dev, sm), v in blocks.items():
            want[(dev if several else None, sm)] += len(v)
        want = +want
        check(set(per_sm) == set(want), f"SM tracks {sorted(per_sm)[:8]}... != SMs with blocks {sorted(want)[:8]}...")
        for sm in want:
            check(per_sm[sm] == want[sm], f"SM {sm}: {per_sm[sm]} block slices, session has {want[sm]}")

    # stream tracks: label with the stream's priority, one slice per kernel at its start
    prio = {}
    if "TARGET_INFO_CUDA_STREAM" in tables:
        prio = {s: int32(p) for s, p in db.execute("SELECT streamId, priority FROM TARGET_INFO_CUDA_STREAM")}
    got = collections.defaultdict(list)
    for e in slices:
        if proc.get(e["pid"]) != "streams":
            continue
        m = re.match(r"^stream (\d+) \(priority (-?\d+|N/A)", thread[(e["pid"], e["tid"])])
        check(m is not None, f"stream track name {thread[(e['pid'], e['tid'])]}")
        if m:
            got[int(m.group(1))].append(e["ts"])
            want_p = prio.get(int(m.group(1)))
            check(m.group(2) == ("N/A" if want_p is None else str(want_p)),
                  f"stream {m.group(1)} labelled priority {m.group(2)}, session has {want_p}")
    q = "SELECT streamId, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL"
    want = collections.defaultdict(list)
    for s, a, b in db.execute(q):
        a_us, b_us = (a - origin) / 1e3, (b - origin) / 1e3
        if b_us < lo or a_us >= hi:
            continue
        want[s].append(max(a_us, lo))
    check(set(got) == set(want), f"streams with kernel slices {sorted(got)} != {sorted(want)}")
    for s in want:
        g, w = sorted(got[s]), sorted(want[s])
        check(len(g) == len(w), f"stream {s}: {len(g)} kernel slices, session has {len(w)}")
        check(all(abs(x - y) < 1e-3 for x, y in zip(g, w)),
              f"stream {s}: kernel slices not at the kernels' starts in us")

    if episodes is not None:
        n = sum(1 for e in slices if proc.get(e["pid"]) == "scheduling episodes")
        check(n == episodes, f"{n} episode slices, the report has {episodes}")

    # NVTX ranges and marks (NvtxMark 34, push/pop 59, start/end 60), each
    # at its start, cut to the session's first record
    if window is None and "NVTX_EVENTS" in tables:
        last = max((e["ts"] + e["dur"] for e in slices), default=0.0)
        want_nvtx = sorted(max(r[0] - origin, 0) / 1e3 for r in db.execute(
            "SELECT start FROM NVTX_EVENTS WHERE eventType IN (34, 59, 60)")
            if (r[0] - origin) / 1e3 <= last)
        got_nvtx = sorted(e["ts"] for e in slices if proc.get(e["pid"]) == "NVTX ranges")
        check(len(got_nvtx) == len(want_nvtx),
              f"{len(got_nvtx)} NVTX slices, the session has {len(want_nvtx)} ranges")
        check(all(abs(x - y) < 1e-3 for x, y in zip(got_nvtx, want_nvtx)),
              "NVTX slices not at the ranges' starts in us")

    for f in failures[:20]:
        print(f)
    print(f"{trace}: {len(slices)} slices, {len(per_sm)} SM tracks, {len(got)} stream tracks,"
          f" {len(failures)} failed checks")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
