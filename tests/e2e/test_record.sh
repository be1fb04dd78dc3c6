#!/bin/sh
# `smtop record` with fake workloads: every way a workload that recorded
# something can end leaves a finalised, readable session, and smtop passes
# the workload's status on; one that recorded nothing leaves no session and
# smtop says why.
. tests/e2e/lib.sh
export SMTOP_INJECT=$SMTOP_BUILD/libsmtop-inject.so
S=$E2E_TMP
# the fake workload joins the session as the collector does (it runs
# natively: build/, also under the sanitizers)
FAKE=$(pwd)/build/e2e/fake_workload

"$SMTOP" record -q -o "$S/exit3.smtop" -- sh -c "$FAKE append 0.05 $S/exit3.st; exit 3"
check "exit status passed on" [ $? -eq 3 ]
out=$("$SMTOP" info "$S/exit3.smtop")
check "normal exit is complete" contains "$out" "complete (exited with status 3)"
check "command line stored" contains "$out" "exit 3'"

"$SMTOP" record -q -o "$S/segv.smtop" -- sh -c "$FAKE append 0.05 $S/segv.st; kill -SEGV \$\$"
check "crash status is 128+SIGSEGV" [ $? -eq 139 ]
out=$("$SMTOP" info "$S/segv.smtop")
check "crash marks the session incomplete" contains "$out" "incomplete (killed by signal 11"

"$SMTOP" record -q -o "$S/abort.smtop" -- sh -c "$FAKE append 0.05 $S/abort.st; kill -ABRT \$\$"
check "abort status is 128+SIGABRT" [ $? -eq 134 ]

# Nothing recorded (a program without CUDA, or CUDA without a driver): one
# line that says so and why, the workload's status, no session left.
err=$("$SMTOP" record -q -o "$S/true.smtop" -- true 2>&1)
rc=$?
check "nothing recorded: the workload's status ($rc)" [ $rc -eq 0 ]
check "nothing recorded: one line saying so ($err)" sh -c '[ "$(printf "%s\n" "$1" | wc -l)" -eq 1 ] && printf "%s" "$1" | grep -q "nothing was recorded, so no session is kept: .*; the workload exited with status 0"' _ "$err"
check "nothing recorded: no session left" [ -z "$(ls "$S" | grep '^true\.smtop')" ]
err=$("$SMTOP" record -q -o "$S/exit4.smtop" -- sh -c 'exit 4' 2>&1)
rc=$?
check "nothing recorded, workload failed: its status ($rc)" [ $rc -eq 4 ]
check "nothing recorded, workload failed: says how it ended" contains "$err" "the workload exited with status 4"
check "nothing recorded, workload failed: no session left" [ ! -e "$S/exit4.smtop" ]
if [ -x "$SMTOP_BUILD/smtop-demo" ] && ! ldconfig -p | grep -q 'libcuda\.so\.1 '; then
	err=$("$SMTOP" record -q -o "$S/demo.smtop" -- "$SMTOP_BUILD/smtop-demo" head-of-line --seconds 1 2>&1 >/dev/null)
	rc=$?
	check "CUDA without a driver: the workload's status ($rc)" [ $rc -eq 1 ]
	check "CUDA without a driver: explained as no NVIDIA driver ($err)" sh -c 'printf "%s" "$1" | tail -1 | grep -q "nothing was recorded, so no session is kept: no NVIDIA driver"' _ "$err"
	check "CUDA without a driver: the workload says so too" sh -c 'printf "%s" "$1" | head -1 | grep -q "smtop-demo: no NVIDIA driver"' _ "$err"
	check "CUDA without a driver: no session left" [ ! -e "$S/demo.smtop" ]
fi

# smtop run passes the workload's status on as record does (the viewer,
# in tmux, stays until q once something was recorded)
printf '%s append 0.3 %s\nexit 7\n' "$FAKE" "$S/run7.st" > "$S/run7.sh"
tui_start 160 48 env SMTOP_INJECT="$SMTOP_INJECT" "$SMTOP" run -o "$S/run7.smtop" -- sh "$S/run7.sh"
tui_wait 'workload ended' 30
tui_keys q
tui_wait 'EXIT=' 30
check "run: the workload's status 7 passed on" contains "$(tui_cap)" "EXIT=7"
# on failure, what the workload said (its log stays when its session goes)
check "run: the session kept ($(tail -2 "$S/run7.smtop.log" 2>/dev/null))" \
	contains "$("$SMTOP" info "$S/run7.smtop")" "complete (exited with status 7)"
tui_end
# nothing recorded: the view closes by itself, says why, keeps no session
printf 'echo giving up\nexit 7\n' > "$S/empty7.sh"
tui_start 160 48 env SMTOP_INJECT="$SMTOP_INJECT" "$SMTOP" run -o "$S/run-empty.smtop" -- sh "$S/empty7.sh"
tui_wait 'EXIT=' 30
s=$(tui_cap)
check "run, nothing recorded: status 7" contains "$s" "EXIT=7"
check "run, nothing recorded: says so with the workload's last line" contains "$s" "the workload exited with status 7, saying: giving up"
check "run, nothing recorded: no session or log left" [ -z "$(ls "$S" | grep '^run-empty')" ]
tui_end

# SIGTERM to smtop reaches the workload, which leaves a marker when it gets it
# (sent once the workload runs: smtop may start slowly, under valgrind).
"$SMTOP" record -q -o "$S/term.smtop" -- sh -c "trap 'echo got > $S/term.mark; exit 0' TERM; $FAKE append 0.05 $S/term.st; touch $S/term.up; sleep 30 & wait" &
rec=$!
for i in $(seq 300); do [ -f "$S/term.up" ] && break; sleep 0.1; done
sleep 0.2
kill -TERM $rec
wait $rec
rc=$?
check "SIGTERM forwarded to the workload" [ -f "$S/term.mark" ]
check "forwarded run exits with the workload's status" [ $rc -eq 0 ]
out=$("$SMTOP" info "$S/term.smtop")
check "interrupted session is finalised" contains "$out" "complete (exited with status 0)"

