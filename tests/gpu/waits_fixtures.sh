#!/bin/sh
# Records the ready-time fixtures on the GPU machine: each program under
# `smtop record` and under Nsight Systems (`nsys profile`, imported and
# exported to SQLite), and `smtop report --json` of both.
#   tests/gpu/waits_fixtures.sh OUT_DIR [NSYS_HOST_DIR]
# NSYS_HOST_DIR as in tests/gpu/nsys_exports.sh (default: the Nsight Systems
# 2025.3.1 that comes with Nsight Compute on the H200 machine).  Programs:
#   copy-compute     build/gpu/copy_compute (4 streams: copy in, kernel, copy out)
#   wait-stream      tests/gpu/torch_wait_stream.py (wait_stream / wait_event)
#   lazy-load        tests/gpu/torch_lazy_load.py (first launches load modules)
# and wait-stream-sm-all, copy-compute-sm-all: under `smtop record --sm all`.
out=${1:?OUT_DIR}
host=${2:-/opt/nvidia/nsight-compute/2025.3.1/host}
nsys=$host/target-linux-x64/nsys
importer=$(ls "$host"/linux-desktop-*/QdstrmImporter 2>/dev/null | head -1)
repo=$(cd "$(dirname "$0")/../.." && pwd)
SMTOP=$repo/build/smtop
mkdir -p "$out"
cd "$out" || exit 1

# record NAME SMTOP_ARGS -- CMD...
record() {
	name=$1
	shift
	rm -f "$name.smtop"
	timeout -s INT 300 "$SMTOP" record -q -o "$name.smtop" "$@" > "$name.out" 2> "$name.err"
	echo "$name: smtop record exit $?"
	cat "$name.err"
	"$SMTOP" report "$name.smtop" --json -q > "$name.report.json"
}

# profile NAME CMD...: NAME.sqlite, the Nsight Systems export
profile() {
	name=$1
	shift
	rm -f "$name-nsys".* "$name.sqlite"
	# the importer needs libdw.so.1, which the machine may lack:
	# build/nsys-libs holds Debian's (see tests/gpu/nsys_exports.sh)
	LD_LIBRARY_PATH=$repo/build/nsys-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		"$nsys" profile -t cuda,nvtx -o "$name-nsys" "$@" > "$name-nsys.log" 2>&1
	[ -f "$name-nsys.nsys-rep" ] || LD_LIBRARY_PATH=$repo/build/nsys-libs \
		"$importer" -i "$name-nsys.qdstrm" > /dev/null 2>&1
	"$nsys" export --type sqlite -o "$name.sqlite" "$name-nsys.nsys-rep" > /dev/null 2>&1 ||
		{ echo "$name: nsys export failed"; tail -5 "$name-nsys.log"; return 1; }
	python3 -c "import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute('VACUUM')" "$name.sqlite"
	"$SMTOP" report "$name.sqlite" --json -q > "$name-nsys.report.json"
	echo "$name: nsys export $(wc -c < "$name.sqlite") bytes"
}

record copy-compute -- "$repo/build/gpu/copy_compute"
record wait-stream -- python3 "$repo/tests/gpu/torch_wait_stream.py"
record lazy-load -- python3 "$repo/tests/gpu/torch_lazy_load.py"
record wait-stream-sm-all --sm all -- python3 "$repo/tests/gpu/torch_wait_stream.py" --rounds 8
record copy-compute-sm-all --sm all -- "$repo/build/gpu/copy_compute"
if [ -x "$nsys" ]; then
	profile copy-compute "$repo/build/gpu/copy_compute"
	profile wait-stream python3 "$repo/tests/gpu/torch_wait_stream.py"
	profile lazy-load python3 "$repo/tests/gpu/torch_lazy_load.py"
	"$nsys" --version
else
	echo "no nsys at $nsys"
fi
for f in *.report.json; do
	python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
kinds = {}
for e in r['episodes']:
    k = e['kind'] + ':' + e['ready_bound'] + '/' + (e['ready_bound_op'] or '')
    kinds[k] = kinds.get(k, 0) + 1
w = max((s['wait_ns']['max'] for s in r['streams'] if s['wait_ns']), default=0)
print(sys.argv[1], 'episodes', r['episodes_total'], kinds, 'longest wait', w)" "$f"
done
