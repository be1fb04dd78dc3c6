#!/bin/sh
# Records the sessions committed in tests/fixtures/ (on the H200):
#   tests/gpu/record_fixtures.sh OUTDIR
# Each demo runs 3 s under `smtop record`; smtop's report picks its worst
# episode and the session is trimmed to a window around it, small enough to
# commit.  The smoke and PyTorch sessions are kept whole.
cd "$(dirname "$0")/../.." || exit 1
out=${1:-build/fixtures}
tmp=${SMTOP_GPU_OUT:-build/gpu-out}
mkdir -p "$out" "$tmp"
for d in priority-vs-training equal-priority head-of-line green-contexts placement; do
	rm -f "$tmp/fx-$d.smtop"
	timeout -s INT 120 build/smtop record -q -o "$tmp/fx-$d.smtop" -- build/smtop-demo "$d" --seconds 3 \
		> "$tmp/fx-$d.out" 2>&1
	build/smtop report "$tmp/fx-$d.smtop" --json > "$tmp/fx-$d.json"
	python3 tests/gpu/trim_session.py "$tmp/fx-$d.smtop" "$out/$d.smtop" --report "$tmp/fx-$d.json" \
		--before-ms "${SMTOP_TRIM_BEFORE_MS:-30}" --after-ms "${SMTOP_TRIM_AFTER_MS:-50}"
	build/smtop info "$out/$d.smtop" | grep -E "kernels|blocks|span"
done
rm -f "$out/smoke.smtop" "$out/resnet50-two-streams.smtop"
build/smtop record -q -o "$out/smoke.smtop" -- build/gpu/collector_smoke > "$out/smoke.txt" 2>&1
build/smtop record -q -o "$out/resnet50-two-streams.smtop" -- python3 tests/gpu/torch_resnet.py \
	--batch 1 --iters 20 --warmup 3 --streams two > "$out/resnet50-two-streams.txt" 2>&1
for f in "$out"/smoke.smtop "$out"/resnet50-two-streams.smtop; do
	sqlite3 "$f" "PRAGMA journal_mode=DELETE; VACUUM;" 2>/dev/null ||
		python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA journal_mode=DELETE'); c.execute('VACUUM')" "$f"
done
ls -la "$out"
