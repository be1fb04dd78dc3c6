#!/usr/bin/env python3
"""How the clock between %globaltimer and CUPTI time moves over a session:
in each of N time segments, the bounds every kernel puts on the offset (its
first block cannot start before the kernel does, its last block cannot end
after it), and the offset the session stores for that time; one table per
GPU when the session has several (each has its own %globaltimer).

  clock_drift.py FILE [N]      N segments, default 8

A straight rise of both bounds is drift (docs/session-format.md).  Decodes
every block in Python: keep the session to a few million blocks."""
import sqlite3
import sys

from check_session import grid_extents, session_clock


def print_segments(rows, segments, cupti):
    """rows: (kernel start, offset at least, offset at most, block 0 time) by start."""
    t0, span = rows[0][0], rows[-1][0] - rows[0][0]
    print("  from_ms  kernels  offset_at_least_us  offset_at_most_us  stored_us")
    for i in range(segments):
        seg = [r for r in rows if t0 + span * i / segments <= r[0] <= t0 + span * (i + 1) / segments]
        if not seg:
            continue
        lo, hi = max(r[1] for r in seg), min(r[2] for r in seg)
        stored = f"{(cupti(seg[0][3]) - seg[0][3]) / 1e3:10.2f}" if cupti else "      none"
        print(f"  {(seg[0][0] - t0) / 1e6:7.1f}  {len(seg):7d}  {lo / 1e3:18.2f}  {hi / 1e3:17.2f}  {stored}")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: clock_drift.py FILE [N]")
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    segments = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    ext = grid_extents(db)
    # each GPU has its own %globaltimer, so its own bounds and stored clock
    rows = {}
    for g, st, en, pid, dev in db.execute("SELECT gridId, start, end, globalPid, deviceId FROM "
                                          "CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start"):
        x = ext.get((pid, dev, g))
        if x:
            rows.setdefault(dev, []).append((st, st - x[0], en - x[1], x[0]))
    if not rows:
        sys.exit(f"{sys.argv[1]}: no kernel with block records")
    for dev in sorted(rows):
        r = rows[dev]
        gpu = f" on GPU {dev}" if len(rows) > 1 else ""
        print(f"{sys.argv[1]}: {len(r)} kernels with blocks{gpu} over {(r[-1][0] - r[0][0]) / 1e6:.1f} ms")
        print_segments(r, segments, session_clock(db, dev))


if __name__ == "__main__":
    main()
