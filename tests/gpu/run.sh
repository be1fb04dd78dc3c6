#!/bin/sh
# `make test-gpu`: the GPU tests, on a machine with an NVIDIA GPU (written for
# the H200).  Sections (default: those before "then"): collector torch
# overhead overhead_parts demos demo_overhead storm storm_sweep busiest repeat
# layers multi_gpu (skipped on one GPU) sm_all sm_entry sm_all_overhead mps graphs alongside,
# then demos_entry entry_workers overhead_table dormant_overhead dormant_parts dormant_graph sm_windows module_churn exit_window late_sanitizer window_cost request_timeline live_lag nvtx fixtures paper observer demos_sm_all
# sm_all_rate compile_count patch_cost launch_cost dormant_ops sm_all_torch and sm_all_syncs (parts
# of sm_all), and waits (in the default too);
# `tests/gpu/run.sh SECTION...` runs some.
# Sessions and logs go to $SMTOP_GPU_OUT (default build/gpu-out).
# Exit status: non-zero if any assertion failed.
cd "$(dirname "$0")/../.." || exit 1
OUT_DIR=${SMTOP_GPU_OUT:-build/gpu-out}
mkdir -p "$OUT_DIR"
SMTOP=build/smtop
CHECK="python3 tests/gpu/check_session.py"
. tests/gpu/mps_lib.sh
fails=0
sections=${*:-collector torch overhead overhead_parts demos demo_overhead storm storm_sweep busiest repeat layers multi_gpu sm_all sm_entry sm_all_overhead mps graphs alongside waits}

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_eq() { if [ "$2" = "$3" ]; then ok "$1 = $3"; else bad "$1: got '$2', expected '$3'"; fi; }

record() { # record NAME CMD...  -> $OUT_DIR/NAME.smtop
	name=$1
	shift
	rm -f "$OUT_DIR/$name.smtop"
	# The sections before --sm entry test the header's tracer: --sm marked
	# unless SMTOP_RECORD_ARGS says otherwise (entry is the default now).
	# A hung workload or collector must not hang the suite: SIGINT after the
	# limit, forwarded by smtop like any other.
	timeout -s INT "${SMTOP_GPU_LIMIT:-150}" $SMTOP record ${SMTOP_RECORD_ARGS:---sm marked} -q -o "$OUT_DIR/$name.smtop" -- "$@" \
		> "$OUT_DIR/$name.out" 2> "$OUT_DIR/$name.err"
	rc=$?
	cat "$OUT_DIR/$name.err"
	return $rc
}

# read_block_counts SESSION: $stored and $dropped blocks, as `smtop info`
# counts them.
read_block_counts() {
	$SMTOP info "$1" > "$OUT_DIR/drops.info"
	stored=$(sed -n 's/^blocks  *//p' "$OUT_DIR/drops.info" | tr -d ,)
	dropped=$(sed -n 's/^dropped .* \([0-9]*\) blocks$/\1/p' "$OUT_DIR/drops.info")
}

# expect_no_block_drops LABEL SESSION: a dropped block fails.
expect_no_block_drops() {
	read_block_counts "$2"
	echo "$1: $stored blocks, $dropped dropped"
	expect_eq "$1 blocks dropped" "$dropped" 0
}

# expect_blocks_accounted LABEL SESSION BLOCKSTORM_OUTPUT: every block the
# storm ran (its kernels and one warm-up kernel per stream) is stored or
# counted as dropped, none lost without a count.
expect_blocks_accounted() {
	read_block_counts "$2"
	ran=$(sed -n 's/.* streams=\([0-9]*\) .* blocks_per_kernel=\([0-9]*\) kernels=\([0-9]*\) .*/(\3 + \1) * \2/p' "$3" | tail -1)
	if [ -z "$ran" ] || [ -z "$stored" ] || [ -z "$dropped" ]; then
		bad "$1: no block counts in $3 or the session"
		return
	fi
	expect_eq "$1: blocks stored + dropped" "$((stored + dropped))" "$(($ran))"
}

section_collector() {
	echo "== collector: smoke program"
	record smoke build/gpu/collector_smoke || bad "smoke exit status"
	cat "$OUT_DIR/smoke.out"
	$SMTOP info "$OUT_DIR/smoke.smtop"
	launched=$(sed -n 's/^kernels_launched: //p' "$OUT_DIR/smoke.out")
	expect_eq "smoke kernels" "$($CHECK "$OUT_DIR/smoke.smtop" kernels)" "$launched"
	blocks=$(sed -n 's/^blocks_launched: //p' "$OUT_DIR/smoke.out")
	expect_eq "smoke blocks" "$($CHECK "$OUT_DIR/smoke.smtop" blocks)" "$blocks"
	expect_eq "smoke priorities" "$($CHECK "$OUT_DIR/smoke.smtop" priorities)" "-5 0"
	$CHECK "$OUT_DIR/smoke.smtop" nsys-query
	python3 tests/gpu/check_session.py "$OUT_DIR/smoke.smtop" sql \
		"SELECT COUNT(*), SUM(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY" \
		"SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMSET" \
		"SELECT COUNT(*), SUM(queued > 0), SUM(submitted > 0) FROM CUPTI_ACTIVITY_KIND_KERNEL" \
		"SELECT key, value FROM smtop_meta" \
		"SELECT pid, status, reason, drops_cupti, drops_ring, drops_blocks FROM smtop_process" \
		"SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME" \
		"SELECT COUNT(*) FROM smtop_request" \
		"SELECT COUNT(*) FROM NVTX_EVENTS"
	$SMTOP report "$OUT_DIR/smoke.smtop" --top 5 | head -40
}

section_torch() {
	echo "== torch: ResNet-50 inference on priority -5 and 0 streams"
	record resnet python3 tests/gpu/torch_resnet.py --batch 1 --iters 40 --warmup 5 --streams two \
		|| bad "resnet under smtop exit status"
	cat "$OUT_DIR/resnet.out"
	$SMTOP info "$OUT_DIR/resnet.smtop"
	expect_eq "resnet priorities" "$($CHECK "$OUT_DIR/resnet.smtop" priorities)" "-5 0"
	python3 tests/gpu/torch_resnet.py --batch 1 --iters 40 --warmup 5 --streams two --profile \
		> "$OUT_DIR/resnet-profiler.out" 2>&1
	cat "$OUT_DIR/resnet-profiler.out"
	ours=$($CHECK "$OUT_DIR/resnet.smtop" kernels)
	theirs=$(sed -n 's/.*profiler_kernels=\([0-9]*\).*/\1/p' "$OUT_DIR/resnet-profiler.out")
	python3 - "$ours" "$theirs" <<'PY' && ok "kernel count within 1% of torch.profiler" || bad "kernel count vs torch.profiler"
import sys
ours, theirs = int(sys.argv[1]), int(sys.argv[2] or 0)
print(f"smtop {ours} kernels, torch.profiler {theirs}")
sys.exit(0 if theirs and abs(ours - theirs) <= 0.01 * theirs else 1)
PY
	$CHECK "$OUT_DIR/resnet.smtop" nsys-query
	$SMTOP report "$OUT_DIR/resnet.smtop" --top 5 | head -30
}

section_overhead() {
	echo "== overhead: ResNet-50 batch-16 inference, interleaved runs, median ms/iter"
	rounds=${SMTOP_OVERHEAD_ROUNDS:-5}
	: > "$OUT_DIR/overhead.txt"
	i=0
	while [ $i -lt "$rounds" ]; do
		for mode in plain smtop profiler; do
			case $mode in
			plain) python3 tests/gpu/torch_resnet.py --iters 60 ;;
			smtop) rm -f "$OUT_DIR/ovh.smtop"
			       $SMTOP record -q -o "$OUT_DIR/ovh.smtop" -- python3 tests/gpu/torch_resnet.py --iters 60 ;;
			profiler) python3 tests/gpu/torch_resnet.py --iters 60 --profile ;;
			esac | sed -n "s/.*ms_per_iter_median=\([0-9.]*\).*/$mode \1/p" >> "$OUT_DIR/overhead.txt"
		done
		i=$((i + 1))
	done
	python3 tests/gpu/overhead_table.py "$OUT_DIR/overhead.txt"
}

# record_sm_all NAME CMD...: record with every block (--sm all).
record_sm_all() { SMTOP_RECORD_ARGS="--sm all" record "$@"; }

# report_totals SESSION: "blocking R D" counts of smtop report --json.
report_totals() {
	$SMTOP report "$1" --json | python3 -c 'import json,sys; t=json.load(sys.stdin)["totals"]
print(t["blocking"]["count"], t["inversion_resident"]["count"], t["inversion_dispatch"]["count"])'
}

# fresh_compile_caches NAME: torch.compile's caches, empty, for one run.
fresh_compile_caches() {
	export TORCHINDUCTOR_CACHE_DIR="$OUT_DIR/inductor-$1" TRITON_CACHE_DIR="$OUT_DIR/triton-$1"
	rm -rf "$TORCHINDUCTOR_CACHE_DIR" "$TRITON_CACHE_DIR"
}

section_sm_all() {
	echo "== sm_all: every block of every kernel (Compute Sanitizer)"
	section_sm_all_syncs
	record_sm_all unmarked build/gpu/unmarked || bad "unmarked under --sm all exit status"
	cat "$OUT_DIR/unmarked.out"
	$SMTOP info "$OUT_DIR/unmarked.smtop"
	want=$(sed -n 's/^expected_blocks=\([0-9]*\) kernels=\([0-9]*\)/--expect-blocks \1 --expect-kernels \2/p' "$OUT_DIR/unmarked.out")
	python3 tests/gpu/check_blocks_complete.py "$OUT_DIR/unmarked.smtop" $want &&
		ok "unmarked: every block of every kernel" || bad "unmarked: blocks vs grids"
	SMTOP_PATCH=gap record_sm_all gap build/gpu/unmarked
	$SMTOP export "$OUT_DIR/gap.smtop" --csv "$OUT_DIR/gap-csv" -q
	python3 tests/gpu/block_gap.py "$OUT_DIR/gap-csv/blocks.csv"
	section_sm_all_torch
	for d in priority-vs-training head-of-line equal-priority; do
		record_sm_all "all-$d" build/smtop-demo "$d" --seconds 3
		python3 tests/gpu/check_blocks_complete.py "$OUT_DIR/all-$d.smtop" > "$OUT_DIR/all-$d.check"; head -1 "$OUT_DIR/all-$d.check"
		echo "$d --sm all: blocking resident dispatch = $(report_totals "$OUT_DIR/all-$d.smtop")"
	done
}

