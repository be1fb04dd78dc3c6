#!/bin/sh
# smtop export on the H200 sessions and on Nsight Systems exports: the trace
# parsed back with Python's json module and checked track by track against
# the session (check_trace.py), CSV row counts, time windows, stdout, errors;
# Nsight Systems exports and several files in the viewer (tmux).
. tests/e2e/lib.sh
FX=tests/fixtures
NS=$FX/nsys

field() { "$SMTOP" info "$1" | sed -n "s/^$2 *//p" | tr -d ,; }
csv_rows() { python3 -c "import csv,sys; print(sum(1 for _ in csv.reader(open(sys.argv[1], newline=''))) - 1)" "$1"; }

for f in smoke priority-vs-training head-of-line resnet50-two-streams two-gpus; do
	cp "$FX/$f.smtop" "$E2E_TMP/$f.smtop" # the report stores its events: work on a copy
	episodes=$("$SMTOP" report "$E2E_TMP/$f.smtop" --json -q | python3 -c "import json,sys; print(json.load(sys.stdin)['episodes_total'])")
	"$SMTOP" export "$FX/$f.smtop" --perfetto "$E2E_TMP/$f.json" --csv "$E2E_TMP/$f-csv"
	check "$f: export exits 0" [ $? -eq 0 ]
	out=$(python3 tests/e2e/check_trace.py "$E2E_TMP/$f.json" "$FX/$f.smtop" "$episodes")
	check "$f: trace matches the session track by track ($(printf '%s' "$out" | tail -1))" \
		sh -c "printf '%s' '$out' | tail -1 | grep -q ' 0 failed checks'"
	k=$(csv_rows "$E2E_TMP/$f-csv/kernels.csv")
	b=$(csv_rows "$E2E_TMP/$f-csv/blocks.csv")
	e=$(csv_rows "$E2E_TMP/$f-csv/events.csv")
	check "$f: kernels.csv rows = kernels ($k)" [ "$k" = "$(field "$FX/$f.smtop" kernels)" ]
	check "$f: blocks.csv rows = blocks ($b)" [ "$b" = "$(field "$FX/$f.smtop" blocks)" ]
	check "$f: events.csv rows = the report's episodes ($e)" [ "$e" = "$episodes" ]
done
v=$(python3 -c "import csv,sys; print(sorted({r['ready_bound'] for r in csv.DictReader(open(sys.argv[1]))}))" "$E2E_TMP/priority-vs-training-csv/events.csv")
check "events.csv names each episode's ready bound ($v)" [ "$v" = "['host_submit']" ]

# A window: every slice inside it, kernels cut to it
"$SMTOP" export $FX/priority-vs-training.smtop --from 10ms --to 20000 --perfetto "$E2E_TMP/w.json"
out=$(python3 tests/e2e/check_trace.py "$E2E_TMP/w.json" $FX/priority-vs-training.smtop --window 10000 20000)
check "window 10-20 ms: slices inside, kernels at their starts ($(printf '%s' "$out" | tail -1))" \
	sh -c "printf '%s' '$out' | tail -1 | grep -q ' 0 failed checks'"
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['traceEvents']))" "$E2E_TMP/w.json")
m=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['traceEvents']))" "$E2E_TMP/priority-vs-training.json")
check "the window holds fewer events ($n of $m)" [ "$n" -lt "$m" ]

# NVTX ranges: smtop's own exact window of the --sm entry session
cp "$FX/head-of-line-windows.smtop" "$E2E_TMP/hol-win.smtop"
episodes=$("$SMTOP" report "$E2E_TMP/hol-win.smtop" --json -q | python3 -c "import json,sys; print(json.load(sys.stdin)['episodes_total'])")
"$SMTOP" export "$FX/head-of-line-windows.smtop" --perfetto "$E2E_TMP/hol-win.json"
out=$(python3 tests/e2e/check_trace.py "$E2E_TMP/hol-win.json" "$FX/head-of-line-windows.smtop" "$episodes")
check "windows session: trace matches it, NVTX included ($(printf '%s' "$out" | tail -1))" \
	sh -c "printf '%s' '$out' | tail -1 | grep -q ' 0 failed checks'"
