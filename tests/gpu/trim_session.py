#!/usr/bin/env python3
"""Copies a session, keeping only what overlaps a time window, so recorded
sessions stay small enough to commit as test fixtures.

  trim_session.py SRC DST --report REPORT.json [--before-ms B] [--after-ms A]
      window around the worst episode of smtop's report (ready - B .. ready + A)
  trim_session.py SRC DST --start-ns T --window-ms W
"""
import argparse
import json
import os
import shutil
import sqlite3

TIMED = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
         "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS",
         "smtop_request"]


def window(a, db):
    """Around the worst episode; a session without one (green contexts) is cut
    around the middle of its kernels instead."""
    if a.report:
        rep = json.load(open(a.report))
        eps = rep["episodes"]
        if eps:
            t = max(eps, key=lambda e: e["wait_ns"])["ready_ns"]
        else:
            lo, hi = db.execute("SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
            t = (lo + hi) // 2
        return t - int(a.before_ms * 1e6), t + int(a.after_ms * 1e6)
    return a.start_ns, a.start_ns + int(a.window_ms * 1e6)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--report")
    ap.add_argument("--before-ms", type=float, default=20)
    ap.add_argument("--after-ms", type=float, default=40)
    ap.add_argument("--start-ns", type=int, default=0)
    ap.add_argument("--window-ms", type=float, default=60)
    a = ap.parse_args()
    if os.path.exists(a.dst):
        os.remove(a.dst)
    src = sqlite3.connect(a.src)
    dst = sqlite3.connect(a.dst)
    src.backup(dst)
    src.close()
    t0, t1 = window(a, dst)
    names = {r[0] for r in dst.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    # Chunks are on the %globaltimer clock, tens of microseconds off CUPTI's.
    margin = 1_000_000
    dst.execute("DELETE FROM smtop_block_chunk WHERE start >= ? OR end < ?", (t1 + margin, t0 - margin))
    # Kept chunks reach past the window: keep the kernels of their blocks too.
    lo, hi = dst.execute("SELECT min(start), max(end) FROM smtop_block_chunk").fetchone()
    skew = 5 * margin
    k0 = min(t0, lo - skew) if lo is not None else t0
    k1 = max(t1, hi + skew) if hi is not None else t1
    for t in TIMED:
        if t in names:
            dst.execute(f'DELETE FROM "{t}" WHERE start >= ? OR (end IS NOT NULL AND end > 0 AND end < ?)', (k1, k0))
    for t in ("smtop_events", "smtop_event_culprits", "smtop_summary"):
        if t in names:
            dst.execute(f'DELETE FROM "{t}"')
    dst.execute("INSERT OR REPLACE INTO smtop_meta(key, value) VALUES('trimmed', ?)",
                (f"kept [{t0}, {t1}) of {os.path.basename(a.src)}",))
    dst.commit()
    dst.execute("PRAGMA journal_mode=DELETE")
    dst.execute("VACUUM")
    dst.close()
    print(f"{a.dst}: {os.path.getsize(a.dst)} bytes, window {(t1 - t0) / 1e6:.1f} ms")


if __name__ == "__main__":
    main()