# The host's synchronize calls under both backends: sync_kinds (each kind,
# the legacy default stream among them) and the smoke program.  --sm all
# records them as CUPTI does, by kind (smtop info), each stream's on a
# stream its kernels ran on, none ending before a kernel it waited for
# (their host times are on %globaltimer, from the program's first calls on).
section_sm_all_syncs() {
	echo "== sm_all_syncs: the host's synchronize calls under both backends"
	for p in sync_kinds collector_smoke; do
		record "$p-marked" build/gpu/$p || bad "$p exit status"
		record_sm_all "$p-sm-all" build/gpu/$p || bad "$p under --sm all exit status"
		got=$(syncs_of "$p-sm-all")
		echo "$p --sm all: $got"
		expect_eq "$p: synchronizations under --sm all as under CUPTI" "$got" "$(syncs_of "$p-marked")"
		expect_eq "$p: synchronizations on streams with kernels, after the kernels they waited for" \
			"$($CHECK "$OUT_DIR/$p-sm-all.smtop" sync-checks)" "0 stray 0 early"
	done
	expect_eq "sync_kinds: the program's own count" "$(syncs_of sync_kinds-sm-all)" \
		"$(sed -n 's/^syncs //p' "$OUT_DIR/sync_kinds-sm-all.out")"
}

# syncs_of NAME: smtop info's synchronizations line of $OUT_DIR/NAME.smtop.
syncs_of() {
	$SMTOP info "$OUT_DIR/$1.smtop" | sed -n 's/^syncs *//p'
}

# The torch.compile'd two-stream program under --sm all: every block, the
# kernel count against torch.profiler's, the streams' priorities.
section_sm_all_torch() {
	echo "== sm_all_torch: the PyTorch program under --sm all"
	# Both counted runs share caches a first, unrecorded run filled: from
	# empty caches torch.compile autotunes, and how many kernels that
	# launches depends on their timing (section compile_count compares
	# those runs name by name).
	fresh_compile_caches torch2
	python3 tests/gpu/torch_two_streams.py --iters 10 > "$OUT_DIR/torch2-warm.out" 2>&1
	record_sm_all torch2 python3 tests/gpu/torch_two_streams.py --iters 10 || bad "torch under --sm all exit status"
	cat "$OUT_DIR/torch2.out"
	$SMTOP info "$OUT_DIR/torch2.smtop"
	python3 tests/gpu/check_blocks_complete.py "$OUT_DIR/torch2.smtop" &&
		ok "torch: every block of every kernel" || bad "torch: blocks vs grids"
	python3 tests/gpu/torch_two_streams.py --iters 10 --profile > "$OUT_DIR/torch2-profiler.out" 2>&1
	unset TORCHINDUCTOR_CACHE_DIR TRITON_CACHE_DIR
	theirs=$(sed -n 's/.*profiler_kernels=\([0-9]*\).*/\1/p' "$OUT_DIR/torch2-profiler.out")
	ours=$($SMTOP report "$OUT_DIR/torch2.smtop" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["kernels"])')
	expect_eq "torch: kernels (smtop report vs torch.profiler)" "$ours" "$theirs"
	prios=$($SMTOP report "$OUT_DIR/torch2.smtop" --json | python3 -c 'import json,sys
print(" ".join(str(p) for p in sorted({s["priority"] for s in json.load(sys.stdin)["streams"] if s["kernels"] > 100})))')
	expect_eq "torch: priorities of the busy streams" "$prios" "-5 0"
	SMTOP_PATCH=gap record_sm_all torch2gap python3 tests/gpu/torch_two_streams.py --iters 3
	$SMTOP export "$OUT_DIR/torch2gap.smtop" --csv "$OUT_DIR/torch2gap-csv" -q
	python3 tests/gpu/block_gap.py "$OUT_DIR/torch2gap-csv/blocks.csv"
}

# traced_run MODE SESSION CMD...: CMD as one mode of the overhead
# comparisons runs it, pinned by $PIN: plain; recorded into SESSION (marked,
# entry and its variants, exact, all, and the sanitizer's own costs: off,
# empty, empty-entry, all-entry; entry-lean: host arena and the handled
# callbacks alone); dormant-SM: started by smtop launch
# --sm SM, nothing recorded.  1 for a mode it does not know.  EMPTY: the
# patches that return at once.
traced_run() {
	tr_mode=$1 tr_session=$2
	shift 2
	case $tr_mode in
	plain) $PIN "$@" ;;
	marked) traced_record marked "" "$@" ;;
	off) SMTOP_PATCH=off traced_record all "" "$@" ;;
	empty) SMTOP_PATCHES=$EMPTY traced_record all "" "$@" ;;
	empty-entry) SMTOP_PATCH=entry SMTOP_PATCHES=$EMPTY traced_record all "" "$@" ;;
	all-entry) SMTOP_PATCH=entry traced_record all "" "$@" ;;
	entry) traced_record entry "" "$@" ;;
	entry-nomarks) SMTOP_ENTRY_MARKS=0 traced_record entry "" "$@" ;;
	entry-host) SMTOP_ENTRY_ARENA=host traced_record entry "" "$@" ;;
	entry-handled) SMTOP_CALLBACKS=handled traced_record entry "" "$@" ;;
	entry-lean) SMTOP_ENTRY_ARENA=host SMTOP_CALLBACKS=handled traced_record entry "" "$@" ;;
	entry-w1) SMTOP_ENTRY_WORKERS=1 traced_record entry "" "$@" ;;
	entry-nowin) traced_record entry "--exact-every 0" "$@" ;;
	entry-warp) SMTOP_ENTRY_PER=warp traced_record entry "--exact-every 0" "$@" ;;
	entry-win) traced_record entry "--exact-every 1s" "$@" ;;
	exact) traced_record exact "" "$@" ;;
	all) traced_record all "" "$@" ;;
	dormant-*) (SMTOP_CONTROL_DIR=$(mktemp -d) && export SMTOP_CONTROL_DIR && alongside_launch "${tr_mode#dormant-}" "$@") ;;
	*) return 1 ;;
	esac
}

# traced_record SM OPTIONS CMD...: CMD under smtop record --sm SM OPTIONS
# into traced_run's session.
traced_record() {
	tr_sm=$1 tr_opts=$2
	shift 2
	$PIN $SMTOP record -q -o "$tr_session" --sm "$tr_sm" $tr_opts -- "$@"
}

# plain_spread ARGS...: two plain runs of torch_resnet.py ARGS, pinned by
# $PIN; prints their ms per iteration and fails when they differ by more
# than 10%, a machine too noisy to tell the modes apart.
plain_spread() {
	set -- $(for _ in 1 2; do
		$PIN python3 tests/gpu/torch_resnet.py "$@" 2>/dev/null | sed -n 's/.*ms_per_iter_median=\([0-9.]*\).*/\1/p'
	done)
	echo "${1:-?} and ${2:-?} ms"
	python3 -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(max(a, b) / min(a, b) - 1 > 0.10)' \
		"${1:-0}" "${2:-0}" 2>/dev/null
}

# overhead_rounds SECTION WORKLOADS MODES: ResNet-50 (infer: batch-16
# inference, train: a batch-64 training step) in each mode in turn,
# SMTOP_OVERHEAD_ROUNDS interleaved rounds, each process pinned alike
# (SMTOP_CPUS, e.g. the GPU's NUMA-local cores); per workload, a table of
# the iterations and one of the host's time to submit them.
# nsys: on PATH, else NSYS (the H200 machine's comes with Nsight Compute).
# empty and empty-entry load patches that return at once.  The -half modes
# pin the program to SMTOP_PROGRAM_CPUS (0-7), and entry-apart keeps the
# collector's threads on SMTOP_APART_CPUS (8-15) beside it.
# SMTOP_QUIET_CHECK=1: a workload whose two plain runs first differ by more
# than 10% gets no table (the machine is too noisy for one).
overhead_rounds() {
	rounds=${SMTOP_OVERHEAD_ROUNDS:-3}
	PIN=${SMTOP_CPUS:+taskset -c $SMTOP_CPUS}
	NSYS=${NSYS:-$(command -v nsys || echo /opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys)}
	EMPTY=$PWD/build/gpu/empty-patches.fatbin
	# which host: a noisy one (other tenants, a busy sibling thread)
	# spreads plain's own runs widely
	echo "host: $(nproc) CPUs, $(lscpu 2>/dev/null | sed -n 's/^Thread(s) per core: *//p') a core," \
		"$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	for w in $2; do
		case $w in
		infer) echo "== $1: ResNet-50 batch-16 inference, median ms/iter"; args="--iters 40" ;;
		train) echo "== $1: ResNet-50 batch-64 training step, median ms/step"; args="--train --batch 64 --iters 15 --warmup 3" ;;
		esac
		if [ "${SMTOP_QUIET_CHECK:-0}" = 1 ] && ! spread=$(plain_spread $args); then
			echo "noisy: two plain runs read $spread, more than 10% apart; no table"
			continue
		fi
		: > "$OUT_DIR/ovh-$w.txt"
		i=0
		while [ $i -lt "$rounds" ]; do
			for mode in $3; do
				rm -f "$OUT_DIR/ovh.smtop" "$OUT_DIR"/ovh-nsys.*
				case $mode in
				plain-half) taskset -c "${SMTOP_PROGRAM_CPUS:-0-7}" python3 tests/gpu/torch_resnet.py $args ;;
				entry-half) PIN="taskset -c ${SMTOP_PROGRAM_CPUS:-0-7}" traced_run entry "$OUT_DIR/ovh.smtop" \
					python3 tests/gpu/torch_resnet.py $args ;;
				entry-apart) PIN="taskset -c ${SMTOP_PROGRAM_CPUS:-0-7}" SMTOP_COLLECTOR_CPUS=${SMTOP_APART_CPUS:-8-15} \
					traced_run entry "$OUT_DIR/ovh.smtop" python3 tests/gpu/torch_resnet.py $args ;;
				profiler) $PIN python3 tests/gpu/torch_resnet.py $args --profile ;;
				nsys) [ -x "$NSYS" ] && LD_LIBRARY_PATH=$PWD/build/nsys-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
					$PIN "$NSYS" profile -t cuda,nvtx -o "$OUT_DIR/ovh-nsys" python3 tests/gpu/torch_resnet.py $args ;;
				*) traced_run "$mode" "$OUT_DIR/ovh.smtop" python3 tests/gpu/torch_resnet.py $args ;;
				esac 2>/dev/null | sed -n \
					"s/.*ms_per_iter_median=\([0-9.]*\) submit_ms_median=\([0-9.]*\).*/$mode ms_per_iter \1\n$mode submit_ms \2/p" \
					>> "$OUT_DIR/ovh-$w.txt"
				# what a recorded mode kept: a drain that fell behind drops blocks
				[ -f "$OUT_DIR/ovh.smtop" ] &&
					echo "$mode: $($SMTOP info "$OUT_DIR/ovh.smtop" | grep -E '^(blocks|dropped) ' | tr -s ' \n' ' ')"
			done
			i=$((i + 1))
		done
		python3 tests/gpu/overhead_table.py "$OUT_DIR/ovh-$w.txt"
	done
}

