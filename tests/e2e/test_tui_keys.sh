#!/bin/sh
# Every key of the help screen (ui/help.c) and of smtop(1)'s KEYS, and mouse
# clicks, on the real binary in tmux with a session recorded on the H200
# (the replay keys beyond space and r: test_replay.sh; o: test_library.sh):
# each one with an effect on the screen asserted.
. tests/e2e/lib.sh
FX=$(pwd)/tests/fixtures

active_pane() { tui_cap | grep -o '[┌├] \*[a-zA-Z]*' | head -1 | sed 's/.* \*//'; }
sel_sm() { tui_cap | grep -o '^│>\( *[0-9]*-[0-9]*\|SM *[0-9]*\)' | sed 's/^│> *//'; }
sel_lane() { tui_cap | grep -o '^│>[A-Z+] s[0-9]*' | sed 's/^│>//'; }
sel_event() { tui_cap | grep -o '^│> *[0-9.]*ms' | sed 's/^│> *//'; }
footer() { tui_cap | tail -1; }
# 0-based screen row of the first line matching ERE
row_of() { tui_cap | grep -n -E -- "$1" | head -1 | cut -d: -f1 | awk '{ print $1 - 1 }'; }
# 0-based column of the first CHAR at or after column FROM on row ROW
col_of() { # col_of ROW CHAR FROM
	tui_cap | sed -n "$(($1 + 1))p" | python3 -c '
import sys
line, ch, start = sys.stdin.read().rstrip("\n"), sys.argv[1], int(sys.argv[2])
print(line.index(ch, start))' "$2" "$3"
}
lt() { [ "$1" -lt "$2" ]; }
le() { [ "$1" -le "$2" ]; }
eq() { [ "$1" = "$2" ]; }
ne() { [ "$1" != "$2" ]; }

tui_start 160 50 "$SMTOP" open "$FX/priority-vs-training.smtop"
tui_wait 'saved session'
W0s=$(win_us start) W0e=$(win_us end) S0=$(scale)
check "whole session at start ($W0s-$W0e us, $S0/col)" sh -c "[ $W0s -eq 0 ] && [ $W0e -ge 40000 ]"

# ---- pan: arrows, h l, H L, PgUp PgDn, Home End --------------------------------
tui_keys Right
check "Right pans later ($(win_us start) us)" lt "$W0s" "$(win_us start)"
tui_keys Left
check "Left pans back" eq "$(win_us start)" "$W0s"
tui_keys l
check "l pans later" lt "$W0s" "$(win_us start)"
tui_keys h
check "h pans back" eq "$(win_us start)" "$W0s"
before=$(tui_cap)
tui send-keys -t "$TUI" h; sleep 0.5
check "h at the first record stays there" eq "$(tui_cap)" "$before"
tui_keys + + +
start=$(win_us start) end=$(win_us end)
tui_keys L
check "L pans a whole window (starts where it ended)" eq "$(win_us start)" "$end"
tui_keys H
check "H pans a whole window back" eq "$(win_us start)" "$start"
tui_keys PageDown
check "PgDn pans a whole window" eq "$(win_us start)" "$end"
tui_keys PageUp
check "PgUp pans a whole window back" eq "$(win_us start)" "$start"
tui_keys End
# the session spans 39.581 ms (smtop info: GPU span)
check "End shows the session's end ($(win_us end) us)" sh -c "[ $(win_us end) -le $W0e ] && [ $(win_us end) -ge 39581 ] && [ $(win_us start) -gt 0 ]"
tui_keys Home
check "Home shows its start" eq "$(win_us start)" "0"

