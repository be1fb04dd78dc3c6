#!/bin/sh
# make test-asan: runs the Criterion suites, the end-to-end scripts and every
# fuzz seed and regression input against a build made with
# -fsanitize=address,undefined (tests/asan.sh BUILD_DIR).  Reports go to log
# files, not to stderr: the viewer's runs own a tmux pane, and a report there
# would be lost.  Any report fails the run.
B=${1:-build-asan}
LOGS=$(mktemp -d /tmp/smtop-asan.XXXXXX)
# detect_leaks: smtop frees what it allocates (ncurses' own buffers stay
# reachable, which LeakSanitizer does not count).  abort_on_error=0 and
# exitcode=23: a report ends the process with a code the tests see.
export ASAN_OPTIONS="log_path=$LOGS/asan:detect_leaks=1:exitcode=23:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="log_path=$LOGS/ubsan:halt_on_error=1:print_stacktrace=1"
# The e2e scripts run $SMTOP_BUILD/smtop through this wrapper, so the options
# reach it inside tmux too (a tmux server keeps the environment it started with).
export SMTOP_BUILD=$B
export SMTOP_WRAP="env ASAN_OPTIONS=$ASAN_OPTIONS UBSAN_OPTIONS=$UBSAN_OPTIONS"
fail=0

echo "== sanitizers: suites and end-to-end scripts ($B)"
tests/run-all.sh "$B"/tests/test_* || fail=1

echo "== sanitizers: fuzz seeds and regression inputs"
for h in "$B"/fuzz/fuzz_*; do
	name=${h##*/fuzz_}
	set --
	for d in tests/fuzz/corpus/"$name" tests/fuzz/regressions/"$name"; do
		[ -d "$d" ] && set -- "$@" "$d"
	done
	"$h" "$@" || { echo "FAILED: $h"; fail=1; }
done

if [ -n "$(ls "$LOGS")" ]; then
	echo "sanitizer reports:"
	for f in "$LOGS"/*; do
		echo "---- $f"
		cat "$f"
	done
	fail=1
fi
rm -rf "$LOGS"
[ $fail -eq 0 ] && echo "sanitizers: clean" || echo "sanitizers: FAILED"
exit $fail