# The --sm all overhead beside the other ways to trace.
# SMTOP_OVERHEAD_WORKLOADS (infer train) and SMTOP_OVERHEAD_MODES pick some.
section_sm_all_overhead() {
	overhead_rounds sm_all_overhead "${SMTOP_OVERHEAD_WORKLOADS:-infer train}" \
		"${SMTOP_OVERHEAD_MODES:-plain marked entry all profiler nsys}"
}

# The seven ways to trace ResNet-50 of docs/performance.md's tables, side
# by side: plain, --sm marked, --sm entry (the default: per block, no
# windows), per warp, a window every second, --sm exact and torch.profiler.
section_overhead_table() {
	overhead_rounds overhead_table "${SMTOP_OVERHEAD_WORKLOADS:-infer train}" \
		"plain marked entry entry-warp entry-win exact profiler"
}

# The dormant collector's cost (smtop launch, nothing recorded) on the
# ResNet-50 workloads of sm_all_overhead, against plain.
section_dormant_overhead() {
	overhead_rounds dormant_overhead "${SMTOP_OVERHEAD_WORKLOADS:-infer train}" \
		"${SMTOP_OVERHEAD_MODES:-plain dormant-marked dormant-entry dormant-entry-callbacks}"
}

# Where the dormant --sm entry collector's cost on ResNet-50 batch-16
# inference lies: plain; dormant --sm marked (CUPTI's); dormant --sm entry
# as it is (the recording callbacks off), with them on, with the gate's
# calls off too (bare), with no callback at all (none: the sanitizer's
# own presence) and with smtop unsubscribed from it (unsub: the sanitizer
# loaded, no subscriber).  SMTOP_OVERHEAD_ROUNDS interleaved rounds (3); medians of
# the iteration and of the host's submitting it (a cost there is the
# host's, one beyond it the GPU's).
section_dormant_parts() {
	overhead_rounds dormant_parts infer "${SMTOP_OVERHEAD_MODES:-plain dormant-marked dormant-entry \
		dormant-entry-callbacks dormant-entry-bare dormant-entry-none dormant-entry-unsub}"
}

# The dormant collector on the ResNet-18 loop launched eagerly and replayed
# as one CUDA graph, against plain, and with its recording callbacks kept
# on (SMTOP_DORMANT_QUIET=0) (tests/gpu/torch_graph_loop.py):
# SMTOP_OVERHEAD_ROUNDS rounds (3).
section_dormant_graph() {
	echo "== dormant_graph: ResNet-18 batch 16, eager and replayed, ms/step"
	PIN=${SMTOP_CPUS:+taskset -c $SMTOP_CPUS}
	i=0
	while [ $i -lt "${SMTOP_OVERHEAD_ROUNDS:-3}" ]; do
		echo "plain $($PIN python3 tests/gpu/torch_graph_loop.py)"
		echo "dormant $(SMTOP_CONTROL_DIR=$(mktemp -d) $PIN $SMTOP launch -q -- python3 tests/gpu/torch_graph_loop.py)"
		# the graph callbacks on too: a replay paid for them
		echo "dormant-callbacks $(SMTOP_DORMANT_QUIET=0 SMTOP_CONTROL_DIR=$(mktemp -d) $PIN $SMTOP launch -q -- \
			python3 tests/gpu/torch_graph_loop.py)"
		i=$((i + 1))
	done
}

# What the sanitizer's patching costs beside smtop's patches and
# torch.profiler: plain; the callbacks alone (SMTOP_PATCH=off); patches that
# return at once, at entry and exit and at entry only; smtop's entry-only
# and full patches.  SMTOP_OVERHEAD_WORKLOADS (infer) and
# SMTOP_OVERHEAD_MODES pick some.
section_patch_cost() {
	overhead_rounds patch_cost "${SMTOP_OVERHEAD_WORKLOADS:-infer}" \
		"${SMTOP_OVERHEAD_MODES:-plain off empty empty-entry all-entry all profiler}"
}

# The host's part of a launch call under each way to trace: a loop of tiny
# launches (build/gpu/launch_rate, 64 blocks each, a synchronize every
# 100), SMTOP_OVERHEAD_ROUNDS interleaved rounds; p50 and p99 of the calls
# and the loop's time per launch, and the median of an event record, a
# stream query, a device query, a capture query, a launch round-robin over
# 64 kernels and one with a 1 KiB parameter buffer (where a dormant
# sanitizer's cost to PyTorch may lie); dormant-SM is smtop launch --sm SM, not
# recording (-bare, -none and -unsub: with fewer callbacks, as in
# dormant_parts).
# SMTOP_LAUNCH_MODES picks some.
section_launch_cost() {
	echo "== launch_cost: the launch call's host part, us"
	rounds=${SMTOP_OVERHEAD_ROUNDS:-2}
	EMPTY=$PWD/build/gpu/empty-patches.fatbin
	lr="build/gpu/launch_rate 20000 64"
	i=0
	while [ $i -lt "$rounds" ]; do
		for mode in ${SMTOP_LAUNCH_MODES:-plain off empty-entry entry entry-host entry-handled entry-lean marked \
			dormant-marked dormant-entry dormant-entry-bare dormant-entry-none dormant-entry-unsub}; do
			rm -f "$OUT_DIR/lr.smtop"
			PIN= traced_run "$mode" "$OUT_DIR/lr.smtop" $lr 2>&1 | sed -n "s/^launch_us/$mode: launch_us/p"
		done
		i=$((i + 1))
	done
}

# Where the dormant collector's cost to a launch-bound PyTorch program lies:
# the host's time per operator, by kind (tests/gpu/torch_op_cost.py), plain
# and dormant, SMTOP_OVERHEAD_ROUNDS interleaved rounds (2), and a table a
# kind of each mode's median against the first mode's.  SMTOP_LAUNCH_MODES
# picks the modes.
section_dormant_ops() {
	echo "== dormant_ops: the host's time per PyTorch operator, us"
	PIN=${SMTOP_CPUS:+taskset -c $SMTOP_CPUS}
	: > "$OUT_DIR/ops.txt"
	i=0
	while [ $i -lt "${SMTOP_OVERHEAD_ROUNDS:-2}" ]; do
		for mode in ${SMTOP_LAUNCH_MODES:-plain dormant-marked dormant-entry dormant-entry-none dormant-entry-unsub}; do
			traced_run "$mode" "$OUT_DIR/ops.smtop" python3 tests/gpu/torch_op_cost.py 2>/dev/null |
				tr ' ' '\n' | sed -n "s/^\([a-z]*_us\)=\(.*\)/$mode \1 \2/p" | tee -a "$OUT_DIR/ops.txt"
		done
		i=$((i + 1))
	done
	python3 tests/gpu/overhead_table.py "$OUT_DIR/ops.txt" us
}

record_sm_entry() { SMTOP_RECORD_ARGS="--sm entry" record "$@"; }

# ends_summary SESSION: how many blocks have inferred ends (blocks.csv's
# end_bound), as `smtop export` writes them.
ends_summary() {
	rm -rf "$OUT_DIR/ends-csv"
	$SMTOP export "$1" --csv "$OUT_DIR/ends-csv" -q &&
		python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); b=sum(x["end_bound"]=="1" for x in r); print(f"blocks={len(r)} inferred={b} exact={len(r)-b}")' \
			"$OUT_DIR/ends-csv/blocks.csv"
}

# episodes SESSION: episode counts by kind, certain+possible.
episodes() {
	$SMTOP report "$1" --json --top 1000000 | python3 tests/gpu/episodes_by_kind.py
}

# Exact windows of --sm entry (collectors/patch_switch.c): --sm exact
# measures a program's inferred ends against its exact ones, and the windows
# do so on the PyTorch two-stream program (twice: their yield varies), with
# its episodes (window_cost has them without windows).
section_sm_windows() {
	echo "== sm_windows: exact windows of --sm entry, and --sm exact"
	# build/gpu/unmarked launches all its kernels before a periodic window
	# falls due (after a second): --sm exact measures every end instead,
	# against the end the slots would have inferred
	SMTOP_GPU_LIMIT=60 SMTOP_RECORD_ARGS="--sm exact" record exact-unmarked build/gpu/unmarked ||
		bad "unmarked under --sm exact: exit status"
	$SMTOP info "$OUT_DIR/exact-unmarked.smtop" | grep -E "recorded with|inferred ends|residency|blocks|dropped"
	if $SMTOP info "$OUT_DIR/exact-unmarked.smtop" | grep -q "^inferred ends"; then
		ok "unmarked under --sm exact: inferred ends measured against exact ones"
	else
		bad "unmarked under --sm exact: no inferred end was measured"
	fi
	for run in 1 2; do
		SMTOP_DEBUG=1 SMTOP_RECORD_ARGS="--sm entry --exact-every 1s" record win-torch python3 tests/gpu/torch_two_streams.py --iters 10 \
			> "$OUT_DIR/win-torch.debug" 2>&1 || bad "torch, windows every 1s: exit status"
		grep -E "patches:|lazily|Error|error" "$OUT_DIR/win-torch.debug" | head -4
		sed -n 's/.*\(window blocks given up without their ends: .*\)/\1/p' "$OUT_DIR/win-torch.debug"
		$SMTOP info "$OUT_DIR/win-torch.smtop" | grep -E "recorded with|inferred ends|blocks|dropped"
		echo "observer --sm entry, windows every 1s ($run): $(cat "$OUT_DIR/win-torch.out") $(episodes "$OUT_DIR/win-torch.smtop")"
		# which kernels launched in a window got their exact ends: runs
		# differ widely in how many blocks their windows measure
		echo "torch, windows ($run): $(ends_summary "$OUT_DIR/win-torch.smtop")"
		python3 tests/gpu/window_ends.py "$OUT_DIR/ends-csv" ||
			bad "torch, windows ($run): no kernel launched in a window got an exact end"
	done
}

# churn_checked OUT: the rounds build/gpu/module_churn checked, from its
# output.
churn_checked() {
	sed -n 's/.*checked=\([0-9]*\).*/\1/p' "$1"
}

