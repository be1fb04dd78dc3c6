#!/bin/sh
# make test-valgrind: the end-to-end scripts that run smtop to completion
# (command line, fixtures' info and report, record with fake workloads), and
# the viewer driven in tmux, with BUILD_DIR/smtop under valgrind's memcheck.
# Any invalid access, use of uninitialised memory, or definite leak fails.
#   tests/valgrind.sh [BUILD_DIR]
B=${1:-build}
if ! command -v valgrind > /dev/null; then
	echo "valgrind: not installed (make deps installs it); skipped"
	exit 0
fi
LOGS=$(mktemp -d /tmp/smtop-valgrind.XXXXXX)
# --child-silent-after-fork: `record` forks before it execs the workload,
# which runs natively (children are not traced); only smtop is checked.
export SMTOP_BUILD=$B
export SMTOP_WRAP="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --child-silent-after-fork=yes --log-file=$LOGS/memcheck.%p"
fail=0
# count FILE STATUS: adds a script's "N checks, F failed" to the summary (a
# script that died before counting is one failure)
count() {
	c=$(sed -n 's/^  \([0-9]*\) checks, \([0-9]*\) failed$/\1 \2/p' "$1" | tail -n 1)
	checks=${c% *} failed=${c#* }
	[ -n "$c" ] || checks=0 failed=0
	[ "$2" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
	tests/summary.sh add valgrind $((checks > failed ? checks - failed : 0)) "$failed"
}
for s in test_cli test_fixtures test_record; do
	echo "== valgrind: $s.sh"
	sh tests/e2e/$s.sh > "$LOGS/out" 2>&1
	rc=$?
	if [ "${V:-0}" = 1 ]; then cat "$LOGS/out"; else grep -v '^  ok: ' "$LOGS/out"; fi
	count "$LOGS/out" $rc
	rm -f "$LOGS/out"
	[ $rc -eq 0 ] || { echo "FAILED: $s.sh under valgrind"; fail=1; }
done

echo "== valgrind: the viewer in tmux"
VOUT=$(mktemp /tmp/smtop-valgrind-viewer.XXXXXX)
(
	. tests/e2e/lib.sh
	T=smtop-valgrind-$$
	cap() { tmux capture-pane -p -t "$T"; }
	# until the pane shows $1 (memcheck runs smtop some 20 times slower)
	wait_for() {
		for i in $(seq 600); do
			cap | grep -q -- "$1" && return 0
			sleep 0.1
		done
		return 1
	}
	keys() { for k in "$@"; do tmux send-keys -t "$T" "$k"; sleep 0.5; done; }
	tmux kill-session -t "$T" 2>/dev/null
	tmux new-session -d -s "$T" -x 132 -y 50 "$SMTOP open $(pwd)/tests/fixtures/priority-vs-training.smtop; echo EXIT=\$?; sleep 60"
	check "viewer draws under valgrind" wait_for "128-131"
	keys w + + - n Tab j Enter Escape Tab ? Escape m / g e m Enter f Escape
	tmux resize-window -t "$T" -x 80 -y 24
	check "80x24 draws under valgrind" wait_for "SMs"
	keys q
	check "viewer quits cleanly under valgrind" wait_for "EXIT=0"
	tmux kill-session -t "$T" 2>/dev/null
	e2e_done
) > "$VOUT" 2>&1
rc=$?
if [ "${V:-0}" = 1 ]; then cat "$VOUT"; else grep -v '^  ok: ' "$VOUT"; fi
count "$VOUT" $rc
rm -f "$VOUT"
[ $rc -eq 0 ] || fail=1

for f in "$LOGS"/*; do
	[ -s "$f" ] || continue
	echo "---- memcheck report $f"
	cat "$f"
	tests/summary.sh add valgrind 0 1
	fail=1
done
rm -rf "$LOGS"
[ $fail -eq 0 ] && echo "valgrind: clean" || echo "valgrind: FAILED"
exit $fail
