#!/bin/sh
# Runs `smtop demo NAME` in a detached tmux of W x H and captures the screen
# (plain and with colours) every few seconds into DIR: the screenshots of
# real sessions in screenshots/ come from here.
#   tests/gpu/live_capture.sh DIR [NAME] [SECONDS] [W] [H]
# SMTOP_LIVE_CMD, when set, runs instead of the demo (for example
# `build/smtop run --sm all -o DIR/live-NAME.smtop -- python3 ...`);
# SMTOP_LIVE_DELAY seconds pass before the captures begin (a workload slow
# to start).
dir=$1
name=${2:-priority-vs-training}
secs=${3:-12}
w=${4:-160}
h=${5:-50}
mkdir -p "$dir"
rm -f "$dir/live-$name.smtop"
tmux kill-session -t smtop-cap 2>/dev/null
tmux new-session -d -s smtop-cap -x "$w" -y "$h" \
	"${SMTOP_LIVE_CMD:-build/smtop demo $name --seconds $secs -o $dir/live-$name.smtop}; sleep 2"
# The header's "LIVE (lag X)" every 0.25 s: the lag the viewer shows while
# the workload runs (docs/performance.md).
: > "$dir/live-$name-lag.txt"
sleep "${SMTOP_LIVE_DELAY:-0}"
i=0
while [ $i -lt 32 ]; do
	sleep 0.25
	tmux capture-pane -p -t smtop-cap | head -1 | sed -n 's/.*LIVE (lag \([^)]*\)).*/\1/p' >> "$dir/live-$name-lag.txt"
	i=$((i + 1))
	case $i in
	16|32) tmux capture-pane -p -t smtop-cap > "$dir/live-$name-$((i / 4)).txt"
	       tmux capture-pane -p -e -t smtop-cap > "$dir/live-$name-$((i / 4)).ansi" ;;
	esac
done
tmux send-keys -t smtop-cap n
sleep 1
tmux capture-pane -p -e -t smtop-cap > "$dir/live-$name-event.ansi"
tmux capture-pane -p -t smtop-cap > "$dir/live-$name-event.txt"
tmux send-keys -t smtop-cap q
sleep 5
tmux kill-session -t smtop-cap 2>/dev/null
echo "lag samples (0.25 s apart): $(tr '\n' ' ' < "$dir/live-$name-lag.txt")"
