#!/bin/sh
# timeslice (two processes) runs; mps exits 2 unless a daemon is running;
# green-contexts runs or exits 2 with one line.
T=demo_processes; . "$(dirname "$0")/demo_lib.sh"
run_expect 0 build/smtop-demo timeslice --seconds 4
num_ge "$(field summary requests)" 10 || fail "timeslice: too few requests"
num_ge "$(field train steps)" 1 || fail "timeslice: training made no step"
mps_dir=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}
if [ -e "$mps_dir/control" ]; then
	run_expect 0 build/smtop-demo mps --seconds 4
else
	run_expect 2 build/smtop-demo mps
	echo "$OUT" | grep -q '^mps: MPS is not running; smtop never starts it$' || fail "mps message"
fi
OUT=$(build/smtop-demo green-contexts --seconds 4 2>&1); rc=$?
echo "$OUT"
case $rc in
0) num_ge "$(field summary requests)" 10 || fail "green-contexts: too few requests"
   echo "$OUT" | grep -q '^green-contexts: inference_sms=' || fail "green-contexts: no split line" ;;
2) echo "green-contexts unsupported here (exit 2)" ;;
*) fail "green-contexts exited $rc" ;;
esac
pass