v=$(python3 -c 'import json,sys
t = json.load(open(sys.argv[1]))
proc = {e["pid"]: e["args"]["name"] for e in t["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
print([(e["name"], e["args"]["domain"], round(e["dur"] / 1e3)) for e in t["traceEvents"] if e["ph"] == "X" and proc[e["pid"]] == "NVTX ranges"])' "$E2E_TMP/hol-win.json")
check "the exact window is an NVTX slice of smtop's ($v)" [ "$v" = "[('exact block ends', 'smtop', 100)]" ]
"$SMTOP" export "$FX/head-of-line-windows.smtop" --csv "$E2E_TMP/hol-win-csv" -q
v=$(python3 -c 'import csv,sys
print([(r["domain"], r["text"], (int(r["end_ns"]) - int(r["start_ns"])) // 1000000) for r in csv.DictReader(open(sys.argv[1], newline=""))])' "$E2E_TMP/hol-win-csv/nvtx.csv")
check "and a row of nvtx.csv ($v)" [ "$v" = "[('smtop', 'exact block ends', 100)]" ]
check "a session without NVTX: nvtx.csv holds its header alone" [ "$(csv_rows "$E2E_TMP/head-of-line-csv/nvtx.csv")" = 0 ]

# Standard output
n=$("$SMTOP" export $FX/head-of-line.smtop --perfetto - | python3 -c "import json,sys; print(sum(e['ph'] == 'X' for e in json.load(sys.stdin)['traceEvents']))")
m=$(python3 -c "import json,sys; print(sum(e['ph'] == 'X' for e in json.load(open(sys.argv[1]))['traceEvents']))" "$E2E_TMP/head-of-line.json")
# the trace to a file above: its 528 blocks and 3 kernels, and more
check "--perfetto - writes the trace to stdout ($n slices, $m in the file)" sh -c "[ $n -eq $m ] && [ $n -gt 531 ]"

# What the collector dropped rides in the trace's otherData
cp $FX/head-of-line.smtop "$E2E_TMP/drops.smtop"
python3 -c 'import sqlite3, sys; d = sqlite3.connect(sys.argv[1]); d.execute("UPDATE smtop_process SET drops_blocks = 1000, drops_ring = 3"); d.commit()' "$E2E_TMP/drops.smtop"
v=$("$SMTOP" export "$E2E_TMP/drops.smtop" --perfetto - | python3 -c "import json,sys; print(json.load(sys.stdin)['otherData']['dropped'])")
check "the trace says what was dropped ($v)" [ "$v" = "{'blocks': 1000, 'cupti': 0, 'ring': 3}" ]
v=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['otherData']['dropped'])" "$E2E_TMP/head-of-line.json")
check "and that nothing was ($v)" [ "$v" = "{'blocks': 0, 'cupti': 0, 'ring': 0}" ]

# Nsight Systems exports, one per schema version
for v in 3.16.1 cuda_lab 3.28.1 2020.4.3.7 2022.4.2.1; do
	"$SMTOP" export $NS/nsys-$v.sqlite --perfetto "$E2E_TMP/nsys-$v.json" --csv "$E2E_TMP/nsys-$v"
	out=$(python3 tests/e2e/check_trace.py "$E2E_TMP/nsys-$v.json" $NS/nsys-$v.sqlite)
	check "nsys $v: trace matches ($(printf '%s' "$out" | tail -1))" \
		sh -c "printf '%s' '$out' | tail -1 | grep -q ' 0 failed checks'"
	check "nsys $v: kernels.csv rows" [ "$(csv_rows "$E2E_TMP/nsys-$v/kernels.csv")" = "$(field $NS/nsys-$v.sqlite kernels)" ]
done
out=$("$SMTOP" info $NS/nsys-3.28.1.sqlite)
check "nsys 3.28.1: GPU of the process (CUDA device 0 is nsys GPU 1)" contains "$out" "0: NVIDIA H200, 132 SMs, cc 9.0"
check "nsys 3.28.1: schema version shown" contains "$out" "nsys export 3.28.1"
# Real exports: nsys 2025.3 on the H200 (tests/fixtures/nsys/README.md)
out=$("$SMTOP" info $NS/nsys-2025.3-h200-smoke.sqlite)
check "nsys 2025.3 real: schema and GPU" sh -c "printf '%s' '$out' | grep -q 'nsys export 3.20.3' && printf '%s' '$out' | grep -q '0: NVIDIA H200, 132 SMs'"
check "nsys 2025.3 real: the workload's process only, not the machine's" [ "$(printf '%s\n' "$out" | grep -c 'exited')" -eq 1 ]
check "nsys 2025.3 real: 400 kernels" contains "$out" "kernels        400"
out=$("$SMTOP" report $NS/nsys-2025.3-h200-torch.sqlite --json -q | python3 -c "import json,sys; r=json.load(sys.stdin); print(sorted({s['priority'] for s in r['streams'] if s['kernels']}), sum(s['kernels'] for s in r['streams']), r['totals']['inversion_dispatch']['count'])")
# Its waits end where the launch calls returned (lazy module loading held
# some for milliseconds): no inversion is left (tests/e2e/test_waits.sh).
check "nsys 2025.3 real PyTorch: priorities, 1308 kernels, no inversion ($out)" sh -c "printf '%s' '$out' | grep -q '^\[-5, 0\] 1308 0$'"
out=$("$SMTOP" export $NS/nsys-2025.3-h200-torch.sqlite --csv "$TMP/h200csv" 2>&1 && cat "$TMP/h200csv/kernels.csv" | wc -l)
check "nsys 2025.3 real PyTorch: CSV of its kernels ($out)" sh -c "printf '%s' '$out' | tail -1 | grep -q '^1309$'"
for v in cuda_lab 2020.4.3.7 2022.4.2.1; do
	out=$("$SMTOP" report $NS/nsys-$v.sqlite --json -q | python3 -c "import json,sys; r=json.load(sys.stdin); print(sorted({s['priority'] for s in r['streams'] if s['kernels']}), r['totals']['inversion_dispatch']['count'] + r['totals']['inversion_resident']['count'])")
	check "nsys $v: priorities -5 and 0, inversions found ($out)" sh -c "printf '%s' '$out' | grep -q '^\[-5, 0\] [1-9]'"
done
# Older exports: Nsight Systems 2020.4 records no schema version and keeps
# its GPUs in TARGET_INFO_CUDA_GPU; 2022.4 writes 3.0.0 to EXPORT_META_DATA
out=$("$SMTOP" info $NS/nsys-2020.4.3.7.sqlite)
check "nsys 2020.4.3.7: an export older than schema 3.0" contains "$out" "nsys export older than 3.0 (no version recorded)"
check "nsys 2020.4.3.7: the GPU from CUPTI's device table" contains "$out" "0: NVIDIA A100-SXM4-40GB, 108 SMs, cc 8.0"
check "nsys 2020.4.3.7: 36 kernels" [ "$(field $NS/nsys-2020.4.3.7.sqlite kernels)" = 36 ]
check "nsys 2020.4.3.7: the process from its streams" sh -c "printf '%s' '$out' | grep -q '^processes *4404 exited'"
out=$("$SMTOP" info $NS/nsys-2022.4.2.1.sqlite)
check "nsys 2022.4.2.1: schema 3.0.0 from EXPORT_META_DATA" contains "$out" "nsys export 3.0.0 (Nsight Systems 2022.4.2.1)"
check "nsys 2022.4.2.1: the GPU that ran kernels listed first" sh -c "printf '%s' '$out' | grep -q '^GPU *1: NVIDIA H100 PCIe, 114 SMs, cc 9.0'"
check "nsys 2022.4.2.1: 42 kernels" [ "$(field $NS/nsys-2022.4.2.1.sqlite kernels)" = 42 ]
out=$("$SMTOP" report $NS/nsys-2022.4.2.1.sqlite --json -q | python3 -c "import json,sys; r=json.load(sys.stdin); print(sorted({(s['device'], s['stream'], s['priority']) for s in r['streams'] if s['kernels']}))")
check "nsys 2022.4.2.1: streams on CUDA device 1 through the null-stream table ($out)" [ "$out" = "[(1, 7, 0), (1, 13, -5)]" ]
# An export without a column smtop needs: one line naming file, schema, column
python3 -c "import shutil,sqlite3,sys; shutil.copy(sys.argv[1], sys.argv[2]); d=sqlite3.connect(sys.argv[2]); d.execute('ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME COLUMN streamId TO sid'); d.commit()" $NS/nsys-2020.4.3.7.sqlite "$E2E_TMP/no-stream.sqlite"
err=$("$SMTOP" report "$E2E_TMP/no-stream.sqlite" 2>&1)
rc=$?
check "unreadable nsys export: exit 1, one line ($err)" sh -c "[ $rc -eq 1 ] && [ \$(printf '%s\n' '$err' | wc -l) -eq 1 ] && printf '%s' '$err' | grep -q 'no-stream.sqlite: Nsight Systems export (schema version not recorded) that smtop cannot read: CUPTI_ACTIVITY_KIND_KERNEL has no streamId'"

# GPUs before cc 8.0 (T4, V100, P100): no shared memory is reserved per
# block there, so a kernel without any allocates none (a division by zero
# before: SIGFPE, empty JSON).  The limits are the occupancy calculator's.
for g in 3.16.1-turing 3.28.1-volta 2022.4.2.1-pascal; do
	out=$("$SMTOP" report $NS/nsys-$g.sqlite --json -q 2>&1 | python3 -c "import json,sys; r=json.load(sys.stdin); c={x['name'][:12]: x for x in r['occupancy']['configs']}; g=c['_Z11gemm_ker']; print(r['kernels'], g['sms'], g['smem_bytes'], g['by_smem'], g['limit'], g['limit_by'])" 2>&1)
	case $g in
	*turing) want="24 40 0 None 4 threads" ;;  # 1024 threads an SM, 64 regs: 4 both
	*volta) want="24 80 0 None 4 registers" ;; # 2048 threads: 8; 64 regs: 4
	*pascal) want="24 56 0 None 4 registers" ;;
	esac
	check "report --json on the $g export: $want ($out)" [ "$out" = "$want" ]
done
out=$("$SMTOP" info $NS/nsys-3.16.1-turing.sqlite | grep '^GPU ')
check "info names the T4 ($out)" contains "$out" "0: Tesla T4, 40 SMs, cc 7.5"
# Unknown values read as N/A, never as a misleading 0: a GPU row without
# SMs or compute capability, an export without GPU rows; report still runs
# on launches of zero, huge and negative sizes.
python3 -c "import shutil,sqlite3,sys; shutil.copy(sys.argv[1], sys.argv[2]); d=sqlite3.connect(sys.argv[2]); d.execute('UPDATE TARGET_INFO_GPU SET smCount = 0, computeMajor = NULL, computeMinor = NULL, threadsPerWarp = 0, clockRate = 0'); d.execute('UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 0, blockX = 0, registersPerThread = 0 WHERE rowid % 3 = 0'); d.execute('UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 4294967295, blockX = -1, staticSharedMemory = -5 WHERE rowid % 3 = 1'); d.commit()" $NS/nsys-3.16.1-turing.sqlite "$E2E_TMP/zero-sms.sqlite"
out=$("$SMTOP" info "$E2E_TMP/zero-sms.sqlite" | grep '^GPU  ')
check "info: zero SMs and no cc read as N/A ($out)" contains "$out" "0: Tesla T4, N/A SMs, cc N/A"
"$SMTOP" report "$E2E_TMP/zero-sms.sqlite" --json -q > "$E2E_TMP/zero-sms.json"
check "report on zero, huge and negative launch sizes: exit 0, JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$E2E_TMP/zero-sms.json"
python3 -c "import shutil,sqlite3,sys; shutil.copy(sys.argv[1], sys.argv[2]); d=sqlite3.connect(sys.argv[2]); d.execute('DELETE FROM TARGET_INFO_GPU'); d.commit()" $NS/nsys-3.16.1-turing.sqlite "$E2E_TMP/no-gpu.sqlite"
out=$("$SMTOP" info "$E2E_TMP/no-gpu.sqlite" | grep '^GPU  ')
check "info: an export without GPU rows: GPU N/A ($out)" [ "$out" = "GPU            N/A" ]
out=$("$SMTOP" report "$E2E_TMP/no-gpu.sqlite" --json -q | python3 -c "import json,sys; r=json.load(sys.stdin); print(r['kernels'])")
check "report on an export without GPU rows: every kernel ($out)" [ "$out" = 24 ]

# Several files: one report over every process
out=$("$SMTOP" report $NS/nsys-3.16.1.sqlite $NS/nsys-3.28.1.sqlite --json -q | python3 -c "import json,sys; r=json.load(sys.stdin); print(r['kernels'], sorted({s['pid'] for s in r['streams'] if s['kernels']}))")
check "report over two exports: 78 kernels of pids 4101 and 4303 ($out)" [ "$out" = "78 [4101, 4303]" ]
out=$("$SMTOP" info $NS/nsys-3.16.1.sqlite $NS/nsys-cuda_lab.sqlite | grep -c '^session')
check "info over two files prints both" [ "$out" -eq 2 ]

# Errors: one line naming the file, non-zero exit
err=$("$SMTOP" export $FX/missing.smtop --perfetto "$E2E_TMP/x.json" 2>&1)
check "missing session: exit 1" [ $? -eq 1 ]
check "missing session: one line naming it" sh -c "printf '%s' '$err' | grep -q 'missing.smtop: no such session file' && [ \$(printf '%s\n' '$err' | wc -l) -eq 1 ]"
err=$("$SMTOP" export $FX/head-of-line.smtop --perfetto /nonexistent/dir/t.json 2>&1)
check "unwritable trace: exit 1" [ $? -eq 1 ]
check "unwritable trace: one line naming it ($err)" sh -c "printf '%s' '$err' | grep -q '/nonexistent/dir/t.json: cannot write' && [ \$(printf '%s\n' '$err' | wc -l) -eq 1 ]"
err=$("$SMTOP" export $FX/head-of-line.smtop --csv /proc/no/such 2>&1)
rc=$?
check "unwritable CSV directory: exit 1, one line ($err)" sh -c "[ $rc -eq 1 ] && printf '%s' '$err' | grep -q '/proc/no/such: cannot create'"
err=$("$SMTOP" export $FX/head-of-line.smtop --from 5s --csv "$E2E_TMP/late" 2>&1)
check "window after the end: refused ($err)" contains "$err" "starts after the session's end"
err=$("$SMTOP" info $NS/nvprof-v9.sqlite 2>&1)
check "nvprof database refused in one line" sh -c "printf '%s' '$err' | grep -q 'nvprof-v9.sqlite: an nvprof database' && [ \$(printf '%s\n' '$err' | wc -l) -eq 1 ]"
err=$("$SMTOP" export $FX/head-of-line.smtop 2>&1)
check "export without a target says what it needs" contains "$err" "needs --perfetto OUT.json or --csv DIR"

# The viewer on an Nsight Systems export, and on two files at once
T=smtop-export-e2e-$$
# an idle session keeps the server up between the two panes (else the second
# may race the server's exit)
tmux new-session -d -s keep -x 20 -y 5 "sleep 3600"
tmux new-session -d -s "$T" -x 160 -y 48 "'$SMTOP' open $NS/nsys-3.16.1.sqlite $NS/nsys-cuda_lab.sqlite; echo EXIT=\$?; sleep 20"
sleep 1.5
s=$(tmux capture-pane -p -t "$T")
check "viewer: two files in one view" contains "$s" "+ 1 more files"
check "viewer: both processes' streams" sh -c "[ \$(printf '%s' '$s' | grep -c ' s13 ') -ge 2 ]"
tmux send-keys -t "$T" q; sleep 0.5
check "viewer: two files, q quits" contains "$(tmux capture-pane -p -t "$T")" "EXIT=0"
tmux kill-session -t "$T" 2>/dev/null
# Exports in the viewer, the oldest too: the GPU that ran kernels, lanes, NVTX, inversions
for v in "3.28.1:NVIDIA H200 · 132 SMs" "2020.4.3.7:NVIDIA A100-SXM4-40GB · 108 SMs" \
	"2022.4.2.1:NVIDIA H100 PCIe · 114 SMs"; do
	f=${v%%:*}
	tmux new-session -d -s "$T" -x 160 -y 48 "'$SMTOP' open $NS/nsys-$f.sqlite; echo EXIT=\$?; sleep 20"
	sleep 1.5
	s=$(tmux capture-pane -p -t "$T")
	check "viewer $f: the GPU in the header" contains "$s" "${v#*:}"
	check "viewer $f: stream lanes with priorities" contains "$s" "s13 p-5"
	check "viewer $f: NVTX ranges drawn" contains "$s" "nvtx"
	check "viewer $f: inversions listed" contains "$s" "INVERSION"
	tmux send-keys -t "$T" q; sleep 0.5
	check "viewer $f: q quits with status 0" contains "$(tmux capture-pane -p -t "$T")" "EXIT=0"
	tmux kill-session -t "$T" 2>/dev/null
done

e2e_done
