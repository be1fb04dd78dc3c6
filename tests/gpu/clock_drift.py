#!/usr/bin/env python3
"""How the clock between %globaltimer and CUPTI time moves over a session:
in each of N time segments, the bounds every kernel puts on the offset (its
first block cannot start before the kernel does, its last block cannot end
after it), and the offset the session stores for that time.

  clock_drift.py FILE [N]      N segments, default 8

A straight rise of both bounds is drift (docs/session-format.md).  Decodes
every block in Python: keep the session to a few million blocks."""
import sqlite3
import sys

from check_session import decode_chunk, session_clock


def grid_extents(db):
    first, last = {}, {}
    for pid, data in db.execute("SELECT globalPid, data FROM smtop_block_chunk"):
        for s, e, grid, _ in decode_chunk(data):
            k = (pid, grid)
            first[k] = min(first.get(k, s), s)
            last[k] = max(last.get(k, e), e)
    return first, last


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: clock_drift.py FILE [N]")
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    segments = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    cupti = session_clock(db)
    first, last = grid_extents(db)
    rows = [(st, st - first[(pid, g)], en - last[(pid, g)], first[(pid, g)])
            for g, st, en, pid in db.execute("SELECT gridId, start, end, globalPid FROM "
                                             "CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start")
            if (pid, g) in first]
    if not rows:
        sys.exit(f"{sys.argv[1]}: no kernel with block records")
    t0, span = rows[0][0], rows[-1][0] - rows[0][0]
    print(f"{sys.argv[1]}: {len(rows)} kernels with blocks over {span / 1e6:.1f} ms")
    print("  from_ms  kernels  offset_at_least_us  offset_at_most_us  stored_us")
    for i in range(segments):
        seg = [r for r in rows if t0 + span * i / segments <= r[0] <= t0 + span * (i + 1) / segments]
        if not seg:
            continue
        lo, hi = max(r[1] for r in seg), min(r[2] for r in seg)
        stored = f"{(cupti(seg[0][3]) - seg[0][3]) / 1e3:10.2f}" if cupti else "      none"
        print(f"  {(seg[0][0] - t0) / 1e6:7.1f}  {len(seg):7d}  {lo / 1e3:18.2f}  {hi / 1e3:17.2f}  {stored}")


if __name__ == "__main__":
    main()
