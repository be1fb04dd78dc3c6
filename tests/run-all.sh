#!/bin/sh
# Runs every Criterion suite given, then (unless --unit-only) the end-to-end
# scripts in tests/e2e.  Prints one count line per part and adds the counts
# to the summary (tests/summary.sh) as stages "unit" and "e2e", or both as
# the stage in SMTOP_STAGE; exits non-zero on any failure.
#   tests/run-all.sh [--unit-only] [--e2e-jobs N] SUITE...
# --e2e-jobs N runs N scripts at a time (each has its own temporary folder
# and tmux server; make test runs two): their output is printed whole, in
# order, once all have ended.
unit_only=0 jobs=1
# a passing check's "ok:" line only with V=1 (make test V=1): the failures,
# each script's count and the totals are what a run must show
shown() {
	if [ "${V:-0}" = 1 ]; then cat "$1"; else grep -v '^  ok: ' "$1"; fi
}
while :; do
	case $1 in
	--unit-only) unit_only=1; shift ;;
	--e2e-jobs) jobs=$2; shift 2 ;;
	*) break ;;
	esac
done
fail=0
LOG=$(mktemp -d /tmp/smtop-run-all.XXXXXX)
trap 'rm -rf "$LOG"' EXIT

# Criterion's last line: "[====] Synthesis: Tested: N | Passing: P | Failing: F | Crashing: C"
up=0 uf=0
for t in "$@"; do
	echo "== $(basename "$t")"
	"$t" --jobs 2 > "$LOG/suite" 2>&1
	rc=$?
	cat "$LOG/suite"
	c=$(awk '/Synthesis: Tested:/ { p = $7; f = $10 + $13 } END { print p + 0, f + 0 }' "$LOG/suite")
	up=$((up + ${c% *})) f=${c#* }
	[ $rc -ne 0 ] && [ $f -eq 0 ] && f=1
	uf=$((uf + f))
	[ $rc -ne 0 ] && { echo "FAILED: $t"; fail=1; }
done
echo "unit: $up passed, $uf failed"
tests/summary.sh add "${SMTOP_STAGE:-unit}" $up $uf

[ $unit_only -eq 1 ] && exit $fail

# One script: its output into LOG/NAME.out, its status into LOG/NAME.rc.
run_script() {
	n=$(basename "$1" .sh)
	sh "$1" > "$LOG/$n.out" 2>&1
	echo $? > "$LOG/$n.rc"
}
if [ "$jobs" -gt 1 ]; then
	# a script that times itself (a first frame within a second) says
	# "# e2e: alone" and runs after the others, by itself
	export LOG
	grep -L '^# e2e: alone' tests/e2e/test_*.sh | xargs -P "$jobs" -I{} sh -c \
		'n=$(basename "{}" .sh); sh "{}" > "$LOG/$n.out" 2>&1; echo $? > "$LOG/$n.rc"'
	for s in $(grep -l '^# e2e: alone' tests/e2e/test_*.sh); do
		run_script "$s"
	done
else
	for s in tests/e2e/test_*.sh; do
		[ -f "$s" ] || continue
		echo "== $(basename "$s")"
		run_script "$s"
		shown "$LOG/$(basename "$s" .sh).out"
	done
fi

# e2e_done's last line: "  N checks, F failed"; a script that dies before
# it counts as one failure.
ep=0 ef=0
for s in tests/e2e/test_*.sh; do
	[ -f "$s" ] || continue
	n=$(basename "$s" .sh)
	[ "$jobs" -gt 1 ] && { echo "== $n.sh"; shown "$LOG/$n.out"; }
	c=$(sed -n 's/^  \([0-9]*\) checks, \([0-9]*\) failed$/\1 \2/p' "$LOG/$n.out" | awk '{ c += $1; f += $2 } END { print c + 0, f + 0 }')
	checks=${c% *} failed=${c#* }
	rc=$(cat "$LOG/$n.rc" 2>/dev/null || echo 1)
	[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
	ep=$((ep + checks - (failed > checks ? checks : failed))) ef=$((ef + failed))
	[ "$rc" -ne 0 ] && { echo "FAILED: $s"; fail=1; }
done
echo "e2e: $ep passed, $ef failed"
tests/summary.sh add "${SMTOP_STAGE:-e2e}" $ep $ef
exit $fail