# A program that loads and unloads modules for its whole life
# (build/gpu/module_churn: 10,000 loads, 8 live at once, more loads than the
# patch switch has slots) under --sm entry with windows: every module is
# patched, in a slot an unloaded one left, every block is stored or counted,
# the windows' kernels get their exact ends, and the copy to the host that
# ends each round bounds its blocks' inferred ends.
section_module_churn() {
	echo "== module_churn: modules loaded and unloaded for a program's whole life"
	SMTOP_GPU_LIMIT=240 SMTOP_DEBUG=1 SMTOP_RECORD_ARGS="--sm entry --exact-every 100ms" \
		record churn build/gpu/module_churn build/gpu/churn-module.fatbin 10000 8 \
		> "$OUT_DIR/churn.debug" 2>&1 ||
		{ bad "module_churn: exit status $?"; tail -n 20 "$OUT_DIR/churn.debug"; }
	cat "$OUT_DIR/churn.out"
	grep -E "^module_churn|patches:" "$OUT_DIR/churn.debug" | tail -3
	expect_eq "module_churn: rounds checked" "$(churn_checked "$OUT_DIR/churn.out")" 10000
	patches=$(grep "patches:" "$OUT_DIR/churn.debug" | tail -1)
	loaded=$(echo "$patches" | sed -n 's/.*patches: \([0-9]*\) modules.*/\1/p')
	if [ -n "$loaded" ] && [ "$loaded" -ge 10000 ]; then
		ok "module_churn: $loaded modules seen loading"
	else
		bad "module_churn: modules seen loading: '$loaded', expected 10000 or more"
	fi
	expect_eq "module_churn: modules loaded unpatched" "$(echo "$patches" | sed -n 's/.* \([0-9]*\) loaded unpatched after waiting.*/\1/p')" 0
	expect_eq "module_churn: patch switch failures" "$(echo "$patches" | sed -n 's/.* \([0-9]*\) failures$/\1/p')" 0
	read_block_counts "$OUT_DIR/churn.smtop"
	expected=$(sed -n 's/.*expected_blocks=\([0-9]*\).*/\1/p' "$OUT_DIR/churn.out")
	expect_eq "module_churn: blocks stored + dropped" "$((stored + dropped))" "$expected"
	expect_eq "module_churn: kernels" "$(sed -n 's/^kernels  *//p' "$OUT_DIR/drops.info" | tr -d ,)" 10000
	info=$(cat "$OUT_DIR/drops.info") # read_block_counts's `smtop info` of churn.smtop
	echo "$info" | grep -E "^windows|exact windows|inferred ends|^residency"
	# Each round ends in a copy to the host: without that copy as a bound,
	# the last block on each warp slot lasted until the next round's
	# (docs/performance.md, copies to the host as bounds).
	ratio=$(echo "$info" | sed -n 's/^residency .* their SMs \([0-9.]*\)x as long.*/\1/p')
	if [ -n "$ratio" ] && awk -v r="$ratio" 'BEGIN { exit !(r < 6) }'; then
		ok "module_churn: SM residency by inferred ends ${ratio}x that by exact ends, under 6x"
	else
		bad "module_churn: SM residency by inferred ends '$ratio'x that by exact ends, expected under 6x"
	fi
	echo "module_churn: $(ends_summary "$OUT_DIR/churn.smtop")"
	python3 tests/gpu/window_ends.py "$OUT_DIR/ends-csv" ||
		bad "module_churn: no kernel launched in a window got an exact end"
}

# The program exits inside an exact window: one of 10 s falls due a second
# in, and module_churn's 20,000 rounds take about 2 s.  The collector stops
# its threads before the CUDA runtime's exit handlers and leaves the window
# open; a stop that switched back over the modules the runtime had freed
# crashed module_churn in 3 of 35 runs (docs/performance.md, "A crash at
# exit").
section_exit_window() {
	echo "== exit_window: the program exits inside an exact window"
	for run in 1 2 3; do
		SMTOP_GPU_LIMIT=60 SMTOP_RECORD_ARGS="--sm entry --exact-every 100ms --exact-for 10s" \
			record exit-window build/gpu/module_churn build/gpu/churn-module.fatbin 20000 8 ||
			bad "exit_window ($run): exit status $?"
		expect_eq "exit_window ($run): rounds checked" \
			"$(churn_checked "$OUT_DIR/exit-window.out")" 20000
		info=$($SMTOP info "$OUT_DIR/exit-window.smtop")
		echo "$info" | grep -E "^state|^recorded with|^kernels"
		expect_eq "exit_window ($run): state" "$(echo "$info" | sed -n 's/^state  *//p')" \
			"complete (exited with status 0)"
		if echo "$info" | grep -q "exact in [1-9][0-9]* exact window"; then
			ok "exit_window ($run): the window open at exit is in the session"
		else
			bad "exit_window ($run): no exact window in the session"
		fi
	done
}

# Whether the Compute Sanitizer can be loaded into a process already running
# CUDA (build/gpu/late_sanitizer): early (before the first CUDA call, as the
# collector loads it) must see every launch and run its patches, which
# checks the probe; late prints what a sanitizer opened after the process's
# first kernels sees and does, and what a launch costs before and after;
# renewed the same after a device reset made the context again.
section_late_sanitizer() {
	echo "== late_sanitizer: the Compute Sanitizer opened after CUDA started"
	lib=${SMTOP_SANITIZER_LIB:-$(ls /usr/local/cuda*/compute-sanitizer/libsanitizer-public.so 2>/dev/null | head -1)}
	for when in early late renewed; do
		line=$(build/gpu/late_sanitizer $when "$lib" build/gpu/count-patches.fatbin build/gpu/churn-module.fatbin) ||
			bad "late_sanitizer $when: exit status"
		echo "$line"
		eval "$(echo "$line" | tr ' ' '\n' | sed -n 's/^\([a-z_]*\)=\([-0-9./]*\)$/\1=\2/p' | sed "s/^/${when}_/")"
	done
	expect_eq "late_sanitizer early: subscribe" "$early_subscribe" 0
	expect_eq "late_sanitizer early: launch callbacks" "$early_launch_callbacks" 20000/20000
	if [ "${early_own_patch_calls:-0}" -gt 0 ] && [ "${early_loaded_patch_calls:-0}" -gt 0 ]; then
		ok "late_sanitizer early: the patch ran ($early_own_patch_calls and $early_loaded_patch_calls calls)"
	else
		bad "late_sanitizer early: the patch did not run: $early_own_patch_calls, $early_loaded_patch_calls"
	fi
	# A late sanitizer saw every launch but could not load its
	# patches into the context made before it (docs/performance.md): say so
	# if a driver changes that.
	if [ "${late_own_patch_calls:--1}" -gt 0 ]; then
		echo "note: a sanitizer opened late patched a module; docs/performance.md says it could not"
	fi
}

# What the windows cost, apart from sm_windows (together they run past ten
# minutes): the program under eager loading with windows must finish, its
# episodes without windows (the observer effect), and a latency-sensitive
# stream's requests without windows and with a window every 500 ms.
section_window_cost() {
	echo "== window_cost: the windows under eager loading, and their cost to latency"
	# eager loading loads thousands of modules: the windows' switches must
	# not stall the program, which must finish
	CUDA_MODULE_LOADING=EAGER SMTOP_DEBUG=1 SMTOP_RECORD_ARGS="--sm entry --exact-every 1s" \
		record win-eager python3 tests/gpu/torch_two_streams.py --iters 3 > "$OUT_DIR/win-eager.debug" 2>&1 ||
		bad "torch, eager loading, windows every 1s: exit status"
	grep -E "patch switch|patches:" "$OUT_DIR/win-eager.debug" | head -8
	if grep -q "^two-streams" "$OUT_DIR/win-eager.out"; then
		ok "eager loading with windows: the program finished"
	else
		bad "eager loading with windows: the program did not finish"
	fi
	SMTOP_RECORD_ARGS="--sm entry --exact-every 0" record obs-entry python3 tests/gpu/torch_two_streams.py --iters 10 ||
		bad "torch --sm entry exit status"
	echo "observer --sm entry, no windows: $(cat "$OUT_DIR/obs-entry.out") $(episodes "$OUT_DIR/obs-entry.smtop")"
	for w in 0 500ms; do
		SMTOP_ENTRY_MARKS=0 timeout -s INT 150 $SMTOP record --sm entry --exact-every $w --exact-for 20ms -q -o "$OUT_DIR/lat-$w.smtop" -- \
			build/smtop-demo priority-vs-training --seconds 6 > "$OUT_DIR/lat-$w.out" 2>&1
		echo "latency, windows every $w: $(grep -E "summary|rror" "$OUT_DIR/lat-$w.out")"
		$SMTOP info "$OUT_DIR/lat-$w.smtop" | grep -E "^(recorded with|inferred ends)"
	done
}

