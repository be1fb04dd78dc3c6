#!/bin/sh
# The demos' verdicts under --sm entry, on the CPU, from the H200's own
# schedules.  tests/support/entry_from_exact.py turns each demo's --sm
# marked fixture into the session --sm entry would have stored for the same
# schedule: every end a bound, submissions from the host's launch times.
# With --marked it keeps the ends exact instead, as the demos' kernels give
# them with SMTOP_ENTRY_MARKS=1 (they carry the block tracer header).
# smtop report --json of each, against the marked fixture's, by
# tests/gpu/compare_verdicts.py's measure (the dominant kind, the culprit,
# the median wait within 10%).
. tests/e2e/lib.sh
D=$E2E_TMP/verdicts
mkdir -p "$D/marked" "$D/bounded" "$D/marks"
DEMOS="priority-vs-training equal-priority head-of-line green-contexts timeslice"
for demo in $DEMOS; do
	"$SMTOP" report tests/fixtures/$demo.smtop --json --top 1000000 > "$D/marked/demo-$demo.json"
	python3 tests/support/entry_from_exact.py tests/fixtures/$demo.smtop "$D/b-$demo.smtop" > "$D/b-$demo.out" &&
		python3 tests/support/entry_from_exact.py --marked tests/fixtures/$demo.smtop "$D/m-$demo.smtop" > /dev/null ||
		fail "entry_from_exact.py: $demo"
	"$SMTOP" report "$D/b-$demo.smtop" --json --top 1000000 > "$D/bounded/demo-$demo.json"
	"$SMTOP" report "$D/m-$demo.smtop" --json --top 1000000 > "$D/marks/demo-$demo.json"
done

out=$("$SMTOP" info "$D/b-head-of-line.smtop")
check "info: the bounded copy reads as recorded with --sm entry" contains "$out" "recorded with  --sm entry"
check "the fixtures are left as they were" [ -z "$(git status --porcelain tests/fixtures 2>/dev/null)" ]

# A bound lies at or past its block's exact end: the slot model never
# bounds a block before it left.
for demo in $DEMOS; do
	sed -n 's/.*p50 \([0-9.]*\) us.*/\1/p' "$D/b-$demo.out" | grep -q . ||
		fail "entry_from_exact.py printed no error quantiles for $demo"
done

verdicts() { # verdicts DIR: one line per demo, "name kind culprit wait_us possible"
	python3 - "$D/marked" "$1" <<'PY'
import json, os, sys
sys.path.insert(0, "tests/gpu")
from compare_verdicts import verdict, agree
for n in sorted(os.listdir(sys.argv[1])):
    a = verdict(os.path.join(sys.argv[1], n))
    b = verdict(os.path.join(sys.argv[2], n))
    eps = json.load(open(os.path.join(sys.argv[2], n)))["episodes"]
    problems = agree(a, b)
    print(n[5:-5], "kind" if a["kind"] == b["kind"] else "KIND", "culprit" if a["culprit"] == b["culprit"] else "CULPRIT",
          "wait" if not any(p.startswith("median") for p in problems) else "WAIT",
          sum(e["possible"] for e in eps), len(eps))
PY
}
bounded=$(verdicts "$D/bounded")
marks=$(verdicts "$D/marks")
printf 'bounded ends (name, kind, culprit, median wait, possible/episodes):\n%s\n' "$bounded"
printf 'exact ends of marked kernels:\n%s\n' "$marks"

n=$(printf '%s\n' "$bounded" | awk '$5 != $6' | wc -l)
check "bounded: every episode is possible" [ "$n" -eq 0 ]
n=$(printf '%s\n' "$marks" | awk '$5 != 0' | wc -l)
check "marks: no episode rests on a bound" [ "$n" -eq 0 ]
n=$(printf '%s\n' "$marks" | grep -c ' kind culprit ')
check "marks: every demo's dominant kind and culprit are --sm marked's" [ "$n" -eq 5 ]
line=$(printf '%s\n' "$marks" | grep -v '^priority-vs-training ')
n=$(printf '%s\n' "$line" | grep -c ' kind culprit wait ')
# priority-vs-training's 40 ms trim holds 5 episodes; two resident
# inversions ready 2-3 us before CUPTI's submission time read as dispatch
# (docs/performance.md, "The demos' verdicts")
check "marks: and their median waits, but priority-vs-training's" [ "$n" -eq 4 ]
# its wait (18 ms) is the long kernel's, not a stream predecessor's end
check "bounded: head-of-line's verdict survives bounded ends" contains "$bounded" "head-of-line kind culprit wait"
e2e_done
