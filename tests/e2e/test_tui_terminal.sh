#!/bin/sh
# The real viewer against its terminal, in tmux, on sessions recorded on the
# H200: resizes down to below 80x24, colours (NO_COLOR, 8 colours, none),
# ASCII (--ascii, a C locale), terminals it cannot use, no terminal at all,
# and the terminal restored on every way out.
. tests/e2e/lib.sh
FX=$(pwd)/tests/fixtures
HOL=$FX/head-of-line.smtop
ESC=$(printf '\033')
eq() { [ "$1" = "$2" ]; }
alive() { kill -0 "$(tui_pid)" 2>/dev/null && lacks "$(tui_cap)" "EXIT="; }
# The SGR parameters of the screen that set a colour (39/49, "default", do not).
colour_params() {
	tui_cap_sgr | grep -o "$ESC\[[0-9;]*m" | sed "s/^$ESC\[//; s/m\$//" | tr ';' '\n' |
		grep -Ex '3[0-8]|4[0-8]|9[0-7]|10[0-7]' | sort -u | tr '\n' ' '
}
sgr_params() {
	tui_cap_sgr | grep -o "$ESC\[[0-9;]*m" | sed "s/^$ESC\[//; s/m\$//" | tr ';' '\n' | sort -u | tr '\n' ' '
}
has_param() { printf ' %s' "$1" | grep -q " $2 "; }
ascii_only() { ! printf '%s' "$1" | LC_ALL=C grep -q '[^[:print:][:space:]]'; }

# ---- resize -----------------------------------------------------------------
tui_start 160 50 "$SMTOP" open "$HOL"
tui_wait 'saved session'
end0=$(win_us end)
tui resize-window -t "$TUI" -x 80 -y 24
tui_wait 'SMs, 12 per row'
check "80x24 draws every SM (12 per row)" contains "$(tui_cap)" "120-131"
check "80x24 still shows the whole session ($(win_us start)-$(win_us end) us)" \
	sh -c "[ $(win_us start) -eq 0 ] && [ $(win_us end) -ge $end0 ]"
for size in 79x24 80x23 60x20 40x10 20x5; do
	tui resize-window -t "$TUI" -x "${size%x*}" -y "${size#*x}"
	tui_wait "80x24.*$size" 2
	check "$size says it is too small, and its size" contains "$(tui_cap)" "$size"
	check "$size: still running" alive
done
for size in 10x3 2x2 1x1; do
	tui resize-window -t "$TUI" -x "${size%x*}" -y "${size#*x}"
	sleep 0.3
	check "$size: still running" alive
done
tui resize-window -t "$TUI" -x 200 -y 60
tui_wait 'SMs, 3 per row' 2
check "200x60 draws the screen again" contains "$(tui_cap)" "NVIDIA H200 · 132 SMs"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	tui resize-window -t "$TUI" -x $((30 + i * 13)) -y $((8 + i * 4))
done
tui resize-window -t "$TUI" -x 132 -y 50
tui_wait 'SMs, 4 per row' 2
check "a burst of resizes ends on a whole screen" contains "$(tui_cap)" "128-131"
tui resize-window -t "$TUI" -x 60 -y 20
tui_wait 'needs 80x24' 2
tui_keys q
tui_wait 'EXIT=' 3
check "q quits from the too-small screen, status 0" contains "$(tui_cap)" "EXIT=0"

# ---- colours -----------------------------------------------------------------
tui_start 132 50 "$SMTOP" open "$HOL"
tui_wait 'saved session'
p=$(colour_params)
check "colour: inversions white on red ($p)" sh -c "printf ' %s' '$p' | grep -q ' 41 ' && printf ' %s' '$p' | grep -q ' 37 '"
check "colour: full cells black on the stream's colour" sh -c "printf ' %s' '$p' | grep -q ' 30 ' && printf ' %s' '$p' | grep -Eq ' 4[2-6] '"
tui_keys q

tui_start 132 50 env NO_COLOR=1 "$SMTOP" open "$HOL"
tui_wait 'saved session'
check "NO_COLOR: no colour at all ($(colour_params))" eq "$(colour_params)" ""
p=$(sgr_params)
check "NO_COLOR: inversions in reverse video, full cells bold ($p)" sh -c "printf ' %s' '$p' | grep -q ' 7 ' && printf ' %s' '$p' | grep -q ' 1 '"
check "NO_COLOR: the same text" contains "$(tui_cap)" "B s13 prio 0"
tui_keys q

