#!/bin/sh
# The live view of `smtop demo NAME --sm entry` (SMTOP_ENTRY_MARKS=0: the
# demos' ends bounded, as an unmarked program's) between exact windows and
# during one: runs it in a detached tmux of W x H with a window of 400 ms
# every 2 s, captures the screen every 0.1 s, and keeps in DIR the first
# capture that shows the window's "exact block ends" range and one after a
# window that does not (live-windows-in, live-windows-out; .txt and .ansi),
# then asks for a window with x and keeps the answer (live-windows-key).
#   tests/gpu/live_windows.sh DIR [NAME] [W] [H]
dir=$1
name=${2:-priority-vs-training}
w=${3:-132}
h=${4:-43}
tmp=$dir/live-windows-captures
mkdir -p "$dir" "$tmp"
rm -f "$dir/live-windows.smtop" "$tmp"/*
tmux kill-session -t smtop-win 2>/dev/null
tmux new-session -d -s smtop-win -x "$w" -y "$h" \
	"SMTOP_ENTRY_MARKS=0 build/smtop demo $name --sm entry --exact-every 2s --exact-for 400ms --seconds 14 -o $dir/live-windows.smtop; sleep 3"
i=0
while [ $i -lt 90 ]; do
	sleep 0.1
	tmux capture-pane -p -t smtop-win > "$tmp/$i.txt"
	tmux capture-pane -p -e -t smtop-win > "$tmp/$i.ansi"
	i=$((i + 1))
done
tmux send-keys -t smtop-win x
sleep 0.3
tmux capture-pane -p -t smtop-win > "$dir/live-windows-key.txt"
tmux capture-pane -p -e -t smtop-win > "$dir/live-windows-key.ansi"
seen=
i=0
while [ $i -lt 90 ]; do
	if grep -q "exact block ends" "$tmp/$i.txt"; then
		[ -z "$seen" ] && cp "$tmp/$i.txt" "$dir/live-windows-in.txt" && cp "$tmp/$i.ansi" "$dir/live-windows-in.ansi"
		seen=$i
	elif [ -n "$seen" ] && [ ! -e "$dir/live-windows-out.txt" ]; then
		cp "$tmp/$i.txt" "$dir/live-windows-out.txt"
		cp "$tmp/$i.ansi" "$dir/live-windows-out.ansi"
	fi
	i=$((i + 1))
done
tmux send-keys -t smtop-win q
sleep 4
tmux kill-session -t smtop-win 2>/dev/null
echo "window seen in capture ${seen:-none}; key answer: $(tail -2 "$dir/live-windows-key.txt" | tr -s ' ')"