# ---- zoom: + down to 1 us per column, - up to the whole session, = -----------
n=0
while [ "$(scale)" != "1.0 us" ] && [ $n -lt 30 ]; do tui_keys +; n=$((n + 1)); done
check "+ zooms down to 1 us per column ($n presses)" eq "$(scale)" "1.0 us"
bins=$(hdr | sed -n 's/.*bins \([0-9.]*\) us.*/\1/p')
check "1 us columns are drawn from blocks (bins ${bins} us)" awk "BEGIN { exit !(\"$bins\" != \"\" && $bins <= 1.0) }"
before=$(tui_cap)
tui send-keys -t "$TUI" +; sleep 0.5
check "+ stops at 1 us per column" eq "$(tui_cap)" "$before"
n=0
while [ "$(scale)" != "$S0" ] && [ $n -lt 30 ]; do tui_keys -; n=$((n + 1)); done
check "- zooms out to the whole session's scale ($n presses)" eq "$(scale)" "$S0"
check "- ends on the whole session" sh -c "[ $(win_us start) -eq $W0s ] && [ $(win_us end) -eq $W0e ]"
before=$(tui_cap)
tui send-keys -t "$TUI" -; sleep 0.5
check "- stops at the whole session" eq "$(tui_cap)" "$before"
tui_keys + + + + l
tui_keys =
check "= shows the whole session" sh -c "[ '$(scale)' = '$S0' ] && [ $(win_us start) -eq $W0s ]"

# ---- events: n N w, Tab, Enter ----------------------------------------------
tui_keys n
check "n selects the first event ($(sel_event))" eq "$(sel_event)" "3.076ms"
tui_keys n
check "n selects the next one" eq "$(sel_event)" "4.460ms"
tui_keys N
check "N selects the previous one" eq "$(sel_event)" "3.076ms"
check "n makes the events pane active" eq "$(active_pane)" "events"
check "the details show the episode's culprit" contains "$(tui_cap)" "% B:gemm_kernel, 509 blocks"
tui_keys w
# the worst inversion is ready 9,892.5 us into the session
check "w selects the worst inversion" eq "$(sel_event)" "9.893ms"
check "w shows how long it waited" contains "$(tui_cap)" "A:gemm_kernel waited 1.52 ms"
check "w makes the events pane active" eq "$(active_pane)" "events"
tui_keys = + + + + Home
check "zoomed in at the start, the event is out of view" lt "$(win_us end)" 9892
tui_keys Enter
check "Enter on an event moves the window to it ($(win_us start)-$(win_us end) us)" \
	sh -c "[ $(win_us start) -le 9892 ] && [ $(win_us end) -ge 9893 ]"
tui_keys Tab
check "Tab: events -> SMs" eq "$(active_pane)" "SMs"
tui_keys Tab
check "Tab: SMs -> streams" eq "$(active_pane)" "streams"
tui_keys Tab
check "Tab: streams -> events" eq "$(active_pane)" "events"
tui_keys BTab
check "Shift-Tab: back to streams" eq "$(active_pane)" "streams"

# ---- selection: arrows and j k in each pane ---------------------------------
tui_keys =
lane=$(sel_lane)
tui_keys Down
check "Down moves to the next stream ($lane -> $(sel_lane))" sh -c "[ '$lane' = 'A s13' ] && [ '$(sel_lane)' = 'B s14' ]"
check "the streams pane shows the kernel there" contains "$(tui_cap)" "│ B:gemm_kernel"
tui_keys Up
check "Up moves back" eq "$(sel_lane)" "A s13"
tui_keys j
check "j moves to the next stream" eq "$(sel_lane)" "B s14"
tui_keys k
check "k moves back" eq "$(sel_lane)" "A s13"
corr() { tui_cap | grep -o 'corr [0-9]*'; }
tui_keys + + + +
c1=$(corr)
tui_keys l l l l
check "panning keeps the selected kernel" eq "$(corr)" "$c1"
tui_keys Enter
check "Enter in the streams pane selects the kernel at the centre ($c1 -> $(corr))" ne "$(corr)" "$c1"
tui_keys Tab Tab
check "SM pane: row 0-3 selected" eq "$(sel_sm)" "0-3"
tui_keys j
check "j selects the next SM row" eq "$(sel_sm)" "4-7"
check "the details follow the SM row" contains "$(tui_cap)" "SMs 4-7 over the window"
tui_keys Down Down
check "Down selects the next SM row" eq "$(sel_sm)" "12-15"
tui_keys k Up
check "k and Up select earlier rows" eq "$(sel_sm)" "4-7"
tui_keys Enter
check "Enter on an SM row: one SM per row" contains "$(tui_cap)" "SMs, one per row"
check "... starting at the row's first SM" eq "$(sel_sm)" "SM   4"
tui_keys j
check "j moves to the next SM" eq "$(sel_sm)" "SM   5"
tui_keys Escape
check "Esc goes back to groups" contains "$(tui_cap)" "SMs, 4 per row"
tui_keys Enter Enter
check "Enter goes back too" contains "$(tui_cap)" "SMs, 4 per row"

