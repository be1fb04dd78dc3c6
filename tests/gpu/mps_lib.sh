# Sourced by the GPU test scripts (sh).
# mps_start DIR: a private MPS control daemon, its pipe and log folders
# under DIR, for this shell's CUDA programs; 1 with the refusal printed if
# the machine will not run one.  smtop itself never starts or stops MPS.
mps_start() {
	mkdir -p "$1/pipe" "$1/log"
	export CUDA_MPS_PIPE_DIRECTORY="$1/pipe" CUDA_MPS_LOG_DIRECTORY="$1/log"
	if ! command -v nvidia-cuda-mps-control >/dev/null; then
		echo "mps: nvidia-cuda-mps-control is not installed"
		unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
		return 1
	fi
	if ! nvidia-cuda-mps-control -d; then
		echo "mps: nvidia-cuda-mps-control -d failed"; cat "$1/log/"*.log 2>/dev/null
		unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
		return 1
	fi
	sleep 1
	[ -e "$1/pipe/control" ] || { echo "mps: no control pipe in $1/pipe"; mps_stop "$1"; return 1; }
}

mps_stop() {
	echo quit | nvidia-cuda-mps-control
	sleep 1
	tail -5 "$1/log/control.log" 2>/dev/null
	unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}

