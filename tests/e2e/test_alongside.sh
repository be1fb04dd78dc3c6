#!/bin/sh
# Recording alongside a running program: `smtop launch` starts it with the
# collector dormant and serving its control socket, `smtop record --attach`
# switches recording on and off, each time into a session of its own that
# the collector writes and ends.  The workload is alongside_workload.c with
# the stub backend (no GPU here): its NVTX ranges are what sessions hold.
. tests/e2e/lib.sh
export SMTOP_INJECT=$(pwd)/build/libsmtop-inject.so
export XDG_DATA_HOME=$E2E_TMP/data
export SMTOP_CONTROL_DIR=$E2E_TMP/ctl
W=$(pwd)/build/e2e/alongside_workload
CTL="python3 $(pwd)/tests/e2e/ctl.py"
LIB=$XDG_DATA_HOME/smtop/sessions
S=$E2E_TMP

# launch NAME [SMTOP-ARGS...]: starts the workload in the background (stop
# file S/NAME.stop, output S/NAME.out) and sets PID once it is ready
launch() {
	_n=$1
	shift
	"$SMTOP" launch "$@" -- "$W" "$S/$_n.stop" 30 > "$S/$_n.out" 2> "$S/$_n.err" &
	PID=$!
	for _i in $(seq 100); do grep -q ready "$S/$_n.out" 2>/dev/null && break; sleep 0.05; done
}
# finish NAME: stops the workload and waits for it
finish() {
	touch "$S/$1.stop"
	wait "$PID"
}
# steps SESSION: "COUNT MIN MAX" of its "step N" ranges
steps() {
	sqlite3 -separator ' ' "$1" "SELECT count(*), min(n), max(n) FROM (SELECT
		CAST(substr(COALESCE(e.text, s.value), 6) AS INTEGER) AS n FROM NVTX_EVENTS e
		LEFT JOIN StringIds s ON s.id = e.textId WHERE COALESCE(e.text, s.value) LIKE 'step %')"
}
contiguous() { set -- $1; [ "$1" -gt 0 ] && [ $(($3 - $2 + 1)) -eq "$1" ]; }

