#!/bin/sh
# The session library: default session names, smtop ls (table, JSON, the
# summary cache), rm and mv, bad directories, and the list on a terminal in
# tmux (navigate, open, rename, delete, back).  A temporary XDG_DATA_HOME holds
# copies of tests/fixtures/*.smtop: ls writes summaries into what it lists.
. tests/e2e/lib.sh
FX=$(pwd)/tests/fixtures
export XDG_DATA_HOME=$E2E_TMP/xdg
LIB=$XDG_DATA_HOME/smtop/sessions
T=smtop-lib-$$

fill() {
	rm -rf "$LIB"
	mkdir -p "$LIB"
	# the five sessions the checks below count on, whatever else fixtures/ holds
	for f in smoke resnet50-two-streams priority-vs-training equal-priority head-of-line; do
		cp "$FX/$f.smtop" "$LIB"/
	done
	echo "not a session" > "$LIB/notes.txt"
}
json_ls() { "$SMTOP" ls "$@" --json | python3 -c "import json,sys; r=json.load(sys.stdin); s=r['sessions']; $PY"; }
# runs a command as another user when we are root (root reads any directory)
as_other() {
	if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi
}

# ---- smtop ls without a terminal: a table ----
fill
out=$("$SMTOP" ls < /dev/null | cat)
check "ls: title row" contains "$out" "DATE  *COMMAND  *GPU  *DURATION  *KERNELS  *BLOCKS  *INVERSIONS  *FILE"
for f in "$LIB"/*.smtop; do
	check "ls lists $(basename "$f")" contains "$out" "$(basename "$f")"
done
check "ls: a stray file is listed with its error" sh -c 'printf "%s\n" "$1" | grep "notes.txt" | grep -q "not a SQLite database"' _ "$out"
check "ls: the stray file comes last" sh -c '[ "$(printf "%s\n" "$1" | tail -1 | grep -c notes.txt)" -eq 1 ]' _ "$out"
check "ls: GPU and counts of the priority demo" sh -c 'printf "%s\n" "$1" | grep priority-vs-training.smtop | grep -q "NVIDIA H200 .* 177 *126,680"' _ "$out"

# inversions in the table are the report's
inv=$("$SMTOP" report "$LIB/priority-vs-training.smtop" --json -q | python3 -c "import json,sys; t=json.load(sys.stdin)['totals']; print(t['inversion_resident']['count'] + t['inversion_dispatch']['count'])")
PY="print([x['inversions'] for x in s if x['file'] == 'priority-vs-training.smtop'][0])"
check "ls --json: inversions equal the report's ($inv)" [ "$(json_ls)" = "$inv" ]
PY="print(len(s), sum(1 for x in s if x['error']), sorted({x['summary'] for x in s if not x['error']}))"
check "ls --json: 6 files, 1 not a session, summaries cached now" [ "$(json_ls)" = "6 1 ['cached']" ]
n=$(sqlite3 "$LIB/smoke.smtop" "SELECT count(*) FROM smtop_summary WHERE kernels = 400 AND blocks = 105600")
check "the summary is a row in the session, in plain SQL" [ "$n" -eq 1 ]
PY="print(sorted({x['summary'] for x in s if not x['error']}))"
check "another threshold computes again" [ "$(json_ls --threshold-us 5)" = "['computed, stored']" ]
# another build of smtop does not believe this one's cache (under valgrind
# the program is valgrind's, the same for both)
if [ -z "$SMTOP_WRAP" ]; then
	json_ls > /dev/null # this build's cache holds the default threshold's again
	cp "$SMTOP" "$E2E_TMP/smtop-other"
	touch -d 2020-01-01 "$E2E_TMP/smtop-other"
	check "another build of smtop computes again" [ "$(SMTOP=$E2E_TMP/smtop-other; json_ls)" = "['computed, stored']" ]
	check "and this build still reads its own" [ "$(json_ls)" = "['cached']" ]
fi
check "ls DIR lists that directory" contains "$("$SMTOP" ls "$LIB" | cat)" "head-of-line.smtop"

# ---- bad directories ----
err=$("$SMTOP" ls "$E2E_TMP/nowhere" 2>&1)
check "ls of a missing DIR exits 1" [ $? -eq 1 ]
check "ls of a missing DIR: one line naming it" sh -c 'printf "%s" "$1" | grep -q "nowhere" && [ "$(printf "%s\n" "$1" | grep -c .)" -eq 1 ]' _ "$err"
mkdir -p "$E2E_TMP/locked"
chmod 755 "$E2E_TMP"
chmod 000 "$E2E_TMP/locked"
err=$(as_other "$SMTOP" ls "$E2E_TMP/locked" 2>&1)
check "ls of an unreadable DIR exits 1" [ $? -eq 1 ]
check "ls of an unreadable DIR: one line naming it" sh -c 'printf "%s" "$1" | grep -q "locked: cannot read the session library: Permission denied" && [ "$(printf "%s\n" "$1" | grep -c .)" -eq 1 ]' _ "$err"
chmod 700 "$E2E_TMP/locked"
out=$(XDG_DATA_HOME=$E2E_TMP/empty "$SMTOP" ls | cat)
check "ls before any recording: says the library is empty" contains "$out" "no sessions in $E2E_TMP/empty/smtop/sessions"

# ---- rm and mv ----
err=$("$SMTOP" mv smoke.smtop baseline 2>&1)
check "mv a library name: renamed" sh -c '[ -f "$1/baseline.smtop" ] && [ ! -f "$1/smoke.smtop" ]' _ "$LIB"
check "mv says where it went" contains "$err" "baseline.smtop"
err=$("$SMTOP" mv baseline head-of-line.smtop 2>&1)
check "mv onto an existing session refused" [ $? -eq 1 ]
check "mv onto an existing session: one line" one_line "$err"
check "the refused mv kept both" sh -c '[ -f "$1/baseline.smtop" ] && [ -f "$1/head-of-line.smtop" ]' _ "$LIB"
err=$("$SMTOP" mv baseline ../out 2>&1)
check "mv out of the directory refused" contains "$err" "holds a '/'"
"$SMTOP" rm -q baseline.smtop
check "rm a library name: removed" [ ! -f "$LIB/baseline.smtop" ]
err=$("$SMTOP" rm notes.txt 2>&1)
check "rm refuses a file that is not a session" sh -c '[ $1 -eq 1 ] && [ -f "$2/notes.txt" ]' _ $? "$LIB"
check "rm refusal: one line naming it" sh -c 'printf "%s" "$1" | grep -q "notes.txt: not a smtop session" && [ "$(printf "%s\n" "$1" | grep -c .)" -eq 1 ]' _ "$err"
err=$("$SMTOP" rm no-such-session 2>&1)
check "rm of a missing session exits 1" [ $? -eq 1 ]
check "rm of a missing session: one line" one_line "$err"

# ---- recording into the library ----
export SMTOP_INJECT=$(pwd)/build/libsmtop-inject.so
rm -rf "$E2E_TMP/rec"
FAKE=$(pwd)/build/e2e/fake_workload
err=$(XDG_DATA_HOME=$E2E_TMP/rec "$SMTOP" record -- sh -c "$FAKE append 0.05 $E2E_TMP/rec.st; exit 0" 2>&1)
f=$(ls "$E2E_TMP/rec/smtop/sessions/" 2>/dev/null)
check "record without -o names the session by date and command ($f)" \
	sh -c 'printf "%s" "$1" | grep -Eq "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}-sh-[^/]*\.smtop$"' _ "$f"
check "record says where the session went" contains "$err" "session saved to $E2E_TMP/rec/smtop/sessions/$f"
check "nothing dropped: no word of drops" lacks "$err" "dropped"
# 1234567 -> 1,234,567, as smtop writes counts
commas() { echo "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; }
err=$(FAKE_DROPPED_BLOCKS=2112 "$SMTOP" record -o "$E2E_TMP/drops.smtop" -- "$FAKE" append 0.05 "$E2E_TMP/drops.st" 2>&1)
stored=$(sed -n 's/.*blocks=\([0-9]*\).*/\1/p' "$E2E_TMP/drops.st")
check "record says what it dropped and of how many ($stored stored)" \
	contains "$err" "2,112 of the $(commas $((stored + 2112))) blocks that ran"
