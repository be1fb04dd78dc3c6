#!/bin/sh
# The machine view on a real GPU: starts a demo scenario under `smtop launch`
# (collector dormant), runs plain smtop in a detached tmux of W x H, and
# captures into DIR (plain and with colours): the machine (machine.txt), the
# launched process recording after r (machine-recording.txt), its live view
# after Enter (machine-live.txt), and the machine again after q and r
# (machine-off.txt).
#   tests/gpu/machine_screen.sh DIR [NAME] [W] [H]
cd "$(dirname "$0")/../.." || exit 1
dir=$1
name=${2:-priority-vs-training}
w=${3:-160}
h=${4:-30}
[ -n "$dir" ] || { echo "usage: tests/gpu/machine_screen.sh DIR [NAME] [W] [H]" >&2; exit 2; }
mkdir -p "$dir"
S=smtop-machine
cap() { # cap NAME: the screen now, plain and with colours
	tmux capture-pane -p -t $S > "$dir/$1.txt"
	tmux capture-pane -p -e -t $S > "$dir/$1.ansi"
}
build/smtop launch -- build/smtop-demo "$name" --seconds 60 > "$dir/machine-demo.out" 2> "$dir/machine-demo.err" &
pid=$!
sleep 6 # CUDA initialised: the collector's control socket is there
tmux kill-session -t $S 2>/dev/null
tmux new-session -d -s $S -x "$w" -y "$h" "build/smtop; echo EXIT=\$?; sleep 5"
sleep 3
cap machine
# select the launched process's row
tmux send-keys -t $S Home
for i in $(seq 40); do
	tmux capture-pane -p -t $S | grep -Eq "^│ > +$pid " && break
	tmux send-keys -t $S Down
	sleep 0.2
done
tmux send-keys -t $S r
sleep 4
cap machine-recording
tmux send-keys -t $S Enter
sleep 5
cap machine-live
tmux send-keys -t $S q
sleep 2
tmux send-keys -t $S r
sleep 4
cap machine-off
tmux send-keys -t $S q
sleep 1
cap machine-exit
tmux kill-session -t $S 2>/dev/null
kill -INT "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
grep -q "records into" "$dir/machine-recording.txt" && grep -q "LIVE" "$dir/machine-live.txt" &&
	grep -q "EXIT=0" "$dir/machine-exit.txt" && echo "ok: machine view captured in $dir" ||
	{ echo "FAIL: machine view: see $dir/machine*.txt"; exit 1; }