# ---- search and filter -------------------------------------------------------
tui_keys /
check "/ opens the search prompt" contains "$(footer)" "search kernels: /_"
# 17 bn_bwd_apply_kernel on stream B
tui_type "bn_bwd_apply"
check "the prompt shows what is typed" contains "$(footer)" "/bn_bwd_apply_"
tui_keys BSpace
check "Backspace removes a character" contains "$(footer)" "/bn_bwd_appl_"
tui_type "y"
tui_keys Enter
check "Enter finds the kernel and shows its details" contains "$(tui_cap)" "│ B:bn_bwd_apply_kernel"
check "a search hit makes the streams pane active" eq "$(active_pane)" "streams"
c1=$(corr)
tui_keys /
tui_type "bn_bwd_apply"
tui_keys Enter
check "searching again finds the next match ($c1 -> $(corr))" ne "$(corr)" "$c1"
check "... of the same name" contains "$(tui_cap)" "│ B:bn_bwd_apply_kernel"
tui_keys / z z z Enter
check "no match says so" contains "$(footer)" 'no kernel matches "zzz"'
tui_keys / x Escape
check "Esc leaves the prompt" lacks "$(footer)" "search kernels"
tui_keys f
check "f opens the stream filter" contains "$(footer)" "filter: press a stream's letter"
tui_keys b
check "a letter hides that stream's lane" lacks "$(tui_cap)" "│ B s14 p0"
tui_keys '*'
check "* shows every stream again" contains "$(tui_cap)" "B s14 p0"
tui_keys a Enter
check "Enter ends the filter" lacks "$(footer)" "filter:"
check "... and the lane stays hidden" lacks "$(tui_cap)" "│ A s13 p-5"
tui_keys f '*' Escape

# ---- dense view, replay, help, quit ------------------------------------------
tui_keys m
check "m: dense SM view (half blocks)" contains "$(tui_cap)" "▀"
tui_keys m
check "m again: letters" lacks "$(tui_cap)" "▀"
# space replays a saved session from the window's start (ui/replay_player.c; every
# replay key is in test_replay.sh); the replay clock, in us, from the footer
rclock() { footer | sed -n 's/.*replay \([0-9.]*\) ms.*/\1/p' | awk '{ printf "%d\n", $1 * 1000 }'; }
tui_keys + + + l
s1=$(win_us start)
tui send-keys -t "$TUI" Space
tui_wait 'REPLAY' 2
check "space replays a saved session" contains "$(hdr)" "REPLAY"
c1=$(rclock) e1=$(win_us end)
# (the header rounds the start to 0.1 ms at this scale: 2.997 ms reads 3.0ms)
check "... from the window's start ($s1 us, clock $c1 us)" sh -c "[ $c1 -ge $((s1 - 50)) ] && [ $c1 -lt $((s1 + 3000)) ]"
sleep 0.6
c2=$(rclock)
check "... and the clock moves on by itself ($c1 -> $c2 us)" lt "$c1" "$c2"
check "... and the window with it ($e1 -> $(win_us end) us)" lt "$e1" "$(win_us end)"
tui send-keys -t "$TUI" Space
tui_wait 'paused' 2
check "space again pauses" contains "$(footer)" "paused"
c3=$(rclock) s3=$(win_us start)
sleep 0.5
check "... and the clock stays" eq "$(rclock)" "$c3"
check "... and the window too" eq "$(win_us start)" "$s3"
tui_keys r
check "r ends the replay: the whole session again" sh -c "[ '$(scale)' = '$S0' ] && [ $(win_us start) -eq $W0s ] && [ $(win_us end) -eq $W0e ]"
check "... saved, not replaying" contains "$(hdr)" "saved session"
tui_keys '?'
check "? shows the help" contains "$(tui_cap)" "help: keys"
check "the help lists the keys" contains "$(tui_cap)" "n / N           next / previous event"
tui_keys '?'
check "? again closes it" lacks "$(tui_cap)" "help: keys"
tui_keys '?' q
check "q closes the help first" lacks "$(tui_cap)" "help: keys"
check "... and does not quit" lacks "$(tui_cap)" "EXIT="
tui_keys q
tui_wait 'EXIT=' 3
s=$(tui_cap)
check "q quits with status 0" contains "$s" "EXIT=0"
check "the terminal is restored" lacks "$s" "┌"