check "the drop line comes after where the session went" \
	sh -c 'printf "%s\n" "$1" | tail -1 | grep -q "were dropped and counted"' _ "$err"
err=$(FAKE_DROPPED_BLOCKS=2112 "$SMTOP" record -q -o "$E2E_TMP/drops-q.smtop" -- "$FAKE" append 0.05 "$E2E_TMP/drops.st" 2>&1)
check "-q: no drop line either" [ -z "$err" ]
check "the library directory is created 0700" [ "$(stat -c %a "$E2E_TMP/rec/smtop/sessions")" = 700 ]
n=$(sqlite3 "$E2E_TMP/rec/smtop/sessions/$f" "SELECT count(*) FROM smtop_summary WHERE ended = 1")
check "the finalised session holds its summary" [ "$n" -eq 1 ]
err=$(XDG_DATA_HOME=$E2E_TMP/rec "$SMTOP" record -q -- "$FAKE" append 0.05 "$E2E_TMP/rec2.st" 2>&1)
check "-q: nothing printed" [ -z "$err" ]
check "a second session gets its own file" [ "$(ls "$E2E_TMP/rec/smtop/sessions" | wc -l)" -eq 2 ]
echo x > "$E2E_TMP/file"
err=$(XDG_DATA_HOME=$E2E_TMP/file "$SMTOP" record -- true 2>&1)
check "library cannot be created: exit 1" [ $? -eq 1 ]
check "library cannot be created: one line naming it" sh -c 'printf "%s" "$1" | grep -q "cannot create the session library $2/file/smtop/sessions" && [ "$(printf "%s\n" "$1" | grep -c .)" -eq 1 ]' _ "$err" "$E2E_TMP"

