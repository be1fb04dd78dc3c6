#!/usr/bin/env python3
"""Why a wait behind another process was not called time-slicing: for the
first episodes of a session whose culprits are all in another process but
whose kind is not timeslice, the block events of the victim's and the
culprits' processes in the test's window (docs/analysis.md, "Time-slicing"),
the pairs of them closer than the 32 us the test allows, and the runs of one
process's events.  Reads what a user reads: smtop report --json and
smtop export --csv of a window around each episode.  The session trimmed to
10 ms around the first such episode goes to OUTDIR/episode0.smtop, small
enough to bring back and keep as a fixture.

  tests/gpu/timeslice_probe.py SESSION OUTDIR [--smtop build/smtop] [--episodes 3] [--top N]

--top: how many episodes the report lists (by delay) for the probe to read;
the default reads them all.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

GAP_NS = 32000


def origin_ns(smtop, session):
    """The export's time origin (its windows count from it)."""
    head = subprocess.check_output([smtop, "export", session, "--perfetto", "-", "--from", "0",
                                    "--to", "1", "-q"])[:1000].decode(errors="replace")
    return int(head.split('"origin_unix_ns":')[1].split(",")[0].split("}")[0])


def not_timeslice(report):
    return [e for e in report["episodes"]
            if e["from_blocks"] and e["culprits"] and e["kind"] != "timeslice"
            and all(c["pid"] != e["pid"] for c in e["culprits"])]


def window_blocks(smtop, session, e, origin, out):
    lo = max(0, (e["ready_ns"] - origin) / 1e3 - 400)
    hi = (e["start_ns"] - origin) / 1e3 + 5000
    os.makedirs(os.path.dirname(out), exist_ok=True)
    subprocess.run([smtop, "export", session, "--csv", out, "--from", f"{lo:.0f}", "--to", f"{hi:.0f}", "-q"],
                   check=True)
    with open(os.path.join(out, "blocks.csv"), newline="") as f:
        return list(csv.DictReader(f))


def events_in_window(blocks, e):
    """(time, pid, start|end, grid, kernel, sm) of every block event in the
    window [ready - gap, victim's last block end + gap]."""
    mine = [b for b in blocks if int(b["pid"]) == e["pid"] and int(b["grid_id"]) == e["grid_id"]]
    last_end = max((int(b["end_ns"]) for b in mine), default=e["start_ns"])
    ev = []
    for b in blocks:
        for k in ("start_ns", "end_ns"):
            t = int(b[k])
            if e["ready_ns"] - GAP_NS < t < last_end + GAP_NS:
                ev.append((t, int(b["pid"]), k[:-3], int(b["grid_id"]), b["kernel"], int(b["sm"])))
    ev.sort()
    return ev, last_end


def close_pairs(ev, victim_pid, culprit_pids):
    """Consecutive events of the victim's and a culprit's process less than
    the gap apart: what keeps the episode from being time-slicing."""
    pairs, last = [], {}
    for t, p, kind, g, name, sm in ev:
        for q, (tq, kq, gq, nq, sq) in last.items():
            if q != p and {p, q} & {victim_pid} and {p, q} & culprit_pids and t - tq < GAP_NS:
                pairs.append((t - tq, (q, kq, gq, nq[:30], sq, tq), (p, kind, g, name[:30], sm, t)))
        last[p] = (t, kind, g, name, sm)
    return sorted(pairs)


def runs_of(ev):
    runs = []
    for t, p, *_ in ev:
        if runs and runs[-1][0] == p:
            runs[-1][2] = t
            runs[-1][3] += 1
        else:
            runs.append([p, t, t, 1])
    return runs


def trim_around(session, e, dst):
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([sys.executable, os.path.join(here, "trim_session.py"), session, dst,
                    "--start-ns", str(e["ready_ns"] - 2_000_000), "--window-ms", "10"], check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("session")
    ap.add_argument("outdir")
    ap.add_argument("--smtop", default="build/smtop")
    ap.add_argument("--episodes", type=int, default=3)
    ap.add_argument("--top", type=int, default=1000000)
    a = ap.parse_args()
    report = json.loads(subprocess.check_output([a.smtop, "report", a.session, "--json", "--top", str(a.top)]))
    bad = not_timeslice(report)
    print(f"{len(report['episodes'])} episodes listed; {len(bad)} with every culprit in another process "
          f"and not time-slicing")
    origin = origin_ns(a.smtop, a.session)
    for i, e in enumerate(bad[:a.episodes]):
        blocks = window_blocks(a.smtop, a.session, e, origin, os.path.join(a.outdir, f"episode{i}"))
        ev, last_end = events_in_window(blocks, e)
        culprits = {c["pid"] for c in e["culprits"]}
        print(f"episode {i}: {e['kind']}, pid {e['pid']} grid {e['grid_id']} {e['name'][:40]}; ready "
              f"{(e['ready_ns'] - origin) / 1e3:.1f} us ({e['ready_bound']}), first block "
              f"{(e['start_ns'] - origin) / 1e3:.1f} us, last block end {(last_end - origin) / 1e3:.1f} us")
        print("  culprits (pid, grid, kernel, blocks):",
              [(c["pid"], c["grid_id"], c["name"][:30], c["blocks"]) for c in e["culprits"][:6]])
        pairs = close_pairs(ev, e["pid"], culprits)
        print(f"  {len(pairs)} event pairs closer than {GAP_NS / 1e3:.0f} us; the closest (ns apart, "
              f"(pid, event, grid, kernel, sm, t) before and after):")
        for p in pairs[:8]:
            print("   ", p[0], p[1][:5], (p[1][5] - origin) / 1e3, p[2][:5], (p[2][5] - origin) / 1e3)
        if i == 0:
            trim_around(a.session, e, os.path.join(a.outdir, "episode0.smtop"))
        print("  runs of one process's events (pid, from us, to us, events):",
              [(r[0], round((r[1] - origin) / 1e3, 1), round((r[2] - origin) / 1e3, 1), r[3])
               for r in runs_of(ev)][:24])
    return 0


if __name__ == "__main__":
    sys.exit(main())
