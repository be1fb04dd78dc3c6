#!/bin/sh
# A session recorded with --sm entry on the H200 (tests/fixtures/head-of-line-entry.smtop):
# every block's start and SM exact, its end an upper bound.  Through the
# product: info says how it was recorded, export carries the bound flag, the
# report finds the head-of-line wait and calls it possible, the viewer says
# the ends are bounds and marks the episode.
. tests/e2e/lib.sh
FX=$E2E_TMP/fixtures
mkdir -p "$FX" && cp tests/fixtures/head-of-line-entry.smtop "$FX"/
S=$FX/head-of-line-entry.smtop

out=$("$SMTOP" info "$S")
check "info: recorded with --sm entry" contains "$out" "recorded with  --sm entry"
check "info: every block kept" contains "$out" "blocks         1,187"

"$SMTOP" export "$S" --csv "$E2E_TMP/csv" -q
# CSV rows end in CRLF
for f in blocks events; do tr -d '\r' < "$E2E_TMP/csv/$f.csv" > "$E2E_TMP/$f.csv"; done
n=$(awk -F, 'NR > 1 && $NF == "1"' "$E2E_TMP/blocks.csv" | wc -l)
check "export: every block's end is a bound" [ "$n" -eq 1187 ]
n=$(awk -F, 'NR > 1 && $8 < $7' "$E2E_TMP/blocks.csv" | wc -l)
check "export: no bound before its block's start" [ "$n" -eq 0 ]
possible=$(awk -F, 'NR > 1 { print $NF }' "$E2E_TMP/events.csv" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
check "export: the three events say possible ($possible)" [ "$possible" = " 3 1;" ]

j=$("$SMTOP" report "$S" --json -q)
got=$(printf '%s' "$j" | python3 -c 'import json,sys
r = json.load(sys.stdin)
e = [x for x in r["episodes"] if x["kind"] == "inversion_resident"]
print(len(e), all(x["possible"] for x in e), min(x["wait_ns"] for x in e) // 100000,
      {c["name"] for x in e for c in x["culprits"]} == {"_Z15hol_long_kernelyPi"})')
# the demo's wait under --sm marked: 17.93 ms behind the long kernel
check "report: the priority -5 kernel waits 17.9 ms behind the long kernel, possible ($got)" [ "$got" = "3 True 179 True" ]
out=$("$SMTOP" report "$S" --top 1)
check "report: the verdict says possible" contains "$out" "inversion_resident (possible)"

tui_start 160 45 "$SMTOP" open "$S"
s=$(tui_cap)
check "viewer: the legend says the ends are bounds" contains "$s" "ends: bounds"
check "viewer: the episode is marked possible" contains "$s" "INVERSION (resident)?"
e2e_done