# ---- space on a live session: pause and follow again ------------------------
# A session whose recording has not ended reads as live; one that names its
# recorder (as the fixtures do) reads as incomplete once that process is gone,
# so the copy names none.
cp "$FX/head-of-line.smtop" "$E2E_TMP/live.smtop"
sqlite3 "$E2E_TMP/live.smtop" "UPDATE smtop_meta SET value = '0' WHERE key = 'ended';
	DELETE FROM smtop_meta WHERE key = 'recorder'"
tui_start 132 50 "$SMTOP" open "$E2E_TMP/live.smtop"
tui_wait 'LIVE'
end=$(win_us end)
tui_keys Space
check "space pauses a live session" contains "$(hdr)" "(paused)"
tui_keys + + + Home
check "paused, the window can leave the newest data ($(win_us end) us)" lt "$(win_us end)" $((end - 10000))
tui_keys Space
check "space again follows the newest data ($(win_us end) us)" sh -c "[ $(win_us end) -ge $((end - 1000)) ] && ! tmux capture-pane -p -t $TUI | head -1 | grep -q paused"
check "... and says so" contains "$(footer)" "following live data"
tui_keys q

# ---- mouse -------------------------------------------------------------------
# ncurses decodes the encoding the terminal type names: X10 under tmux's
# TERM (kmous=\E[M), SGR 1006 under xterm's (kmous=\E[<).
for enc in x10 sgr; do
	term=tmux-256color
	[ $enc = sgr ] && term=xterm-256color
	tui_start 160 50 env TERM=$term "$SMTOP" open "$FX/head-of-line.smtop"
	tui_wait 'saved session'
	y=$(row_of '^│ B s13 p0')
	x=$(col_of "$y" '█' 20)
	tui_click "$x" "$y" $enc
	check "$enc click on a kernel bar selects it" contains "$(tui_cap)" "│ B:hol_long_kernel"
	check "$enc click on a bar activates the streams pane" eq "$(active_pane)" "streams"
	y=$(row_of '^│  40-43')
	tui_click 40 "$y" $enc
	check "$enc click on an SM row selects it" eq "$(sel_sm)" "40-43"
	check "$enc SM details follow" contains "$(tui_cap)" "SMs 40-43 over the window"
	tui_keys Enter
	y=$(row_of '^│ SM  45 ')
	tui_click 60 "$y" $enc
	check "$enc click in the one-SM-per-row view selects that SM" eq "$(sel_sm)" "SM  45"
	check "$enc its details name it" contains "$(tui_cap)" "SM 45 over the window"
	tui_keys Escape
	y=$(row_of '^│ +2\.142ms')
	tui_click 20 "$y" $enc
	check "$enc click on an event row selects it" eq "$(sel_event)" "2.142ms"
	check "$enc the details show that episode" contains "$(tui_cap)" "│ ready 2.142ms  started 20.075ms"
	tui_keys q
	tui_wait 'EXIT=' 3
	check "$enc run quits cleanly" contains "$(tui_cap)" "EXIT=0"
done
tui_end

e2e_done