err=$("$SMTOP" record -q -o "$S/nocmd.smtop" -- /no/such/program 2>&1)
rc=$?
check "missing program exits 127" [ $rc -eq 127 ]
check "missing program: one line" one_line "$err"
check "missing program named" contains "$err" "/no/such/program: No such file or directory"

err=$("$SMTOP" record -q -o "$S/exit3.smtop" -- true 2>&1)
check "existing session refused" [ $? -ne 0 ]
check "existing session: one line naming it" contains "$err" "exit3.smtop: already exists"
out=$("$SMTOP" info "$S/exit3.smtop")
check "refused overwrite kept the old session" contains "$out" "exited with status 3"

err=$("$SMTOP" record -q -o /no/such/dir/x.smtop -- true 2>&1)
check "missing directory refused" [ $? -ne 0 ]
check "missing directory: one line" one_line "$err"

# A build without the sanitizer's API headers (.ci/deps could not fetch
# them) has no --sm all: refused in one line before anything starts.
err=$("$SMTOP" record -q --sm all -o "$S/probe.smtop" -- true 2>&1)
if contains "$err" "built without the Compute Sanitizer backend"; then
	check "--sm all in a build without the backend: one line" one_line "$err"
	check "--sm all in a build without the backend: no session made" [ ! -e "$S/probe.smtop" ]
else
	# --sm all without the Compute Sanitizer: one line, the workload runs
	# untraced and keeps its exit status; the session says why.  (The host and
	# the collector it loads run natively from build/, also under the sanitizers.)
	native_inject=$(pwd)/build/libsmtop-inject.so
	out=$(SMTOP_INJECT=$native_inject SMTOP_SANITIZER_LIB=/no/such/libsanitizer-public.so "$SMTOP" record -q --sm all -o "$S/nosz.smtop" -- \
		"$(pwd)/build/e2e/inject_host" 2>"$S/nosz.err")
	rc=$?
	err=$(cat "$S/nosz.err")
	check "--sm all without the sanitizer: the workload's status" [ $rc -eq 5 ]
	check "--sm all without the sanitizer: the workload ran" [ "$out" = "workload ran" ]
	check "--sm all without the sanitizer: one line" one_line "$err"
	check "--sm all without the sanitizer: says what is missing" contains "$err" "--sm all needs the Compute Sanitizer's libsanitizer-public.so"
	out=$("$SMTOP" info "$S/nosz.smtop")
	check "--sm all without the sanitizer: process marked untraced" contains "$out" "untraced"
	# A release whose callback numbers smtop does not know is refused the same way.
	err=$(SMTOP_INJECT=$native_inject SMTOP_SANITIZER_LIB=$native_inject SMTOP_SANITIZER_VERSION=12 "$SMTOP" record -q --sm all -o "$S/sz12.smtop" -- \
		"$(pwd)/build/e2e/inject_host" 2>&1 >/dev/null)
	check "--sm all, CUDA 12 sanitizer: one line" one_line "$err"
	check "--sm all, CUDA 12 sanitizer: names the release" contains "$err" "Compute Sanitizer of CUDA 12 is not supported"
fi

err=$("$SMTOP" record -q --sm some -o "$S/bad.smtop" -- true 2>&1)
check "--sm with a bad value refused" [ $? -ne 0 ]
check "--sm with a bad value: one line" contains "$err" "--sm needs 'marked' (CUPTI), 'entry'"
check "--sm with a bad value: no session made" [ ! -e "$S/bad.smtop" ]

XDG_DATA_HOME=$S/xdg "$SMTOP" record -q -- "$FAKE" append 0.05 "$S/xdg.st"
check "default path is in XDG_DATA_HOME" [ -n "$(ls "$S"/xdg/smtop/sessions/*-fake_workload-append.smtop 2>/dev/null)" ]

# Two GPUs whose timers are 79 us apart (each GPU has its own %globaltimer):
# the session stores a clock for each, and no block lands outside its kernel.
# (the fake workload runs natively: build/, also under the sanitizers)
"$SMTOP" record -q -o "$S/two.smtop" -- "$(pwd)/build/e2e/fake_workload" append 0.3 "$S/two.st" 2
check "two GPUs: recorded" [ $? -eq 0 ]
d=$(sqlite3 "$S/two.smtop" "SELECT (SELECT value FROM smtop_meta WHERE key = 'clock_offset_ns.1') - (SELECT value FROM smtop_meta WHERE key = 'clock_offset_ns.0')")
check "two GPUs: a clock each, 79 us apart ($d ns)" [ "$d" = -79000 ]
d=$(sqlite3 "$S/two.smtop" "SELECT (SELECT value FROM smtop_meta WHERE key = 'clock_offset_ns') = (SELECT value FROM smtop_meta WHERE key = 'clock_offset_ns.0')")
check "two GPUs: the plain clock keys are the first GPU's" [ "$d" = 1 ]
out=$("$SMTOP" info "$S/two.smtop")
check "two GPUs: info prints each GPU's clock" contains "$out" "GPU 1: "
v=$("$SMTOP" report "$S/two.smtop" --json -q | python3 -c "import json,sys; r=json.load(sys.stdin); print(r['episodes_total'], len({s['device'] for s in r['streams'] if s['kernels']}))")
check "two GPUs: kernels on both, no phantom waits ($v)" [ "$v" = "0 2" ]

e2e_done
