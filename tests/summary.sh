#!/bin/sh
# The closing lines of make test: one line per stage, then the totals as
# "N passed, N failed" (the last line; CI reads it).  Each stage adds its
# counts to the file named by SMTOP_SUMMARY (nothing when it is unset: a
# stage run alone prints its own line only).
#   tests/summary.sh add STAGE PASSED FAILED
#   tests/summary.sh print FILE
case $1 in
add)
	[ -n "$SMTOP_SUMMARY" ] && printf '%s\t%s\t%s\n' "$2" "$3" "$4" >> "$SMTOP_SUMMARY"
	exit 0
	;;
print)
	[ -f "$2" ] || { echo "0 passed, 1 failed"; exit 1; }
	awk -F '\t' '
		!($1 in p) { order[n++] = $1 }
		{ p[$1] += $2; f[$1] += $3; tp += $2; tf += $3 }
		END {
			print "== summary"
			for (i = 0; i < n; i++)
				printf "%-12s %6d passed, %d failed\n", order[i] ":", p[order[i]], f[order[i]]
			printf "%d passed, %d failed\n", tp, tf
			exit tf > 0
		}' "$2"
	;;
*)
	echo "usage: tests/summary.sh add STAGE PASSED FAILED | print FILE" >&2
	exit 2
	;;
esac
