#!/bin/sh
# Tracer overhead without smtop: traced vs plain storm of 32-thread blocks.
T=demo_blockstorm; . "$(dirname "$0")/demo_lib.sh"
run_expect 0 build/blockstorm --seconds 3 --blocks-per-kernel 1024
a=$(field blockstorm blocks_per_s)
[ "$(field blockstorm verified)" = yes ] || fail "traced storm results wrong"
run_expect 0 build/blockstorm --seconds 3 --blocks-per-kernel 1024 --no-trace
b=$(field blockstorm blocks_per_s)
[ "$(field blockstorm verified)" = yes ] || fail "plain storm results wrong"
awk -v a="$a" -v b="$b" 'BEGIN { printf "blockstorm traced/plain rate ratio=%.3f\n", a / b }'
pass
