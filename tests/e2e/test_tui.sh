#!/bin/sh
# The real binary in tmux on a session recorded on the H200: every key, resize,
# small terminals, NO_COLOR and ASCII, and the terminal restored on exit.
. tests/e2e/lib.sh
FX=$(pwd)/tests/fixtures
T=$TUI
cap() { tui_cap; }
keys() { tui_keys "$@"; }
start() { tui_start "$@"; }

start 160 50 "$SMTOP" open "$FX/priority-vs-training.smtop"
# the episodes come with the first poll or soon after (later on a loaded
# machine, under the sanitizers, beside another script)
tui_wait 'INVERSION' 10
s=$(cap)
check "header names the GPU" contains "$s" "NVIDIA H200 · 132 SMs"
check "saved session says so" contains "$s" "saved session"
check "all 132 SMs on one screen" contains "$s" "128-131"
check "legend maps letters to priorities" contains "$s" "prio -5"
check "events pane lists inversions" contains "$s" "INVERSION"
keys + + + -
check "zoom changes the scale" sh -c '! [ "$(tmux capture-pane -p -t '"$T"' | head -1)" = "$(printf "%s" "$1" | head -1)" ]' _ "$s"
keys w
check "w jumps to the worst episode" contains "$(cap)" "INVERSION"
keys n N Right Left l h j k Tab Tab Tab
keys ' '
check "space toggles following (a saved session replays)" sh -c 'tmux capture-pane -p -t '"$T"' | grep -Eq "paused|replaying"'
keys ' ' ?
check "? shows the keys" contains "$(cap)" "zoom"
keys Escape f
keys Escape / g e m m Enter
keys Enter
tmux resize-window -t "$T" -x 80 -y 24; sleep 0.5
check "80x24 still draws" contains "$(cap)" "SMs"
tmux resize-window -t "$T" -x 50 -y 12; sleep 0.5
check "too small says so" contains "$(cap)" "needs 80x24"
tmux resize-window -t "$T" -x 160 -y 50; sleep 0.5
for i in 1 2 3 4 5 6; do tmux resize-window -t "$T" -x $((60 + i * 15)) -y $((20 + i * 4)); done
sleep 0.5
keys q
s=$(cap)
check "q quits with status 0" contains "$s" "EXIT=0"
check "terminal restored (no box drawing left)" sh -c '! printf "%s" "$1" | grep -q "┌"' _ "$s"

start 120 40 env NO_COLOR=1 "$SMTOP" open --ascii "$FX/head-of-line.smtop"
s=$(cap)
check "ASCII mode draws no UTF-8 boxes" sh -c '! printf "%s" "$1" | grep -q "┌"' _ "$s"
check "ASCII mode still shows the SMs" contains "$s" "130-131"
keys q
check "ASCII run quits cleanly" contains "$(cap)" "EXIT=0"

start 120 40 "$SMTOP" open "$FX/head-of-line.smtop"
tmux send-keys -t "$T" C-c; sleep 0.8
check "Ctrl-C leaves cleanly" contains "$(cap)" "EXIT="
check "Ctrl-C restores the terminal" sh -c '! tmux capture-pane -p -t '"$T"' | grep -q "┌"'

# Two GPUs: one drawn at a time, the header says which; a GPU the session
# lacks is one line naming the file and the GPUs it has.
start 160 50 "$SMTOP" open --device 1 "$FX/two-gpus.smtop"
check "two GPUs: the header says which is drawn" contains "$(cap)" "GPU 1 of 2"
keys q
start 160 50 "$SMTOP" replay --device 1 "$FX/two-gpus.smtop"
check "two GPUs: a replay says which from its start" contains "$(cap)" "GPU 1 of 2"
keys q
start 160 50 "$SMTOP" open --device 3 "$FX/two-gpus.smtop"
s=$(cap)
check "two GPUs: a missing GPU named, with those there" contains "$s" "two-gpus.smtop: no GPU 3 in the session (GPUs: 0 1)"
check "two GPUs: a missing GPU exits 1" contains "$s" "EXIT=1"

# Plain smtop on a machine without a GPU opens the bundled session.
if [ ! -e /dev/nvidiactl ]; then
	start 160 50 "$SMTOP"
	check "no GPU: the bundled H200 session opens" contains "$(cap)" "bundled H200 session"
	keys q
fi
tmux kill-session -t "$T" 2>/dev/null

# PyTorch's own kernels (cuDNN, cuBLAS, ATen), every block recorded with
# --sm all: the SM rows are drawn, both streams in them.
start 160 50 "$SMTOP" open "$FX/torch-sm-all.smtop"
s=$(cap)
check "--sm all PyTorch session: blocks drawn" sh -c '! printf "%s" "$1" | grep -q "no block records"' _ "$s"
rows=$(printf '%s\n' "$s" | grep -E '^│ +[0-9]+-[0-9]+ ' | grep -c '[a-dA-D]')
check "--sm all PyTorch session: SM rows hold stream letters ($rows rows)" [ "$rows" -ge 20 ]
check "--sm all PyTorch session: the -5 stream in the legend" contains "$s" "prio -5"
keys q
tmux kill-session -t "$T" 2>/dev/null

# Episodes kept by smtop report (in the cache, for a session it cannot
# write) still say what set the victim's ready time.
cp "$FX/timeslice.smtop" "$E2E_TMP/kept.smtop"
"$SMTOP" report "$E2E_TMP/kept.smtop" -q > /dev/null
start 160 50 "$SMTOP" open "$E2E_TMP/kept.smtop"
tui_wait 'TIMESLICE' 10
keys w
check "kept episodes: the details say why it was ready" contains "$(cap)" "why: the host submitted it"
keys q
tmux kill-session -t "$T" 2>/dev/null

err=$("$SMTOP" open "$FX/head-of-line.smtop" < /dev/null 2>&1 > /dev/null)
check "not a terminal: clear error" contains "$err" "needs a terminal"
check "not a terminal: one line" one_line "$err"

e2e_done
