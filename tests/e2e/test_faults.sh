#!/bin/sh
# The real binary under faults (docs/testing.md lists what each check asserts):
# damaged, cut, foreign and newer session files; directories and unreadable
# paths; the disk filling up, the workload killed and smtop killed while
# recording; two viewers on a session being written; a terminal resized in a
# loop.  Always: no exit by a signal, every error one line naming the file,
# the terminal restored, and what was recorded before a fault still there.
. tests/e2e/lib.sh
FX=$(pwd)/tests/fixtures
FAKE=$(pwd)/build/e2e/fake_workload
export SMTOP_INJECT=$(pwd)/build/libsmtop-inject.so
S=$E2E_TMP
T=one
T2=two
# a tmux server of our own: nothing here touches other tmux sessions
TS=smtop-faults-$$
tm() { tmux -L "$TS" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$E2E_TMP"' EXIT
# an idle session keeps the server up between the tests' own sessions
tm new-session -d -s idle "sleep 600"

# ---- helpers ----

# tty_start SESSION W H CMD: CMD (one shell string) in a new tmux session; its
# stderr goes to $S/SESSION.err; when it ends the pane shows EXIT=status and
# TTY= the terminal's icanon/echo modes ("icanon echo" once restored).
tty_start() {
	t=$1 w=$2 h=$3
	shift 3
	tm kill-session -t "$t" 2>/dev/null
	tm new-session -d -s "$t" -x "$w" -y "$h" \
		"$* 2>$S/$t.err; echo EXIT=\$?; echo TTY=\$(stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '); sleep 60"
}

cap() { tm capture-pane -p -t "${1:-$T}"; }

# wait_for SESSION TEXT [TENTHS]: until the pane shows TEXT (default 10 s)
wait_for() {
	wf_i=0
	while [ $wf_i -lt "${3:-100}" ]; do
		cap "$1" | grep -q -- "$2" && return 0
		sleep 0.1
		wf_i=$((wf_i + 1))
	done
	return 1
}

# ended SESSION: waits until the command in SESSION has ended and said how
ended() { wait_for "$1" "^TTY="; }

exit_of() { cap "$1" | sed -n 's/^EXIT=//p' | head -1; }

not_signal() { [ -n "$1" ] && [ "$1" -lt 128 ]; }

restored() { cap "$1" | grep -q '^TTY=icanon echo' && ! cap "$1" | grep -q '┌'; }

# one_line_naming TEXT FILE [WORDS]: one line that names FILE once (and has WORDS)
one_line_naming() {
	one_line "$1" && [ "$(printf '%s' "$1" | grep -o -- "$(basename "$2")" | wc -l)" -eq 1 ] &&
		{ [ -z "$3" ] || contains "$1" "$3"; }
}

# refused NAME FILE [WORDS]: info, report and open each refuse FILE with a
# status that is not a signal and one line naming it (containing WORDS);
# open leaves the terminal as it found it.
refused() {
	what=$1 f=$2 words=$3
	for cmd in info report; do
		err=$("$SMTOP" $cmd "$f" 2>&1 >/dev/null)
		rc=$?
		check "$what: $cmd refuses it, no crash (status $rc)" sh -c "[ $rc -ge 1 ] && [ $rc -lt 128 ]"
		check "$what: $cmd says so in one line naming it" one_line_naming "$err" "$f" "$words"
	done
	tty_refused "$what" open "$f" "$words"
}

# tty_refused NAME CMD FILE [WORDS]: smtop CMD FILE in a terminal refuses it
# with status 1 and one line naming it once (containing WORDS), and leaves
# the terminal as it found it.
tty_refused() {
	what=$1 cmd=$2 f=$3 words=$4
	tty_start "$T" 100 30 "'$SMTOP' $cmd '$f'"
	ended "$T"
	rc=$(exit_of "$T")
	check "$what: $cmd refuses it, no crash (status $rc)" sh -c "[ '$rc' = 1 ]"
	check "$what: $cmd says so in one line naming it" one_line_naming "$(cat "$S/$T.err")" "$f" "$words"
	check "$what: $cmd leaves the terminal restored" restored "$T"
}

# survives NAME FILE: info and report may accept or refuse FILE, but never
# crash, and a refusal is one line naming it.
survives() {
	what=$1 f=$2
	for cmd in info report; do
		err=$("$SMTOP" $cmd "$f" 2>&1 >/dev/null)
		rc=$?
		check "$what: $cmd does not crash (status $rc)" not_signal "$rc"
		[ $rc -ne 0 ] && check "$what: $cmd refuses in one line naming it" one_line_naming "$err" "$f"
	done
}

kernels_in() { "$SMTOP" info "$1" | sed -n 's/^kernels *//p' | tr -d ,; }
status_of() { sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$1"; }

# ---- damaged, cut, foreign, newer files ----

# deterministic noise for the damage below
printf "$(awk 'BEGIN { srand(11); for (i = 0; i < 4096; i++) printf "\\%03o", int(rand() * 256) }')" > "$S/noise"

damage() { # damage FILE OFFSET COUNT NOISE-OFFSET
	dd if="$S/noise" of="$1" bs=1 skip="$4" seek="$2" count="$3" conv=notrunc 2>/dev/null
}

cp "$FX/smoke.smtop" "$S/magic.smtop"
damage "$S/magic.smtop" 0 16 0
refused "header magic overwritten" "$S/magic.smtop" "not a SQLite database"

cp "$FX/smoke.smtop" "$S/pagesize.smtop"
printf '\000\003' | dd of="$S/pagesize.smtop" bs=1 seek=16 conv=notrunc 2>/dev/null
refused "page size field damaged" "$S/pagesize.smtop"

size=$(wc -c < "$FX/head-of-line.smtop")
for keep in 60 65537 $((size / 2)) $((size - 1)); do
	head -c $keep "$FX/head-of-line.smtop" > "$S/cut-$keep.smtop"
	refused "cut at $keep of $size bytes" "$S/cut-$keep.smtop"
done

# random spots of noise in copies of three real sessions
n=0
for fx in smoke head-of-line equal-priority smoke head-of-line equal-priority smoke head-of-line; do
	n=$((n + 1))
	f="$S/noisy-$n.smtop"
	cp "$FX/$fx.smtop" "$f"
	size=$(wc -c < "$f")
	for spot in 1 2 3; do
		off=$(( (n * 7919 * spot + spot * 104729 * n * n) % size ))
		damage "$f" $off $((16 + spot * 8)) $(( (n * 131 + spot * 17) % 4000 ))
	done
	survives "noise in $fx copy $n" "$f"
done
# a session whose head reads but whose NVTX table is damaged (found by
# fuzzing): export refuses it naming the session, not the trace it writes
f=$(pwd)/tests/fuzz/regressions/session/nvtx-table-malformed.smtop
err=$("$SMTOP" export "$f" --perfetto "$S/nvtx-damaged.json" 2>&1 >/dev/null)
rc=$?
check "NVTX table damaged: export --perfetto refuses it (status $rc)" sh -c "[ $rc -ge 1 ] && [ $rc -lt 128 ]"
check "NVTX table damaged: export --perfetto names the session and why" one_line_naming "$err" "$f" "NVTX"
check "NVTX table damaged: export --perfetto does not blame the trace" lacks "$err" "nvtx-damaged.json"
err=$("$SMTOP" export "$f" --csv "$S/nvtx-damaged-csv" 2>&1 >/dev/null)
rc=$?
check "NVTX table damaged: export --csv refuses it (status $rc)" sh -c "[ $rc -ge 1 ] && [ $rc -lt 128 ]"
check "NVTX table damaged: export --csv names the session and why" one_line_naming "$err" "$f" "NVTX"
tty_refused "NVTX table damaged" replay "$f" "NVTX"

# the viewer on damaged copies: it loads them or refuses them, never crashes
for n in 1 2 3 4; do
	tty_start "$T" 120 40 "'$SMTOP' open '$S/noisy-$n.smtop'"
	wait_for "$T" "^TTY=\|saved session" 50
	tm send-keys -t "$T" + + + + + + w; sleep 0.3
	tm send-keys -t "$T" q
	ended "$T"
	rc=$(exit_of "$T")
	check "viewer on noisy copy $n: no crash (status $rc)" not_signal "$rc"
	[ "$rc" != 0 ] && check "viewer on noisy copy $n: one line naming it" one_line_naming "$(cat "$S/$T.err")" "noisy-$n"
	check "viewer on noisy copy $n: terminal restored" restored "$T"
done

printf 'kernel,start,end\nconv2d,1,2\n' > "$S/notes.csv"
refused "text file" "$S/notes.csv" "not a SQLite database"
: > "$S/empty.smtop"
refused "empty file" "$S/empty.smtop" "empty file"
sqlite3 "$S/places.sqlite" "CREATE TABLE moz_places(id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places(url) VALUES('https://example.org');"
refused "SQLite file of another application" "$S/places.sqlite" "not a smtop session"
cp "$FX/head-of-line.smtop" "$S/newer.smtop"
sqlite3 "$S/newer.smtop" "PRAGMA user_version = 2"
refused "newer session version" "$S/newer.smtop" "schema version 2 is newer than this smtop (1); upgrade smtop"
mkdir "$S/adir.smtop"
refused "a directory" "$S/adir.smtop" "is a directory"
err=$("$SMTOP" record -q -o "$S/adir.smtop" -- true 2>&1)
rc=$?
check "record into a directory: refused, no crash (status $rc)" sh -c "[ $rc -ge 1 ] && [ $rc -lt 128 ]"
check "record into a directory: one line naming it" one_line_naming "$err" "adir.smtop"

# ---- unreadable paths ----

cp "$FX/head-of-line.smtop" "$S/locked.smtop"
chmod 000 "$S/locked.smtop"
mkdir "$S/locked-dir"
chmod 555 "$S/locked-dir"
if [ "$(id -u)" -ne 0 ]; then
	as_user=""
elif command -v setpriv >/dev/null &&
     setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$SMTOP" 2>/dev/null; then
	# root reads any file: run these as uid 65534 (nobody), whom chmod does stop
	chmod 755 "$S"
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
	as_user=skip
	echo "  skip: unreadable paths (running as root, and cannot run as uid 65534 with setpriv)"
fi
if [ "$as_user" != skip ]; then
	for cmd in info report; do
		err=$($as_user "$SMTOP" $cmd "$S/locked.smtop" 2>&1 >/dev/null)
		rc=$?
		check "unreadable file: $cmd refuses it (status $rc)" sh -c "[ $rc -ge 1 ] && [ $rc -lt 128 ]"
		check "unreadable file: $cmd says so in one line naming it" one_line_naming "$err" "locked.smtop" "ermission denied"
	done
	err=$($as_user "$SMTOP" record -q -o "$S/locked-dir/x.smtop" -- true 2>&1)
	rc=$?
	check "record into a read-only directory: refused (status $rc)" sh -c "[ $rc -ge 1 ] && [ $rc -lt 128 ]"
	check "record into a read-only directory: one line naming it" one_line_naming "$err" "x.smtop" "cannot create: Permission denied"
fi

# ---- the disk fills up while recording ----

# limit_file BYTES CMD...: CMD with files capped at BYTES (prlimit, else ulimit
# in the units this shell counts in)
limit_file() {
	lim=$1
	shift
	if command -v prlimit >/dev/null; then
		prlimit --fsize="$lim" "$@"
	else
		unit=$(sh -c "ulimit -f 4; head -c 3000 /dev/zero > '$S/unit' 2>/dev/null"; wc -c < "$S/unit")
		unit=$([ "$unit" -ge 3000 ] && echo 1024 || echo 512)
		(ulimit -f $((lim / unit)); "$@")
	fi
}

# 4 MiB: only the WAL reaches the limit, so smtop can still finalise; 3 MiB:
# the collector's last checkpoint fills the main file too, and nothing more
# fits (on this machine's SQLite; either outcome is accepted for both)
for mib in 4 3; do
	f="$S/full-$mib.smtop"
	err=$(limit_file $((mib << 20)) "$SMTOP" record -q -o "$f" -- "$FAKE" fill "$f.st" 2>&1)
	rc=$?
	check "disk full at $mib MiB: smtop and the workload end normally (status $rc)" [ "$rc" -eq 0 ]
	check "disk full at $mib MiB: one line naming the file" one_line_naming "$err" "full-$mib.smtop" "disk full, recording stopped"
	check "disk full at $mib MiB: the workload saw it" grep -q "full=1" "$f.st"
	before=$(status_of "$f.st" kernels)
	after=$(kernels_in "$f")
	check "disk full at $mib MiB: nothing stored before it is lost ($after >= $before kernels)" \
		sh -c "[ '$before' -gt 0 ] && [ '$after' -ge '$before' ]"
	out=$("$SMTOP" info "$f")
	state=$(printf '%s\n' "$out" | sed -n 's/^state *//p')
	check "disk full at $mib MiB: the session ended, saying why its records stop ($state)" sh -c "
		{ [ '$state' = 'complete (exited with status 0)' ] && printf '%s' '$out' | grep -q 'exited (disk full, recording stopped)'; } ||
		[ '$state' = 'incomplete (disk full, recording stopped)' ]"
	"$SMTOP" report -q "$f" > /dev/null
	check "disk full at $mib MiB: the session reads back" [ $? -eq 0 ]
done

# ---- the workload killed with SIGKILL ----

"$SMTOP" record -q -o "$S/wk.smtop" -- "$FAKE" append 10 "$S/wk.st" 2> "$S/wk.err" &
rec=$!
wait_file() { wf_i=0; while [ $wf_i -lt 100 ] && ! grep -q "kernels=[1-9]" "$1" 2>/dev/null; do sleep 0.1; wf_i=$((wf_i + 1)); done; }
wait_file "$S/wk.st"
sleep 0.3
kill -KILL "$(status_of "$S/wk.st" pid)"
before=$(status_of "$S/wk.st" kernels)
wait $rec
rc=$?
check "workload killed: smtop passes 128+9 on (status $rc)" [ "$rc" -eq 137 ]
check "workload killed: smtop itself says nothing" [ ! -s "$S/wk.err" ]
after=$(kernels_in "$S/wk.smtop")
check "workload killed: every commit before the kill kept ($after >= $before kernels)" sh -c "[ '$before' -gt 0 ] && [ '$after' -ge '$before' ]"
out=$("$SMTOP" info "$S/wk.smtop")
check "workload killed: session finalised as incomplete" contains "$out" "incomplete (killed by signal 9"
check "workload killed: its process marked crashed" contains "$out" "crashed"

# ---- smtop killed with SIGKILL while recording ----

"$SMTOP" record -q -o "$S/sk.smtop" -- "$FAKE" append 2.5 "$S/sk.st" 2>/dev/null &
rec=$!
wait_file "$S/sk.st"
kill -KILL $rec
wait $rec 2>/dev/null
before=$(status_of "$S/sk.st" kernels)
out=$("$SMTOP" info "$S/sk.smtop")
check "smtop killed: while its workload runs, the session is still being written" contains "$out" "recording, or ended without being finalised"
n=0
while [ $n -lt 100 ] && ! grep -q "done=1" "$S/sk.st"; do sleep 0.1; n=$((n + 1)); done
sleep 0.2
out=$("$SMTOP" info "$S/sk.smtop")
check "smtop killed: the session is marked incomplete" contains "$out" "incomplete (the recorder stopped before finalising the session)"
after=$(kernels_in "$S/sk.smtop")
check "smtop killed: nothing recorded is lost ($after >= $before kernels)" sh -c "[ '$before' -gt 0 ] && [ '$after' -ge '$before' ]"
check "smtop killed: the workload's own records all there" [ "$after" -eq "$(status_of "$S/sk.st" kernels)" ]
tty_start "$T" 120 40 "'$SMTOP' open '$S/sk.smtop'"
wait_for "$T" "saved session"
check "smtop killed: the session opens as a saved (not live) session" contains "$(cap)" "saved session"
tm send-keys -t "$T" q
ended "$T"
check "smtop killed: the viewer quits cleanly" [ "$(exit_of "$T")" = 0 ]
check "smtop killed: the terminal is restored" restored "$T"

# ---- two viewers on a session being written ----

"$SMTOP" record -q -o "$S/live.smtop" -- "$FAKE" append 5 "$S/live.st" 2>/dev/null &
rec=$!
wait_file "$S/live.st"
tty_start "$T" 140 45 "'$SMTOP' open '$S/live.smtop'"
tty_start "$T2" 120 40 "'$SMTOP' open '$S/live.smtop'"
count() { cap "$1" | grep -o 'kernels [0-9,]*' | tail -1 | tr -dc '0-9'; }
wait_for "$T" "LIVE"
wait_for "$T2" "LIVE"
check "two viewers: the first shows the session live" contains "$(cap "$T")" "LIVE"
check "two viewers: the second shows it live too" contains "$(cap "$T2")" "LIVE"
a1=$(count "$T") b1=$(count "$T2")
sleep 1.5
a2=$(count "$T") b2=$(count "$T2")
check "two viewers: the first sees new kernels arrive ($a1 -> $a2)" sh -c "[ '${a2:-0}' -gt '${a1:-0}' ]"
check "two viewers: the second sees them too ($b1 -> $b2)" sh -c "[ '${b2:-0}' -gt '${b1:-0}' ]"
wait $rec
rc=$?
check "two viewers: the recording is not disturbed (status $rc)" [ "$rc" -eq 0 ]
final=$(status_of "$S/live.st" kernels)
check "two viewers: every kernel written is in the file ($final)" [ "$(kernels_in "$S/live.smtop")" -eq "$final" ]
wait_for "$T" "saved session" 50
check "two viewers: the first sees the recording end" contains "$(cap "$T")" "saved session"
wait_for "$T2" "saved session" 50
check "two viewers: the second ends with every kernel ($final)" [ "$(count "$T2")" = "$final" ]
tm send-keys -t "$T" q
tm send-keys -t "$T2" q
ended "$T"
ended "$T2"
check "two viewers: both quit cleanly" sh -c "[ '$(exit_of "$T")' = 0 ] && [ '$(exit_of "$T2")' = 0 ]"
check "two viewers: the first terminal restored" restored "$T"
check "two viewers: the second terminal restored" restored "$T2"

# ---- the terminal resized in a loop ----

tty_start "$T" 160 50 "'$SMTOP' open '$FX/priority-vs-training.smtop'"
wait_for "$T" "saved session"
n=0
for size in 80x24 200x60 10x3 300x100 1x1 79x23 120x40 40x80 250x20 81x25; do
	for j in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
		tm resize-window -t "$T" -x $(( ${size%x*} + j % 3 )) -y $(( ${size#*x} + j % 2 ))
		n=$((n + 1))
	done
done
still_running() { ! cap | grep -q '^EXIT='; }
check "resized $n times: still running" still_running
tm resize-window -t "$T" -x 160 -y 50
sleep 0.5
tm send-keys -t "$T" '?'
sleep 0.4
help_at_full_size() { cap | grep -q zoom && cap | grep -q '128-131'; }
check "resized $n times: still answers keys, drawn at the final size" help_at_full_size
tm send-keys -t "$T" q q
ended "$T"
check "resized $n times: quits with status 0" [ "$(exit_of "$T")" = 0 ]
check "resized $n times: terminal restored" restored "$T"

e2e_done
