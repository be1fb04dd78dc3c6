#!/usr/bin/env python3
"""Episode counts by kind, certain and possible, from `smtop report --json
--top 1000000` on stdin: one line, for the observer-effect table of
docs/performance.md."""
import collections
import json
import sys

d = json.load(sys.stdin)
c = collections.Counter()
for e in d["episodes"]:
    c[(e["kind"], bool(e.get("possible")))] += 1
kinds = ["blocking", "inversion_resident", "inversion_dispatch", "timeslice"]
print(" ".join(f"{k}={c[(k, False)]}+{c[(k, True)]}?" for k in kinds), f"total={d['episodes_total']}")
