#!/bin/sh
# GPU test: every layer against its CPU reference (build/layercheck).
# Run on the GPU machine from the repository root: sh tests/gpu/layers_check.sh
set -u
out=$(build/layercheck 2>&1); rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL layers_check: exit $rc"; exit 1; }
n=$(echo "$out" | grep -c '^layer .* ok relerr=')
bad=$(echo "$out" | grep -c '^layer .* FAIL')
[ "$bad" -eq 0 ] && [ "$n" -ge 30 ] || { echo "FAIL layers_check: ok=$n fail=$bad"; exit 1; }
# Each demo model's fused inference agrees with the plain one and launches fewer kernels.
for m in resnet vgg densenet; do
	echo "$out" | grep -q "^layer model_${m}_fused_logits ok" || { echo "FAIL layers_check: $m fused logits"; exit 1; }
	echo "$out" | grep -q "^kernels model=$m .* ok$" || { echo "FAIL layers_check: $m kernel counts"; exit 1; }
done
echo "PASS layers_check ($n checks)"
