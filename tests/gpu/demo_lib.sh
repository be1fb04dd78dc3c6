# Helpers sourced by tests/gpu/demo_*.sh: run a binary, keep its output,
# assert on "key=value" fields of one summary line.
set -u
fail() { echo "FAIL $T: $*"; exit 1; }
pass() { echo "PASS $T"; exit 0; }
# run_expect RC CMD...: runs CMD, prints its output, fails unless it exits RC.
run_expect() {
	want=$1; shift
	OUT=$("$@" 2>&1); got=$?
	echo "$OUT"
	[ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want"
}
# field LINE_PREFIX KEY: value of KEY= on the first line starting with LINE_PREFIX.
field() {
	echo "$OUT" | grep "^$1" | head -1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}
# num_ge A B: A >= B as floats.
num_ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
