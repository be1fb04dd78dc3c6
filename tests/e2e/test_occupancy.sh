#!/bin/sh
# smtop report's "occupancy: observed vs limit" on the H200 sessions: each
# launch configuration's most blocks on one SM found again by an exact sweep
# over `smtop export --csv` (check_occupancy.py), the limit the least of its
# resources; the marked session never above its limit; the text says who
# recorded the registers.
. tests/e2e/lib.sh
FX=tests/fixtures

last_line() { printf '%s' "$1" | tail -1; }

for f in priority-vs-training torch-sm-all head-of-line; do
	cp "$FX/$f.smtop" "$E2E_TMP/$f.smtop" # the report stores its events: work on a copy
	"$SMTOP" report "$E2E_TMP/$f.smtop" --json -q > "$E2E_TMP/$f.json"
	check "$f: report --json exits 0" [ $? -eq 0 ]
	"$SMTOP" export "$E2E_TMP/$f.smtop" --csv "$E2E_TMP/$f-csv" -q
	strict=""
	# a marked session's blocks fit their limits; under --sm all a block's
	# last warp can linger past the next block's start (docs/analysis.md)
	[ "$f" = torch-sm-all ] || strict=--at-most-limit
	out=$(python3 tests/e2e/check_occupancy.py "$E2E_TMP/$f.json" "$E2E_TMP/$f-csv" $strict)
	check "$f: most per SM = the blocks' sweep, counts recounted ($(last_line "$out"))" \
		sh -c "printf '%s' '$out' | tail -1 | grep -q ' 0 failed checks'"
	[ -n "$out" ] && printf '%s\n' "$out" | grep FAIL | head -5
done

j=$E2E_TMP/priority-vs-training.json
v=$(python3 -c "
import json, sys
o = json.load(open(sys.argv[1]))['occupancy']
full = sum(c['launches_full'] for c in o['configs'])
at = sum(c['launches_full_at_limit'] for c in o['configs'])
print(o['registers_from'], o['registers_maybe_patched'], o['kernels_with_blocks'], full, at)" "$j")
check "priority-vs-training: registers from CUPTI, 177 kernels with blocks, every full grid at its limit ($v)" \
	[ "$v" = "cupti False 177 36 36" ]
v=$(python3 -c "
import json, sys
o = json.load(open(sys.argv[1]))['occupancy']
print(o['registers_from'], o['registers_maybe_patched'])" "$E2E_TMP/torch-sm-all.json")
check "torch-sm-all: registers from the sanitizer, maybe patched ($v)" [ "$v" = "sanitizer True" ]

# The head-of-line session's long kernel: 264 blocks of 1024 threads, 2 on
# each SM, its limit by threads
v=$(python3 -c "
import json, sys
o = json.load(open(sys.argv[1]))['occupancy']
print(' '.join(f\"{c['limit']}/{c['limit_by']}/{c['most_per_sm']}\" for c in o['configs']))" "$E2E_TMP/head-of-line.json")
check "head-of-line: limits and most per SM ($v)" contains "$v" "2/threads/2"

text=$("$SMTOP" report "$E2E_TMP/priority-vs-training.smtop" -q)
check "text: the section is there" contains "$text" "occupancy: observed vs limit"
check "text: says CUPTI recorded the registers" contains "$text" "registers: as CUPTI recorded them"
text=$("$SMTOP" report "$E2E_TMP/torch-sm-all.smtop" -q)
check "text --sm all: the patches may be the cause" contains "$text" "may be the\$"
check "text --sm all: registers before or after the patches" contains "$text" "before or after smtop's block patches"
check "text --sm all: launches above their limit listed" contains "$text" "above their limit"
text=$("$SMTOP" report "$FX/nsys/$(ls $FX/nsys | grep sqlite | head -1)" -q 2>&1)
check "an Nsight Systems export: no blocks, no launch configuration listed" \
	contains "$text" "0 of [0-9]* kernels with block records, 0 launch configurations"

e2e_done
