#!/bin/sh
# Records the real Nsight Systems exports in tests/fixtures/nsys/ on the GPU
# machine: the smoke program and a two-priority PyTorch ResNet-50 with NVTX
# ranges under `nsys profile`, imported and exported to SQLite.
#   tests/gpu/nsys_exports.sh OUT_DIR [NSYS_HOST_DIR]
# NSYS_HOST_DIR holds target-linux-x64/nsys and linux-desktop-*/QdstrmImporter
# (on the H200 machine, the Nsight Systems 2025.3.1 that comes with Nsight
# Compute).  QdstrmImporter needs libdw.so.1; put a copy in LD_LIBRARY_PATH
# where the machine lacks it (Debian's libdw1 works).
out=${1:?OUT_DIR}
host=${2:-/opt/nvidia/nsight-compute/2025.3.1/host}
nsys=$host/target-linux-x64/nsys
importer=$(ls "$host"/linux-desktop-*/QdstrmImporter | head -1)
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
cd "$out" || exit 1
"$nsys" profile -t cuda,nvtx -o smoke "$repo/build/gpu/collector_smoke" > smoke.log 2>&1
"$nsys" profile -t cuda,nvtx -o torch python3 "$repo/tests/gpu/torch_resnet.py" \
	--batch 1 --iters 5 --warmup 1 --nvtx --streams two > torch.log 2>&1
for f in smoke torch; do
	[ -f $f.nsys-rep ] || "$importer" -i $f.qdstrm > /dev/null || exit 1
	"$nsys" export --type sqlite -o $f.sqlite $f.nsys-rep > /dev/null || exit 1
	sqlite3 $f.sqlite VACUUM 2>/dev/null || python3 -c "import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute('VACUUM')" $f.sqlite
done
"$nsys" --version