# demos_under SM DIR: the demos recorded with --sm SM into DIR, none of their
# blocks dropped, every episode reported; check_demos.py judges them as it
# judges the header's tracer's.
demos_under() {
	mkdir -p "$2"
	for d in priority-vs-training equal-priority head-of-line green-contexts timeslice; do
		rm -f "$2/demo-$d.smtop"
		timeout -s INT 150 $SMTOP record --sm "$1" -q -o "$2/demo-$d.smtop" -- \
			build/smtop-demo "$d" --seconds 3 > "$2/demo-$d.out" 2> "$2/demo-$d.err"
		echo "demo $d --sm $1 exit $?"
		cat "$2/demo-$d.err"
		expect_no_block_drops "demo $d --sm $1" "$2/demo-$d.smtop"
		$SMTOP report "$2/demo-$d.smtop" --json --top 1000000 > "$2/demo-$d.json"
		echo "$d --sm $1: blocking resident dispatch = $(report_totals "$2/demo-$d.smtop")"
		# --sm entry records the kernels without the header's marks too
		# (the set-up kernels that share the marked kernels' module)
		if [ "$1" = entry ]; then
			counts=$(python3 -c 'import json,sys; r = json.load(sys.stdin)
print(r["kernels_with_blocks"], r["kernels"])' < "$2/demo-$d.json")
			expect_eq "demo $d --sm entry: kernels with blocks (smtop report)" "${counts% *}" "${counts#* }"
		fi
	done
	python3 tests/gpu/check_demos.py "$2" || fails=$((fails + 1))
}

# The demos under --sm marked, under --sm entry with SMTOP_ENTRY_MARKS=0
# (bounded ends alone, no windows), and under the default --sm entry (their
# kernels, which carry the block tracer header, time their own blocks), one
# after the other: each judged by check_demos.py, and their verdicts
# compared with --sm marked's (compare_verdicts.py: kind, culprit, median
# wait).  The last must agree; the second shows what bounded ends alone
# give.  A trimmed copy of each --sm entry session with the marks off is
# left for the CPU tests (fx-entry-NAME.smtop).
section_demos_entry() {
	echo "== demos_entry: the demos' verdicts under --sm entry against --sm marked"
	demos_under marked "$OUT_DIR/verdicts-marked"
	# SMTOP_DEMOS_BOUNDED=0 skips the run with bounded ends alone (and the
	# fixtures trimmed from it), which takes half the section's time.
	if [ "${SMTOP_DEMOS_BOUNDED:-1}" != 0 ]; then
		SMTOP_ENTRY_MARKS=0 demos_under entry "$OUT_DIR/verdicts-entry"
		python3 tests/gpu/compare_verdicts.py "$OUT_DIR/verdicts-marked" "$OUT_DIR/verdicts-entry"
	fi
	demos_under entry "$OUT_DIR/verdicts-entry-marks"
	python3 tests/gpu/compare_verdicts.py "$OUT_DIR/verdicts-marked" "$OUT_DIR/verdicts-entry-marks" ||
		fails=$((fails + 1))
	for d in priority-vs-training equal-priority head-of-line green-contexts timeslice; do
		s=$OUT_DIR/verdicts-entry-marks/demo-$d.smtop
		$SMTOP info "$s" | grep -q "in kernels built with the block tracer header" &&
			ok "demo $d: info says the marked kernels' ends are exact" ||
			bad "demo $d: info does not name the marks"
		rm -rf "$OUT_DIR/marks-csv"
		$SMTOP export "$s" --csv "$OUT_DIR/marks-csv" -q
		bounded=$(tr -d '\r' < "$OUT_DIR/marks-csv/blocks.csv" | awk -F, 'NR > 1 && $NF == "1"' | wc -l)
		echo "demo $d with marks: $bounded blocks with bounded ends (the demos' unmarked kernels)"
		[ "${SMTOP_DEMOS_BOUNDED:-1}" = 0 ] ||
			python3 tests/gpu/trim_session.py "$OUT_DIR/verdicts-entry/demo-$d.smtop" "$OUT_DIR/fx-entry-$d.smtop" \
			--report "$OUT_DIR/verdicts-entry/demo-$d.json" --whole-kernels > /dev/null
	done
}

# --sm entry: every block's start and SM from the entry patch alone, its
# end bounded (collectors/slot_bounds.h).  Every block is stored or counted
# as dropped, the kernels are torch.profiler's, and the demos' verdicts are
# those of --sm marked (check_demos.py).
section_sm_entry() {
	echo "== sm_entry: every block's start and SM, ends bounded"
	record_sm_entry entry-unmarked build/gpu/unmarked || bad "unmarked under --sm entry exit status"
	cat "$OUT_DIR/entry-unmarked.out"
	$SMTOP info "$OUT_DIR/entry-unmarked.smtop"
	want=$(sed -n 's/^expected_blocks=\([0-9]*\) kernels=\([0-9]*\)/--expect-blocks \1 --expect-kernels \2/p' "$OUT_DIR/entry-unmarked.out")
	python3 tests/gpu/check_blocks_complete.py "$OUT_DIR/entry-unmarked.smtop" $want &&
		ok "unmarked --sm entry: every block of every kernel" || bad "unmarked --sm entry: blocks vs grids"
	record_sm_entry entry-graphs build/gpu/graph_branch || bad "graph_branch under --sm entry exit status"
	python3 tests/gpu/check_blocks_complete.py "$OUT_DIR/entry-graphs.smtop" &&
		ok "graph_branch --sm entry: every block" || bad "graph_branch --sm entry: blocks vs grids"
	fresh_compile_caches entry
	python3 tests/gpu/torch_two_streams.py --iters 10 > "$OUT_DIR/entry-torch-warm.out" 2>&1
	record_sm_entry entry-torch python3 tests/gpu/torch_two_streams.py --iters 10 || bad "torch under --sm entry exit status"
	cat "$OUT_DIR/entry-torch.out"
	$SMTOP info "$OUT_DIR/entry-torch.smtop"
	python3 tests/gpu/check_blocks_complete.py "$OUT_DIR/entry-torch.smtop" &&
		ok "torch --sm entry: every block of every kernel" || bad "torch --sm entry: blocks vs grids"
	python3 tests/gpu/torch_two_streams.py --iters 10 --profile > "$OUT_DIR/entry-torch-profiler.out" 2>&1
	unset TORCHINDUCTOR_CACHE_DIR TRITON_CACHE_DIR
	theirs=$(sed -n 's/.*profiler_kernels=\([0-9]*\).*/\1/p' "$OUT_DIR/entry-torch-profiler.out")
	ours=$($SMTOP report "$OUT_DIR/entry-torch.smtop" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["kernels"])')
	expect_eq "torch --sm entry: kernels (smtop report vs torch.profiler)" "$ours" "$theirs"
	echo "torch --sm entry: blocking resident dispatch = $(report_totals "$OUT_DIR/entry-torch.smtop")"
	# the marks ask no launch of a program without the header: asking every
	# one made ResNet-50 drop nearly every block (docs/performance.md)
	SMTOP_DEBUG=1 timeout -s INT 150 $SMTOP record --sm entry -q -o "$OUT_DIR/entry-torch-marks.smtop" -- \
		python3 tests/gpu/torch_two_streams.py --iters 2 > /dev/null 2> "$OUT_DIR/entry-torch-marks.err"
	grep -q "launches timed their own blocks (the block tracer header), 0 modules may hold its ring" \
		"$OUT_DIR/entry-torch-marks.err" && ok "torch --sm entry: no module of PyTorch's may hold the ring" ||
		bad "torch --sm entry: $(grep "modules may hold" "$OUT_DIR/entry-torch-marks.err")"
	D=$OUT_DIR/sm-entry-demos
	# the demos' kernels would time their own blocks (the marks): bounded
	# ends alone, against exact ones from the header's tracer
	SMTOP_ENTRY_MARKS=0 demos_under entry "$D"
	# (the CSV of a 3 s demo of 22 M blocks takes minutes to read here)
	for d in head-of-line; do
		rm -f "$D/marked-$d.smtop"
		timeout -s INT 150 $SMTOP record --sm marked -q -o "$D/marked-$d.smtop" -- \
			build/smtop-demo "$d" --seconds 3 > "$D/marked-$d.out" 2>&1
		echo "== entry_accuracy $d (--sm marked vs --sm entry)"
		python3 tests/gpu/entry_accuracy.py "$D/marked-$d.smtop" "$D/demo-$d.smtop" | tail -8
	done
}

section_demos() {
	echo "== demos"
	build/smtop-demo --list
	for d in priority-vs-training equal-priority head-of-line green-contexts placement timeslice; do
		record "demo-$d" build/smtop-demo "$d" --seconds 3
		echo "demo $d exit $?"
		tail -5 "$OUT_DIR/demo-$d.out"
		expect_no_block_drops "demo $d" "$OUT_DIR/demo-$d.smtop"
		# every episode, not the 20 worst: check_demos.py judges them all
		$SMTOP report "$OUT_DIR/demo-$d.smtop" --json --top 1000000 > "$OUT_DIR/demo-$d.json"
		$SMTOP report "$OUT_DIR/demo-$d.smtop" --top 3 | head -30
	done
	python3 tests/gpu/check_demos.py "$OUT_DIR" || fails=$((fails + 1))
}

# The demos recorded with every block (--sm all): the same verdicts as with
# the header's tracer (check_demos.py on their sessions and reports).
section_demos_sm_all() {
	echo "== demos with --sm all"
	D=$OUT_DIR/sm-all-demos
	demos_under all "$D"
	# the waits behind the other process that were not called time-slicing
	python3 tests/gpu/timeslice_probe.py "$D/demo-timeslice.smtop" "$D/timeslice-probe"
}

# Each part of the collector switched off in turn (docs/collector.md), and
# torch.profiler, interleaved.
section_overhead_parts() {
	echo "== overhead by collector part: ResNet-50 batch-16 inference, interleaved, median ms/iter"
	# SMTOP_CPUS (e.g. the GPU's NUMA-local cores) pins every run alike.
	PIN=${SMTOP_CPUS:+taskset -c $SMTOP_CPUS}
	: > "$OUT_DIR/overhead-parts.txt"
	for i in $(seq "${SMTOP_OVERHEAD_ROUNDS:-3}"); do
		for mode in ${SMTOP_PARTS:-plain all no-latency no-api no-blocks no-flush kernels-only profiler}; do
			case $mode in
			plain) $PIN python3 tests/gpu/torch_resnet.py --iters 100 ;;
			profiler) $PIN python3 tests/gpu/torch_resnet.py --iters 100 --profile ;;
			*) case $mode in
			   all) env= ;; no-latency) env=SMTOP_LATENCY=0 ;; no-api) env=SMTOP_API=0 ;;
			   no-blocks) env=SMTOP_BLOCKS=0 ;; no-flush) env=SMTOP_FLUSH=0 ;;
			   kernels-no-flush) env="SMTOP_LATENCY=0 SMTOP_API=0 SMTOP_BLOCKS=0 SMTOP_FLUSH=0" ;;
			   kernels-only) env="SMTOP_LATENCY=0 SMTOP_API=0 SMTOP_BLOCKS=0" ;; esac
			   rm -f "$OUT_DIR/ovh.smtop"
			   env $env $PIN $SMTOP record -q -o "$OUT_DIR/ovh.smtop" -- python3 tests/gpu/torch_resnet.py --iters 100 ;;
			esac | sed -n "s/.*ms_per_iter_median=\([0-9.]*\).*/$mode \1/p" >> "$OUT_DIR/overhead-parts.txt"
		done
	done
	python3 tests/gpu/overhead_table.py "$OUT_DIR/overhead-parts.txt"
}

section_demo_overhead() {
	echo "== demo overhead: each model traced (under smtop record) vs untraced, interleaved"
	: > "$OUT_DIR/demo-overhead.txt"
	for i in 1 2 3; do
		for model in ${SMTOP_DEMO_MODELS:-resnet vgg densenet}; do
			# SMTOP_DEMO_MODES: plain traced, and kernels (CUPTI records
			# without block records), no-latency, no-api to split the cost,
			# plain-unfused (untraced, layer by layer)
			for mode in ${SMTOP_DEMO_MODES:-plain traced}; do
				# SMTOP_DEMO_ARGS: e.g. "--fusion off" for the plain inference tape
				set -- build/smtop-demo priority-vs-training --model "$model" --seconds 4 ${SMTOP_DEMO_ARGS:-}
				if [ $mode = plain ]; then
					"$@" > "$OUT_DIR/dovh.out" 2>&1
				elif [ $mode = plain-unfused ]; then
					"$@" --fusion off > "$OUT_DIR/dovh.out" 2>&1
				else
					case $mode in
					kernels) env=SMTOP_BLOCKS=0 ;; no-latency) env=SMTOP_LATENCY=0 ;;
					no-api) env=SMTOP_API=0 ;; *) env= ;; esac
					rm -f "$OUT_DIR/dovh.smtop"
					env $env $SMTOP record -q -o "$OUT_DIR/dovh.smtop" -- "$@" > "$OUT_DIR/dovh.out" 2>&1
				fi
				sed -n "s/.*solo_median_ms=\([0-9.]*\).*/$mode ${model}_infer_solo_ms \1/p; s/^train .*step_median_ms=\([0-9.]*\).*/$mode ${model}_train_step_ms \1/p" \
					"$OUT_DIR/dovh.out" >> "$OUT_DIR/demo-overhead.txt"
			done
		done
	done
	rm -f "$OUT_DIR/dovh.smtop"
	python3 tests/gpu/overhead_table.py "$OUT_DIR/demo-overhead.txt"
}

