#!/usr/bin/env python3
"""Compares the demos' verdicts in two directories of `smtop report --json`
outputs (DIR/demo-NAME.json, from --top with room for every episode), each
demo recorded once with --sm marked and once with another mode: the kind of
episode that dominates, the stream whose blocks the waits are blamed on (the
culprit with the most of that kind's waiting: each episode's wait shared by
the culprits' weights), and
the median wait of that kind, which must agree within 10% (or 20 us, for
waits of a few microseconds).
Prints one line per demo; exit status 1 if any disagree."""
import json
import os
import statistics
import sys

KINDS = ("blocking", "inversion_resident", "inversion_dispatch", "timeslice")


def verdict(path):
    with open(path) as f:
        rep = json.load(f)
    counts = {k: rep["totals"][k]["count"] for k in KINDS}
    kind = max(KINDS, key=lambda k: counts[k])
    if counts[kind] == 0:
        return {"kind": None, "culprit": None, "wait": 0, "counts": counts}
    eps = [e for e in rep["episodes"] if e["kind"] == kind]
    blamed = {}
    for e in eps:
        for c in e["culprits"]:
            key = (c["priority"], c["short_name"])
            blamed[key] = blamed.get(key, 0) + c["weight"] * e["wait_ns"]
    culprit = max(blamed, key=blamed.get) if blamed else None
    # a report cut by --top may list none of a kind it counts
    waits = [e["wait_ns"] for e in eps]
    return {"kind": kind, "culprit": culprit, "wait": statistics.median(waits) if waits else 0,
            "counts": counts}


def agree(a, b):
    problems = []
    if a["kind"] != b["kind"]:
        problems.append(f"kind {a['kind']} vs {b['kind']}")
    if a["culprit"] != b["culprit"]:
        problems.append(f"culprit {a['culprit']} vs {b['culprit']}")
    if abs(a["wait"] - b["wait"]) > max(0.1 * a["wait"], 20000):
        problems.append(f"median wait {a['wait'] / 1e3:.1f} vs {b['wait'] / 1e3:.1f} us")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare_verdicts.py MARKED_DIR OTHER_DIR")
    failures = 0
    names = sorted(n[5:-5] for n in os.listdir(sys.argv[1]) if n.startswith("demo-") and n.endswith(".json"))
    for name in names:
        other = os.path.join(sys.argv[2], f"demo-{name}.json")
        if not os.path.exists(other):
            continue
        a = verdict(os.path.join(sys.argv[1], f"demo-{name}.json"))
        b = verdict(other)
        problems = agree(a, b)
        failures += bool(problems)
        print(f"{'FAIL' if problems else 'ok'}: {name}: marked {a['kind']} {a['counts']} culprit {a['culprit']} "
              f"median wait {a['wait'] / 1e3:.1f} us; other {b['kind']} {b['counts']} culprit {b['culprit']} "
              f"median wait {b['wait'] / 1e3:.1f} us" + (f" ({'; '.join(problems)})" if problems else ""))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
