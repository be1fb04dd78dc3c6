#!/usr/bin/env python3
"""Turns a session with exact block ends (--sm marked, --sm all) into the
session --sm entry would have stored for the same schedule, so that the CPU
tests can hold the analysis of bounded ends against exact verdicts on real
schedules from the H200.

  entry_from_exact.py SRC DST [--slots N]

Every block keeps its start and SM; its end becomes the bound the entry
collector takes (docs/collector.md, "Block ends"), the least of:
  1. the next entry on its SM's warp slot: the hardware's slot choice is not
     recorded in exact sessions, so each SM is modelled with N slots
     (default 64, the H200's warps per SM), a block taking the lowest free
     slots for its warps and its entry the first of them;
  2. the first block of the next launch on its stream;
  3. the return of a stream or context synchronize call after its launch
     (event synchronizations are left out: the bound is then looser);
  4. the end of the process (of a trimmed session's window).
Kernel records then run from their first block's start to their latest
bound, their submission is the host's launch time (`queued`) plus the least
lag of a first block behind it, as the entry collector takes it, the host's
launch-call records go (the entry collector has none), and the meta says
`block_ends` = bound.  Prints how far the bounds lie past the
exact ends (p50, p90, p99), to set beside the H200's own figures
(docs/performance.md, "Accuracy")."""
import argparse
import heapq
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chunk_codec  # noqa: E402
import launch_match  # noqa: E402

SYNC_STREAM, SYNC_CONTEXT = 3, 4


class Clock:
    """CUPTI = globaltimer + offset + drift (smtop_meta, docs/session-format.md)."""

    def __init__(self, db):
        meta = dict(db.execute("SELECT key, value FROM smtop_meta"))
        self.offset = int(meta.get("clock_offset_ns", 0))
        self.ref = int(meta.get("clock_ref_ns", 0))
        self.drift = int(meta.get("clock_drift_ppb", 0))
        self.ended = int(meta.get("ended_ns", 0))
        # a trimmed fixture's blocks past its window are gone: what would
        # have bounded the last ones is gone with them
        cut = re.search(r"\[(\d+), (\d+)\)", meta.get("trimmed", ""))
        if cut:
            self.ended = min(self.ended or int(cut.group(2)), int(cut.group(2)))

    def to_cupti(self, gt):
        return gt + self.offset + (gt - self.ref) * self.drift // 1_000_000_000

    def to_gt(self, t):
        gt = t - self.offset
        return t - self.offset - (gt - self.ref) * self.drift // 1_000_000_000


