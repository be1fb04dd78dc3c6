#!/usr/bin/env python3
"""Copies a session, keeping only what overlaps a time window, so recorded
sessions stay small enough to commit as test fixtures.

  trim_session.py SRC DST --report REPORT.json [--before-ms B] [--after-ms A]
      window around the worst episode of smtop's report (ready - B .. ready + A)
  trim_session.py SRC DST --start-ns T --window-ms W
  --whole-kernels: keep only kernels that ran wholly inside the window, with
      every one of their blocks and no other block, so that no block lacks
      its kernel and no kernel lacks its blocks (a grid id launched several
      times, a graph replayed, is kept only when all its launches are inside).
      The first kernel of a stream may then lack its predecessor: where the
      host ran ahead, its wait counts from its submission.
  --whole-launches: as --whole-kernels, but launch by launch: a grid id
      launched several times (a CUDA graph replayed: its kernel nodes keep
      their grid ids) keeps each launch that ran wholly inside the window,
      the kernels of one graph launch (one correlation id) all or none; a
      block goes to the launch of its grid id whose interval holds it (or
      is nearest).  Host records are kept as with --whole-kernels (those
      that start inside the window): a graph launch call names the stream
      the graph was launched into, so start the window before the calls.
"""
import argparse
import json
import os
import shutil
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import chunk_codec  # noqa: E402
import launch_match  # noqa: E402

TIMED = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
         "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS",
         "smtop_request"]
