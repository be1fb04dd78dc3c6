#!/bin/sh
# Runs every Criterion suite given, then (unless --unit-only) the end-to-end
# scripts in tests/e2e.  Prints one summary line; exits non-zero on any failure.
unit_only=0
[ "$1" = "--unit-only" ] && { unit_only=1; shift; }
fail=0
for t in "$@"; do
	echo "== $(basename "$t")"
	"$t" --jobs 2 || { echo "FAILED: $t"; fail=1; }
done
if [ $unit_only -eq 0 ]; then
	for s in tests/e2e/test_*.sh; do
		[ -f "$s" ] || continue
		echo "== $(basename "$s")"
		sh "$s" || { echo "FAILED: $s"; fail=1; }
	done
fi
[ $fail -eq 0 ] && echo "all tests passed" || echo "some tests FAILED"
exit $fail
