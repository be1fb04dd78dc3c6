#!/bin/sh
# Plain smtop on a machine with a GPU: the machine view.  NVML is the fake
# of tests/e2e/fake_nvml.c (SMTOP_NVML_LIB): two GPUs, GPU 1 without
# utilisation, and the processes of FAKE_NVML_PROCS, one of them the
# alongside workload started by smtop launch (the stub backend), whose
# recording r switches through the control channel.
. tests/e2e/lib.sh
export SMTOP_INJECT=$(pwd)/build/libsmtop-inject.so
export XDG_DATA_HOME=$E2E_TMP/data
export SMTOP_CONTROL_DIR=$E2E_TMP/ctl
FAKE=$(pwd)/build/e2e/libfake_nvml.so
W=$(pwd)/build/e2e/alongside_workload
LIB=$XDG_DATA_HOME/smtop/sessions
S=$E2E_TMP

# NVML missing or not starting: one line, exit 1, no screen
out=$(SMTOP_NVML_LIB=$S/no-such-libnvidia-ml.so "$SMTOP" 2>&1)
rc=$?
check "NVML missing: exit 1 ($rc)" [ $rc -eq 1 ]
check "NVML missing: one line saying so ($out)" sh -c 'one_line() { [ "$(printf "%s\n" "$1" | grep -c .)" -eq 1 ]; }; one_line "$1" && printf "%s" "$1" | grep -q "NVML (.*no-such-libnvidia-ml.so) cannot be loaded: no NVIDIA driver here"' _ "$out"
out=$(SMTOP_NVML_LIB=$FAKE FAKE_NVML_INIT=fail "$SMTOP" 2>&1)
check "NVML not starting: its reason ($out)" contains "$out" "^smtop: NVML does not start: Driver Not Loaded;"
out=$(SMTOP_NVML_LIB=$FAKE "$SMTOP" < /dev/null 2>&1)
check "not a terminal: one line ($out)" contains "$out" "the machine view needs a terminal"

"$SMTOP" launch -- "$W" "$S/a.stop" 30 > "$S/a.out" 2> "$S/a.err" &
PID=$!
for i in $(seq 100); do grep -q ready "$S/a.out" 2>/dev/null && break; sleep 0.05; done
check "the launched workload is ready" grep -q ready "$S/a.out"
sleep 60 &
OTHER=$!
# (tmux runs the command in its server's environment: given on its line)
tui_start 150 30 env SMTOP_NVML_LIB="$FAKE" FAKE_NVML_PROCS="0:$PID:1536:-,1:$OTHER:300:12" "$SMTOP"
tui_wait "GPU 1" 5
s=$(tui_cap)
check "header: GPUs, processes, collectors" contains "$s" "machine · 2 GPUs · 2 processes · 1 with smtop's collector"
check "GPU 0: name, utilisation, memory" contains "$s" "GPU 0  NVIDIA H200 .* util  37%   memory 12 GiB / 150 GiB"
check "GPU 1: no utilisation given, N/A" contains "$s" "GPU 1  NVIDIA H200 .* util  N/A   memory 512 MiB / 150 GiB"
check "columns" contains "$s" "PID  USER  *GPU MEM   SM  SMTOP  *OWN  COMMAND"
me=$(id -un)
check "launched process: pid, user, memory, SM N/A, collector, own, command" \
	contains "$s" "$PID  $me  *1.5 GiB  N/A  stub dormant  *yes  $W $S/a.stop 30"
check "another process: its SM utilisation, no collector" contains "$s" "$OTHER  $me  *300 MiB  12%  -  *yes  sleep 60"
check "a zero never stands for a value not given" sh -c '! printf "%s" "$1" | grep -q " 0%"' _ "$s"

# r on a process without a collector: says why, nothing switched
tui_keys Down
check "Down selects the next process" contains "$(tui_cap)" "> *$OTHER"
tui_keys r
check "r without a collector says why" contains "$(tui_cap)" "r: process $OTHER was not started by smtop launch"
tui_keys Enter
check "Enter without a collector says why" contains "$(tui_cap)" "Enter: process $OTHER carries no collector"

