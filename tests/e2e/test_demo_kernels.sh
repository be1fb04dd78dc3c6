#!/bin/sh
# The demo models' inference plans (kernels/models.cu) are built on the host,
# so they are checked here without a GPU: `smtop-demo --kernels` gives the
# kernels of one batch-1 request with and without the inference fusion.
# Building a plan also proves its order (every op reads only values written
# before it, none written twice); the program exits 1 otherwise.
. tests/e2e/lib.sh
DEMO=${SMTOP_DEMO:-build/smtop-demo}

out=$("$DEMO" --kernels 2>&1)
check "--kernels exits 0" [ $? -eq 0 ]
check "--kernels: one line per model" [ "$(printf '%s\n' "$out" | grep -c '^kernels model=')" -eq 3 ]
count() { # count MODEL unfused|fused
	printf '%s\n' "$out" | sed -n "s/^kernels model=$1 .*\<$2=\([0-9]*\).*/\1/p"
}

# DenseNet-121: 58 dense layers (6 + 12 + 24 + 16).  Plain: stem conv, BN,
# ReLU, max pool; a copy into each of the 4 block buffers; BN, ReLU, 1x1 conv,
# BN, ReLU, 3x3 conv per layer; BN, ReLU, 1x1 conv, avg pool per transition
# (3); BN, ReLU, global pool, linear, softmax.  Fused: the stem conv carries
# its BN and ReLU; each pool writes into the block buffer itself; a layer is
# a 1x1 conv with both BN+ReLUs folded in and a 3x3 conv; a transition a conv
# (its BN+ReLU folded into the load) and a pool; the last BN+ReLU one kernel.
dl=$((6 + 12 + 24 + 16))
check "densenet plain: 6 kernels a dense layer" [ "$(count densenet unfused)" = $((4 + 4 + 6 * dl + 3 * 4 + 5)) ]
check "densenet fused: 2 kernels a dense layer" [ "$(count densenet fused)" = $((2 + 2 * dl + 3 * 2 + 4)) ]

# ResNet-50: 16 bottlenecks, 4 with a projection shortcut.  Plain: conv, BN,
# ReLU twice, conv, BN, add, ReLU (+ conv, BN for a projection); fused: three
# convs, the last adding the shortcut and applying the ReLU (+ one conv).
check "resnet plain" [ "$(count resnet unfused)" = $((4 + 16 * 10 + 4 * 2 + 3)) ]
check "resnet fused: 3 kernels a bottleneck" [ "$(count resnet fused)" = $((2 + 16 * 3 + 4 + 3)) ]

# VGG-16: 13 conv + bias+ReLU pairs, 5 pools, 3 linear, 2 ReLU, softmax; the
# fused convs add their bias and apply the ReLU themselves.
check "vgg plain" [ "$(count vgg unfused)" = $((13 * 2 + 5 + 3 + 2 + 1)) ]
check "vgg fused" [ "$(count vgg fused)" = $((13 + 5 + 3 + 2 + 1)) ]

err=$("$DEMO" priority-vs-training --fusion sometimes 2>&1)
check "--fusion with a bad value exits 2" [ $? -eq 2 ]
check "--fusion with a bad value: named" contains "$err" "bad argument '--fusion'"
e2e_done
