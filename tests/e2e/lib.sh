# Helpers for the end-to-end scripts: run the real binary, check its output.
# SMTOP_BUILD picks the build folder (make test-asan: build-asan); SMTOP_WRAP
# is a command the binary runs under (make test-valgrind: valgrind ...).
SMTOP_BUILD=${SMTOP_BUILD:-build}
case $SMTOP_BUILD in /*) ;; *) SMTOP_BUILD=$(pwd)/$SMTOP_BUILD ;; esac
SMTOP=${SMTOP:-$SMTOP_BUILD/smtop}
E2E_TMP=$(mktemp -d /tmp/smtop-e2e.XXXXXX)
trap 'rm -rf "$E2E_TMP"' EXIT
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

one_line() {
	[ "$(printf '%s\n' "$1" | grep -c .)" -eq 1 ]
}

e2e_done() {
	echo "  $e2e_tests checks, $e2e_failures failed"
	[ "$e2e_failures" -eq 0 ]
}
