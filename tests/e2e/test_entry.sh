#!/bin/sh
# Sessions recorded with --sm entry on the H200 (tests/fixtures/head-of-line-entry.smtop,
# and head-of-line-windows.smtop with exact windows) and on an H100
# (drops/train-drops-entry.smtop, blocks dropped):
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
check "info: every end inferred, no window" contains "$out" "its end inferred (no exact windows);"
check "info: the trim's window as a length" contains "$out" "trimmed        kept a 40.00 ms window \[1796393340066570555, "
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
# no CUPTI under the Compute Sanitizer: the submission time is the launch call's plus the least lag
out=$("$SMTOP" report "$S" --top 1 --explain | tr '\n' ' ' | tr -s ' ')
check "report --explain: the submission time is the launch call's" contains "$out" "because of the host: its launch call's time plus the least lag from a launch call to a first block"

tui_start 160 45 "$SMTOP" open "$S"
s=$(tui_cap)
check "viewer: the legend says the ends are bounds" contains "$s" "ends: bounds"
check "viewer: the episode is marked possible" contains "$s" "INVERSION (resident)?"
tui_end

# Recorded with SMTOP_ENTRY_MARKS=1 (meta entry_marks): kernels built with
# the block tracer header timed their own blocks; info and the legend say so.
cp "$S" "$FX/marks.smtop"
python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO smtop_meta(key, value) VALUES (?, ?)", ("entry_marks", "on"))
db.commit()' "$FX/marks.smtop"
out=$("$SMTOP" info "$FX/marks.smtop")
check "marks: info says the marked kernels' ends are exact" contains "$out" \
	"its end inferred, exact in kernels built with the block tracer header (no exact windows)"
tui_start 160 45 "$SMTOP" open "$FX/marks.smtop"
s=$(tui_cap)
check "marks: the legend says so" contains "$s" "ends: bounds, marked exact"
tui_end

# The same demo with exact windows (--exact-every 1s --exact-for 100ms), cut
# around the first: blocks of the window have exact ends, the others
# inferred ones, and verdicts on exact ends are certain.
cp tests/fixtures/head-of-line-windows.smtop "$FX"/
W=$FX/head-of-line-windows.smtop
out=$("$SMTOP" info "$W")
check "windows: info counts the exact windows" contains "$out" "its end inferred, exact in 2 exact windows"
check "windows: info says how far inferred ends fell from exact ones" contains "$out" \
	"inferred ends  off their exact ends by 2.3 us (p50), 4.1 us (p90), 6.1 us (p99) over 3,960 blocks of the windows; 0.4% came before it"
check "windows: info compares the SMs' residency by inferred and exact ends" contains "$out" \
	"residency      by inferred ends, those blocks held their SMs 1.00x as long as by exact ends (1.00x to 1.00x across 132 SMs)"
