#!/bin/sh
# NVTX ranges recorded by default: `smtop record` points NVTX_INJECTION64_PATH
# at the collector, whose own handlers record them.  The workload uses the
# header-only nvtx3 API and loads the collector as the CUDA driver would,
# with the backend that traces nothing (no GPU here), so the session holds
# exactly its ranges (tests/e2e/nvtx_workload.c says which).
. tests/e2e/lib.sh
# The workload and the collector it loads run natively from build/, also
# under the sanitizers.
export SMTOP_INJECT=$(pwd)/build/libsmtop-inject.so
W=$(pwd)/build/e2e/nvtx_workload
S=$E2E_TMP

# q SESSION SQL: one value from the session
q() { sqlite3 "$1" "$2"; }
# NVTX rows with their text, whether stored inline or in StringIds
NV="(SELECT e.*, COALESCE(e.text, s.value) AS name FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = e.textId)"

out=$("$SMTOP" record -q -o "$S/nvtx.smtop" -- "$W" 30 2>"$S/nvtx.err")
rc=$?
check "recorded: the workload's status" [ $rc -eq 0 ]
check "recorded: the workload ran" [ "$out" = "workload ran" ]
check "recorded: nothing on stderr" [ ! -s "$S/nvtx.err" ]
f=$S/nvtx.smtop
n=$(q "$f" "SELECT count(*) FROM $NV WHERE name LIKE 'request %' AND eventType = 59")
check "30 of 30 push/pop ranges 'request N' ($n)" [ "$n" = 30 ]
n=$(q "$f" "SELECT count(DISTINCT name) FROM $NV WHERE name LIKE 'request %'")
check "each request once ($n)" [ "$n" = 30 ]
n=$(q "$f" "SELECT count(*) FROM $NV WHERE name LIKE 'layer conv_' AND domainId =
	(SELECT domainId FROM $NV WHERE eventType = 75 AND name = 'torch') AND domainId != 0")
check "60 nested ranges in the domain 'torch' ($n)" [ "$n" = 60 ]
n=$(q "$f" "SELECT count(*) FROM $NV WHERE name LIKE 'layer conv_' AND color = $((0xff00c000 - 0x100000000))")
check "the domain ranges keep their ARGB colour ($n)" [ "$n" = 60 ]
n=$(q "$f" "SELECT count(*) FROM $NV l JOIN $NV r ON r.name LIKE 'request %'
	AND l.start >= r.start AND l.end <= r.end AND l.globalTid = r.globalTid WHERE l.name LIKE 'layer conv_'")
check "every layer range lies inside a request, on its thread ($n)" [ "$n" = 60 ]
n=$(q "$f" "SELECT count(*) FROM $NV WHERE name LIKE 'request %' AND end > start")
check "ranges end after they start ($n)" [ "$n" = 30 ]
n=$(q "$f" "SELECT count(*) FROM $NV WHERE name = 'handoff' AND end > start")
check "a start/end range ended on another thread ($n)" [ "$n" = 1 ]
n=$(q "$f" "SELECT count(*) FROM $NV WHERE name IN ('done', 'before cuInit') AND eventType = 34 AND end IS NULL")
check "marks, one from before the collector started ($n)" [ "$n" = 2 ]
n=$(q "$f" "SELECT count(*) FROM $NV WHERE name = 'startup' AND end > start")
check "a range finished before the collector started ($n)" [ "$n" = 1 ]
# The stub maps no time: every range lies within the recording, by the wall
# clock smtop record stamped it with.
n=$(q "$f" "SELECT count(*) FROM NVTX_EVENTS WHERE start < (SELECT value FROM smtop_meta WHERE key = 'created_ns')
	OR coalesce(end, start) > (SELECT value FROM smtop_meta WHERE key = 'ended_ns')")
check "times within the recording ($n outside)" [ "$n" = 0 ]
n=$(q "$f" "SELECT drops_ring FROM smtop_process")
check "no range dropped ($n)" [ "$n" = 0 ]
out=$("$SMTOP" info "$f")
check "info counts them: 30 requests + 60 layers + handoff + startup + 2 marks" contains "$out" "94 NVTX"

# The viewer draws its NVTX row only for a session that holds ranges.
tui_start 160 30 "$SMTOP" open "$f"
check "viewer: the NVTX row" contains "$(tui_cap)" "│  nvtx "
tui send-keys -t "$TUI" q

# --no-nvtx: the workload's NVTX calls stay no-ops.
out=$("$SMTOP" record -q --no-nvtx -o "$S/off.smtop" -- "$W" 5 2>"$S/off.err")
check "--no-nvtx: the workload ran" [ "$out" = "workload ran" ]
check "--no-nvtx: nothing on stderr" [ ! -s "$S/off.err" ]
n=$(q "$S/off.smtop" "SELECT count(*) FROM NVTX_EVENTS")
check "--no-nvtx: no ranges ($n)" [ "$n" = 0 ]
tui_start 160 30 "$SMTOP" open "$S/off.smtop"
check "--no-nvtx: the viewer has no NVTX row" sh -c '! printf "%s" "$1" | grep -q "│  nvtx "' _ "$(tui_cap)"
tui send-keys -t "$TUI" q

# A tool of the user's own keeps NVTX: one line says so, and the session
# holds no ranges.
out=$(NVTX_INJECTION64_PATH=/no/such/tool.so "$SMTOP" record -q -o "$S/own.smtop" -- "$W" 5 2>"$S/own.err")
err=$(cat "$S/own.err")
check "own NVTX tool: the workload ran" [ "$out" = "workload ran" ]
check "own NVTX tool: one line" one_line "$err"
check "own NVTX tool: names it" contains "$err" "NVTX_INJECTION64_PATH is set (/no/such/tool.so)"
n=$(q "$S/own.smtop" "SELECT count(*) FROM NVTX_EVENTS")
check "own NVTX tool: no ranges in the session ($n)" [ "$n" = 0 ]

# A workload that crashes in its own code after some ranges: they are
# kept, smtop passes SIGSEGV on, and SMTOP_DEBUG names where it happened,
# even for a call through a null pointer, which no unwinder gets past.
SMTOP_DEBUG=1 "$SMTOP" record -q -o "$S/crash.smtop" -- "$W" 5 crash >/dev/null 2>"$S/crash.err"
rc=$?
check "crash: the workload's status 139 ($rc)" [ $rc -eq 139 ]
check "crash: the session says so" contains "$("$SMTOP" info "$S/crash.smtop")" "killed by signal 11"
n=$(q "$S/crash.smtop" "SELECT count(*) FROM $NV WHERE name LIKE 'request %'")
check "crash: the ranges before it kept ($n)" [ "$n" = 5 ]
check "crash: SMTOP_DEBUG gives the fault's pc" grep -q "fault at pc, then words on the stack that point into libraries" "$S/crash.err"
check "crash: and the caller, in the workload" sh -c 'grep -A2 "fault at pc" "$1" | grep -q "nvtx_workload("' _ "$S/crash.err"
check "crash: and the thread, the workload's" grep -q "^smtop\[debug\]: in thread nvtx_workload$" "$S/crash.err"

e2e_done
