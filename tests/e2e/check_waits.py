#!/usr/bin/env python3
"""A second, deliberately simple reading of ready times and waits
(docs/analysis.md, "Per kernel"), from the session's tables with plain SQL,
checked against what `smtop report --json` says.

  check_waits.py SMTOP FILE...

For each kernel: ready = the latest of
  - the end of the kernel just before it on its stream (pid, device, context,
    stream; (start, correlation id) order) and of the copy or memset just
    before it there;
  - the end of each stream-wait-event record (syncType 2) on its stream whose
    call came after those operations' calls and before its own (correlation
    ids), and for each the event's last record (CUPTI_ACTIVITY_KIND_CUDA_EVENT,
    same pid, context and event id) called before the wait: the end of the
    last kernel, copy or memset called before that record on the stream that
    recorded it, and the record's device timestamp;
  - the legacy default stream (flag 3) and the blocking streams (flag 1) of
    its context: the end of the last kernel, copy or memset called before it
    on each stream of the other kind;
  - for a kernel launched from a graph whose node has edges recorded
    (smtop_graph_dep): the end of each node it depends on, found as the
    kernel, copy or memset with the same pid, correlation id (the graph
    launch) and graphNodeId; an empty or event-record node stands for its
    own dependencies; any other node, or one without its record, makes the
    edges unknown.  With edges known, stream order skips the kernels, copies
    and memsets of the kernel's own launch;
  - for one launched from a graph without known edges, the end of each of
    the 64 kernels before it on its stream that ended before it started;
  - the host: CUPTI's submitted, else the end of its launch call (the API
    call with its pid and correlation id), else CUPTI's queued; but the
    launch call's end instead of submitted when submitted came more than the
    threshold later while only other processes' kernels ran on its device
    (a time slice);
unknown when a copy or memset without times (--sm all), or a kernel that
never started (its launch's blocks all dropped), was called on its stream
after its previous operations, or when the last kernel called before an
event's record or on the other kind of stream (the legacy rule), or a graph
node it depends on, is one that never started.
Its start is its first block on CUPTI time (the session clock of its GPU)
when it has blocks, else its CUPTI start.

Checked: every episode's ready_ns and ready_bound exactly, its start_ns within
START_SLACK_NS (first blocks) or exactly (kernel starts), wait_ns = start -
ready; per stream the number of decided waits, their maximum and the unknown
ones.  In sessions without blocks, where residency is the kernels' intervals,
also the other way: every kernel that waited past the threshold while a
kernel of another stream on its device ran is an episode.  Prints one line a
file; exits 1 on any disagreement.  Files smtop refuses (nvprof) are skipped.
"""
import bisect
import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from check_session import bounded_last_starts, grid_extents, session_clock  # noqa: E402

STREAM_WAIT_EVENT = 2      # CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT
NONE = 4294967295          # CUPTI_SYNCHRONIZATION_INVALID_VALUE
BLOCKING, LEGACY = 1, 3    # CUpti_ActivityStreamFlag
GRAPH_LOOKBACK = 64
START_SLACK_NS = 2000      # first block start: the reader's clock vs this one's rounding


def cols(db, table):
    return {r[1] for r in db.execute(f"PRAGMA table_info('{table}')")}


def pid_of(g):
    return (g >> 24) & 0xffffff


def rows(db, table, want, optional=()):
    """Rows of table as dicts, or [] if a wanted column is missing."""
    have = cols(db, table)
    if not have or not set(want) <= have:
        return []
    names = list(want) + [c for c in optional if c in have]
    out = []
    for r in db.execute(f"SELECT {', '.join(names)} FROM {table} ORDER BY rowid"):
        d = dict(zip(names, r))
        for c in optional:
            d.setdefault(c, None)
        out.append(d)
    return out