# Where one inference request's time goes under smtop record: kernels, the
# gaps between them, and the time before the first and after the last
# (tests/gpu/request_timeline.py); SMTOP_TIMELINE_MODEL picks the model.
section_request_timeline() {
	model=${SMTOP_TIMELINE_MODEL:-densenet}
	echo "== request timeline: $model inference alone, traced"
	record "timeline-$model" build/smtop-demo priority-vs-training --model "$model" --seconds 2 \
		|| bad "timeline $model exit status"
	grep -o "solo_median_ms=[0-9.]* solo_p99_ms=[0-9.]* solo_launch_ms=[0-9.]*" "$OUT_DIR/timeline-$model.out"
	python3 tests/gpu/request_timeline.py "$OUT_DIR/timeline-$model.smtop" | tail -9
}

# Where a live view's lag comes from: the viewer in tmux (its header's lag
# sampled as for the screenshots) with the file sampled beside it, then the
# same recording without a viewer.
section_live_lag() {
	echo "== live lag: viewer and file, $(nproc) CPUs"
	secs=${SMTOP_LAG_SECONDS:-8}
	name=${SMTOP_LAG_DEMO:-priority-vs-training}
	rm -f "$OUT_DIR/live-$name.smtop" "$OUT_DIR/lagrec.smtop"
	sh tests/gpu/live_capture.sh "$OUT_DIR" "$name" "$secs" > "$OUT_DIR/live-capture.txt" 2>&1 &
	sleep 1
	pid=$(pgrep -n -x smtop)
	python3 tests/gpu/lag_probe.py "$OUT_DIR/live-$name.smtop" "$secs" 0.5 "$pid"
	wait
	cat "$OUT_DIR/live-capture.txt"
	echo "-- the same without a viewer"
	SMTOP_DEBUG=1 $SMTOP record -q -o "$OUT_DIR/lagrec.smtop" -- build/smtop-demo "$name" --seconds "$secs" \
		> "$OUT_DIR/lagrec.out" 2> "$OUT_DIR/lagrec.err" &
	python3 tests/gpu/lag_probe.py "$OUT_DIR/lagrec.smtop" "$secs" 0.5
	wait
	grep -E "writer:|drained" "$OUT_DIR/lagrec.err" | tail -5
	$SMTOP info "$OUT_DIR/lagrec.smtop" | grep -E "blocks|dropped|span"
}

section_storm() {
	echo "== storm: block tracer rate"
	secs=${SMTOP_STORM_SECONDS:-20}
	build/blockstorm --seconds "$secs" --no-trace | tail -3
	# The library summary of this many blocks takes minutes; the SIGINT after
	# the limit (the storm itself ends in about secs + 10 s) skips it.
	limit=${SMTOP_GPU_LIMIT:-150}
	SMTOP_GPU_LIMIT=${SMTOP_STORM_LIMIT:-$((secs * 2 + 30))}
	SMTOP_DEBUG=1 record storm build/blockstorm --seconds "$secs" 2>&1 | grep -E "writer:|drained"
	SMTOP_GPU_LIMIT=$limit
	tail -3 "$OUT_DIR/storm.out"
	$SMTOP info "$OUT_DIR/storm.smtop" | grep -E "blocks|dropped|span"
	expect_blocks_accounted "storm" "$OUT_DIR/storm.smtop" "$OUT_DIR/storm.out"
	rm -f "$OUT_DIR/storm.smtop"
}

# storm_run RECORDER LABEL BLOCKSTORM_ARGS...: a block storm recorded by
# RECORDER (record or record_sm_all), every block stored or counted dropped.
storm_run() {
	recorder=$1 label=$2
	shift 2
	SMTOP_DEBUG=1 $recorder storm-run build/blockstorm "$@" 2>&1 | grep -E "writer:|drained"
	tail -1 "$OUT_DIR/storm-run.out"
	$SMTOP info "$OUT_DIR/storm-run.smtop" | grep -E "^ *(blocks|dropped)"
	expect_blocks_accounted "$label" "$OUT_DIR/storm-run.smtop" "$OUT_DIR/storm-run.out"
	rm -f "$OUT_DIR/storm-run.smtop"
}

# Paced storms: the rate where the first block record is dropped.
section_storm_sweep() {
	echo "== storm sweep: paced rates, blocks stored and dropped"
	for rate in ${SMTOP_SWEEP_RATES:-10e6 15e6 20e6 25e6 30e6 40e6}; do
		storm_run record "storm at $rate blocks/s" --seconds "${SMTOP_SWEEP_SECONDS:-6}" --rate "$rate"
	done
}

# The 8 s priority-vs-training demo run after run: every run stores its blocks
# with none dropped (a drain thread that started before its context was ready
# once left a quarter of the SMs undrained in some runs, not others).
section_repeat() {
	runs=${SMTOP_REPEAT_RUNS:-6}
	echo "== the 8 s priority-vs-training demo, $runs runs: blocks stored and dropped"
	for i in $(seq "$runs"); do
		record repeat build/smtop-demo priority-vs-training --seconds 8
		expect_no_block_drops "run $i" "$OUT_DIR/repeat.smtop"
	done
	rm -f "$OUT_DIR/repeat.smtop"
}

# The busiest demo model for 20 s: every block stored, or the exact count dropped.
section_busiest() {
	echo "== busiest demo: VGG-style training beside inference, 20 s"
	SMTOP_DEBUG=1 record busiest build/smtop-demo priority-vs-training --model vgg --seconds 20 \
		2>&1 | grep -E "writer:|drained"
	tail -3 "$OUT_DIR/busiest.out"
	$SMTOP info "$OUT_DIR/busiest.smtop" | grep -E "blocks|dropped|span"
	rm -f "$OUT_DIR/busiest.smtop"
}

# NVTX ranges reach the session by default under both backends: one range
# "request N" per timed iteration (torch.cuda.nvtx.range_push/pop), 30 of
# 30, each on the session's timebase: it holds the host submission of at
# least one kernel launched in it (CUPTI's latency timestamp under marked,
# the launch callback's mapped time under all).
section_nvtx() {
	# marked last: should a shell keep the assignment after the call, what
	# follows still records with the default
	for mode in all marked; do
		echo "== NVTX ranges from PyTorch (--sm $mode)"
		SMTOP_RECORD_ARGS="--sm $mode" record "nvtx-$mode" \
			python3 tests/gpu/torch_resnet.py --batch 1 --iters 30 --warmup 3 --nvtx \
			|| bad "nvtx --sm $mode exit status"
		tail -1 "$OUT_DIR/nvtx-$mode.out"
		$SMTOP info "$OUT_DIR/nvtx-$mode.smtop" | grep -E "kernels|other|dropped"
		python3 - "$OUT_DIR/nvtx-$mode.smtop" > "$OUT_DIR/nvtx-$mode.check" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
ranges = db.execute(
    "SELECT e.start, e.end FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = e.textId"
    " WHERE COALESCE(e.text, s.value) LIKE 'request %' AND e.end > e.start").fetchall()
subs = [r[0] for r in db.execute(
    "SELECT submitted FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE submitted > 0").fetchall()]
held = sum(1 for s, e in ranges if any(s <= t <= e for t in subs))
print(len(ranges), held)
PY
		read n held < "$OUT_DIR/nvtx-$mode.check"
		expect_eq "NVTX ranges 'request N' (--sm $mode)" "$n" 30
		expect_eq "NVTX ranges holding a kernel's submission (--sm $mode)" "$held" 30
	done
}

# Two or more GPUs in one process (needs a machine with several).
section_multi_gpu() {
	echo "== several GPUs in one process"
	record multi build/gpu/multi_gpu
	rc=$?
	cat "$OUT_DIR/multi.out"
	if [ $rc = 2 ]; then
		echo "multi_gpu: skipped, fewer than two GPUs"
		return
	fi
	expect_eq "multi_gpu exit" "$rc" 0
	check_multi multi
	record_sm_all multi-sm-all build/gpu/multi_gpu
	expect_eq "multi_gpu --sm all exit" "$?" 0
	check_multi multi-sm-all
}

# check_multi NAME: the session of multi_gpu, against the program's counts.
check_multi() {
	$SMTOP info "$OUT_DIR/$1.smtop" | grep -E "GPU|kernels|blocks|dropped|clock"
	$SMTOP report "$OUT_DIR/$1.smtop" --top 3 | head -20
	python3 tests/gpu/check_multi_gpu.py "$OUT_DIR/$1.smtop" "$OUT_DIR/$1.out" || fails=$((fails + 1))
}

# MPS for real: the demo's two processes as MPS clients share SMs at once,
# while without MPS (the timeslice demo) they take turns.
section_mps() {
	echo "== mps"
	mdir=$(mktemp -d /tmp/smtop-mps.XXXXXX)
	if ! mps_start "$mdir"; then
		bad "mps: the machine refused an MPS daemon"
		return
	fi
	record demo-mps build/smtop-demo mps --seconds 3
	echo "demo mps exit $?"
	mps_stop "$mdir"
	tail -5 "$OUT_DIR/demo-mps.out"
	expect_no_block_drops "demo mps" "$OUT_DIR/demo-mps.smtop"
	$SMTOP report "$OUT_DIR/demo-mps.smtop" --json > "$OUT_DIR/demo-mps.json"
	$SMTOP report "$OUT_DIR/demo-mps.smtop" --top 3 | head -30
	for d in mps timeslice; do
		[ -e "$OUT_DIR/demo-$d.smtop" ] || record "demo-$d" build/smtop-demo "$d" --seconds 3
		rm -rf "$OUT_DIR/$d-csv"
		$SMTOP export "$OUT_DIR/demo-$d.smtop" --csv "$OUT_DIR/$d-csv" -q
	done
	python3 tests/gpu/cross_process.py "$OUT_DIR/mps-csv/blocks.csv" --expect shared &&
		ok "mps: both processes' blocks start side by side on the same SMs" || bad "mps: no sharing"
	python3 tests/gpu/cross_process.py "$OUT_DIR/timeslice-csv/blocks.csv" --expect apart &&
		ok "timeslice: the processes take turns" || bad "timeslice: the processes shared SMs"
}

# The committed fixtures, recorded again (tests/gpu/record_fixtures.sh),
# with the MPS demo's among them when the machine runs a daemon.
section_fixtures() {
	echo "== fixtures"
	tests/gpu/record_fixtures.sh "$OUT_DIR/fixtures" || bad "record_fixtures.sh"
	mdir=$(mktemp -d /tmp/smtop-mps.XXXXXX)
	if mps_start "$mdir"; then
		tests/gpu/record_fixtures.sh "$OUT_DIR/fixtures" mps || bad "record_fixtures.sh mps"
		mps_stop "$mdir"
	fi
}

