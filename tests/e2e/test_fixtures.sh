#!/bin/sh
# Sessions recorded on the H200 (tests/fixtures, see tests/fixtures/README.md):
# smtop's reader, report and plain SQL must find what the GPU did.
. tests/e2e/lib.sh
# On copies: smtop report stores its events in the session it reads, and the
# fixtures stay as recorded.
FX=$E2E_TMP/fixtures
mkdir -p "$FX" && cp tests/fixtures/*.smtop "$FX"/

out=$("$SMTOP" info $FX/smoke.smtop)
check "smoke: 400 kernels, as launched" contains "$out" "kernels        400"
check "smoke: 105,600 blocks, as launched" contains "$out" "blocks         105,600"
check "smoke: nothing dropped" contains "$out" "dropped        0 CUPTI, 0 ring, 0 blocks"
check "smoke: ended cleanly" contains "$out" "complete (exited with status 0)"
check "smoke: GPU named" contains "$out" "NVIDIA H200, 132 SMs, cc 9.0"
# cudaStreamSynchronize twice on the low stream and once on the high one,
# then cudaDeviceSynchronize (tests/gpu/collector_smoke.cu)
check "smoke: the host's synchronize calls by kind" contains "$out" \
	"syncs          3 stream, 1 context, 0 event synchronizations; 0 stream waits"
rows=$(sqlite3 $FX/smoke.smtop "SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName" | wc -l)
check "nsys-style query runs on a smtop session" [ "$rows" -eq 400 ]
prios=$(sqlite3 $FX/smoke.smtop "SELECT DISTINCT CAST(priority AS INTEGER) - (CASE WHEN priority >= 2147483648 THEN 4294967296 ELSE 0 END) FROM TARGET_INFO_CUDA_STREAM WHERE streamId IN (SELECT streamId FROM CUPTI_ACTIVITY_KIND_KERNEL) ORDER BY 1" | tr '\n' ' ')
check "smoke: stream priorities -5 and 0 (read as int32)" [ "$prios" = "-5 0 " ]
if command -v python3 >/dev/null; then
	n=$(python3 tests/gpu/check_session.py $FX/smoke.smtop decoded-blocks)
	check "block chunks decode with the documented format" [ "$n" -eq 105600 ]
fi

out=$("$SMTOP" info $FX/resnet50-two-streams.smtop)
check "PyTorch session: kernels recorded" contains "$out" "kernels        5,014"
prios=$(python3 tests/gpu/check_session.py $FX/resnet50-two-streams.smtop priorities)
check "PyTorch session: streams at -5 and 0" [ "$prios" = "-5 0" ]

json() { "$SMTOP" report "$1" --json -q | python3 -c "import json,sys; r=json.load(sys.stdin); $2"; }

# Every block of every kernel (--sm all, Compute Sanitizer), checked through
# the product: smtop export joins each block to its kernel and stream, the
# counts add up to the grids, and the report sees the streams' priorities.
for f in sm-all-unmarked torch-sm-all; do
	out=$(SMTOP=$SMTOP python3 tests/gpu/check_blocks_complete.py $FX/$f.smtop)
	check "$f: every block joins its kernel, every grid complete" contains "$out" "orphans 0, extra 0"
	check "$f: blocks stored = the grids' blocks" [ "$(printf '%s\n' "$out" | tail -1)" = "ok" ]
	"$SMTOP" export $FX/$f.smtop --csv "$E2E_TMP/$f-csv" -q
	n=$(awk -F, 'NR > 1 && ($9 == "" || $10 == "")' "$E2E_TMP/$f-csv/blocks.csv" | wc -l)
	check "$f: every exported block names its stream and kernel" [ "$n" -eq 0 ]
	v=$(json $FX/$f.smtop "print(r['basis'], r['kernels'] == r['kernels_with_blocks'], sorted({s['priority'] for s in r['streams'] if s['kernels']}))")
	check "$f: judged from blocks, every kernel has them, priorities -5 and 0 ($v)" [ "$v" = "blocks True [-5, 0]" ]
done
out=$("$SMTOP" info $FX/torch-sm-all.smtop)
check "torch-sm-all: info says how it was recorded" contains "$out" "recorded with  --sm all (Compute Sanitizer)"
check "torch-sm-all: info says it was trimmed" contains "$out" "trimmed        kept the kernels wholly inside"
# The host's synchronize calls (tests/gpu/sync_kinds.cu: 6 stream, 2
# context, 3 event) under both backends, each stream's on a stream its
# kernels ran on (the legacy default stream's named by NULL in the calls),
# none ending before a kernel it waited for.
made=$(sed -n 's/^syncs //p' tests/fixtures/sync-kinds.out)
for f in sync-kinds sync-kinds-sm-all; do
	out=$("$SMTOP" info $FX/$f.smtop)
	check "$f: the synchronize calls by kind, as the program made them ($made)" contains "$out" \
		"syncs          $made"
	v=$(python3 tests/gpu/check_session.py $FX/$f.smtop sync-checks)
	check "$f: synchronizations on streams with kernels, after the kernels they waited for ($v)" \
		[ "$v" = "0 stray 0 early" ]
done
n=$(sqlite3 $FX/sync-kinds-sm-all.smtop "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE end < start OR start = 0")
check "sync-kinds-sm-all: each synchronize has the host's times" [ "$n" -eq 0 ]

out=$("$SMTOP" info $FX/sm-all-unmarked.smtop)
check "sm-all-unmarked: 100 kernels (graph replays included)" contains "$out" "kernels        100"
check "sm-all-unmarked: 114,690 blocks, the grids' sum" contains "$out" "blocks         114,690"
check "sm-all-unmarked: nothing dropped" contains "$out" "dropped        0 CUPTI, 0 ring, 0 blocks"
v=$(json $FX/torch-sm-all.smtop "print(sum(1 for e in r['episodes'] if e['kind'].startswith('inversion') and e['priority'] == -5 and any(c['priority'] == 0 for c in e['culprits'])))")
check "torch-sm-all: the -5 inference stream has inversions behind training ($v)" [ "$v" -gt 0 ]
# Trimmed: the first kernel a stream kept was submitted while its cut
# predecessor ran; no wait may count from before the trim (it read 36 ms).
v=$(json $FX/torch-sm-all.smtop "print(max(e['wait_ns'] for e in r['episodes']))")
check "torch-sm-all: no wait counted from before the trim (longest $v ns)" [ "$v" -lt 1000000 ]

v=$(json $FX/priority-vs-training.smtop "t=r['totals']; print(t['inversion_resident']['count'] + t['inversion_dispatch']['count'])")
check "priority-vs-training: inversions found ($v)" [ "$v" -gt 0 ]
v=$(json $FX/priority-vs-training.smtop "print(sorted({(e['priority'], c['priority']) for e in r['episodes'] if e['kind'].startswith('inversion') for c in e['culprits']}))")
check "priority-vs-training: the -5 stream waits behind the priority-0 stream $v" contains "$v" "(-5, 0)"
v=$(json $FX/priority-vs-training.smtop "print(r['totals']['inversion_resident']['count'], r['totals']['inversion_resident']['delay_ns'], sorted({c['priority'] for e in r['episodes'] if e['kind'] == 'inversion_resident' for c in e['culprits']}))")
check "priority-vs-training: resident inversions behind the training stream, with their delay ($v)" \
	sh -c "[ '${v%% *}' -gt 0 ] && printf '%s' '$v' | grep -q '\[0\]'"
v=$(json $FX/equal-priority.smtop "t=r['totals']; print(t['blocking']['count'], t['inversion_resident']['count'] + t['inversion_dispatch']['count'])")
check "equal-priority: blocking without inversions ($v)" sh -c "[ '${v% *}' -gt 0 ] && [ '${v#* }' -eq 0 ]"
v=$(json $FX/head-of-line.smtop "e=max(r['episodes'], key=lambda e: e['wait_ns']); print(e['culprits'][0]['name'], e['wait_ns'])")
check "head-of-line: the long kernel is the culprit ($v)" contains "$v" "hol_long_kernel"
v=$("$SMTOP" report $FX/head-of-line.smtop)
check "report states its threshold" contains "$v" "wait > 20 us"

# Two H200s in one process (tests/gpu/multi_gpu.cu): their %globaltimers were
# 79 us apart, which one session clock turned into 59 phantom waits of 80 us.
out=$("$SMTOP" info $FX/two-gpus.smtop)
check "two-gpus: both GPUs listed" contains "$out" "1: NVIDIA H200, 132 SMs"
check "two-gpus: each GPU has its clock" contains "$out" "GPU 1: -400.4"
v=$(json $FX/two-gpus.smtop "print(r['episodes_total'], max(s['wait_ns']['max'] for s in r['streams'] if s['wait_ns']))")
check "two-gpus: no phantom waits, the longest under 1 us ($v)" sh -c "[ '${v% *}' -eq 0 ] && [ '${v#* }' -lt 1000 ]"
v=$(python3 tests/gpu/check_multi_gpu.py $FX/two-gpus.smtop tests/fixtures/two-gpus.txt)
for d in 0 1; do
	for what in kernels blocks SMs; do
		check "two-gpus: device $d $what as the program ran them" contains "$v" "ok: device $d: $what"
	done
	check "two-gpus: device $d's blocks inside their kernels by its stored clock (plain SQL)" \
		contains "$v" "ok: device $d: blocks inside their kernels"
done
# Without the stored clocks the reader measures the same ones itself.
cp $FX/two-gpus.smtop "$E2E_TMP/two-gpus-noclock.smtop"
sqlite3 "$E2E_TMP/two-gpus-noclock.smtop" "DELETE FROM smtop_meta WHERE key LIKE 'clock%'"
out=$("$SMTOP" info "$E2E_TMP/two-gpus-noclock.smtop")
check "two-gpus: clocks measured again as stored" sh -c "printf '%s' '$out' | grep -q 'GPU 0: -321.051 us' && printf '%s' '$out' | grep -q 'GPU 1: -400.434 us'"

# The GPU tests' scenario checks, on the recorded sessions of two scenarios.
mkdir -p "$E2E_TMP/demos"
cp $FX/green-contexts.smtop "$E2E_TMP/demos/demo-green-contexts.smtop"
cp $FX/timeslice.smtop "$E2E_TMP/demos/demo-timeslice.smtop"
cp tests/fixtures/timeslice.out "$E2E_TMP/demos/demo-timeslice.out"
"$SMTOP" report "$E2E_TMP/demos/demo-timeslice.smtop" --json > "$E2E_TMP/demos/demo-timeslice.json"
v=$(python3 tests/gpu/check_demos.py "$E2E_TMP/demos")
printf '%s\n' "$v" | sed 's/^/    /'
check "green-contexts: inference and training never share an SM" contains "$v" "ok: green-contexts: streams never share an SM"
check "timeslice: block starts come in one-process slices" contains "$v" "ok: timeslice: block starts come in one-process slices"
check "timeslice: inference requests take longer than alone" contains "$v" "ok: timeslice: inference requests take longer"
check "timeslice: waits behind the other process are timeslice episodes" contains "$v" "ok: timeslice: waits behind the other process are timeslice episodes"
check "scenario checks: none failed" sh -c '! printf "%s" "$1" | grep -q FAIL' _ "$v"

# The timeslice demo under --sm all: the training process's GEMM blocks run
# for milliseconds, so the slice an inference kernel waited out (2.39 ms)
# started and ended no block; it is time-slicing all the same.
v=$(json $FX/timeslice-sm-all.smtop "e=[e for e in r['episodes'] if e['ready_ns'] == 1796244926201642899][0]; c=e['culprits'][0]; print(e['kind'], e['pid'], c['pid'], c['grid_id'], e['from_blocks'])")
check "timeslice-sm-all: the wait through a silent slice is time-slicing ($v)" [ "$v" = "timeslice 465 464 2156 True" ]
v=$(json $FX/timeslice-sm-all.smtop "print(sorted(e['kind'] for e in r['episodes'] if e['from_blocks'] and e['culprits'] and all(c['pid'] != e['pid'] for c in e['culprits'])))")
check "timeslice-sm-all: every wait behind the other process is time-slicing ($v)" [ "$v" = "['timeslice', 'timeslice', 'timeslice']" ]

# The report keeps its events for other tools in smtop's cache, a SQLite
# file of the session schema, and leaves the session as it was.
cp $FX/head-of-line.smtop "$E2E_TMP/hol.smtop"
sum=$(md5sum < "$E2E_TMP/hol.smtop")
"$SMTOP" report -q "$E2E_TMP/hol.smtop" > /dev/null
cache=$(grep -l "$E2E_TMP/hol.smtop" "$XDG_CACHE_HOME"/smtop/*.smtop-cache | head -1)
n=$(sqlite3 "$cache" "SELECT COUNT(*) FROM smtop_events WHERE kind = 'inversion_resident'")
check "events kept in smtop's cache ($n)" [ "$n" -gt 0 ]
check "the session left as it was" [ "$(md5sum < "$E2E_TMP/hol.smtop")" = "$sum" ]

e2e_done
