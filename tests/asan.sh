#!/bin/sh
# make test-asan: runs the Criterion suites, the end-to-end scripts and every
# fuzz seed and regression input against a build made with
# -fsanitize=address,undefined (tests/asan.sh BUILD_DIR).  AddressSanitizer
# reports go to log files, not to stderr: the viewer's runs own a tmux pane,
# where a report would be lost.  Any report fails the run.
B=${1:-build-asan}
LOGS=$(mktemp -d /tmp/smtop-asan.XXXXXX)
# writable by the other user some scripts run smtop as (test_library.sh)
chmod 1777 "$LOGS"
# detect_leaks: smtop frees what it allocates (ncurses keeps its own buffers
# reachable, which LeakSanitizer does not count).  exitcode 23 (AddressSanitizer)
# and 24 (UndefinedBehaviorSanitizer, halt_on_error): a report ends the
# process with a status the tests see.
export ASAN_OPTIONS="log_path=$LOGS/asan:detect_leaks=1:exitcode=23:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:exitcode=24:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
# The e2e scripts run $SMTOP_BUILD/smtop through this wrapper, which names
# the options itself (inside tmux the environment is the tmux server's) and
# keeps its stderr for the UndefinedBehaviorSanitizer's reports.
export SMTOP_BUILD=$B
export SMTOP_SAN_LOGS=$LOGS
export SMTOP_WRAP="env ASAN_OPTIONS=$ASAN_OPTIONS UBSAN_OPTIONS=$UBSAN_OPTIONS LSAN_OPTIONS=$LSAN_OPTIONS SMTOP_SAN_LOGS=$LOGS $(pwd)/tests/asan-wrap.sh"
fail=0

# Their counts go to the summary as one stage.  The scripts run two at a
# time: most of their time is waiting for a screen or a process, and each has
# its own temporary folder and tmux server.
export SMTOP_STAGE="ASan/UBSan"
echo "== sanitizers: suites and end-to-end scripts ($B)"
tests/run-all.sh --e2e-jobs 2 "$B"/tests/test_* > "$LOGS/stderr.run-all" 2>&1 || fail=1
cat "$LOGS/stderr.run-all"

echo "== sanitizers: fuzz seeds and regression inputs"
for h in "$B"/fuzz/fuzz_*; do
	name=${h##*/fuzz_}
	set --
	for d in tests/fuzz/corpus/"$name" tests/fuzz/regressions/"$name"; do
		[ -d "$d" ] && set -- "$@" "$d"
	done
	if "$h" "$@" 2> "$LOGS/stderr.fuzz_$name"; then
		tests/summary.sh add "$SMTOP_STAGE" 1 0
	else
		cat "$LOGS/stderr.fuzz_$name"
		echo "FAILED: $h"
		tests/summary.sh add "$SMTOP_STAGE" 0 1
		fail=1
	fi
done

for f in "$LOGS"/asan.* $(grep -l "runtime error:" "$LOGS"/stderr.* 2>/dev/null); do
	[ -f "$f" ] || continue
	echo "---- sanitizer report $f"
	cat "$f"
	tests/summary.sh add "$SMTOP_STAGE" 0 1
	fail=1
done
rm -rf "$LOGS"
[ $fail -eq 0 ] && echo "sanitizers: clean" || echo "sanitizers: FAILED"
exit $fail