# r on the launched process: recording on into the library, then off
tui_keys Up
tui_keys Enter
check "Enter on a dormant process says r starts one" contains "$(tui_cap)" "is not recording; r starts a session"
tui_keys r
tui_wait "stub recording" 3
s=$(tui_cap)
check "r: recording on, said on the status line" contains "$s" "r: process $PID records into $LIB/"
check "r: the row says recording" contains "$s" "$PID .*stub recording"
st=$(python3 tests/e2e/ctl.py "$SMTOP_CONTROL_DIR/$PID.sock" status)
check "the collector records ($st)" contains "$st" "recording=on"
session=$(printf '%s' "$st" | sed -n 's/.*	session=\([^	]*\)	.*/\1/p')
check "the session is in the library" contains "$session" "^$LIB/.*alongside_workload.*\.smtop$"
check "the session file appears" [ -f "$session" ]

# Enter: the live per-SM view of that session; q comes back
tui_keys Enter
tui_wait "LIVE" 5
s=$(tui_cap)
check "Enter: the live view of the process's session" contains "$s" "pid $PID alongside_workload"
check "Enter: the NVTX lane of the workload" contains "$s" "nvtx"
tui_keys q
tui_wait "GPUs and their processes" 3
check "q in the live view comes back to the machine" contains "$(tui_cap)" "GPU 0  NVIDIA H200"

tui_keys r
tui_wait "stub dormant" 3
check "r again: recording off, the session named" contains "$(tui_cap)" "r: process $PID stopped recording; session saved to"
check "the collector is dormant again" contains "$(python3 tests/e2e/ctl.py "$SMTOP_CONTROL_DIR/$PID.sock" status)" "recording=off"
check "the session is complete" contains "$("$SMTOP" info "$session")" "state *complete"

tui_keys '?'
check "? shows the keys" contains "$(tui_cap)" "machine view: keys"
tui_keys x
tui_keys q
s=$(tui_cap)
check "q quits with status 0" contains "$s" "EXIT=0"
check "terminal restored" sh -c '! printf "%s" "$1" | grep -q "┌"' _ "$s"

# the workload gone: its socket removed, its row with it
touch "$S/a.stop"
wait "$PID"
kill "$OTHER" 2>/dev/null
wait "$OTHER" 2>/dev/null
tui_start 100 24 env SMTOP_NVML_LIB="$FAKE" FAKE_NVML_PROCS= "$SMTOP"
tui_wait "GPU 1" 5
s=$(tui_cap)
check "no processes: each GPU says so" sh -c '[ "$(printf "%s" "$1" | grep -c "no compute processes")" -eq 2 ]' _ "$s"
tui_keys r
check "r with nothing selected says so" contains "$(tui_cap)" "r: no process selected"
tui_keys q
tui_end

# a: every process of yours recording, in one live view
"$SMTOP" launch -- "$W" "$S/b.stop" 30 > "$S/b.out" 2> "$S/b.err" &
B=$!
"$SMTOP" launch -- "$W" "$S/c.stop" 30 > "$S/c.out" 2> "$S/c.err" &
C=$!
for i in $(seq 100); do grep -q ready "$S/b.out" 2>/dev/null && grep -q ready "$S/c.out" 2>/dev/null && break; sleep 0.05; done
tui_start 150 30 env SMTOP_NVML_LIB="$FAKE" FAKE_NVML_PROCS="0:$B:100:-,0:$C:100:-" "$SMTOP"
tui_wait "GPU 1" 5
tui_keys a
check "a with none recording says so" contains "$(tui_cap)" "a: no process of yours is recording; r starts a session"
tui_keys r
tui_wait "stub recording" 3
tui_keys Down
tui_keys r
for i in $(seq 60); do [ "$(tui_cap | grep -c "stub recording")" -eq 2 ] && break; sleep 0.05; done
check "both record" [ "$(tui_cap | grep -c "stub recording")" -eq 2 ]
tui_keys a
tui_wait "LIVE" 5
s=$(tui_cap)
check "a: one live view of both sessions" contains "$s" "2 processes recording .* LIVE"
tui_keys q
tui_wait "GPUs and their processes" 3
check "q comes back to the machine" contains "$(tui_cap)" "GPU 0  NVIDIA H200"
tui_keys r
tui_keys Up
tui_keys r
tui_keys q
tui_end
touch "$S/b.stop" "$S/c.stop"
wait "$B" "$C"
check "both workloads ended well" [ $? -eq 0 ]
e2e_done
