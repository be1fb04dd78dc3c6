# Helpers for the end-to-end scripts: run the real binary, check its output.
SMTOP=${SMTOP:-$(pwd)/build/smtop}
E2E_TMP=$(mktemp -d /tmp/smtop-e2e.XXXXXX)
# A tmux server of our own: scripts running side by side (or a user's own
# tmux) never see, or kill, each other's sessions.
export TMUX_TMPDIR="$E2E_TMP"
unset TMUX
trap 'tmux kill-server 2>/dev/null; rm -rf "$E2E_TMP"' EXIT
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

one_line() {
	[ "$(printf '%s\n' "$1" | grep -c .)" -eq 1 ]
}

e2e_done() {
	echo "  $e2e_tests checks, $e2e_failures failed"
	[ "$e2e_failures" -eq 0 ]
}
