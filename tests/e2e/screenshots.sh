#!/bin/sh
# `make screenshots`: screens of the bundled H200 sessions, captured from the
# real binary in tmux (plain text, and ANSI colour in .ansi files).  The live
# screens (screenshots/live-*) come from tests/gpu/live_capture.sh on the H200.
cd "$(dirname "$0")/../.." || exit 1
T=smtop-shots-$$
# a server of its own, kept alive between shots (killing the last session
# would race its exit with the next shot's start)
export TMUX_TMPDIR=$(mktemp -d)
unset TMUX
trap 'tmux kill-server 2>/dev/null; rm -rf "$TMUX_TMPDIR"' EXIT
tmux new-session -d -s keep -x 20 -y 5 "sleep 600"
# until the pane shows ERE (at most 10 s): a loaded machine draws late
wait_screen() {
	for i in $(seq 100); do
		tmux capture-pane -p -t "$T" | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
}
shot() { # shot NAME FIXTURE KEYS...  (VIEW="replay --guided" for another command than open;
	# W and H for another size than 160x50; FIXTURE - for plain smtop, the bundled session)
	name=$1 fx=$2
	shift 2
	tmux kill-session -t "$T" 2>/dev/null
	if [ "$fx" = - ]; then cmd="build/smtop"; else cmd="build/smtop ${VIEW:-open} tests/fixtures/$fx"; fi
	tmux new-session -d -s "$T" -x "${W:-160}" -y "${H:-50}" "$cmd; sleep 5"
	wait_screen '(kernels|replay) [0-9]'
	sleep 1
	for k in "$@"; do tmux send-keys -t "$T" "$k"; sleep 0.3; done
	sleep 0.5
	tmux capture-pane -p -t "$T" > "screenshots/$name.txt"
	tmux capture-pane -p -e -t "$T" > "screenshots/$name.ansi"
	tmux send-keys -t "$T" q
	echo "screenshots/$name.txt"
}
# The session library: copies of the fixtures in a temporary XDG_DATA_HOME
# (smtop ls caches its summaries in the files it lists).
library_shot() { # library_shot NAME W H KEYS...
	name=$1 w=$2 h=$3
	shift 3
	xdg=$(mktemp -d /tmp/smtop-shots.XXXXXX)
	mkdir -p "$xdg/smtop/sessions"
	cp tests/fixtures/*.smtop "$xdg/smtop/sessions/"
	tmux kill-session -t "$T" 2>/dev/null
	tmux new-session -d -s "$T" -x "$w" -y "$h" "env XDG_DATA_HOME=$xdg build/smtop ls; sleep 5"
	wait_screen 'session library'
	sleep 0.5
	for k in "$@"; do tmux send-keys -t "$T" "$k"; sleep 0.3; done
	sleep 0.5
	tmux capture-pane -p -t "$T" | sed "s|$xdg|~/.local/share|" > "screenshots/$name.txt"
	tmux capture-pane -p -e -t "$T" | sed "s|$xdg|~/.local/share|" > "screenshots/$name.ansi"
	tmux send-keys -t "$T" q
	sleep 0.3
	rm -rf "$xdg"
	echo "screenshots/$name.txt"
}
mkdir -p screenshots
shot head-of-line head-of-line.smtop
shot priority-vs-training priority-vs-training.smtop w
shot kernel-details priority-vs-training.smtop w Tab Tab
shot help head-of-line.smtop '?'
# the sharing mechanisms: green contexts (disjoint SM sets), time-slicing and
# MPS (two processes)
shot green-contexts green-contexts.smtop
shot timeslice timeslice.smtop w
shot mps mps.smtop w
# PyTorch's own kernels, every block recorded with --sm all; w: its worst episode
shot sm-all-torch torch-sm-all.smtop
shot sm-all-torch-worst torch-sm-all.smtop w
# the head-of-line demo under --sm entry: block ends are bounds, the
# verdicts on them possible; w: its worst episode
shot head-of-line-entry head-of-line-entry.smtop w
# a training step under --sm entry (H100) whose launches outran the arena:
# the SMs under its drop ranges read ? (not recorded)
shot train-drops-entry drops/train-drops-entry.smtop
# a branching CUDA graph beside low-priority work, its edges read (--sm marked);
# w: its worst episode
shot graph-branch graph-branch.smtop w
# replays: n steps the clock to the first episode and pauses there (guided:
# the first stop, with its caption); Enter goes on to the next stop (in
# head-of-line, where its kernel starts)
VIEW="replay --speed 1e3" shot replay-priority-vs-training priority-vs-training.smtop n
VIEW="replay --guided --speed 1e3" shot guided-priority-vs-training priority-vs-training.smtop n
VIEW="replay --guided --speed 1e3" shot guided-head-of-line head-of-line.smtop n
VIEW="replay --guided --speed 10" shot guided-head-of-line-starts head-of-line.smtop Enter
# two H200s: the second GPU's SMs (one GPU is drawn at a time)
VIEW="open --device 1" shot two-gpus-device-1 two-gpus.smtop
library_shot session-library 160 13 j j
# The first minute of a new user on three terminal sizes: plain smtop (no GPU
# here: the bundled session), its worst episode, a replay's status line
W=80 H=24 shot first-80x24 -
W=80 H=24 shot first-worst-80x24 - w
W=120 H=40 shot first-worst-120x40 - w
W=200 H=50 shot first-worst-200x50 - w
W=200 H=50 VIEW="replay --speed 1e3" shot replay-200x50 priority-vs-training.smtop n
# the report, as text (times from the start, short names)
for fx in priority-vs-training torch-sm-all; do
	tmp=$(mktemp /tmp/smtop-shots.XXXXXX)
	cp tests/fixtures/$fx.smtop "$tmp"
	build/smtop report "$tmp" --explain --top 3 -q | sed "s|$tmp|tests/fixtures/$fx.smtop|" > "screenshots/report-$fx.txt"
	rm -f "$tmp"*
	echo "screenshots/report-$fx.txt"
done
tmux kill-session -t "$T" 2>/dev/null
