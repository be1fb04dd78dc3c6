#!/usr/bin/env python3
"""Plays a recorded session back into a new, growing session file at the pace
it was recorded, as the collector's writer appended it: the live view can then
be measured on real H200 data on a machine without a GPU.

  tests/bench/live_rewrite.py SRC DST [--speed X] [--kernel-delay-ms D]
                              [--chunk-delay-ms C]

Rows of the timed tables go in when the wall clock reaches their end (block
chunks: their end on CUPTI time) plus the delay the collector adds before
writing them: CUPTI hands kernel records over up to a flush period (50 ms)
late, and block chunks close 40 ms after their first block.  Every 25 ms of
wall time one transaction appends what became due.  The other tables are
copied first; `ended` is written to smtop_meta at the end.  --speed 0.5
plays at half speed.  At speed 1 every time is moved to now (block chunks'
base times too), so the lag a viewer shows is real: now minus the newest
end it read, the collector's delays included."""
import argparse
import os
import sqlite3
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from chunk_codec import put_varint, varint  # noqa: E402

TIMED = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
         "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS",
         "smtop_request", "smtop_block_chunk"]
SKIPPED = ["smtop_events", "smtop_event_culprits", "smtop_summary"]
END_KEYS = ("ended", "ended_clean", "ended_ns", "end_reason")
STEP_S = 0.025
TIME_COLS = ("start", "end", "queued", "submitted", "completed", "timestamp")


def shift_chunk_data(data, d):
    """The chunk format's base (its first block start) moved by d ns."""
    count, i = varint(data, 2)
    base, j = varint(data, i)
    return bytes(data[:2]) + put_varint(count) + put_varint(base + d) + bytes(data[j:])


def shifted(t, cols, row, d):
    """row with its time columns (and a chunk's blob) moved by d ns."""
    if not d:
        return row
    row = list(row)
    for k, c in enumerate(cols):
        if c in TIME_COLS and isinstance(row[k], int) and row[k] > 0:
            row[k] += d
        elif t == "smtop_block_chunk" and c == "data":
            row[k] = shift_chunk_data(row[k], d)
    return tuple(row)


def tables(db):
    return [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                     " AND name NOT LIKE 'sqlite_%'")]


def create(src, dst):
    for (sql,) in src.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"
                              " AND name NOT LIKE 'sqlite_%'"):
        dst.execute(sql)


def copy_static(src, dst, names):
    for t in names:
        if t in TIMED or t in SKIPPED:
            continue
        rows = src.execute(f"SELECT * FROM {t}").fetchall()
        if t == "smtop_meta":
            # no recorder named: the viewer must not judge it dead
            rows = [r for r in rows if r[0] not in END_KEYS + ("recorder",)]
        if rows:
            marks = ",".join("?" * len(rows[0]))
            dst.executemany(f"INSERT INTO {t} VALUES ({marks})", rows)


def timed_rows(src, names, offset, delays):
    """(due time on CUPTI's clock, table, row) for every timed row."""
    out = []
    for t in TIMED:
        if t not in names:
            continue
        cols = [r[1] for r in src.execute(f"PRAGMA table_info({t})")]
        if "end" not in cols:
            continue
        e = cols.index("end")
        shift = offset if t == "smtop_block_chunk" else 0
        for row in src.execute(f"SELECT * FROM {t} ORDER BY rowid"):
            if row[e] is not None:
                out.append((row[e] + shift + delays.get(t, 0), t, row, cols))
    out.sort(key=lambda x: x[0])
    return out


def play(dst, rows, speed, move):
    t0 = rows[0][0]
    w0 = time.monotonic()
    # data time t0 is now: CUPTI time is close to CLOCK_REALTIME
    d = time.time_ns() - t0 if move else 0
    i = 0
    while i < len(rows):
        now = (time.monotonic() - w0) * 1e9 * speed + t0
        j = i
        while j < len(rows) and rows[j][0] <= now:
            j += 1
        if j > i:
            dst.execute("BEGIN IMMEDIATE")
            for _, t, row, cols in rows[i:j]:
                dst.execute(f"INSERT INTO {t} VALUES ({','.join('?' * len(row))})",
                            shifted(t, cols, row, d))
            dst.execute("COMMIT")
            i = j
        time.sleep(STEP_S)
    return (time.monotonic() - w0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--speed", type=float, default=1.0)
    ap.add_argument("--kernel-delay-ms", type=float, default=50)
    ap.add_argument("--chunk-delay-ms", type=float, default=40)
    a = ap.parse_args()
    src = sqlite3.connect(f"file:{a.src}?mode=ro", uri=True)
    names = tables(src)
    off = src.execute("SELECT value FROM smtop_meta WHERE key = 'clock_offset_ns'").fetchone()
    offset = int(off[0]) if off else 0
    delays = {"CUPTI_ACTIVITY_KIND_KERNEL": int(a.kernel_delay_ms * 1e6),
              "smtop_block_chunk": int(a.chunk_delay_ms * 1e6)}
    rows = timed_rows(src, names, offset, delays)
    for p in (a.dst, a.dst + "-wal", a.dst + "-shm"):
        if os.path.exists(p):
            os.unlink(p)
    dst = sqlite3.connect(a.dst, isolation_level=None)
    for p in ("page_size", "application_id", "user_version"):
        dst.execute(f"PRAGMA {p}={src.execute(f'PRAGMA {p}').fetchone()[0]}")
    dst.execute("PRAGMA journal_mode=WAL")
    dst.execute("PRAGMA synchronous=NORMAL")
    dst.execute("BEGIN")
    create(src, dst)
    copy_static(src, dst, names)
    dst.execute("DELETE FROM smtop_meta WHERE key LIKE 'clock_%'")
    dst.execute("COMMIT")
    print(f"ready: {a.dst}", flush=True)
    wall = play(dst, rows, a.speed, a.speed == 1.0)
    dst.execute("BEGIN")
    dst.executemany("INSERT OR REPLACE INTO smtop_meta VALUES (?, ?)",
                    src.execute("SELECT key, value FROM smtop_meta WHERE key IN (?,?,?,?)"
                                " OR key LIKE 'clock_%'", END_KEYS).fetchall())
    dst.execute("COMMIT")
    print(f"played {len(rows)} rows of {a.src} into {a.dst} in {wall:.2f} s (speed {a.speed})")


if __name__ == "__main__":
    main()