# ---- the list on a terminal ----
fill
cap() { tmux capture-pane -p -t "$T"; }
keys() { for k in "$@"; do tmux send-keys -t "$T" "$k"; sleep 0.2; done; sleep 0.4; }
selected() { cap | grep '^│>' | head -1; }
# shows TEXT: until the screen holds TEXT (at most 6 s: a busy machine draws late)
shows() { _n=60; while [ $_n -gt 0 ]; do cap | grep -Fq -- "$1" && return 0; sleep 0.1; _n=$((_n - 1)); done; return 1; }
start() { # start W H CMD...
	w=$1 h=$2
	shift 2
	# a session that outlives the others keeps the server up between panes
	tmux has-session -t keep 2>/dev/null || tmux new-session -d -s keep -x 20 -y 5 "sleep 3600"
	tmux kill-session -t "$T" 2>/dev/null
	tmux new-session -d -s "$T" -x "$w" -y "$h" "env XDG_DATA_HOME=$XDG_DATA_HOME $* ; echo EXIT=\$?; sleep 30"
	# until the first screen has its status line (a list or a view; up to
	# 15 s: under the sanitizers, beside another script, the list's first
	# summaries take seconds), then a moment for the rest
	for i in $(seq 150); do
		cap | grep -Eq 'Enter open|\? help|EXIT=' && break
		sleep 0.1
	done
	sleep 0.5
}

start 160 40 "$SMTOP" ls
s=$(cap)
check "tui: the list names the library" contains "$s" "session library · 5 sessions, 1 other file · $LIB"
check "tui: same columns as ls" contains "$s" "DATE  *COMMAND  *GPU  *DURATION  *KERNELS  *BLOCKS  *INVERSIONS  *FILE"
check "tui: the newest session selected first" contains "$(selected)" "resnet50-two-streams.smtop"
keys j j
check "tui: j moves down" contains "$(selected)" "head-of-line.smtop"
keys k
check "tui: k moves up" contains "$(selected)" "smoke.smtop"
keys End
check "tui: End reaches the stray file" contains "$(selected)" "notes.txt"
keys Enter
check "tui: a stray file does not open, the status line says why" contains "$(cap | tail -1)" "notes.txt: not a SQLite database"
keys Home j j Enter
sleep 1
s=$(cap)
check "tui: Enter opens the session in the viewer" contains "$s" "NVIDIA H200 · 132 SMs · head-of-line.smtop"
keys o
check "tui: o in the viewer shows the list again" contains "$(cap)" "session library"
check "tui: the list starts on the session being viewed" contains "$(selected)" "head-of-line.smtop"
keys q
check "tui: q in the list goes back to the viewer" contains "$(cap | head -1)" "head-of-line.smtop · saved session"
keys o d
check "tui: the viewed session cannot be deleted under the viewer" contains "$(cap | tail -1)" "open in the viewer"
keys j r
for ch in b a s e l i n e; do tmux send-keys -t "$T" "$ch"; done
sleep 0.3
check "tui: r asks for the new name in the status line" contains "$(cap | tail -1)" "rename equal-priority.smtop to: baseline_"
keys Enter
check "tui: rename done on disk" sh -c '[ -f "$1/baseline.smtop" ] && [ ! -f "$1/equal-priority.smtop" ]' _ "$LIB"
check "tui: the list shows the new name" contains "$(selected)" "baseline.smtop"
keys d
check "tui: d asks first" contains "$(cap | tail -1)" "delete baseline.smtop and its files? y/n"
keys n
check "tui: n keeps the session" sh -c '[ -f "$1/baseline.smtop" ]' _ "$LIB"
keys d y
check "tui: y deletes it from disk" sh -c '[ ! -f "$1/baseline.smtop" ]' _ "$LIB"
check "tui: and from the list" sh -c '! tmux capture-pane -p -t "$1" | grep "^│" | grep -q baseline.smtop' _ "$T"
check "tui: the selection moves to the next session" contains "$(selected)" "priority-vs-training.smtop"
keys Enter
sleep 1
check "tui: Enter in the list over the viewer opens another session" contains "$(cap | head -1)" "priority-vs-training.smtop · saved session"
keys o Escape
check "tui: Esc goes back too" contains "$(cap | head -1)" "priority-vs-training.smtop · saved session"
keys q
s=$(cap)
check "tui: q in the viewer quits with status 0" contains "$s" "EXIT=0"
check "tui: terminal restored" sh -c '! printf "%s" "$1" | grep -q "┌"' _ "$s"

