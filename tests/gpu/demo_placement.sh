#!/bin/sh
# Four block shapes alone and together; each alone must reach every SM it can.
T=demo_placement; . "$(dirname "$0")/demo_lib.sh"
run_expect 0 build/smtop-demo placement --seconds 1
n=$(echo "$OUT" | grep -c '^placement phase=')
[ "$n" -eq 8 ] || fail "expected 8 placement lines, got $n"
d=$(echo "$OUT" | grep '^placement phase=alone kernel=wide-1024t' | tr ' ' '\n' | sed -n 's/^distinct_sms=//p')
num_ge "$d" 100 || fail "wide kernel alone reached only $d SMs"
pass