def load_launches(db):
    """Kernel rows by (pid, device, grid id), each sorted by start."""
    launches = {}
    for row in db.execute("SELECT rowid, globalPid, deviceId, contextId, streamId, correlationId, gridId,"
                          " start, end, blockX * blockY * blockZ, graphNodeId, queued, submitted FROM CUPTI_ACTIVITY_KIND_KERNEL"):
        rid, pid, dev, ctx, sid, corr, grid, start, end, threads, node, queued, submitted = row
        k = {"rid": rid, "pid": pid, "dev": dev, "ctx": ctx, "stream": sid, "corr": corr or 0,
             "start": start, "end": end, "warps": max(1, (threads + 31) // 32), "graph": node is not None,
             "queued": queued, "submitted": submitted, "blocks": [], "first": None, "bound": None}
        launches.setdefault((pid, dev, grid), []).append(k)
    for v in launches.values():
        v.sort(key=lambda k: k["start"])
    return launches


def load_blocks(db, clock, launches):
    """Every block as a dict, attached to its launch; chunk ids to rewrite."""
    spans = {k: [(x["start"], x["end"]) for x in v] for k, v in launches.items()}
    starts = {k: [x["start"] for x in v] for k, v in launches.items()}
    blocks = []
    for cid, pid, dev, sm, data in db.execute(
            "SELECT id, globalPid, deviceId, sm, data FROM smtop_block_chunk").fetchall():
        for s, e, grid, idx, _ in chunk_codec.decode_chunk(data, flags=True):
            at = launch_match.launch_at(spans.get((pid, dev, grid)), starts.get((pid, dev, grid)),
                                        clock.to_cupti(s))
            k = None if at is None else launches[(pid, dev, grid)][at]
            b = {"chunk": cid, "dev": dev, "sm": sm, "start": s, "end": e, "grid": grid, "block": idx,
                 "launch": k, "bound": None}
            blocks.append(b)
            if k:
                k["blocks"].append(b)
                k["first"] = s if k["first"] is None else min(k["first"], s)
    return blocks


def bound_by_slots(blocks, n_slots):
    """Bound 1: each SM's blocks take the lowest free slots at entry and free
    them at their exact end; a block's bound is the next entry on its slot."""
    by_sm = {}
    for b in blocks:
        by_sm.setdefault((b["dev"], b["sm"]), []).append(b)
    for sm_blocks in by_sm.values():
        sm_blocks.sort(key=lambda b: b["start"])
        free = list(range(n_slots))
        heapq.heapify(free)
        top = n_slots
        running = []  # (end, id, slots)
        last_on = {}
        for i, b in enumerate(sm_blocks):
            while running and running[0][0] <= b["start"]:
                for s in heapq.heappop(running)[2]:
                    heapq.heappush(free, s)
            warps = b["launch"]["warps"] if b["launch"] else 1
            taken = []
            for _ in range(warps):
                if free:
                    taken.append(heapq.heappop(free))
                else:  # more warps than the model's slots: a slot of its own
                    taken.append(top)
                    top += 1
            heapq.heappush(running, (b["end"], i, taken))
            slot = min(taken)
            prev = last_on.get(slot)
            if prev is not None:
                prev["bound"] = b["start"]
            last_on[slot] = b


def tighten(b, t):
    if t is not None and (b["bound"] is None or t < b["bound"]):
        b["bound"] = t


def bound_by_streams(launches):
    """Bound 2: the next launch on the stream (call order) starts its first
    block after every block of this one ended."""
    streams = {}
    for v in launches.values():
        for k in v:
            if not k["graph"]:
                streams.setdefault((k["pid"], k["dev"], k["ctx"], k["stream"]), []).append(k)
    for ks in streams.values():
        ks.sort(key=lambda k: (k["corr"], k["start"]))
        for k, nxt in zip(ks, ks[1:]):
            for b in k["blocks"]:
                tighten(b, nxt["first"])


def bound_by_syncs(db, clock, launches):
    """Bound 3: a stream's or context's synchronize call returned after the
    launches made before it had ended."""
    syncs = db.execute("SELECT globalPid, deviceId, contextId, streamId, correlationId, end, syncType"
                       " FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE syncType IN (?, ?)",
                       (SYNC_STREAM, SYNC_CONTEXT)).fetchall()
    for v in launches.values():
        for k in v:
            for pid, dev, ctx, sid, corr, end, kind in syncs:
                if pid != k["pid"] or ctx != k["ctx"] or not corr or corr < k["corr"]:
                    continue
                if kind == SYNC_STREAM and sid != k["stream"]:
                    continue
                t = clock.to_gt(end)
                for b in k["blocks"]:
                    tighten(b, t)


def quantile(v, q):
    return v[min(len(v) - 1, int(q * len(v)))] if v else 0


def least_lag(clock, launches):
    """The entry collector's submission time is its launch callback's host
    time plus the least lag of a first block behind its launch (CUPTI's
    `submitted` is when the GPU's front end took the launch, after the
    stream's previous work: it would be no test of bounded ends).  Over a
    whole run the least comes from a launch the GPU took in at once; a
    trimmed window may hold none (every launch queued behind others, or
    behind another process's time slice), so the least lag of a first block
    behind CUPTI's submission stands for it: never more than any launch's
    lag behind its host time, as submitted never precedes queued."""
    lags = [clock.to_cupti(k["first"]) - (k["submitted"] or k["queued"]) for v in launches.values()
            for k in v if k["queued"] and k["first"] is not None]
    return max(0, min(lags)) if lags else 0


def rewrite(db, clock, blocks, launches, bounded):
    ended = clock.to_gt(clock.ended) if clock.ended else max(b["end"] for b in blocks)
    errors = []
    by_chunk = {}
    for b in blocks:
        tighten(b, max(ended, b["end"]))
        b["bound"] = max(b["bound"], b["end"])
        errors.append(b["bound"] - b["end"])
        by_chunk.setdefault(b["chunk"], []).append((b["start"], b["bound"], b["grid"], b["block"], int(bounded)))
    for cid, bs in by_chunk.items():
        bs.sort()
        db.execute("UPDATE smtop_block_chunk SET start = ?, end = ?, count = ?, data = ? WHERE id = ?",
                   (bs[0][0], max(b[1] for b in bs), len(bs), chunk_codec.encode_chunk(bs), cid))
    lag = least_lag(clock, launches)
    for v in launches.values():
        for k in v:
            if k["blocks"]:
                db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = ?, end = ?, queued = NULL,"
                           " submitted = ? WHERE rowid = ?",
                           (clock.to_cupti(k["first"]), clock.to_cupti(max(b["bound"] for b in k["blocks"])),
                            k["queued"] + lag if k["queued"] else None, k["rid"]))
    errors.sort()
    return errors


def finish(db, src):
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    for t in ("smtop_events", "smtop_event_culprits", "smtop_summary", "CUPTI_ACTIVITY_KIND_RUNTIME"):
        if t in names:
            db.execute(f'DELETE FROM "{t}"')
    meta = {"collector_backend": "sanitizer", "kernel_times": "blocks", "block_ends": "bound",
            "sm_mode": "entry", "simulated": f"block ends bounded as --sm entry would, from {os.path.basename(src)}"}
    db.executemany("INSERT OR REPLACE INTO smtop_meta(key, value) VALUES(?, ?)", meta.items())
    db.commit()
    db.execute("VACUUM")
    db.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--slots", type=int, default=64)
    ap.add_argument("--marked", action="store_true",
                    help="keep every end exact, as kernels that time their own blocks give them")
    a = ap.parse_args()
    if os.path.exists(a.dst):
        os.remove(a.dst)
    src = sqlite3.connect(f"file:{a.src}?mode=ro", uri=True)
    db = sqlite3.connect(a.dst)
    src.backup(db)
    src.close()
    clock = Clock(db)
    launches = load_launches(db)
    blocks = load_blocks(db, clock, launches)
    if not blocks:
        sys.exit(f"{a.src}: no block records to bound")
    if a.marked:
        for b in blocks:
            b["bound"] = b["end"]
    else:
        bound_by_slots(blocks, a.slots)
        bound_by_streams(launches)
        bound_by_syncs(db, clock, launches)
    errors = rewrite(db, clock, blocks, launches, not a.marked)
    finish(db, a.src)
    print(f"{a.dst}: {len(blocks)} blocks, bound - exact end p50 {quantile(errors, 0.5) / 1e3:.1f} us,"
          f" p90 {quantile(errors, 0.9) / 1e3:.1f} us, p99 {quantile(errors, 0.99) / 1e3:.1f} us")


if __name__ == "__main__":
    main()
