#!/usr/bin/env python3
"""Samples a session file while it is being recorded: how far the data that
reached the file lags the wall clock, so that a lag shown by the viewer can be
split into the collector's part (blocks not yet in the file) and the viewer's.

  tests/gpu/lag_probe.py FILE SECONDS [INTERVAL_S] [VIEWER_PID]

Prints one line per sample: seconds since start, the newest kernel end's lag
(ms, CUPTI time against CLOCK_REALTIME; block times need the clock offset,
stored only when the recording ends), blocks in the file, WAL size (MB), and
the viewer's CPU seconds when a pid is given."""
import os
import sqlite3
import sys
import time


def newest(db, sql):
    try:
        row = db.execute(sql).fetchone()
    except sqlite3.Error:
        return None
    return row[0] if row and row[0] is not None else None


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def sample(db, path, t0, pid):
    now = time.time_ns()
    kend = newest(db, "SELECT end FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid DESC LIMIT 1")
    blocks = newest(db, "SELECT sum(count) FROM smtop_block_chunk")
    wal = os.path.getsize(path + "-wal") / 1e6 if os.path.exists(path + "-wal") else 0.0
    klag = (now - kend) / 1e6 if kend is not None else None
    cpu = cpu_seconds(pid) if pid else None
    fmt = lambda v: "-" if v is None else f"{v:.1f}"
    print(f"t={(now - t0) / 1e9:.2f}s kernel_lag_ms={fmt(klag)} "
          f"blocks={blocks or 0} wal_mb={wal:.1f} viewer_cpu_s={fmt(cpu)}", flush=True)


def main():
    path, secs = sys.argv[1], float(sys.argv[2])
    step = float(sys.argv[3]) if len(sys.argv) > 3 else 0.25
    pid = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    t0 = time.time_ns()
    while not os.path.exists(path) and time.time_ns() - t0 < 10e9:
        time.sleep(0.05)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    while time.time_ns() - t0 < secs * 1e9:
        sample(db, path, t0, pid)
        time.sleep(step)


if __name__ == "__main__":
    main()
