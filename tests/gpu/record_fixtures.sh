#!/bin/sh
# Records the sessions committed in tests/fixtures/ (on the H200):
#   tests/gpu/record_fixtures.sh OUTDIR [DEMO...]
# Each demo runs 3 s under `smtop record`; smtop's report picks its worst
# episode and the session is trimmed to a window around it, small enough to
# commit, keeping whole kernels: every kept kernel with all its blocks, no
# block without its kernel.  The smoke and PyTorch sessions are kept whole.
# With DEMOs, only those are recorded: `make test-gpu` section fixtures
# records the others first and then `mps` alone, while a private MPS daemon
# runs (an MPS daemon makes every CUDA process its client, the other demos'
# included).
cd "$(dirname "$0")/../.." || exit 1
out=${1:-build/fixtures}
tmp=${SMTOP_GPU_OUT:-build/gpu-out}
mkdir -p "$out" "$tmp"
# name before-ms after-ms: the window around the worst episode (green
# contexts has none: around the middle of its kernels)
demos="priority-vs-training 10 30
equal-priority 3 7
head-of-line 10 30
green-contexts 4 4
timeslice 15 15
mps 10 10"
only=$*
[ -n "$only" ] || only="priority-vs-training equal-priority head-of-line green-contexts timeslice"
echo "$demos" | while read -r d before after; do
	case " $only " in *" $d "*) ;; *) continue ;; esac
	rm -f "$tmp/fx-$d.smtop"
	timeout -s INT 120 build/smtop record -q -o "$tmp/fx-$d.smtop" -- build/smtop-demo "$d" --seconds 3 \
		> "$out/$d.out" 2>&1 || echo "$d: exit status $?"
	build/smtop info "$tmp/fx-$d.smtop" | grep -E "^(kernels|blocks|dropped)"
	build/smtop report "$tmp/fx-$d.smtop" --json > "$tmp/fx-$d.json"
	python3 tests/gpu/trim_session.py "$tmp/fx-$d.smtop" "$out/$d.smtop" --report "$tmp/fx-$d.json" \
		--before-ms "$before" --after-ms "$after" --whole-kernels
	build/smtop info "$out/$d.smtop" | grep -E "^(kernels|blocks|dropped|GPU span)"
done
[ -z "$*" ] || exit 0
rm -f "$out/smoke.smtop" "$out/resnet50-two-streams.smtop"
build/smtop record -q -o "$out/smoke.smtop" -- build/gpu/collector_smoke > "$out/smoke.txt" 2>&1
build/smtop record -q -o "$out/resnet50-two-streams.smtop" -- python3 tests/gpu/torch_resnet.py \
	--batch 1 --iters 20 --warmup 3 --streams two > "$out/resnet50-two-streams.txt" 2>&1
for f in "$out"/smoke.smtop "$out"/resnet50-two-streams.smtop; do
	python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA journal_mode=DELETE'); c.execute('VACUUM')" "$f"
done
ls -la "$out"
