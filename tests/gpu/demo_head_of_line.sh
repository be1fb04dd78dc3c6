#!/bin/sh
# The short kernel must wait for the long kernel's resident blocks (no preemption):
# its event-timed wait should be most of the 20 ms hold minus the 2 ms head start.
T=demo_head_of_line; . "$(dirname "$0")/demo_lib.sh"
run_expect 0 build/smtop-demo head-of-line --seconds 2
w=$(field summary short_wait_median_ms)
num_ge "$w" 10 || fail "short kernel waited only $w ms"
pass