launch a
SOCK=$SMTOP_CONTROL_DIR/$PID.sock
check "launch: the pid printed is the workload's" contains "$(cat "$S/a.err")" "pid $PID runs"
check "launch: one line on stderr" one_line "$(cat "$S/a.err")"
check "socket named by the pid" [ -S "$SOCK" ]
check "socket 0600" [ "$(stat -c %a "$SOCK")" = 600 ]
check "folder 0700" [ "$(stat -c %a "$SMTOP_CONTROL_DIR")" = 700 ]
st=$($CTL "$SOCK" status)
check "status: dormant ($st)" contains "$st" "recording=off"
check "status: pid, mode, command" contains "$st" "pid=$PID	sm=stub	recording=off	blocks=0	session=	command=$W"
check "dormant: no session file" [ ! -d "$LIB" ]
# the collector's threads in the workload: named as smtop's, and every one
# blocks the workload's signals (SIGINT and SIGTERM: bits 2 and 15 of SigBlk)
if [ -z "$SMTOP_WRAP" ]; then
	names=$(cat /proc/$PID/task/*/comm | sort | tr '\n' ' ')
	check "the collector's threads say whose they are ($names)" contains "$names" "smtop-control"
	deaf=yes
	for t in /proc/$PID/task/*; do
		case $(cat "$t/comm") in
		smtop-*) m=$(sed -n 's/^SigBlk:[[:space:]]*//p' "$t/status")
			 [ $((0x${m#????????} & 0x4002)) -eq $((0x4002)) ] || deaf=no ;;
		esac
	done
	check "the collector's threads block the workload's signals" [ $deaf = yes ]
fi
r=$($CTL "$SOCK" "window 100")
check "window without windows says why ($r)" contains "$r" "^err --sm stub has no exact windows"
r=$($CTL "$SOCK" "on relative.smtop")
check "on needs an absolute path ($r)" contains "$r" "^err on needs the session file's absolute path"
r=$($CTL "$SOCK" "jump")
check "an unknown request ($r)" contains "$r" "^err unknown request"
r=$($CTL "$SOCK" "off")
check "off while dormant ($r)" [ "$r" = "err not recording" ]

# on, off, on, off: two sessions, each complete, each a run of steps with
# none missing
p1=$("$SMTOP" record --attach "$PID" --for 0.6s 2> "$S/att1.err")
rc=$?
check "attach: status 0" [ $rc -eq 0 ]
check "attach: the path on stdout, in the library" contains "$p1" "^$LIB/.*alongside_workload.*\.smtop$"
check "attach: says what it records, one line" one_line "$(cat "$S/att1.err")"
sleep 0.3
p2=$("$SMTOP" record --attach "$PID" --for 0.6s 2>/dev/null)
check "a second attach: a second session" [ -f "$p2" -a "$p1" != "$p2" ]
st=$($CTL "$SOCK" status)
check "dormant again after --for" contains "$st" "recording=off"
i1=$("$SMTOP" info "$p1")
check "session 1: complete ($(echo "$i1" | grep state))" contains "$i1" "state *complete (recording switched off)"
check "session 1: the process detached" contains "$i1" "$PID detached"
v=$("$SMTOP" --version)
check "session 1: says which smtop recorded it ($v)" contains "$i1" "recorded by    $v"
s1=$(steps "$p1") s2=$(steps "$p2")
check "session 1: steps with none missing ($s1)" contiguous "$s1"
check "session 2: steps with none missing ($s2)" contiguous "$s2"
check "the sessions do not overlap ($s1 / $s2)" [ "$(echo $s1 | cut -d' ' -f3)" -lt "$(echo $s2 | cut -d' ' -f2)" ]
check "session 1: about 0.6 s of 10 ms steps ($s1)" [ "$(echo $s1 | cut -d' ' -f1)" -ge 30 ]
check "report reads it" "$SMTOP" report "$p1" > /dev/null
r=$($CTL "$SOCK" "on $p1")
check "on refuses an existing file ($r)" [ "$r" = "err $p1: already exists" ]

# smtop killed while recording: the workload and its recording go on, and
# the session ends cleanly when switched off
"$SMTOP" record --attach "$PID" -o "$S/killed.smtop" > /dev/null 2>&1 &
ap=$!
for i in $(seq 50); do [ -f "$S/killed.smtop" ] && break; sleep 0.05; done
sleep 0.2
kill -9 $ap
wait $ap 2>/dev/null
check "smtop killed: the workload runs on" kill -0 "$PID"
st=$($CTL "$SOCK" status)
check "smtop killed: still recording into its file" contains "$st" "recording=on	blocks=0	session=$S/killed.smtop"
r=$($CTL "$SOCK" "off")
check "off answers with the session ($r)" [ "$r" = "ok $S/killed.smtop" ]
check "smtop killed: a complete session" contains "$("$SMTOP" info "$S/killed.smtop")" "state *complete"
check "-o: a relative path is made absolute" contains "$st" "session=/"

# Ctrl-C ends an attach without --for
"$SMTOP" record --attach "$PID" -o "$S/int.smtop" > "$S/int.out" 2>&1 &
ap=$!
for i in $(seq 50); do [ -f "$S/int.smtop" ] && break; sleep 0.05; done
sleep 0.3
kill -INT $ap
wait $ap
check "SIGINT: attach ends with status 0" [ $? -eq 0 ]
check "SIGINT: the path printed" contains "$(cat "$S/int.out")" "$S/int.smtop"
check "SIGINT: dormant again" contains "$($CTL "$SOCK" status)" "recording=off"

# the workload's own result is untouched, and its socket goes with it
"$SMTOP" record --attach "$PID" -o "$S/atexit.smtop" --for 30s > /dev/null 2> "$S/atexit.err" &
ap=$!
for i in $(seq 50); do [ -f "$S/atexit.smtop" ] && break; sleep 0.05; done
sleep 0.2
finish a
rc=$?
wait $ap
check "workload: its status" [ $rc -eq 0 ]
check "workload: its output" contains "$(cat "$S/a.out")" "^workload ran [0-9]* steps$"
check "workload: the collector said nothing more" one_line "$(cat "$S/a.err")"
check "exit: the socket is removed" [ ! -e "$SOCK" ]
check "exit while recording: attach says the process ended" contains "$(cat "$S/atexit.err")" "process $PID ended"
i=$("$SMTOP" info "$S/atexit.smtop")
check "exit while recording: the collector ended the session" contains "$i" "state *complete"
check "exit while recording: the process exited" contains "$i" "$PID exited"

# a signal that ends the workload while it records
launch b
SOCK=$SMTOP_CONTROL_DIR/$PID.sock
r=$($CTL "$SOCK" "on $S/term.smtop")
sleep 0.2
kill -TERM "$PID"
wait "$PID"
check "SIGTERM: the socket is removed" [ ! -e "$SOCK" ]
i=$("$SMTOP" info "$S/term.smtop")
check "SIGTERM: the session is ended, incomplete" contains "$i" "state *incomplete"
check "SIGTERM: the process crashed by it" contains "$i" "crashed (killed by signal 15"

# a switch off the backend could not make (a call stayed inside the
# driver): the process records on, into the same session, until an off
# succeeds; record --attach asks again before it gives up
SMTOP_STUB_OFF_FAILS=2 launch f
SOCK=$SMTOP_CONTROL_DIR/$PID.sock
r=$($CTL "$SOCK" "on $S/off-fails.smtop")
r=$($CTL "$SOCK" "off")
check "off that fails: says why and that it records on ($r)" contains "$r" \
	"^err the stub was told to fail 2 switches off; still recording into $S/off-fails.smtop$"
st=$($CTL "$SOCK" status)
check "off that fails: still recording into its session" contains "$st" "recording=on	blocks=0	session=$S/off-fails.smtop"
check "off that fails: the session is not ended" contains "$("$SMTOP" info "$S/off-fails.smtop")" "state *recording"
p=$("$SMTOP" record --attach "$PID" --for 0.3s 2> "$S/off-retry.err")
check "attach while recording: refused" [ -z "$p" ]
r=$($CTL "$SOCK" "off")
r=$($CTL "$SOCK" "off")
check "off asked again: the session ($r)" [ "$r" = "ok $S/off-fails.smtop" ]
check "off asked again: a complete session" contains "$("$SMTOP" info "$S/off-fails.smtop")" "state *complete (recording switched off)"
finish f
SMTOP_STUB_OFF_FAILS=2 launch g
p=$("$SMTOP" record --attach "$PID" --for 0.3s 2> "$S/off-retry.err")
rc=$?
check "attach: an off that fails twice is asked again (status $rc)" [ $rc -eq 0 ]
check "attach: then a complete session" contains "$("$SMTOP" info "$p")" "state *complete (recording switched off)"
finish g
SMTOP_STUB_OFF_FAILS=9 launch h
SOCK=$SMTOP_CONTROL_DIR/$PID.sock
out=$("$SMTOP" record --attach "$PID" -o "$S/off-never.smtop" --for 0.3s 2>&1 >/dev/null)
rc=$?
check "attach: an off that keeps failing, status 1" [ $rc -eq 1 ]
check "attach: says it records on ($out)" contains "$out" "still recording into $S/off-never.smtop$"
check "attach: the process records on" contains "$($CTL "$SOCK" status)" "recording=on"
finish h

# SIGKILL leaves the socket; the next smtop that finds it removes it
launch c
SOCK=$SMTOP_CONTROL_DIR/$PID.sock
kill -9 "$PID"
wait "$PID" 2>/dev/null
check "SIGKILL: the socket stays" [ -S "$SOCK" ]
out=$("$SMTOP" record --attach "$PID" 2>&1)
rc=$?
check "dead pid: one line ($out)" [ "$out" = "smtop: no process $PID" ]
check "dead pid: status 1" [ $rc -eq 1 ]
check "dead pid: its stale socket removed" [ ! -e "$SOCK" ]

# processes smtop did not start, and bad arguments
sleep 30 &
sp=$!
out=$("$SMTOP" record --attach $sp 2>&1)
rc=$?
check "not launched: one line ($out)" [ "$out" = "smtop: process $sp (sleep) was not started by smtop launch: no control socket in $SMTOP_CONTROL_DIR" ]
check "not launched: status 1" [ $rc -eq 1 ]
kill $sp
wait $sp 2>/dev/null
out=$("$SMTOP" record --attach 12x 2>&1)
check "--attach needs a pid ($out)" [ "$out" = "smtop: --attach needs a number from 1 to 2147483647" ]
out=$("$SMTOP" record --attach 1 -- ls 2>&1)
check "--attach with a command ($out)" contains "$out" "give no command after it"
out=$("$SMTOP" record --for 2s -- ls 2>&1)
check "--for without --attach ($out)" contains "$out" "^smtop: --for needs --attach PID"
out=$("$SMTOP" record --attach 1 --for 2x 2>&1)
check "--for needs a duration ($out)" contains "$out" "^smtop: --for needs a duration"
out=$("$SMTOP" launch 2>&1)
check "launch without a command ($out)" [ "$out" = "smtop: no workload given: smtop launch [--sm MODE] -- CMD [ARGS...]" ]
# what the dormant mode costs, in the same one line
out=$("$SMTOP" launch --sm entry -- true 2>&1)
says_loaded() { one_line "$1" && contains "$1" "dormant (--sm entry keeps the Compute Sanitizer loaded"; }
check "launch --sm entry: says the sanitizer stays loaded, in one line" says_loaded "$out"
out=$("$SMTOP" launch --sm marked -- true 2>&1)
check "launch --sm marked: no cost to tell" lacks "$out" "Compute Sanitizer"
out=$("$SMTOP" launch -q -- /no/such/program 2>&1)
rc=$?
check "launch of a missing program ($out)" [ "$out" = "smtop: /no/such/program: No such file or directory" ]
check "launch of a missing program: status 127" [ $rc -eq 127 ]

# another user's process, and another user at the socket (root only)
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups sleep 30 &
	sp=$!
	sleep 0.1
	out=$("$SMTOP" record --attach $sp 2>&1)
	check "another user's process ($out)" [ "$out" = "smtop: process $sp belongs to user $(id -nu 65534): smtop controls only your own processes" ]
	kill $sp
	wait $sp 2>/dev/null
	launch d
	SOCK=$SMTOP_CONTROL_DIR/$PID.sock
	# loosened modes let the other user reach the socket: the peer's uid
	# still decides
	chmod 711 "$SMTOP_CONTROL_DIR"
	chmod 666 "$SOCK"
	chmod 755 "$E2E_TMP"
	cp tests/e2e/ctl.py "$S/ctl.py"
	chmod 644 "$S/ctl.py"
	r=$(setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$S/ctl.py" "$SOCK" "on $S/other.smtop")
	check "SO_PEERCRED: another uid is refused ($r)" [ "$r" = "err refused: this process belongs to another user" ]
	check "SO_PEERCRED: nothing recorded" [ ! -e "$S/other.smtop" ]
	chmod 700 "$SMTOP_CONTROL_DIR"
	finish d
else
	echo "  (not root: other-user checks skipped)"
fi

# x in the live view of smtop run asks the recorded process for an exact
# window and shows its answer
tui_start 160 30 "$SMTOP" run -o "$S/run.smtop" -- "$W" "$S/run.stop" 30
tui_keys x
check "live view: x shows the collector's answer" contains "$(tui_cap)" "x: --sm stub has no exact windows (--sm entry has)"
touch "$S/run.stop"
tui_wait "workload ended" 5
tui_keys x
check "live view: x after the workload ended" contains "$(tui_cap)" "x: the workload has ended"
tui send-keys -t "$TUI" q
tui_start 160 30 "$SMTOP" open "$S/run.smtop"
tui_keys x
check "saved session: x says why not" contains "$(tui_cap)" "x: exact windows are asked of a process being recorded live"
tui send-keys -t "$TUI" q
out=$("$SMTOP" --help)
check "--help: record --attach, launch, env" sh -c 'echo "$1" | grep -q "record --attach PID \[-o FILE\] \[--for DURATION\]" &&
	echo "$1" | grep -q "  launch \[--sm MODE\] -- CMD" && echo "$1" | grep -q "  env \[--sm MODE\]"' - "$out"
check "man page: record --attach, launch, env, SMTOP_CONTROL_DIR" sh -c 'grep -q "^\.BI \"record \\\\-\\\\-attach \" PID" docs/smtop.1 &&
	grep -q "^\.B launch$" docs/smtop.1 && grep -q "^\.B env$" docs/smtop.1 && grep -q "^\.B SMTOP_CONTROL_DIR$" docs/smtop.1'
check "--help: SMTOP_CONTROL_DIR" contains "$out" "SMTOP_CONTROL_DIR"

# eval "$(smtop env)" sets up a shell the same way
out=$("$SMTOP" env)
check "env: export lines" contains "$out" "^export SMTOP_LAUNCH='1'$"
check "env: the collector library" contains "$out" "^export CUDA_INJECTION64_PATH='$SMTOP_INJECT'$"
(eval "$out"; exec "$W" "$S/e.stop" 30) > "$S/e.out" 2>&1 &
PID=$!
for i in $(seq 100); do grep -q ready "$S/e.out" 2>/dev/null && break; sleep 0.05; done
check "env: the program serves its socket" [ -S "$SMTOP_CONTROL_DIR/$PID.sock" ]
touch "$S/e.stop"
wait $PID

# SMTOP_COLLECTOR_CPUS keeps the collector's threads (here its control
# thread) on the CPUs it names; the program's own stay where they were
# cpus_of PID NAME: the Cpus_allowed_list of PID's threads called NAME
cpus_of() {
	for t in /proc/$1/task/*; do
		[ "$(cat "$t/comm")" = "$2" ] && sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status"
	done | sort -u
}
mine=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
SMTOP_COLLECTOR_CPUS=0 launch k
check "SMTOP_COLLECTOR_CPUS=0: the control thread runs on CPU 0 ($(cpus_of $PID smtop-control))" \
	[ "$(cpus_of $PID smtop-control)" = 0 ]
check "SMTOP_COLLECTOR_CPUS=0: the program's thread where it was ($(cpus_of $PID alongside_workl))" \
	[ "$(cpus_of $PID alongside_workl)" = "$mine" ]
finish k
check "SMTOP_COLLECTOR_CPUS: the program's result intact" contains "$(cat "$S/k.out")" "workload ran"
# a list of no CPU here: smtop refuses it before the program starts
out=$(SMTOP_COLLECTOR_CPUS=99999-100000 "$SMTOP" launch -- "$W" "$S/b.stop" 30 2>&1)
check "launch: a list of no CPU here is refused ($?)" [ $? -ne 0 ]
check "launch: said in one line, naming the variable" \
	[ "$out" = "smtop: SMTOP_COLLECTOR_CPUS=\"99999-100000\" is not a list of this machine's CPUs (like 8-15 or 0,2,4)" ]
out=$(SMTOP_COLLECTOR_CPUS=1x "$SMTOP" record -o "$S/bad.smtop" -- "$W" "$S/b.stop" 1 2>&1)
check "record: a malformed list is refused ($?)" [ $? -ne 0 ]
check "record: the program did not run, no session was made" sh -c '! echo "$1" | grep -q "workload ran" && [ ! -e "$2" ]' - "$out" "$S/bad.smtop"
# set after smtop's own checks (a shell's eval of smtop env), the
# collector says it once on the program's stderr and the program runs
envs=$("$SMTOP" env)
(eval "$envs"; SMTOP_COLLECTOR_CPUS=$(printf '0\n1') exec "$W" "$S/n.stop" 30) > "$S/n.out" 2> "$S/n.err" &
PID=$!
for i in $(seq 100); do grep -q ready "$S/n.out" 2>/dev/null && break; sleep 0.05; done
check "a bad list in the program: its control thread where the program runs" [ "$(cpus_of $PID smtop-control)" = "$mine" ]
touch "$S/n.stop"
wait $PID
check "a bad list in the program: said once" [ "$(grep -c SMTOP_COLLECTOR_CPUS "$S/n.err")" = 1 ]
check "a bad list in the program: control characters shown as ?" \
	contains "$(cat "$S/n.err")" 'smtop: pid [0-9]*: SMTOP_COLLECTOR_CPUS="0?1" is not a list'
check "a bad list in the program: the program runs" contains "$(cat "$S/n.out")" "workload ran"
e2e_done
