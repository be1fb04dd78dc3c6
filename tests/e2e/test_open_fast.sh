#!/bin/sh
# A session of 100 M blocks (tests/bench/gen_session, finalised as record
# does) opens in the viewer within a second, shows its loading progress
# moving while keys still work, and ends fully loaded; its report prints at
# once from what the file keeps, and a report that reads every block shows
# its progress line on a terminal and never in a pipe.
# e2e: alone
. tests/e2e/lib.sh
GEN=$SMTOP_BUILD/bench/gen_session
if [ ! -x "$GEN" ]; then
	echo "  $GEN not built (make test builds it); skipped"
	exit 0
fi
F=$E2E_TMP/big.smtop
BLOCKS=${SMTOP_E2E_BLOCKS:-100M}
"$GEN" "$F" "$BLOCKS" > "$E2E_TMP/gen.txt" || { fail "gen_session $BLOCKS"; e2e_done; exit 1; }
check "the finalised session holds its occupancy summary" \
	test "$(sqlite3 "$F" 'SELECT count(*) FROM smtop_occupancy')" = 1

ms() { echo $(($(date +%s%N) / 1000000)); }
hdr() { tui_cap | head -1; }
pct() { hdr | sed -n 's/.*loading \([0-9]*\)%.*/\1/p'; }

tui has-session -t keep 2>/dev/null || tui new-session -d -s keep -x 20 -y 5 "sleep 3600"
t0=$(ms)
tui new-session -d -s "$TUI" -x 160 -y 50 "$SMTOP open $F; echo EXIT=\$?; sleep 120"
tui_wait "132 SMs" 5
t1=$(ms)
echo "  first frame after $((t1 - t0)) ms"
check "first frame within 1 s" test $((t1 - t0)) -lt 1000
s=$(tui_cap)
check "the first frame spans the whole session" contains "$(hdr)" "window 0.0s-2.5s"
check "it says it is loading" contains "$(hdr)" "loading"
check "every stream's lane at once" contains "$s" "H s20 p0"
check "stored verdicts at once" contains "$s" "BLOCKING"
tui_wait "loading [0-9]+%" 3
p1=$(pct)
sleep 1.5
p2=$(pct)
echo "  progress $p1% then $p2%"
check "the progress indicator moves" test "${p2:-100}" -gt "${p1:-0}"
check "time left is shown" contains "$(hdr)" "left"
before=$(hdr)
tui_keys +
check "a key is answered while loading" sh -c '[ "$(tmux capture-pane -p -t '"$TUI"' | head -1 | sed "s/loading.*window/window/")" != "$(printf "%s" "$1" | sed "s/loading.*window/window/")" ]' _ "$before"
tui_wait "saved session" 90
check "fully loaded, the header says so" contains "$(hdr)" "saved session"
check "every block counted" contains "$(tui_cap | tail -1)" "blocks 100.0 M"
tui_keys q
tui_wait "EXIT=" 5
check "q quits with status 0" contains "$(tui_cap)" "EXIT=0"
tui_end

# the command line: the finalised session keeps its report, which prints
# at once; another threshold reads every block, with a progress line on a
# terminal and nothing in a pipe
tui new-session -d -s "$TUI" -x 120 -y 10 "$SMTOP report $F > /dev/null; echo EXIT=\$?; sleep 60"
check "the stored report prints at once" tui_wait "EXIT=0" 3
check "the stored report reads no block" sh -c '! tmux capture-pane -p -t '"$TUI"' | grep -q "reading"'
tui_end
err=$("$SMTOP" report "$F" --threshold-us 30 2>&1 > /dev/null)
check "no progress line in a pipe" test -z "$err"
tui new-session -d -s "$TUI" -x 120 -y 10 "$SMTOP report $F --threshold-us 40 > /dev/null; echo EXIT=\$?; sleep 60"
check "report shows its progress on a terminal" tui_wait "smtop: reading big.smtop [0-9]+%" 10
tui_wait "EXIT=" 60
check "the progress line is gone at the end" sh -c '! tmux capture-pane -p -t '"$TUI"' | grep -q "reading big"'
tui_end
tui new-session -d -s "$TUI" -x 120 -y 10 "$SMTOP report -q $F --threshold-us 50 > /dev/null; echo EXIT=\$?; sleep 60"
sleep 1.5
check "-q silences it" sh -c '! tmux capture-pane -p -t '"$TUI"' | grep -q "reading"'
tui_wait "EXIT=" 60
tui_end
e2e_done