"$SMTOP" export "$W" --csv "$E2E_TMP/wcsv" -q
tr -d '\r' < "$E2E_TMP/wcsv/blocks.csv" > "$E2E_TMP/wblocks.csv"
ends=$(awk -F, 'NR > 1 { n[$NF]++ } END { print n[0] + 0, n[1] + 0 }' "$E2E_TMP/wblocks.csv")
check "windows: export has exact and inferred ends ($ends)" [ "$ends" = "1980 1584" ]
n=$(awk -F, 'NR > 1 && $8 < $7' "$E2E_TMP/wblocks.csv" | wc -l)
check "windows: no end before its block's start" [ "$n" -eq 0 ]
# tests/gpu/window_ends.py, which make test-gpu runs on PyTorch's windows:
# the window's kernels have every end exact, and with none it fails
v=$(python3 tests/gpu/window_ends.py "$E2E_TMP/wcsv")
check "window_ends: the window's kernels ($(printf "%s" "$v" | head -1))" contains "$v" "kernels submitted in them 10, 2 names"
check "window_ends: their blocks all exact" contains "$v" "their blocks: 1980 exact, 0 without an exact end"
mkdir -p "$E2E_TMP/wcsv-none"
cp "$E2E_TMP/wcsv/kernels.csv" "$E2E_TMP/wcsv/nvtx.csv" "$E2E_TMP/wcsv-none/"
awk -F, 'BEGIN { OFS = "," } NR > 1 { $NF = 1 } { print }' "$E2E_TMP/wblocks.csv" > "$E2E_TMP/wcsv-none/blocks.csv"
v=$(python3 tests/gpu/window_ends.py "$E2E_TMP/wcsv-none")
rc=$?
check "window_ends: no exact end fails ($rc)" [ $rc -eq 1 ]
check "window_ends: and names the kernels left without" contains "$v" "without:       1320 exact:          0  hol_long_kernel"
got=$("$SMTOP" report "$W" --json -q | python3 -c 'import json,sys
e = [x for x in json.load(sys.stdin)["episodes"] if x["kind"] == "inversion_resident"]
print(sum(x["possible"] for x in e), sum(not x["possible"] for x in e), min(x["wait_ns"] for x in e) // 100000)')
check "windows: 4 possible and 6 certain inversions of 17.8 ms or more ($got)" [ "$got" = "4 6 178" ]
tui_start 160 45 "$SMTOP" open "$W"
s=$(tui_cap)
check "windows: the viewer draws the window on the NVTX lane" contains "$s" "exact block ends"
# the SM rows: "│>  0-4      ···" (a row of five SMs)
sm_rows() { printf '%s\n' "$1" | grep -E '^│[> ] *[0-9]+-[0-9]+ '; }
check "windows: SM rows drawn ($(sm_rows "$s" | wc -l))" [ "$(sm_rows "$s" | wc -l)" -gt 20 ]
check "windows: no SM cell unknown without dropped launches" sh -c '! printf "%s\n" "$1" | grep -q "?"' _ "$(sm_rows "$s")"
check "windows: the details call the SMs' fullness a bound" contains "$s" "at most 99% full"
tui_end

# Launches dropped for want of room (an NVTX range of smtop's, as the
# collector writes it) over the first 18 ms, where the SMs ran nothing
# recorded: they read as not recorded, not idle.
cp "$W" "$FX/dropped.smtop"
python3 - "$FX/dropped.smtop" <<'PY'
import sqlite3, sys
d = sqlite3.connect(sys.argv[1])
t0, dom, tid = d.execute("SELECT e.start, e.domainId, e.globalTid FROM NVTX_EVENTS e WHERE e.eventType = 59").fetchone()
first = d.execute("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
d.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text, domainId) VALUES (?, ?, 59, ?, ?, ?)",
          (first, first + 18_000_000, tid, "blocks dropped: 3 launches, 1,234 blocks (no room)", dom))
d.commit()
PY
tui_start 160 45 "$SMTOP" open "$FX/dropped.smtop"
s=$(tui_cap)
check "dropped: the legend says what ? means" contains "$s" "? not recorded"
n=$(sm_rows "$s" | grep -c '^│[> ] *[0-9]*-[0-9]* *????????????·')
check "dropped: each SM row's empty cells under the range are unknown ($n rows)" [ "$n" -eq "$(sm_rows "$s" | wc -l)" ]
tui_end

# A training step recorded on an H100 whose launches outran the arena: its
# own drop ranges, as the collector stored them, read ? on every SM row;
# bounds stretched over the dropped launches overlap past the SMs' room,
# so the details give no fullness.
cp tests/fixtures/drops/train-drops-entry.smtop "$FX"/
D=$FX/train-drops-entry.smtop
got=$("$SMTOP" info "$D" | sed -n 's/^dropped .* \([0-9]*\) blocks$/\1/p')
check "train drops: info counts the dropped blocks ($got)" [ "$got" = 3413056 ]
got=$("$SMTOP" info "$D" | sed -n 's/^never started  *\([0-9,]*\) kernels: .*/\1/p')
check "train drops: info says 626 kernels never started ($got)" [ "$got" = 626 ]
check "train drops: info says their blocks were dropped" \
	contains "$("$SMTOP" info "$D")" "their launches' blocks were all dropped"
# The same kernels with no drop counted (a collector that lost their
# blocks): info says so rather than call them dropped.
cp "$D" "$FX/lost.smtop"
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE smtop_process SET drops_blocks = 0"); c.commit()' "$FX/lost.smtop"
got=$("$SMTOP" info "$FX/lost.smtop" | grep '^never started')
check "lost blocks: info does not call them dropped ($got)" contains "$got" "626 kernels: none of their 3,413,056 blocks was recorded"
check "lost blocks: info says none was counted" contains "$got" "recorded and 0 were counted as dropped"
n=$("$SMTOP" report "$D" | awk 'length > 100' | wc -l)
check "train drops: the report fits 100 columns ($n lines over)" [ "$n" -eq 0 ]
tui_start 160 45 "$SMTOP" open "$D"
s=$(tui_cap)
check "train drops: the NVTX row names a drop range" contains "$s" "blocks dropped: 362 launches"
n=$(sm_rows "$s" | grep -c '??????????')
check "train drops: SM rows with unknown cells ($n of $(sm_rows "$s" | wc -l))" [ "$n" -ge 25 ]
check "train drops: no fullness from overlapping bounds" contains "$s" "bounded ends overlap past the room"
# Its launches that never started are not left pending, and the kernels
# called after them wait an unknown time (docs/analysis.md).
got=$("$SMTOP" report "$D" --json -q | python3 -c 'import json,sys
r = json.load(sys.stdin); s = r["streams"][0]
print(r["kernels_pending"], s["waits_unknown"], s["wait_ns"]["n"])')
check "train drops: none pending, 695 waits unknown, 99 known ($got)" [ "$got" = "0 695 99" ]
s=$("$SMTOP" report "$D")
check "train drops: the report leaves no kernel undecided" lacks "$s" "not yet decided"
check "train drops: the report counts the unknown waits apart" contains "$s" "started): pid 1994 stream 1 695"
# The whole session's kernels.csv lists its 626 kernels that never started,
# times empty; a window's holds none of them.
rm -rf "$FX/drops-csv" "$FX/drops-win"
"$SMTOP" export "$D" --csv "$FX/drops-csv" -q
"$SMTOP" export "$D" --csv "$FX/drops-win" --to 20ms -q
n=$(tr -d '\r' < "$FX/drops-csv/kernels.csv" | awk -F, 'NR > 1 && $8 == "" && $9 == ""' | wc -l)
check "train drops: kernels.csv lists the 626 that never started ($n)" [ "$n" -eq 626 ]
n=$(tr -d '\r' < "$FX/drops-win/kernels.csv" | awk -F, 'NR > 1 && $8 == ""' | wc -l)
check "train drops: a window's kernels.csv holds none of them ($n)" [ "$n" -eq 0 ]
# nll_loss_forward comes after 8 launches of its stream that never started:
# the viewer, like the report, does not know how long it waited.
tui_keys /
tui_type nll_loss_forward
tui_keys Enter
s=$(tui_cap)
check "train drops: the search found nll_loss_forward" contains "$s" "nll_loss_forward_reduce"
check "train drops: its wait behind dropped launches is N/A" contains "$s" "waited N/A"
tui_end
e2e_done
