#!/bin/sh
# make fuzz / make test: runs each libFuzzer harness of BUILD_DIR/fuzz for
# SECONDS, from its seeds (tests/fuzz/corpus/NAME), its regression inputs
# (tests/fuzz/regressions/NAME, replayed first) and the corpus grown by
# earlier runs (BUILD_DIR/corpus/NAME, where new inputs go).  A crash leaves
# its input in BUILD_DIR/crashes/NAME/ and fails the run.
#   tests/fuzz/run.sh BUILD_DIR SECONDS [NAME...]
B=$1
secs=$2
shift 2
[ $# -gt 0 ] || set -- $(ls "$B"/fuzz/ | sed -n 's/^fuzz_//p')
fail=0
for name in "$@"; do
	bin=$B/fuzz/fuzz_$name
	corpus=$B/corpus/$name
	crashes=$B/crashes/$name
	mkdir -p "$corpus" "$crashes"
	opts="-max_total_time=$secs -timeout=20 -rss_limit_mb=2048 -print_final_stats=1"
	opts="$opts -artifact_prefix=$crashes/"
	[ -f tests/fuzz/$name.dict ] && opts="$opts -dict=tests/fuzz/$name.dict"
	case $name in
	session) opts="$opts -max_len=65536" ;;
	nsys) opts="$opts -max_len=32768" ;;
	blockcodec) opts="$opts -max_len=16384" ;;
	cli) opts="$opts -max_len=512" ;;
	names) opts="$opts -max_len=1024" ;;
	esac
	dirs="$corpus"
	for d in tests/fuzz/corpus/$name tests/fuzz/regressions/$name; do
		[ -d "$d" ] && dirs="$dirs $d"
	done
	echo "== fuzz $name for ${secs}s"
	log=$B/fuzz-$name.log
	# shellcheck disable=SC2086
	if "$bin" $opts $dirs > "$log" 2>&1; then
		grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+.*DONE' "$log" | tr '\n' ' '
		echo "corpus: $(ls "$corpus" | wc -l) files"
		tests/summary.sh add fuzz 1 0
	else
		tail -n 60 "$log"
		echo "FAILED: fuzz $name: input in $crashes/ (fix, then keep it in tests/fuzz/regressions/$name/)"
		tests/summary.sh add fuzz 0 1
		fail=1
	fi
done
exit $fail