MARGIN_NS = 1_000_000  # a block or chunk this close outside the window still counts


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
    ap.add_argument("--whole-kernels", action="store_true")
    ap.add_argument("--whole-launches", action="store_true")
    a = ap.parse_args()
    if os.path.exists(a.dst):
        os.remove(a.dst)
    src = sqlite3.connect(a.src)
    dst = sqlite3.connect(a.dst)
    src.backup(dst)
    src.close()
    t0, t1 = window(a, dst)
    names = {r[0] for r in dst.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if a.whole_launches:
        return trim_whole_launches(a, dst, names, t0, t1)
    if a.whole_kernels:
        return trim_whole_kernels(a, dst, names, t0, t1)
    # Chunks are on the %globaltimer clock, tens of microseconds off CUPTI's.
    margin = MARGIN_NS
    dst.execute("DELETE FROM smtop_block_chunk WHERE start >= ? OR end < ?", (t1 + margin, t0 - margin))
    # Kept chunks reach past the window: keep the kernels of their blocks too.
    lo, hi = dst.execute("SELECT min(start), max(end) FROM smtop_block_chunk").fetchone()
    skew = 5 * margin
    k0 = min(t0, lo - skew) if lo is not None else t0
    k1 = max(t1, hi + skew) if hi is not None else t1
    for t in TIMED:
        if t in names:
            dst.execute(f'DELETE FROM "{t}" WHERE start >= ? OR (end IS NOT NULL AND end > 0 AND end < ?)', (k1, k0))
    finish(dst, names, f"kept [{t0}, {t1}) of {os.path.basename(a.src)}")
    print(f"{a.dst}: {os.path.getsize(a.dst)} bytes, window {(t1 - t0) / 1e6:.1f} ms")


def finish(dst, names, note):
    """Drops what the analysis stored (it is computed again), says what was
    kept, and compacts the file."""
    for t in ("smtop_events", "smtop_event_culprits", "smtop_summary"):
        if t in names:
            dst.execute(f'DELETE FROM "{t}"')
    dst.execute("INSERT OR REPLACE INTO smtop_meta(key, value) VALUES('trimmed', ?)", (note,))
    dst.commit()
    dst.execute("PRAGMA journal_mode=DELETE")
    # The recorder's 64 KiB pages suit its writes; a fixture's many small
    # tables would each take one whole.
    dst.execute("PRAGMA page_size=4096")
    dst.execute("VACUUM")
    dst.close()


def clock_offset(db, device):
    """The stored clock's offset (CUPTI = globaltimer + offset), per device."""
    rows = dict(db.execute("SELECT key, value FROM smtop_meta WHERE key LIKE 'clock_offset_ns%'"))
    return int(rows.get(f"clock_offset_ns.{device}", rows.get("clock_offset_ns", 0)))


def keep_blocks(dst, t0, t1, kept):
    """Keeps the blocks for which kept((pid, device, grid id), start on
    CUPTI's clock) holds; drops the chunks left empty, and those that end or
    start more than MARGIN_NS outside [t0, t1)."""
    offsets = {}
    chunks = dst.execute("SELECT id, globalPid, deviceId, start, end FROM smtop_block_chunk").fetchall()
    for cid, pid, dev, c0, c1 in chunks:
        if dev not in offsets:
            offsets[dev] = clock_offset(dst, dev)
        off = offsets[dev]
        if c1 + off < t0 - MARGIN_NS or c0 + off > t1 + MARGIN_NS:
            dst.execute("DELETE FROM smtop_block_chunk WHERE id = ?", (cid,))
            continue
        data = dst.execute("SELECT data FROM smtop_block_chunk WHERE id = ?", (cid,)).fetchone()[0]
        blocks = [b for b in chunk_codec.decode_chunk(data, flags=True) if kept((pid, dev, b[2]), b[0] + off)]
        if not blocks:
            dst.execute("DELETE FROM smtop_block_chunk WHERE id = ?", (cid,))
            continue
        blocks.sort()
        dst.execute("UPDATE smtop_block_chunk SET start = ?, end = ?, count = ?, data = ? WHERE id = ?",
                    (blocks[0][0], max(b[1] for b in blocks), len(blocks), chunk_codec.encode_chunk(blocks), cid))


def end_trim(a, dst, names, t0, t1, note, kept):
    """The timed rows outside [t0, t1) dropped, the trim noted, the file
    finished; one line says what was kept."""
    for t in TIMED:
        if t in names and t != "CUPTI_ACTIVITY_KIND_KERNEL":
            dst.execute(f'DELETE FROM "{t}" WHERE start < ? OR start >= ?', (t0, t1))
    # The reader takes host times before this for unknown: what they waited
    # for may have been cut.
    dst.execute("INSERT OR REPLACE INTO smtop_meta(key, value) VALUES('trimmed_from_ns', ?)", (str(t0),))
    finish(dst, names, note)
    print(f"{a.dst}: {os.path.getsize(a.dst)} bytes, window {(t1 - t0) / 1e6:.1f} ms, {kept}")


def trim_whole_kernels(a, dst, names, t0, t1):
    # Blocks meet their kernel on (process, device, grid id), as in smtop:
    # a green context's blocks come through the primary context.
    grids = {}
    for pid, dev, grid, start, end in dst.execute(
            "SELECT globalPid, deviceId, gridId, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL"):
        inside = start >= t0 and end <= t1 and end > 0
        key = (pid, dev, grid)
        grids[key] = grids.get(key, True) and inside
    keep = {k for k, ok in grids.items() if ok}
    dst.execute("CREATE TEMP TABLE keep(pid, dev, grid)")
    dst.executemany("INSERT INTO temp.keep VALUES (?, ?, ?)", keep)
    dst.execute("""DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE NOT EXISTS (SELECT 1 FROM temp.keep k
                   WHERE k.pid = globalPid AND k.dev = deviceId AND k.grid = gridId)""")
    keep_blocks(dst, t0, t1, lambda key, t: key in keep and t0 - MARGIN_NS <= t <= t1 + MARGIN_NS)
    end_trim(a, dst, names, t0, t1, f"kept the kernels wholly inside [{t0}, {t1}) of {os.path.basename(a.src)}, "
             "with all their blocks", f"{len(keep)} grid ids kept")


def trim_whole_launches(a, dst, names, t0, t1):
    # A launch is one kernel row; the kernel rows of one graph launch share
    # its correlation id and stand or fall together.
    rows = dst.execute("SELECT rowid, globalPid, deviceId, gridId, correlationId, start, end"
                       " FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
    unit_ok = {}
    for rid, pid, dev, grid, corr, start, end in rows:
        unit = (pid, corr) if corr else ("row", rid)
        unit_ok[unit] = unit_ok.get(unit, True) and start >= t0 and end <= t1 and end > 0
    kept_rows = set()
    launches = {}  # (pid, dev, grid) -> sorted [(start, end, kept)]
    for rid, pid, dev, grid, corr, start, end in rows:
        ok = unit_ok[(pid, corr) if corr else ("row", rid)]
        if ok:
            kept_rows.add(rid)
        launches.setdefault((pid, dev, grid), []).append((start, end, ok))
    for v in launches.values():
        v.sort()
    starts = {k: [s for s, _, _ in v] for k, v in launches.items()}

    def kept_block(key, t):
        """Whether the block starting at t (CUPTI time) belongs to a kept
        launch: the one of its grid id that holds t, else the nearest."""
        v = launches.get(key)
        best = launch_match.launch_at(v, starts.get(key), t)
        return best is not None and v[best][2]

    dst.execute("CREATE TEMP TABLE keep(rid INTEGER PRIMARY KEY)")
    dst.executemany("INSERT INTO temp.keep VALUES (?)", ((r,) for r in kept_rows))
    dst.execute("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid NOT IN (SELECT rid FROM temp.keep)")
    keep_blocks(dst, t0, t1, kept_block)
    end_trim(a, dst, names, t0, t1, f"kept the kernel launches wholly inside [{t0}, {t1}) of "
             f"{os.path.basename(a.src)} (a graph launch's kernels all or none), with all their blocks",
             f"{len(kept_rows)} launches kept")


if __name__ == "__main__":
    main()