# smtop demo paper, with a private MPS daemon for its MPS rows: every row
# runs and inference is slower beside training than alone.
section_paper() {
	echo "== paper"
	mdir=$(mktemp -d /tmp/smtop-mps.XXXXXX)
	mps_start "$mdir" || echo "paper: no MPS daemon, its rows are skipped"
	XDG_DATA_HOME="$(cd "$OUT_DIR" && pwd)/paper-lib" $SMTOP demo paper > "$OUT_DIR/paper.txt" 2> "$OUT_DIR/paper.err"
	echo "demo paper exit $?"
	[ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && mps_stop "$mdir"
	cat "$OUT_DIR/paper.txt"
	# the +p50 column follows the beside-p99 figure (the paper's column, a name)
	rows=$(grep -cE '[0-9]\.[0-9]{2} +[+-][0-9]+%' "$OUT_DIR/paper.txt")
	expect_eq "paper: rows measured" "$rows" 15
	slower=$(grep -cE '[0-9]\.[0-9]{2} +\+[0-9]+%' "$OUT_DIR/paper.txt")
	echo "paper: $slower of $rows rows slower beside training than alone"
}

# The observer effect: the placement demo and tests/gpu/observer_full.cu (full
# grids, alone on the GPU) recorded under each backend; each report's most
# blocks per SM checked against the exported blocks' own sweep
# (tests/e2e/check_occupancy.py), then the two reports of each program side by
# side with what the runtime said inside the workload (tests/gpu/observer.py):
# registers, occupancy limit, most blocks per SM, full launches at their limit.
observer_record() { # observer_record NAME MODE CMD...
	# (record sets $name: these keep their own)
	obs_name=$1 obs_mode=$2
	shift 2
	SMTOP_RECORD_ARGS="--sm $obs_mode" record "$obs_name-$obs_mode" "$@" || bad "observer: recording $obs_name --sm $obs_mode failed"
	$SMTOP report "$OUT_DIR/$obs_name-$obs_mode.smtop" --json -q > "$OUT_DIR/$obs_name-$obs_mode.json" ||
		bad "observer: smtop report --json on $obs_name --sm $obs_mode failed"
	rm -rf "$OUT_DIR/$obs_name-$obs_mode-csv"
	$SMTOP export "$OUT_DIR/$obs_name-$obs_mode.smtop" --csv "$OUT_DIR/$obs_name-$obs_mode-csv" -q
	out=$(python3 tests/e2e/check_occupancy.py "$OUT_DIR/$obs_name-$obs_mode.json" "$OUT_DIR/$obs_name-$obs_mode-csv")
	printf '%s\n' "$out" | tail -6
	if printf '%s' "$out" | tail -1 | grep -q ' 0 failed checks'; then
		ok "observer $obs_name --sm $obs_mode: the report's most per SM = the blocks' own sweep"
	else
		bad "observer $obs_name --sm $obs_mode: the report's occupancy disagrees with the blocks"
	fi
}

section_observer() {
	echo "== observer"
	for mode in marked all; do
		observer_record place "$mode" build/smtop-demo placement --seconds 3
		observer_record full "$mode" build/gpu/observer_full
	done
	for name in place full; do
		echo "$name:"
		python3 tests/gpu/observer.py "$OUT_DIR/$name-marked.out" "$OUT_DIR/$name-marked.json" \
			"$OUT_DIR/$name-all.out" "$OUT_DIR/$name-all.json" &&
			ok "observer $name: every kernel in both reports, smtop's limits = the runtime's" ||
			bad "observer $name: a kernel missing, a limit unlike the runtime's, or a full grid below its limit under --sm marked (table above)"
	done
}

# Programs whose kernels wait only for copies, events and module loading:
# no episode may remain, under either backend (docs/analysis.md).
section_waits() {
	echo "== waits: copies, events, lazy loading"
	sh tests/gpu/waits_fixtures.sh "$OUT_DIR/waits"
	for f in "$OUT_DIR"/waits/*.report.json; do
		n=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['episodes_total'])" "$f")
		expect_eq "waits: $(basename "$f" .report.json) episodes" "$n" 0
	done
}

# The edges of instantiated graphs, under both backends: every graph kernel
# of graph_branch has its node's edges, and the report's ready times agree
# with check_waits.py's plain SQL; a PyTorch CUDA graph the same way.
section_graphs() {
	echo "== graphs: the edges of instantiated graphs"
	for mode in marked all; do
		for prog in graph-branch torch-graph; do
			name=$prog-$mode
			case $prog in
			graph-branch) SMTOP_RECORD_ARGS="--sm $mode" record "$name" build/gpu/graph_branch ;;
			torch-graph) SMTOP_RECORD_ARGS="--sm $mode" record "$name" python3 tests/gpu/torch_graph.py ;;
			esac || bad "$name: exit status"
			cat "$OUT_DIR/$name.out"
			python3 tests/gpu/check_graph_edges.py "$OUT_DIR/$name.smtop" --expect-all &&
				ok "$name: every graph kernel's node has its edges" ||
				bad "$name: graph kernels without edges"
			python3 tests/e2e/check_waits.py $SMTOP "$OUT_DIR/$name.smtop" &&
				ok "$name: ready times agree with plain SQL" || bad "$name: ready times disagree"
			echo "$name: blocking resident dispatch = $(report_totals "$OUT_DIR/$name.smtop")"
		done
		# the first kernel's dynamic shared memory, as smtop export gives it
		rm -rf "$OUT_DIR/graph-csv"
		$SMTOP export "$OUT_DIR/graph-branch-$mode.smtop" --csv "$OUT_DIR/graph-csv" -q
		smem=$(python3 -c 'import csv,sys
k = min(csv.DictReader(open(sys.argv[1], newline="")), key=lambda r: int(r["start_ns"] or 0))
print(k["dynamic_smem"])' "$OUT_DIR/graph-csv/kernels.csv")
		expect_eq "graph-branch-$mode: the first kernel's dynamic shared memory" "$smem" \
			"$(sed -n 's/^warm_dynamic_smem: //p' "$OUT_DIR/graph-branch-$mode.out")"
		# the graph's kernel nodes' (THREADS-wide, after the first kernel)
		nodes=$(python3 -c 'import csv,sys
ks = sorted(csv.DictReader(open(sys.argv[1], newline="")), key=lambda r: int(r["start_ns"] or 0))
print(sum(1 for k in ks[1:] if k["block_x"] == "128" and k["dynamic_smem"] == sys.argv[2]))' \
			"$OUT_DIR/graph-csv/kernels.csv" "$(sed -n 's/^graph_dynamic_smem: //p' "$OUT_DIR/graph-branch-$mode.out")")
		expect_eq "graph-branch-$mode: graph kernels with their node's dynamic shared memory" "$nodes" \
			"$(sed -n 's/^graph_kernels: //p' "$OUT_DIR/graph-branch-$mode.out")"
	done
}

# --sm all at a paced 50 M blocks/s and unpaced: every block stored or
# counted as dropped.
section_sm_all_rate() {
	echo "== sm_all_rate: blocks per second under --sm all"
	for rate in ${SMTOP_SM_ALL_RATES:-50e6 0}; do
		pace=; [ "$rate" = 0 ] || pace="--rate $rate"
		storm_run record_sm_all "--sm all storm at rate $rate" --seconds "${SMTOP_RATE_SECONDS:-5}" \
			$pace --no-trace
	done
}

# smtop's kernel count against torch.profiler's for the torch.compile'd
# program, each run with its own empty compile caches, and the names whose
# counts differ.
section_compile_count() {
	echo "== compile_count: smtop --sm all vs torch.profiler, fresh caches"
	for who in profiler smtop; do
		fresh_compile_caches "$who"
		if [ $who = profiler ]; then
			python3 tests/gpu/torch_two_streams.py --iters 10 --profile --names "$OUT_DIR/compile-names.json" \
				> "$OUT_DIR/compile-profiler.out" 2>&1
			tail -1 "$OUT_DIR/compile-profiler.out"
		else
			record_sm_all compile python3 tests/gpu/torch_two_streams.py --iters 10
			rm -rf "$OUT_DIR/compile-csv"
			$SMTOP export "$OUT_DIR/compile.smtop" --csv "$OUT_DIR/compile-csv" -q
		fi
		unset TORCHINDUCTOR_CACHE_DIR TRITON_CACHE_DIR
	done
	python3 tests/gpu/compare_kernel_names.py "$OUT_DIR/compile-csv/kernels.csv" "$OUT_DIR/compile-names.json"
}

# alongside_exec MODE CMD...: the shell becomes smtop launch --sm MODE --
# CMD; MODE entry-callbacks is --sm entry with SMTOP_DORMANT_QUIET=0 (the
# callbacks that only feed a recording kept on while dormant), entry-bare
# entry-none and entry-unsub with SMTOP_DORMANT_BARE=1, 2 and 3 (those the
# gate counts off too, every one, and smtop unsubscribed from the
# sanitizer: such a process cannot record).  In a subshell:
# `( alongside_exec ... ) &` leaves the program's pid, which names its
# control socket, in $!.
alongside_exec() {
	sm=$1
	shift
	case $sm in
	*-callbacks) export SMTOP_DORMANT_QUIET=0 ;;
	*-bare) export SMTOP_DORMANT_BARE=1 ;;
	*-none) export SMTOP_DORMANT_BARE=2 ;;
	*-unsub) export SMTOP_DORMANT_BARE=3 ;;
	esac
	exec $PIN $SMTOP launch -q --sm "${sm%-*}" -- "$@"
}

# alongside_launch MODE CMD...: the same, waited for.
alongside_launch() ( alongside_exec "$@" )

# alongside_field NAME FILE: NAME=value from the last line of a
# torch_alongside.py run.
alongside_field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" "$2" | tail -1; }

# alongside_attach MODE: launches the loop with the collector dormant under
# --sm MODE, records 2 s of it with record --attach, lets it finish, and
# checks the session and the program's result against the plain run's.
alongside_attach() {
	mode=$1
	stop=$OUT_DIR/alongside-$mode.stop
	out=$OUT_DIR/alongside-$mode.out
	rm -f "$stop" "$OUT_DIR/alongside-$mode.smtop"
	(alongside_exec "$mode" python3 tests/gpu/torch_alongside.py --stop "$stop") > "$out" 2>&1 &
	pid=$!
	for _ in $(seq 600); do grep -q '^ready' "$out" && break; sleep 0.1; done
	session=$(timeout 60 $SMTOP record --attach $pid --for 2s -o "$OUT_DIR/alongside-$mode.smtop" \
		2> "$OUT_DIR/alongside-$mode.attach.err")
	cat "$OUT_DIR/alongside-$mode.attach.err"
	expect_eq "$mode: attach answered with its session" "$session" "$(realpath "$OUT_DIR/alongside-$mode.smtop")"
	st=$(python3 tests/e2e/ctl.py "$SMTOP_CONTROL_DIR/$pid.sock" status 2>&1)
	case $st in *recording=off*) ok "$mode: dormant again after --for" ;; *) bad "$mode: status after --for: $st" ;; esac
	alongside_again "$mode" "$session"
	touch "$stop"
	wait $pid
	expect_eq "$mode: program exit status" "$?" 0
	cat "$out"
	$SMTOP info "$session" | tee "$OUT_DIR/alongside-$mode.info"
	kernels=$(sed -n 's/^kernels  *//p' "$OUT_DIR/alongside-$mode.info" | tr -d ,)
	blocks=$(sed -n 's/^blocks  *//p' "$OUT_DIR/alongside-$mode.info" | tr -d ,)
	[ "${kernels:-0}" -gt 100 ] && ok "$mode: $kernels kernels in 2 s" || bad "$mode: kernels '$kernels'"
	case $mode in
	marked) ok "$mode: $blocks blocks (ResNet's kernels carry no block marks)" ;;
	*) [ "${blocks:-0}" -gt 0 ] && ok "$mode: $blocks blocks" || bad "$mode: blocks '$blocks'"
	   # the loop starts some 100 M blocks/s, past the drain's pace: what
	   # it drops must be counted, said and placed on the timeline
	   dropped=$(sed -n 's/^dropped .* \([0-9,]*\) blocks$/\1/p' "$OUT_DIR/alongside-$mode.info" | tr -d ,)
	   echo "$mode: ${dropped:-?} blocks dropped beside $blocks stored"
	   if [ "${dropped:-0}" -gt 0 ]; then alongside_drops_shown "$mode" "$session" "$dropped"
	   else expect_eq "$mode: the info's drop count" "${dropped:-?}" 0; fi ;;
	esac
	grep -q '^state  *complete' "$OUT_DIR/alongside-$mode.info" && ok "$mode: session complete" ||
		bad "$mode: session not complete"
	$SMTOP report --json "$session" > "$OUT_DIR/alongside-$mode.json" &&
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$OUT_DIR/alongside-$mode.json" &&
		ok "$mode: report --json reads it" || bad "$mode: report --json"
	expect_eq "$mode: the program's checksum as a plain run's" "$(alongside_field checksum "$out")" "$plain_sum"
}

