#!/bin/sh
# priority-vs-training and equal-priority run, verify their outputs and report
# turnaround percentiles. The effect assertions on the recorded session are the lead's.
T=demo_priority; . "$(dirname "$0")/demo_lib.sh"
for sc in priority-vs-training equal-priority; do
	for arr in back-to-back poisson; do
		run_expect 0 build/smtop-demo $sc --seconds 4 --arrival $arr --rate 50
		[ "$(field summary verified)" = yes ] || fail "$sc $arr: inference output not verified"
		num_ge "$(field summary requests)" 10 || fail "$sc $arr: too few requests"
		num_ge "$(field summary median_ms)" 0.01 || fail "$sc $arr: no median"
		num_ge "$(field train steps)" 1 || fail "$sc $arr: training made no step"
	done
done
# The kernels a request launched (counted on the GPU) are those its plan
# lists (smtop-demo --kernels), fused by default and plain with --fusion off.
run_expect 0 build/smtop-demo --kernels
KERNELS=$OUT
planned() { echo "$KERNELS" | grep "^kernels model=$1 " | tr ' ' '\n' | sed -n "s/^$2=//p"; }
for m in resnet vgg densenet; do
	for fu in on off; do
		# not "want": run_expect sets that to the exit status it expects
		[ $fu = on ] && plan=$(planned $m fused) || plan=$(planned $m unfused)
		run_expect 0 build/smtop-demo priority-vs-training --seconds 3 --model $m --batch 16 --fusion $fu
		[ "$(field summary verified)" = yes ] || fail "$m fusion $fu: inference output not verified"
		[ "$(field summary fusion)" = $fu ] || fail "$m: summary fusion is not $fu"
		[ "$(field summary kernels_per_request)" = "$plan" ] || fail "$m fusion $fu: kernels_per_request not $plan"
	done
done
pass