def read(db):
    ks = rows(db, "CUPTI_ACTIVITY_KIND_KERNEL",
              ("start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
               "gridId"), ("submitted", "queued", "isGraph", "graphNodeId"))
    # A trimmed session holds what happened from trimmed_from_ns on: host
    # times before it count as unknown (docs/session-format.md).
    cut = 0
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'smtop_meta'").fetchone():
        v = db.execute("SELECT value FROM smtop_meta WHERE key = 'trimmed_from_ns'").fetchone()
        cut = int(v[0]) if v else 0
    for k in ks:
        for c in ("submitted", "queued"):
            if k[c] is not None and k[c] < cut:
                k[c] = 0
    place = ("start", "end", "contextId", "streamId", "correlationId", "globalPid")
    ops = []
    untimed = {}
    nodes = {}  # (pid, correlation id, graphNodeId): (end, op)
    for k in ks:
        if k["graphNodeId"]:
            nodes[(pid_of(k["globalPid"]), k["correlationId"] or 0, k["graphNodeId"])] = (
                k["end"] if k["start"] else None, "kernel")
    for table, bound in (("CUPTI_ACTIVITY_KIND_MEMCPY", "memcpy"),
                         ("CUPTI_ACTIVITY_KIND_MEMSET", "memset")):
        for r in rows(db, table, place, ("deviceId", "graphNodeId")):
            key = (pid_of(r["globalPid"]), r["deviceId"] or 0, r["contextId"], r["streamId"])
            if r["start"] and r["end"] >= r["start"]:
                ops.append((key, r["start"], r["correlationId"] or 0, r["end"], bound))
                if r["graphNodeId"]:
                    nodes[(key[0], r["correlationId"] or 0, r["graphNodeId"])] = (r["end"], bound)
            elif not r["start"] and not r["end"] and r["correlationId"]:
                untimed.setdefault(key, []).append(r["correlationId"])
    waits = {}
    for r in rows(db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", place + ("syncType",), ("eventId",)):
        if r["syncType"] == STREAM_WAIT_EVENT and r["end"] and r["correlationId"]:
            key = (pid_of(r["globalPid"]), r["contextId"], r["streamId"])
            ev = r["eventId"] if r["eventId"] is not None else NONE
            waits.setdefault(key, []).append((r["correlationId"], r["end"], ev))
    records = {}
    for r in rows(db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
                  ("deviceId", "contextId", "streamId", "correlationId", "globalPid", "eventId"),
                  ("deviceTimestamp",)):
        if r["correlationId"] and r["eventId"] != NONE:
            key = (pid_of(r["globalPid"]), r["contextId"], r["eventId"])
            records.setdefault(key, []).append((r["correlationId"], r["deviceId"], r["streamId"],
                                                r["deviceTimestamp"] or 0))
    flags = {}
    for r in rows(db, "TARGET_INFO_CUDA_STREAM", ("processId", "contextId", "streamId", "flag"),
                  ("deviceId",)):
        flags[(r["processId"], r["deviceId"] or 0, r["contextId"], r["streamId"])] = r["flag"]
    launches = {}
    if {"globalTid", "correlationId", "nameId"} <= cols(db, "CUPTI_ACTIVITY_KIND_RUNTIME"):
        for tid, corr, end, name in db.execute(
                "SELECT a.globalTid, a.correlationId, a.end, s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME a"
                " LEFT JOIN StringIds s ON s.id = a.nameId ORDER BY a.rowid"):
            if end and corr and (name is None or "Launch" in name):
                launches[(pid_of(tid), corr)] = end
    deps = {}
    for r in rows(db, "smtop_graph_dep", ("globalPid", "nodeId", "dependsOn", "dependsOnType")):
        deps.setdefault((pid_of(r["globalPid"]), r["nodeId"]), []).append(
            (r["dependsOn"], r["dependsOnType"]))
    graphs = (deps, nodes)
    return ks, ops, waits, launches, records, flags, untimed, graphs


KERNEL_NODE, MEMCPY_NODE, MEMSET_NODE, EMPTY_NODE, EVENT_RECORD_NODE = 0, 1, 2, 5, 7


def graph_edges(graphs, pid, corr, node):
    """(state, [(end, bound)]): state 'unknown', 'root' or 'used'."""
    deps, nodes = graphs
    todo, seen, out, state = [node], 0, [], "root"
    while todo:
        n = todo.pop(0)
        if (pid, n) not in deps:
            return "unknown", []
        for dep, typ in deps[(pid, n)]:
            if not dep:
                continue
            if typ in (EMPTY_NODE, EVENT_RECORD_NODE):
                seen += 1
                if seen > 64:
                    return "unknown", []
                todo.append(dep)
                continue
            if typ not in (KERNEL_NODE, MEMCPY_NODE, MEMSET_NODE) or (pid, corr, dep) not in nodes:
                return "unknown", []
            end, op = nodes[(pid, corr, dep)]
            if end is None:  # a kernel that never started
                return "unknown", []
            out.append((end, "graph_edge/" + op))
            state = "used"
    return state, out


def first_starts(db):
    """{(globalPid, deviceId, gridId): first block start on CUPTI time}."""
    if "smtop_block_chunk" not in {r[0] for r in db.execute("SELECT name FROM sqlite_master")}:
        return {}
    out = {}
    clocks = {}
    for (gpid, dev, grid), (s, _) in grid_extents(db).items():
        if dev not in clocks:
            clocks[dev] = session_clock(db, dev)
        if clocks[dev]:
            out[(gpid, dev, grid)] = clocks[dev](s)
    return out


def read_bounded_ends(db, ks):
    """A kernel whose blocks' ends are upper bounds (--sm entry) ended, as
    far as ready times go, at its last block's start, or its own start
    (never later than its recorded end)."""
    if "smtop_block_chunk" not in {r[0] for r in db.execute("SELECT name FROM sqlite_master")}:
        return
    last = bounded_last_starts(db)
    clocks = {}
    for k in ks:
        key = (k["globalPid"], k["deviceId"], k["gridId"])
        if key not in last:
            continue
        if key[1] not in clocks:
            clocks[key[1]] = session_clock(db, key[1])
        if clocks[key[1]]:
            least = max(clocks[key[1]](last[key]), k["start"] or 0)
            if k["end"] and least < k["end"]:
                k["end"] = least


def ready_times(ks, ops, waits, launches, records, flags, untimed, firsts, graphs):
    """{kernel index: (ready, bound)}, {stream: [kernel indices]}"""
    streams = {}
    for i, k in enumerate(ks):
        key = (pid_of(k["globalPid"]), k["deviceId"], k["contextId"], k["streamId"])
        streams.setdefault(key, []).append(i)
    by_stream = {}
    for key, s, corr, end, bound in ops:
        by_stream.setdefault(key, []).append((s, corr, end, bound))
    for v in by_stream.values():
        v.sort()
    for idx in streams.values():
        idx.sort(key=lambda i: (ks[i]["start"] or 1 << 64, ks[i]["correlationId"] or 0,
                                ks[i]["gridId"]))

    def last_before(key, corr):
        """[(end, op, corr)] of the last kernel and the last copy or memset
        called before corr on stream key; None when that kernel never
        started."""
        out = []
        called = [i for i in streams.get(key, []) if (ks[i]["correlationId"] or 0) < corr]
        started = [i for i in called if ks[i]["start"]]
        last = max((ks[i]["correlationId"] or 0 for i in called if not ks[i]["start"]), default=None)
        if last is not None and (not started or last > (ks[started[-1]]["correlationId"] or 0)):
            return None
        if started:
            p = ks[started[-1]]
            out.append((p["end"], "kernel", p["correlationId"]))
        mine = [o for o in by_stream.get(key, []) if o[1] < corr]
        if mine:
            out.append((mine[-1][2], mine[-1][3], mine[-1][1]))
        return out

    def start_of(k):
        f = firsts.get((k["globalPid"], k["deviceId"], k["gridId"]))
        return f if f is not None else k["start"]

    res, calls = {}, {}
    for (pid, dev, ctx, sid), idx in streams.items():
        mine = by_stream.get((pid, dev, ctx, sid), [])
        unstarted = [ks[j]["correlationId"] or 0 for j in idx if not ks[j]["start"]]
        for n, i in enumerate(idx):
            k = ks[i]
            corr = k["correlationId"] or 0
            best = (0, "unknown")
            after = 0

            def raise_to(t, b):
                nonlocal best
                if t and t > best[0]:
                    best = (t, b)
            state, edges = "unknown", []
            if k["isGraph"] and k["graphNodeId"]:
                state, edges = graph_edges(graphs, pid, corr, k["graphNodeId"])
            prev = idx[:n]
            before = [o for o in mine if (o[0], o[1]) < (k["start"] or 1 << 64, corr)]
            if state != "unknown":
                # the launch's own operations run as its edges say
                others = [j for j in prev[-GRAPH_LOOKBACK - 1:] if (ks[j]["correlationId"] or 0) != corr]
                far = not others and len(prev) > GRAPH_LOOKBACK
                prev = others[-1:] if others else (prev[-1:] if far else [])
                before = [o for o in before[-GRAPH_LOOKBACK - 1:] if o[1] != corr]
                if far and state == "used":
                    after = ks[prev[0]]["correlationId"] or 0
                    prev = []
            if prev:
                p = ks[prev[-1]]
                raise_to(p["end"], "stream_order/kernel")
                after = p["correlationId"] or 0
            if before:
                s, c, end, bound = before[-1]
                raise_to(end, "stream_order/" + bound)
                after = max(after, c)
            if prev and not ks[prev[-1]]["start"]:
                res[i] = (0, "unknown")
                continue
            if any(after < c < corr for c in untimed.get((pid, dev, ctx, sid), []) + unstarted):
                res[i] = (0, "unknown")
                continue
            known = True
            for wc, wend, ev in sorted(waits.get((pid, ctx, sid), [])):
                if not after < wc < corr:
                    continue
                raise_to(wend, "event_wait")
                recs = [r for r in records.get((pid, ctx, ev), []) if r[0] < wc]
                if recs:
                    rc, rdev, rsid, ts = max(recs)
                    ops_before = last_before((pid, rdev, ctx, rsid), rc)
                    if ops_before is None:
                        known = False
                        break
                    for end, op, _ in ops_before:
                        raise_to(end, "event_wait/" + op)
                    raise_to(ts, "event_wait/event")
            mine_flag = flags.get((pid, dev, ctx, sid))
            other = {LEGACY: BLOCKING, BLOCKING: LEGACY}.get(mine_flag)
            for (fp, fd, fc, fs), f in sorted(flags.items()):
                if known and other is not None and f == other and (fp, fd, fc) == (pid, dev, ctx):
                    ops_before = last_before((fp, fd, fc, fs), corr)
                    if ops_before is None:
                        known = False
                        break
                    for end, op, _ in ops_before:
                        raise_to(end, "legacy_stream/" + op)
            if not known:
                res[i] = (0, "unknown")
                continue
            first = start_of(k)
            for end, b in edges:
                raise_to(end, b)
            if state == "unknown" and k["isGraph"] and first:
                for j in idx[max(0, n - GRAPH_LOOKBACK):n]:
                    e = ks[j]["end"]
                    if e and e <= first:
                        raise_to(e, "graph_order/kernel")
            sub, queued = k["submitted"] or 0, k["queued"] or 0
            launch = None if sub else launches.get((pid, corr))
            if sub:
                pre = best
                raise_to(sub, "host_submit")
                if best[1] == "host_submit" and (pid, corr) in launches:
                    # a tie keeps the bound found first, as the product does
                    calls[i] = max(pre, (launches[(pid, corr)], "launch_call"), key=lambda x: x[0])
            elif launch:
                raise_to(launch, "launch_call")
            else:
                raise_to(queued, "host_submit")
            res[i] = best
    return res, streams, calls


def past_slices(ks, ready, calls, start_of, th):
    """CUPTI's submitted time comes when a time-sliced context's slice does:
    a kernel whose submission came more than the threshold after its launch
    call (and its other bounds), while only other processes' kernels ran on
    its device, was ready at the call."""
    for i, called in calls.items():
        k = ks[i]
        if ready[i][0] - called[0] <= th:
            continue
        key = (pid_of(k["globalPid"]), k["deviceId"], k["contextId"], k["streamId"])
        ran = [o for o in ks if o["start"] and o["deviceId"] == k["deviceId"] and
               (pid_of(o["globalPid"]), o["deviceId"], o["contextId"], o["streamId"]) != key and
               start_of(o)[0] < ready[i][0] and o["end"] > called[0]]
        if ran and all(pid_of(o["globalPid"]) != key[0] for o in ran):
            ready[i] = called


def bound_of(e):
    b, op = e.get("ready_bound", "missing"), e.get("ready_bound_op")
    return b + ("/" + op if op else "")


def check(smtop, path):
    """Returns (ok, line)."""
    p = subprocess.run([smtop, "report", path, "--json", "-q", "--top", "1000000000"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return True, f"skip: {path}: smtop refuses it ({p.stderr.strip()})"
    rep = json.loads(p.stdout)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    ks, ops, waits, launches, records, flags, untimed, graphs = read(db)
    firsts = first_starts(db)
    read_bounded_ends(db, ks)
    db.close()
    ready, streams, calls = ready_times(ks, ops, waits, launches, records, flags, untimed, firsts, graphs)
    bad = []
    th = rep["threshold_ns"]

    def start_of(k):
        f = firsts.get((k["globalPid"], k["deviceId"], k["gridId"]))
        return (f, True) if f is not None else (k["start"], False)
    past_slices(ks, ready, calls, start_of, th)

    # Sessions without CUPTI (--sm all) number no correlation ids, and a graph
    # replayed launches its kernel nodes with one grid id: among the kernels
    # of one key, the episode's is the one that started nearest its start.
    by_key = {}
    for i, k in enumerate(ks):
        by_key.setdefault((pid_of(k["globalPid"]), k["contextId"], k["streamId"], k["correlationId"],
                           k["gridId"]), []).append(i)
    # A graph replayed launches its kernel nodes with one grid id each time,
    # and block records carry nothing else: the product cannot tell the
    # replays' blocks apart (it judges their grid as one), so the streams of
    # such kernels are not compared in sessions with blocks.
    grid_uses = {}
    for k in ks:
        g = (k["globalPid"], k["deviceId"], k["contextId"], k["gridId"])
        grid_uses[g] = grid_uses.get(g, 0) + 1
    replayed = set()
    if firsts:
        replayed = {(pid_of(k["globalPid"]), k["deviceId"] or 0, k["contextId"], k["streamId"]) for k in ks
                    if grid_uses[(k["globalPid"], k["deviceId"], k["contextId"], k["gridId"])] > 1}
    if rep["episodes_total"] != len(rep["episodes"]):
        bad.append("not every episode listed")
    seen = set()
    for e in rep["episodes"]:
        cands = by_key.get((e["pid"], e["context"], e["stream"], e["correlation_id"], e["grid_id"]), [])
        i = min(cands, key=lambda j: abs((ks[j]["start"] or 0) - e["start_ns"])) if cands else None
        what = f"episode of correlation id {e['correlation_id']} (stream {e['stream']})"
        if i is None:
            bad.append(f"{what}: no such kernel")
            continue
        seen.add(i)
        k = ks[i]
        if (pid_of(k["globalPid"]), k["deviceId"] or 0, k["contextId"], k["streamId"]) in replayed:
            continue
        r, b = ready[i]
        if e["ready_ns"] != r:
            bad.append(f"{what}: ready {e['ready_ns']} ({bound_of(e)}), here {r} ({b})")
        elif bound_of(e) != b:
            bad.append(f"{what}: bound {bound_of(e)}, here {b}")
        s, from_block = start_of(k)
        if from_block and abs(e["start_ns"] - s) > START_SLACK_NS:
            bad.append(f"{what}: start {e['start_ns']}, first block here {s}")
        if not from_block and e["start_ns"] != s:
            bad.append(f"{what}: start {e['start_ns']}, kernel start {s}")
        if e["wait_ns"] != max(0, e["start_ns"] - e["ready_ns"]):
            bad.append(f"{what}: wait {e['wait_ns']} is not start - ready")
        if max(0, s - r) <= th and not (from_block and max(0, s - r) > th - START_SLACK_NS):
            bad.append(f"{what}: waited {max(0, s - r)} ns here, not past {th}")

    # per stream: decided waits, their maximum, the unknown ones
    rs = {(s["pid"], s["device"], s["context"], s["stream"]): s for s in rep["streams"]}
    for key, idx in streams.items():
        if key in replayed:
            continue
        s = rs.get(key)
        if s is None:
            bad.append(f"stream {key}: not in the report")
            continue
        w = []
        unknown = 0
        for i in idx:
            st, _ = start_of(ks[i])
            if not ready[i][0] or not st:
                unknown += 1
            else:
                w.append(max(0, st - ready[i][0]))
        if s["waits_unknown"] != unknown:
            bad.append(f"stream {key}: {s['waits_unknown']} unknown waits, here {unknown}")
        n = s["wait_ns"]["n"] if s["wait_ns"] else 0
        if n != len(w):
            bad.append(f"stream {key}: {n} waits, here {len(w)}")
        elif w and abs(s["wait_ns"]["max"] - max(w)) > (START_SLACK_NS if firsts else 0):
            bad.append(f"stream {key}: longest wait {s['wait_ns']['max']}, here {max(w)}")

    # without blocks, residency is the kernel intervals: the episodes are known
    if not firsts:
        by_dev = {}
        for j, o in enumerate(ks):
            if o["start"]:
                by_dev.setdefault(o["deviceId"], []).append((o["start"], j))
        longest = {d: max(ks[j]["end"] - s for s, j in v) for d, v in by_dev.items()}
        for v in by_dev.values():
            v.sort()
        for i, k in enumerate(ks):
            r = ready[i][0]
            if not r or not k["start"] or k["start"] - r <= th or i in seen:
                continue
            key = (pid_of(k["globalPid"]), k["deviceId"], k["contextId"], k["streamId"])
            lst = by_dev[k["deviceId"]]
            lo = bisect.bisect_left(lst, (r - longest[k["deviceId"]], -1))
            for s, j in lst[lo:bisect.bisect_left(lst, (k["start"], -1))]:
                o = ks[j]
                okey = (pid_of(o["globalPid"]), o["deviceId"], o["contextId"], o["streamId"])
                if okey != key and min(o["end"], k["start"]) > max(s, r):
                    bad.append(f"kernel of correlation id {k['correlationId']} (stream "
                               f"{k['streamId']}) waited {k['start'] - r} ns behind correlation id "
                               f"{o['correlationId']}, and the report has no episode")
                    break
    name = os.path.basename(path)
    if bad:
        return False, f"FAIL: {name}: " + "; ".join(bad[:8]) + (f" (+{len(bad) - 8} more)" if len(bad) > 8 else "")
    bounds = {}
    for e in rep["episodes"]:
        bounds[bound_of(e)] = bounds.get(bound_of(e), 0) + 1
    return True, (f"ok: {name}: {len(ks)} kernels, {len(rep['episodes'])} episodes agree"
                  f" (ready set by {', '.join(f'{b} {n}' for b, n in sorted(bounds.items())) or 'none'})"
                  + (f"; {len(replayed)} streams of replayed graphs not compared" if replayed else ""))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ok = True
    for path in sys.argv[2:]:
        good, line = check(sys.argv[1], path)
        print(line)
        ok &= good
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