# alongside_again MODE SESSION: after 3 s dormant, a second recording of
# $pid for 1 s; each session spans its own recording alone: what the
# first held at its off (the last block on each warp slot, kernels short
# of blocks) went into it, not into the next one stretched back over the
# dormant time.
alongside_again() {
	sleep 3
	again=$(timeout 60 $SMTOP record --attach "$pid" --for 1s -o "$OUT_DIR/alongside-$1-again.smtop" \
		2>> "$OUT_DIR/alongside-$1.attach.err")
	for s in "$2:2" "$again:1"; do
		span=$($SMTOP info "${s%:*}" | sed -n 's/^GPU span  *\([0-9.]*\) ms/\1/p')
		python3 -c 'import sys; sys.exit(float(sys.argv[1]) > 1000 * (float(sys.argv[2]) + 1))' \
			"${span:-1e9}" "${s##*:}" && ok "$1: GPU span $span ms of a ${s##*:} s recording" ||
			bad "$1: GPU span '$span' ms of a ${s##*:} s recording, past it by over 1 s"
	done
}

# alongside_drops_shown MODE SESSION DROPPED: what was dropped is said at
# the attach's end and placed on the timeline (NVTX ranges of smtop's, as
# smtop export --perfetto writes them), no more blocks than were counted.
alongside_drops_shown() {
	grep -q "were dropped and counted" "$OUT_DIR/alongside-$1.attach.err" &&
		ok "$1: the attach said what it dropped" || bad "$1: the attach said nothing of its drops"
	# 100 ms at a time (the whole trace of a 2 s attach is tens of millions
	# of blocks), from the start and a quarter, half and three quarters in:
	# drops begin only once the drain has fallen an arena behind
	span=$($SMTOP info "$2" | sed -n 's/^GPU span  *\([0-9]*\).*/\1/p')
	for q in 0 1 2 3; do
		from=$(( ${span:-0} * q / 4 ))
		placed=$($SMTOP export "$2" --perfetto - --from "${from}ms" --to "$((from + 100))ms" | python3 -c 'import json,re,sys
t = json.load(sys.stdin)
n = [int(m.group(1).replace(",", "")) for e in t["traceEvents"] if e["ph"] == "X"
     for m in [re.match(r"blocks dropped: .* launch(?:es)?, ([0-9,]+) blocks", e["name"])] if m]
print(len(n), sum(n))')
		case $placed in 0\ *|'') ;; *) break ;; esac
	done
	set -- "$1" "$2" "$3" $placed
	[ "${4:-0}" -gt 0 ] && [ "${5:-0}" -le "$3" ] &&
		ok "$1: $4 drop ranges in 100 ms from ${from} ms, $5 of $3 blocks" ||
		bad "$1: drop ranges '$4' holding '$5' blocks of $3 dropped"
}

# alongside_two: two launched programs on the GPU at once (the default
# --sm), both attached at the same time: two complete sessions, their drops
# counted, said and placed, the programs' results unchanged.
alongside_two() {
	pids=
	for i in 1 2; do
		rm -f "$OUT_DIR/two-$i.stop" "$OUT_DIR/two-$i.smtop"
		$SMTOP launch -q -- python3 tests/gpu/torch_alongside.py --stop "$OUT_DIR/two-$i.stop" \
			> "$OUT_DIR/two-$i.out" 2>&1 &
		pids="$pids $!"
	done
	for i in 1 2; do
		for _ in $(seq 900); do grep -q '^ready' "$OUT_DIR/two-$i.out" && break; sleep 0.1; done
	done
	i=0
	attaches=
	for pid in $pids; do
		i=$((i + 1))
		timeout 60 $SMTOP record --attach "$pid" --for 2s -o "$OUT_DIR/two-$i.smtop" \
			> /dev/null 2> "$OUT_DIR/two-$i.attach.err" &
		attaches="$attaches $!"
	done
	wait $attaches
	touch "$OUT_DIR/two-1.stop" "$OUT_DIR/two-2.stop"
	for pid in $pids; do wait "$pid"; done
	for i in 1 2; do
		cat "$OUT_DIR/two-$i.attach.err"
		$SMTOP info "$OUT_DIR/two-$i.smtop" > "$OUT_DIR/two-$i.info" 2>&1
		grep -E "^(state|blocks|dropped)" "$OUT_DIR/two-$i.info"
		blocks=$(sed -n 's/^blocks  *//p' "$OUT_DIR/two-$i.info" | tr -d ,)
		dropped=$(sed -n 's/^dropped .* \([0-9,]*\) blocks$/\1/p' "$OUT_DIR/two-$i.info" | tr -d ,)
		grep -q '^state  *complete' "$OUT_DIR/two-$i.info" && [ "${blocks:-0}" -gt 0 ] && [ -n "$dropped" ] &&
			ok "two at once, $i: $blocks blocks, $dropped dropped" ||
			bad "two at once, $i: blocks '$blocks', dropped '$dropped'"
		if [ "${dropped:-0}" -gt 0 ]; then
			cp "$OUT_DIR/two-$i.attach.err" "$OUT_DIR/alongside-two-$i.attach.err"
			alongside_drops_shown "two-$i" "$OUT_DIR/two-$i.smtop" "$dropped"
		fi
		expect_eq "two at once, $i: the checksum as a plain run's" "$(alongside_field checksum "$OUT_DIR/two-$i.out")" \
			"$plain_sum"
	done
}

section_alongside() {
	echo "== alongside: smtop launch, record --attach, the dormant collector's cost (ResNet-18 b16)"
	case $OUT_DIR in /*) SMTOP_CONTROL_DIR=$OUT_DIR/ctl ;; *) SMTOP_CONTROL_DIR=$(pwd)/$OUT_DIR/ctl ;; esac
	export SMTOP_CONTROL_DIR
	python3 tests/gpu/torch_alongside.py > "$OUT_DIR/alongside-plain.out" 2>&1 || bad "plain run"
	plain_sum=$(alongside_field checksum "$OUT_DIR/alongside-plain.out")
	for mode in ${SMTOP_ALONGSIDE_MODES:-marked entry entry-callbacks}; do
		alongside_attach "$mode"
	done
	alongside_two
	# dormant: plain and launched runs interleaved, median ms per step each
	# (pinned alike with SMTOP_CPUS: the loop is bound by its launch calls)
	: > "$OUT_DIR/alongside-cost.txt"
	PIN=${SMTOP_CPUS:+taskset -c $SMTOP_CPUS}
	for round in $(seq "${SMTOP_ALONGSIDE_ROUNDS:-5}"); do
		for mode in plain ${SMTOP_ALONGSIDE_MODES:-marked entry entry-callbacks}; do
			f=$OUT_DIR/alongside-cost-$mode-$round.out
			if [ "$mode" = plain ]; then
				$PIN python3 tests/gpu/torch_alongside.py > "$f" 2>&1
			else
				alongside_launch "$mode" python3 tests/gpu/torch_alongside.py > "$f" 2>&1
			fi
			echo "$mode $(alongside_field ms_per_step_median "$f")" >> "$OUT_DIR/alongside-cost.txt"
		done
	done
	python3 - "$OUT_DIR/alongside-cost.txt" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    mode, ms = line.split()
    runs.setdefault(mode, []).append(float(ms))
plain = statistics.median(runs["plain"])
for mode, ms in runs.items():
    m = statistics.median(ms)
    print(f"dormant cost: {mode:7s} median {m:.3f} ms/step over {len(ms)} runs "
          f"({' '.join(f'{x:.3f}' for x in ms)}), {100 * (m / plain - 1):+.1f}% vs plain")
PY
	unset SMTOP_CONTROL_DIR
}

# The entry drain's pace on this machine's host (bench_entry_rate, built by
# make bench's build: carry build/bench), by rate and team size, then the
# attach of a block-heavy loop with one drain thread and with the default
# team (one per two CPUs; SMTOP_DEBUG's last line per context says how
# many passes it took).
section_entry_workers() {
	echo "== entry_workers: the entry drain's pace with a team of workers"
	if [ -x build/bench/bench_entry_rate ]; then
		build/bench/bench_entry_rate 100000000 "25 50 100" "1 4 8"
	else
		bad "build/bench/bench_entry_rate missing"
	fi
	for workers in 1 default; do
		echo "-- attach, SMTOP_ENTRY_WORKERS=$workers"
		if [ "$workers" = default ]; then unset SMTOP_ENTRY_WORKERS; else export SMTOP_ENTRY_WORKERS=$workers; fi
		export SMTOP_DEBUG=1 SMTOP_ALONGSIDE_MODES=entry SMTOP_ALONGSIDE_ROUNDS=1
		section_alongside
	done
	unset SMTOP_ENTRY_WORKERS SMTOP_DEBUG SMTOP_ALONGSIDE_MODES SMTOP_ALONGSIDE_ROUNDS
}

section_layers() {
	echo "== layers vs CPU reference"
	build/layercheck && ok "layercheck" || bad "layercheck"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
for s in $sections; do
	"section_$s"
done
echo "gpu tests: $fails failed"
[ $fails -eq 0 ]
