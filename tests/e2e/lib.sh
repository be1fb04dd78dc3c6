# Helpers for the end-to-end scripts: run the real binary, check its output.
# SMTOP_BUILD picks the build folder (make test-asan: build-asan); SMTOP_WRAP
# is a command the binary runs under (make test-valgrind: valgrind ...).
SMTOP_BUILD=${SMTOP_BUILD:-build}
case $SMTOP_BUILD in /*) ;; *) SMTOP_BUILD=$(pwd)/$SMTOP_BUILD ;; esac
SMTOP=${SMTOP:-$SMTOP_BUILD/smtop}
E2E_TMP=$(mktemp -d /tmp/smtop-e2e.XXXXXX)
# what smtop caches of the sessions it reads goes here, not to ~/.cache
export XDG_CACHE_HOME="$E2E_TMP/cache"
# tmux: a server of its own under E2E_TMP (other test runs, and a tmux the
# tests may be started from, use others).
export TMUX_TMPDIR="$E2E_TMP"
unset TMUX
trap 'tmux kill-server 2>/dev/null; rm -rf "$E2E_TMP"' EXIT
if [ -n "$SMTOP_WRAP" ]; then
	printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$SMTOP_WRAP" "$SMTOP" > "$E2E_TMP/smtop"
	chmod +x "$E2E_TMP/smtop"
	SMTOP=$E2E_TMP/smtop
fi
e2e_failures=0
e2e_tests=0

fail() {
	echo "  FAIL: $*"
	e2e_failures=$((e2e_failures + 1))
}

pass() {
	echo "  ok: $*"
}

# check NAME CONDITION-COMMAND...
check() {
	name=$1
	shift
	e2e_tests=$((e2e_tests + 1))
	if "$@"; then pass "$name"; else fail "$name"; fi
}

contains() {
	printf '%s' "$1" | grep -q -- "$2"
}

lacks() { ! contains "$1" "$2"; }

one_line() {
	[ "$(printf '%s\n' "$1" | grep -c .)" -eq 1 ]
}

e2e_done() {
	echo "  $e2e_tests checks, $e2e_failures failed"
	[ "$e2e_failures" -eq 0 ]
}

# ---- the viewer in tmux ------------------------------------------------------
# The server is kept alive by an idle session, so that ending one test's pane
# never races the server's exit with the next test's start.
TUI=tui
tui() { tmux "$@"; }

# tui_start W H CMD...: runs CMD in a fresh W x H pane; the pane stays after
# CMD ends and shows EXIT=<status>.  Waits for the first screen.
tui_start() {
	_w=$1 _h=$2
	shift 2
	tui has-session -t keep 2>/dev/null || tui new-session -d -s keep -x 20 -y 5 "sleep 3600"
	tui kill-session -t "$TUI" 2>/dev/null
	tui new-session -d -s "$TUI" -x "$_w" -y "$_h" "$* ; echo EXIT=\$?; sleep 120"
	tui_wait '[^ ]' 5
	tui_settle
}

tui_cap() { tui capture-pane -p -t "$TUI"; }
# with SGR attributes (colours, bold, reverse) as escape sequences
tui_cap_sgr() { tui capture-pane -p -e -t "$TUI"; }
# the command's process (the pane's shell runs it as its child)
tui_pid() { pgrep -P "$(tui list-panes -t "$TUI" -F '#{pane_pid}')" | head -1; }

# tui_wait ERE [SECONDS]: until the screen matches; 1 if it never does.
tui_wait() {
	_tw=$(( ${2:-3} * 20 ))
	while [ "$_tw" -gt 0 ]; do
		tui_cap | grep -Eq -- "$1" && return 0
		sleep 0.05
		_tw=$((_tw - 1))
	done
	return 1
}

# tui_settle: until two captures 0.15 s apart are the same (at most 3 s).
tui_settle() {
	_ts_prev=$(tui_cap)
	for _ts in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		sleep 0.15
		_ts_cur=$(tui_cap)
		[ "$_ts_cur" = "$_ts_prev" ] && return 0
		_ts_prev=$_ts_cur
	done
}

# tui_changed BEFORE: until the screen differs from BEFORE (at most 1.5 s),
# then until it settles.
tui_changed() {
	_tc=30
	while [ "$_tc" -gt 0 ] && [ "$(tui_cap)" = "$1" ]; do
		sleep 0.05
		_tc=$((_tc - 1))
	done
	tui_settle
}

# tui_keys KEY...: sends tmux key names one at a time, each once the one
# before has been drawn.
tui_keys() {
	for _tk in "$@"; do
		_tk_before=$(tui_cap)
		tui send-keys -t "$TUI" "$_tk"
		tui_changed "$_tk_before"
	done
}

# tui_type TEXT: literal text.
tui_type() {
	_tk_before=$(tui_cap)
	tui send-keys -t "$TUI" -l "$1"
	tui_changed "$_tk_before"
}

# tui_click X Y [sgr|x10]: a left click at the 0-based cell (X, Y), encoded as
# the terminal would: SGR 1006 (xterm's kmous) or X10 (tmux's and screen's).
tui_click() {
	_tk_before=$(tui_cap)
	if [ "${3:-x10}" = sgr ]; then
		tui send-keys -t "$TUI" -l "$(printf '\033[<0;%d;%dM' $(($1 + 1)) $(($2 + 1)))"
		tui send-keys -t "$TUI" -l "$(printf '\033[<0;%d;%dm' $(($1 + 1)) $(($2 + 1)))"
	else
		_cx=$(printf "\\$(printf %o $(($1 + 33)))")
		_cy=$(printf "\\$(printf %o $(($2 + 33)))")
		tui send-keys -t "$TUI" -l "$(printf '\033[M ')$_cx$_cy"
		tui send-keys -t "$TUI" -l "$(printf '\033[M#')$_cx$_cy"
	fi
	tui_changed "$_tk_before"
}

tui_end() { tui kill-session -t "$TUI" 2>/dev/null; }

# The viewer's header: "window 0ms-43ms · 362 us/col · ..." -> start, end in
# us (a start before the first record is negative) and the scale.
hdr() { tui_cap | head -1; }
win_us() { # win_us start|end [HEADER]
	_hdr=${2:-$(hdr)}
	printf '%s\n' "$_hdr" | sed -n 's/.*window \(-\{0,1\}[0-9.]*m\{0,1\}s\)-\([0-9.]*m\{0,1\}s\) .*/\1 \2/p' |
		awk -v which="$1" '
		function us(v) {
			if (v ~ /ms$/) return substr(v, 1, length(v) - 2) * 1000
			return substr(v, 1, length(v) - 1) * 1000000
		}
		{ printf "%d\n", which == "start" ? us($1) : us($2) }'
}
scale() { hdr | sed -n 's/.* \([0-9.]* [mun]*s\)\/col.*/\1/p'; }
