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
for m in vgg densenet; do
	run_expect 0 build/smtop-demo priority-vs-training --seconds 3 --model $m --batch 16
	[ "$(field summary verified)" = yes ] || fail "$m: inference output not verified"
done
pass