start 80 24 "$SMTOP" open
s=$(cap)
check "tui: open without FILE shows the library" contains "$s" "session library"
check "tui: 80 columns: the status line names the selected file" contains "$(cap | tail -1)" "resnet50-two-streams.smtop"
keys q
check "tui: q on the first list quits" contains "$(cap)" "EXIT=0"

start 120 30 env NO_COLOR=1 "$SMTOP" ls --ascii
s=$(cap)
check "tui: ASCII list draws no UTF-8 boxes" sh -c '! printf "%s" "$1" | grep -q "┌"' _ "$s"
tmux send-keys -t "$T" C-c; sleep 0.8
check "tui: Ctrl-C leaves the list cleanly" contains "$(cap)" "EXIT="
tmux kill-session -t "$T" 2>/dev/null

# o over a live view: the recording is listed; opening another session ends it
fill
start 160 30 env SMTOP_INJECT="$SMTOP_INJECT" "$SMTOP" run -- sleep 30
keys o
shows "sleep 30 (recording)"
check "live: o shows the list, the live session in it" contains "$(selected)" "sleep 30 (recording)"
keys d
check "live: the recording cannot be deleted" contains "$(cap | tail -1)" "open in the viewer"
keys q
check "live: q in the list goes back to the live view" contains "$(cap | head -1)" "LIVE"
keys o End k Enter
sleep 4
check "live: Enter on another session opens it" contains "$(cap | head -1)" "priority-vs-training.smtop · saved session"
live=$(ls "$LIB"/*-sleep-30.smtop)
check "live: the recording was finalised" contains "$("$SMTOP" info "$live")" "incomplete (killed by signal 2"
n=$(sqlite3 "$live" "SELECT count(*) FROM smtop_summary WHERE ended = 1")
check "live: the finalised recording holds its summary" [ "$n" -eq 1 ]
keys q
check "live: q quits with status 0" contains "$(cap)" "EXIT=0"
tmux kill-session -t "$T" 2>/dev/null

# o over a view of two files: the session picked there opens on its own
fill
start 160 40 "$SMTOP" open "$FX/nsys/nsys-3.16.1.sqlite" "$FX/nsys/nsys-3.28.1.sqlite"
keys o
shows "session library"
check "two files: o shows the list" contains "$(cap)" "session library"
keys Home j j Enter
sleep 1
check "two files: Enter opens the session picked" contains "$(cap | head -1)" "head-of-line.smtop · saved session"
keys q
check "two files: q then quits with status 0" contains "$(cap)" "EXIT=0"
tmux kill-session -t "$T" 2>/dev/null

err=$("$SMTOP" open < /dev/null 2>&1 > /dev/null)
check "open without FILE and without a terminal: clear error" contains "$err" "needs a terminal"
check "open without FILE and without a terminal: one line" one_line "$err"

e2e_done
