#!/usr/bin/env python3
"""Reads a smtop session with plain SQL (as any user's script would) and prints
or asserts facts about it.  Used by the GPU tests, where no sqlite3 CLI exists.

  check_session.py FILE kernels            -> number of kernel rows
  check_session.py FILE priorities         -> sorted distinct stream priorities (int32)
  check_session.py FILE nsys-query         -> rows of the usual nsys-style join
  check_session.py FILE blocks             -> blocks stored in chunks
  check_session.py FILE expect-kernels N   -> exit 1 unless exactly N kernels
  check_session.py FILE decoded-blocks     -> blocks decoded from the chunks in Python
  check_session.py FILE sql QUERY...       -> each query's rows
  check_session.py FILE sync-checks        -> "S stray E early": stream synchronizations naming a
                                              stream no kernel ran on, and stream or context
                                              synchronizations that end before a kernel they
                                              waited for (one launched before them) ended
"""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from chunk_codec import decode_chunk  # noqa: E402  (re-exported for the scripts here)


def q(db, sql):
    return db.execute(sql).fetchall()


def int32(v):
    return v - (1 << 32) if v >= (1 << 31) else v


def session_clock(db, device=None):
    """The function taking a %globaltimer time to CUPTI's clock, from the
    session clock in smtop_meta (docs/session-format.md): device's own keys
    (".D") when it has them, else the plain ones; None if absent."""
    m = dict(db.execute("SELECT key, value FROM smtop_meta WHERE key LIKE 'clock_%'").fetchall())
    suffix = f".{device}" if device is not None and f"clock_offset_ns.{device}" in m else ""
    if "clock_offset_ns" + suffix not in m:
        return None
    o, r, d = (int(m.get(k + suffix) or 0) for k in ("clock_offset_ns", "clock_ref_ns", "clock_drift_ppb"))
    return lambda g: g + o + round((g - r) * d / 1e9)


def grid_extents(db):
    """{(globalPid, deviceId, gridId): [first block start, last block end]} on
    %globaltimer, from every chunk (grid ids repeat across GPUs)."""
    ext = {}
    for pid, dev, data in q(db, "SELECT globalPid, deviceId, data FROM smtop_block_chunk"):
        for s, e, grid, _ in decode_chunk(data):
            x = ext.setdefault((pid, dev, grid), [s, e])
            x[0], x[1] = min(x[0], s), max(x[1], e)
    return ext


def bounded_last_starts(db):
    """{(globalPid, deviceId, gridId): last block start} on %globaltimer, of
    the grids whose blocks' ends are upper bounds (--sm entry, chunk
    version 2): such a kernel cannot have ended before its last block
    started, which is the end ready times read (docs/analysis.md)."""
    last = {}
    for pid, dev, data in q(db, "SELECT globalPid, deviceId, data FROM smtop_block_chunk"):
        for s, _, grid, _, bound in decode_chunk(data, flags=True):
            if bound:
                k = (pid, dev, grid)
                last[k] = max(last.get(k, s), s)
    return last


def blocks_by_sm(db):
    """{(globalPid, deviceId, sm): [(start, end, gridId, block)]} from every chunk."""
    res = {}
    for pid, dev, sm, data in q(db, "SELECT globalPid, deviceId, sm, data FROM smtop_block_chunk"):
        res.setdefault((pid, dev, sm), []).extend(decode_chunk(data))
    return res


def main():
    path, what = sys.argv[1], sys.argv[2]
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    if what == "kernels":
        print(q(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")[0][0])
    elif what == "priorities":
        # Streams that ran kernels: frameworks create pools of idle streams.
        pr = sorted({int32(r[0]) for r in q(db, "SELECT priority FROM TARGET_INFO_CUDA_STREAM "
                                                "WHERE streamId IN (SELECT streamId FROM CUPTI_ACTIVITY_KIND_KERNEL)")})
        print(" ".join(str(p) for p in pr))
    elif what == "nsys-query":
        rows = q(db, "SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                     "JOIN StringIds s ON s.id = k.shortName")
        print(len(rows))
        for name, dur in rows[:3]:
            print(f"  {name} {dur} ns")
    elif what == "blocks":
        print(q(db, "SELECT COALESCE(SUM(count), 0) FROM smtop_block_chunk")[0][0])
    elif what == "expect-kernels":
        n = q(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")[0][0]
        if n != int(sys.argv[3]):
            print(f"{path}: expected {sys.argv[3]} kernels, found {n}")
            return 1
        print(f"{path}: {n} kernels as expected")
    elif what == "decoded-blocks":
        print(sum(len(v) for v in blocks_by_sm(db).values()))
    elif what == "sync-checks":
        stray = q(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE syncType = 3 AND "
                      "streamId NOT IN (SELECT streamId FROM CUPTI_ACTIVITY_KIND_KERNEL)")[0][0]
        # launched before: a smaller call number (correlation id), in both backends
        early = q(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION y WHERE y.syncType IN (3, 4) AND "
                      "y.end < (SELECT MAX(k.end) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE "
                      "k.correlationId < y.correlationId AND (y.syncType = 4 OR k.streamId = y.streamId))")[0][0]
        print(f"{stray} stray {early} early")
    elif what == "sql":
        for sql in sys.argv[3:]:
            print(f"{sql}: {q(db, sql)}")
    else:
        print(f"unknown query {what}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
