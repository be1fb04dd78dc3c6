#!/bin/sh
# smtop-demo --list names every scenario; bad input exits 2.
T=demo_list; . "$(dirname "$0")/demo_lib.sh"
run_expect 0 build/smtop-demo --list
for s in priority-vs-training equal-priority head-of-line placement timeslice green-contexts mps; do
	echo "$OUT" | grep -q "^$s\$" || fail "--list lacks $s"
done
run_expect 2 build/smtop-demo no-such-scenario
run_expect 2 build/smtop-demo head-of-line --arrival sometimes
pass
