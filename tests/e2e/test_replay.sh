#!/bin/sh
# smtop replay in tmux on sessions recorded on the H200: the clock plays,
# pauses, steps block by block and episode by episode, changes speed, stops
# at guided moments; blocks appear as it goes; bad input gets one line.
. tests/e2e/lib.sh
FX=$(pwd)/tests/fixtures
NS=$FX/nsys
T=$TUI
cap() { tui_cap; }
status() { cap | tail -1; }
keys() { for k in "$@"; do tmux send-keys -t "$T" "$k"; sleep 0.2; done; sleep 0.4; }
# key K: sends K and waits (up to 10 s, for loaded machines) until the status line changes
key() {
	before=$(status)
	tmux send-keys -t "$T" "$1"
	i=0
	while [ "$(status)" = "$before" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.2
}
# wait_for PATTERN: until the screen shows it (up to 10 s)
wait_for() {
	i=0
	while ! cap | grep -q -- "$1" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
start() { tui_start "$@"; } # start W H CMD...
# the replay clock (ms from the session's start) and the block count, from the status line
clock_of() { printf '%s' "$1" | sed -n 's/.*replay \([0-9.]*\) ms.*/\1/p'; }
blocks_of() { printf '%s' "$1" | sed -n 's/.* blocks \([0-9,]*\).*/\1/p' | tr -d ,; }
# cells of the SM view holding some stream's letter
busy_cells() { cap | sed -n '3,35p' | sed 's/││.*//' | tr -cd 'A-Za-z' | wc -c; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

start 160 50 "$SMTOP" replay "$FX/priority-vs-training.smtop" --speed 2e3
wait_for "replay .* ms"
s1=$(status)
c1=$(busy_cells)
check "status line shows the replay clock and speed" contains "$s1" "replay .* ms · x2000 (1 us = 2.00 ms) · playing"
check "header says REPLAY" contains "$(cap | head -1)" "REPLAY"
check "the lesson of the scenario is beside the view" contains "$(cap)" "lesson: priority-vs-training"
sleep 2
s2=$(status)
c2=$(busy_cells)
check "the clock advances while playing" lt "$(clock_of "$s1")" "$(clock_of "$s2")"
check "blocks appear over time (status count)" lt "$(blocks_of "$s1")" "$(blocks_of "$s2")"
check "blocks appear over time (SM cells)" lt "$c1" "$c2"
key ' '
p1=$(status)
check "space pauses" contains "$p1" "· paused ·"
sleep 1
check "paused: the clock stays" test "$(clock_of "$p1")" = "$(clock_of "$(status)")"
key .
d1=$(status)
check ". steps to the next block start" lt "$(clock_of "$p1")" "$(clock_of "$d1")"
check ". keeps the replay paused" contains "$d1" "paused"
check "a step never loses blocks" sh -c '[ "$1" -le "$2" ]' _ "$(blocks_of "$p1")" "$(blocks_of "$d1")"
key .
key .
d3=$(status)
key ,
d4=$(status)
check ", steps back to a block start" lt "$(clock_of "$d4")" "$(clock_of "$d3")"
check ", goes back no further than the last start" lt "$(clock_of "$d1")" "$(clock_of "$d4")"
key n
e1=$(status)
check "n steps to the next episode" lt "$(clock_of "$d4")" "$(clock_of "$e1")"
check "n: the episode shows in the events" contains "$(cap)" ">.*INVERSION"
key n
check "n again: a later episode" lt "$(clock_of "$e1")" "$(clock_of "$(status)")"
key N
check "N: back to the earlier one" test "$(clock_of "$e1")" = "$(clock_of "$(status)")"
key '>'
check "> doubles the speed" contains "$(status)" "x4000"
key '<'
key '<'
check "< halves it" contains "$(status)" "x1000 (1 us = 1.00 ms)"
keys e
check "e hides the lesson" sh -c '! tmux capture-pane -p -t '"$T"' | grep -q "lesson: priority"'
keys e
key r
check "r stops the replay: the whole session" contains "$(cap | head -1)" "saved session"
keys q
wait_for "EXIT="
s=$(cap)
check "q quits with status 0" contains "$s" "EXIT=0"
check "terminal restored" sh -c '! printf "%s" "$1" | grep -q "┌"' _ "$s"

# Guided: the replay pauses with a caption at the first inversion.
start 160 50 "$SMTOP" replay "$FX/head-of-line.smtop" --speed 100 --guided
wait_for "Stop 1 of"
g=$(cap)
check "guided: stops at the first inversion" contains "$g" "Stop 1 of .* at"
check "guided: the caption explains it" contains "$g" "cannot preempt"
check "guided: the status line says which stop" contains "$(status)" "stop 1 of"
key Enter
check "Enter goes on" contains "$(status)" "playing"
keys q

# smtop open: g starts a guided replay of the saved session (n: on to the
# first stop); narrow screens get the caption over the events.
start 100 30 "$SMTOP" open "$FX/head-of-line.smtop"
key g
check "open, g: a guided replay" contains "$(cap | head -1)" "REPLAY"
key n
wait_for "guided replay"
check "narrow: the caption box over the events" contains "$(cap)" "guided replay"
keys r q
wait_for "EXIT="
check "open: quits cleanly after a replay" contains "$(cap)" "EXIT=0"

# Several files replay as one view: smtop replay FILE FILE, and space in
# smtop open FILE FILE.
start 160 48 "$SMTOP" replay "$NS/nsys-3.16.1.sqlite" "$NS/nsys-3.28.1.sqlite" --speed 2e4
wait_for "replay .* ms"
s1=$(status)
check "two files: the lesson panel says there is none" contains "$(cap)" "lesson: none"
key e
check "two files: one replay of both" contains "$(cap | head -1)" "+ 1 more files · REPLAY"
check "two files: both processes' streams" sh -c "[ \$(tmux capture-pane -p -t $T | grep -c ' s13 ') -ge 2 ]"
sleep 1
check "two files: the clock advances" lt "$(clock_of "$s1")" "$(clock_of "$(status)")"
key r
check "two files: r shows the whole of both" contains "$(status)" "kernels 78 "
keys q
wait_for "EXIT="
check "two files: quits with status 0" contains "$(cap)" "EXIT=0"
start 160 48 "$SMTOP" open "$NS/nsys-3.16.1.sqlite" "$NS/nsys-3.28.1.sqlite"
key ' '
check "two files in open: space replays them" contains "$(cap | head -1)" "+ 1 more files · REPLAY"
keys q

# o during a replay: the session list over it; back, the replay waits paused.
mkdir -p "$E2E_TMP/xdg"
start 160 50 env XDG_DATA_HOME="$E2E_TMP/xdg" "$SMTOP" replay "$FX/head-of-line.smtop" --speed 1e4
wait_for "playing"
keys o
check "o during a replay shows the session list" contains "$(cap)" "session library"
keys q
wait_for "REPLAY"
p1=$(status)
check "back from the list, the replay is paused" contains "$p1" "· paused"
sleep 0.5
check "... and its clock stays" test "$(clock_of "$p1")" = "$(clock_of "$(status)")"
keys q
wait_for "EXIT="
check "quits with status 0 after the list" contains "$(cap)" "EXIT=0"
tui_end

err=$(script -qc "$SMTOP replay $FX/no-such.smtop" /dev/null 2>&1 | tr -d '\r')
check "missing file: names it" contains "$err" "no-such.smtop"
check "missing file: one line" one_line "$(printf '%s\n' "$err" | grep .)"
"$SMTOP" replay "$FX/head-of-line.smtop" --speed 0 > /dev/null 2> "$E2E_TMP/err"
check "speed out of range: usage error" test $? -eq 2
check "speed out of range: one line" one_line "$(cat "$E2E_TMP/err")"
err=$("$SMTOP" replay "$FX/head-of-line.smtop" < /dev/null 2>&1 > /dev/null)
check "not a terminal: clear error" contains "$err" "needs a terminal"
printf 'not a session' > "$E2E_TMP/bad.smtop"
err=$(script -qc "$SMTOP replay $E2E_TMP/bad.smtop" /dev/null 2>&1 | tr -d '\r')
check "not a session: one line naming the file" contains "$err" "bad.smtop"

# --help, the man page and the README name the same replay keys and options.
help=$("$SMTOP" --help)
for k in '< >' '. ,' 'n N' 'g guided' 'e lesson' '--speed X' '--guided'; do
	check "--help names $k" contains "$help" "$k"
done
man_keys() {
	for k in '.BR < " " >' '.BR . " " ,' '.B r' '.B g' '.B e' '.BI \-\-speed " X"' '.B \-\-guided'; do
		grep -qxF -- "$k" docs/smtop.1 || { echo "  man page lacks: $k"; return 1; }
	done
}
check "man page: every replay key and option" man_keys
check "README: Replay and Guided lessons" sh -c 'grep -q "^## Replay" README.md && grep -q "^## Guided lessons" README.md'

e2e_done
