#!/bin/sh
# `make bench`: runs every benchmark program and prints its figures, with the
# machine they came from.  SMTOP_BENCH_BLOCKS overrides the block counts.
echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
fail=0
for b in "$@"; do
	echo "== $(basename "$b")"
	"$b" ${SMTOP_BENCH_BLOCKS:+$SMTOP_BENCH_BLOCKS} || { echo "FAILED: $b"; fail=1; }
done
exit $fail
