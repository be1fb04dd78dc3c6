#!/bin/sh
# Runs `smtop demo NAME` in a detached tmux of W x H and captures the screen
# (plain and with colours) every few seconds into DIR: the screenshots of
# real sessions in screenshots/ come from here.
#   tests/gpu/live_capture.sh DIR [NAME] [SECONDS] [W] [H]
dir=$1
name=${2:-priority-vs-training}
secs=${3:-12}
w=${4:-160}
h=${5:-50}
mkdir -p "$dir"
rm -f "$dir/live-$name.smtop"
tmux kill-session -t smtop-cap 2>/dev/null
tmux new-session -d -s smtop-cap -x "$w" -y "$h" \
	"build/smtop demo $name --seconds $secs -o $dir/live-$name.smtop; sleep 2"
for t in 4 8; do
	sleep 4
	tmux capture-pane -p -t smtop-cap > "$dir/live-$name-$t.txt"
	tmux capture-pane -p -e -t smtop-cap > "$dir/live-$name-$t.ansi"
done
tmux send-keys -t smtop-cap n
sleep 1
tmux capture-pane -p -e -t smtop-cap > "$dir/live-$name-event.ansi"
tmux capture-pane -p -t smtop-cap > "$dir/live-$name-event.txt"
tmux send-keys -t smtop-cap q
sleep 5
tmux kill-session -t smtop-cap 2>/dev/null
grep -h "lag\|LIVE" "$dir/live-$name-4.txt" | head -3
