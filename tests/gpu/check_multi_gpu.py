#!/usr/bin/env python3
"""Checks a session of tests/gpu/multi_gpu.cu against the program's own counts:
every device's kernels and blocks, under its own device id, over all its SMs;
and the session clock: on each device the blocks of every kernel must fall
inside that kernel on CUPTI's clock (each GPU has a %globaltimer of its own).

  check_multi_gpu.py SESSION PROGRAM_OUTPUT      exit 1 on a failed check"""
import re
import sqlite3
import sys

from check_session import grid_extents, session_clock

SLACK_NS = 1000  # a block start or end may sit 1 us outside its kernel


def expected(path):
    devs = {}
    for line in open(path):
        m = re.match(r"device (\d+) sms (\d+) kernels (\d+) blocks (\d+)", line)
        if m:
            d, sms, k, b = map(int, m.groups())
            devs[d] = (sms, k, b)
    return devs


def main():
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    want = expected(sys.argv[2])
    failures = 0

    def check(name, ok, detail):
        nonlocal failures
        print(f"{'ok' if ok else 'FAIL'}: {name} {detail}")
        failures += 0 if ok else 1

    check("devices", len(want) >= 2, f"({len(want)} in the program's output)")
    ext = grid_extents(db)
    for d, (sms, k, b) in sorted(want.items()):
        clock = session_clock(db, d)
        kern = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = ?", (d,)).fetchone()[0]
        blocks, used = db.execute("SELECT COALESCE(SUM(count), 0), COUNT(DISTINCT sm) FROM smtop_block_chunk "
                                  "WHERE deviceId = ?", (d,)).fetchone()
        check(f"device {d}: kernels", kern == k, f"({kern} in the session, {k} run)")
        check(f"device {d}: blocks", blocks == b, f"({blocks} in the session, {b} run)")
        check(f"device {d}: SMs", used == sms, f"({used} with blocks, {sms} on the device)")
        lo, hi, outside, n = -(1 << 62), 1 << 62, 0, 0
        for pid, grid, start, end in db.execute("SELECT globalPid, gridId, start, end FROM "
                                                "CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = ?", (d,)):
            x = ext.get((pid, d, grid))
            if not x:
                continue
            n += 1
            lo, hi = max(lo, start - x[0]), min(hi, end - x[1])
            if clock and (clock(x[0]) < start - SLACK_NS or clock(x[1]) > end + SLACK_NS):
                outside += 1
        print(f"device {d}: {n} kernels put CUPTI - globaltimer in [{lo / 1e3:.2f}, {hi / 1e3:.2f}] us")
        check(f"device {d}: blocks inside their kernels on the session clock", clock is not None and outside == 0,
              f"({outside} of {n} kernels have blocks outside)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