tui_start 132 50 env TERM=xterm "$SMTOP" open "$HOL"
tui_wait 'saved session'
p=$(colour_params)
check "TERM=xterm (8 colours): colours ($p)" sh -c "printf ' %s' '$p' | grep -q ' 41 '"
check "TERM=xterm: only the 8 basic colours" sh -c "! printf ' %s' '$p' | grep -Eq ' (9[0-7]|10[0-7]|38|48) '"
tui_keys q
tui_wait 'EXIT=' 3
check "TERM=xterm quits cleanly" contains "$(tui_cap)" "EXIT=0"

tui_start 132 50 env TERM=vt100 "$SMTOP" open "$HOL"
tui_wait 'saved session'
check "TERM=vt100 (no colours): monochrome" eq "$(colour_params)" ""
check "TERM=vt100: inversions in reverse video" has_param "$(sgr_params)" 7
tui_keys q

# ---- ASCII ------------------------------------------------------------------
tui_start 132 50 "$SMTOP" open --ascii "$HOL"
tui_wait 'saved session'
s=$(tui_cap)
check "--ascii: only ASCII on the screen" ascii_only "$s"
check "--ascii: boxes of + - |" contains "$s" "+ \*SMs, 4 per row ---"
check "--ascii: the inversions still marked" contains "$s" "BBB!!!!"
tui_keys q

tui_start 132 50 env LC_ALL=C "$SMTOP" open "$HOL"
tui_wait 'saved session'
check "a C locale draws ASCII by itself" ascii_only "$(tui_cap)"
tui_keys q
tui_wait 'EXIT=' 3
check "the C-locale run quits cleanly" contains "$(tui_cap)" "EXIT=0"

# ---- terminals it cannot use, and none ---------------------------------------
tui_start 100 30 env TERM=no-such-terminal "$SMTOP" open "$HOL"
tui_wait 'EXIT=' 3
s=$(tui_cap)
check "unknown TERM: named in one clear line" contains "$s" 'cannot use terminal type "no-such-terminal"'
check "unknown TERM: exit status 1" contains "$s" "EXIT=1"

tui_start 100 30 env TERM=dumb "$SMTOP" open "$HOL"
tui_wait 'EXIT=' 3
s=$(tui_cap)
check "TERM=dumb: refused (it cannot move the cursor)" contains "$s" 'terminal type "dumb" cannot move the cursor'
check "TERM=dumb: exit status 1" contains "$s" "EXIT=1"

# stdout redirected, stdin still the terminal
tui_start 100 30 "$SMTOP" open "$HOL" ">$E2E_TMP/out" "2>$E2E_TMP/err"
tui_wait 'EXIT=' 3
check "stdout not a terminal: exit status 1" contains "$(tui_cap)" "EXIT=1"
check "stdout not a terminal: one clear line" sh -c "[ \$(wc -l < $E2E_TMP/err) -eq 1 ] && grep -q 'needs a terminal' $E2E_TMP/err"
check "stdout not a terminal: nothing written to it" [ ! -s "$E2E_TMP/out" ]
tui_end

"$SMTOP" open "$HOL" < /dev/null > "$E2E_TMP/out" 2> "$E2E_TMP/err"
st=$?
check "no terminal at all: exit status $st" [ "$st" -ne 0 ]
check "no terminal at all: the report suggested" grep -q "use smtop report" "$E2E_TMP/err"
check "no terminal at all: one line" [ "$(wc -l < "$E2E_TMP/err")" -eq 1 ]
err=$("$SMTOP" open "$HOL" < /dev/null 2>&1 > /dev/null)
check "stdin not a terminal: clear error" contains "$err" "needs a terminal"

# ---- ways out: the terminal restored ----------------------------------------
tui_start 120 40 "$SMTOP" open "$HOL"
tui_wait 'saved session'
tui send-keys -t "$TUI" C-c
tui_wait 'EXIT=' 3
s=$(tui_cap)
check "Ctrl-C leaves" contains "$s" "EXIT=0"
check "Ctrl-C restores the terminal" lacks "$s" "┌"

tui_start 120 40 "$SMTOP" open "$HOL"
tui_wait 'saved session'
kill -TERM "$(tui_pid)"
tui_wait 'EXIT=' 3
s=$(tui_cap)
check "SIGTERM ends it with 128+15" contains "$s" "EXIT=143"
check "SIGTERM restores the terminal" lacks "$s" "┌"
tui_end

e2e_done
