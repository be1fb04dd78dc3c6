#!/usr/bin/env python3
"""Where an inference request's time goes, from a recorded demo session:
per request the kernels' own time, the gaps between them, and the time
before its first kernel starts (head: the launch path) and after its last
kernel ends (tail: the synchronize returning).  Request times are the
host's CLOCK_REALTIME, kernel times CUPTI's, the same clock on Linux.

  request_timeline.py FILE [LABEL]     LABEL defaults to inference-solo

Prints one line per request and a summary; plain SQL over the session."""
import sqlite3
import statistics
import sys

def requests(db, label):
    return db.execute("SELECT streamId, start, end FROM smtop_request WHERE label = ? ORDER BY start",
                      (label,)).fetchall()


def kernels(db, stream, t0, t1):
    return db.execute(
        "SELECT k.start, k.end, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
        "JOIN StringIds s ON s.id = k.shortName WHERE k.streamId = ? AND k.start >= ? AND k.start <= ? "
        "ORDER BY k.start", (stream, t0, t1)).fetchall()


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100 * len(v)))] if v else 0


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: request_timeline.py FILE [LABEL]")
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    label = sys.argv[2] if len(sys.argv) > 2 else "inference-solo"
    rows, gaps, busy, names = [], [], [], {}
    for stream, t0, t1 in requests(db, label):
        ks = kernels(db, stream, t0, t1)
        if not ks:
            continue
        run = sum(e - s for s, e, _ in ks)
        g = [ks[i][0] - ks[i - 1][1] for i in range(1, len(ks))]
        rows.append((t1 - t0, ks[-1][1] - ks[0][0], run, sum(g), len(ks), ks[0][0] - t0, t1 - ks[-1][1]))
        gaps += g
        busy.append(run)
        for s, e, n in ks:
            names.setdefault(n, []).append(e - s)
    if not rows:
        sys.exit(f"{sys.argv[1]}: no '{label}' request with kernels")
    print("request_ms gpu_span_ms kernels_ms gaps_ms kernels head_us tail_us")
    for r in rows:
        print(f"{r[0] / 1e6:.3f} {r[1] / 1e6:.3f} {r[2] / 1e6:.3f} {r[3] / 1e6:.3f} {r[4]} "
              f"{r[5] / 1e3:.1f} {r[6] / 1e3:.1f}")
    med = lambda i: statistics.median(r[i] for r in rows)
    print(f"summary requests={len(rows)} request_ms={med(0) / 1e6:.3f} gpu_span_ms={med(1) / 1e6:.3f} "
          f"kernels_ms={med(2) / 1e6:.3f} gaps_ms={med(3) / 1e6:.3f} kernels={med(4):.0f} "
          f"head_us={med(5) / 1e3:.1f} tail_us={med(6) / 1e3:.1f} mean_request_ms={statistics.mean(r[0] for r in rows) / 1e6:.3f} "
          f"gap_p50_us={pct(gaps, 50) / 1e3:.2f} "
          f"gap_p90_us={pct(gaps, 90) / 1e3:.2f} gap_max_us={max(gaps) / 1e3:.2f}")
    print("kernel name: count, median us, total ms over all requests")
    for n, d in sorted(names.items(), key=lambda kv: -sum(kv[1]))[:12]:
        print(f"  {n}: {len(d)}, {statistics.median(d) / 1e3:.1f}, {sum(d) / 1e6:.2f}")


if __name__ == "__main__":
    main()
