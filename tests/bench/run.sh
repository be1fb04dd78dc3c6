#!/bin/sh
# `make bench`: runs the micro-benchmarks (bench_*: store, analysis, frame on
# in-memory data), then, for each size in BENCH_SIZES (default "10M 100M"),
# writes a synthetic session file with gen_session, opens it as `smtop open`
# does and analyses it as `smtop report` does (bench_session), deletes it, and
# prints one table of the figures with the machine they came from.
#   BENCH_SIZES="10M 100M 1G"   block counts (k, M, G suffixes)
#   BENCH_DIR=DIR               where the session files go (default build/bench)
#   SMTOP_BENCH_BLOCKS=N        block count of the micro-benchmarks
bin_dir=$(dirname "${1:-build/bench/x}")
sizes=${BENCH_SIZES:-10M 100M}
dir=${BENCH_DIR:-build/bench}
fail=0

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
echo "machine: $cpu, $(nproc) cores online ($(grep -c '^processor' /proc/cpuinfo) in /proc/cpuinfo), $mem RAM, $(uname -m), $(uname -r)"

for b in "$@"; do
	case $(basename "$b") in bench_session|gen_session) continue ;; esac
	echo "== $(basename "$b")"
	"$b" ${SMTOP_BENCH_BLOCKS:+$SMTOP_BENCH_BLOCKS} || { echo "FAILED: $b"; fail=1; }
done

# value KEY LINE: the value of KEY=... in a line of key=value pairs
value() {
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1
}

blocks_of() {
	case $1 in
	*[kK]) echo $((${1%?} * 1000)) ;;
	*M) echo $((${1%?} * 1000000)) ;;
	*G) echo $((${1%?} * 1000000000)) ;;
	*) echo "$1" ;;
	esac
}

mkdir -p "$dir"
rows=""
mems=""
opens=""
for size in $sizes; do
	n=$(blocks_of "$size")
	f="$dir/bench-$size.smtop"
	# about 8.2 bytes per block on disk, plus the WAL and a margin
	need_kb=$((n / 100 + 131072))
	free_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
	if [ "$free_kb" -lt "$need_kb" ]; then
		echo "== session $size: SKIPPED, $dir has $((free_kb / 1024)) MiB free and needs about $((need_kb / 1024)) MiB"
		rows="$rows$size|skipped: not enough disk space in $dir
"
		continue
	fi
	echo "== session $size: $f (load average $(cut -d' ' -f1-3 /proc/loadavg))"
	gen=$("$bin_dir/gen_session" "$f" "$n") || { echo "FAILED: gen_session $size"; fail=1; rm -f "$f" "$f-wal" "$f-shm"; continue; }
	echo "$gen"
	ana=$("$bin_dir/bench_session" analysis "$f") || { echo "FAILED: bench_session analysis $size"; fail=1; }
	echo "$ana"
	opn=$("$bin_dir/bench_session" open "$f") || { echo "FAILED: bench_session open $size"; fail=1; }
	echo "$opn"
	rm -f "$f" "$f-wal" "$f-shm"
	head=$(printf '%s\n' "$opn" | grep '^open_s=')
	tail=$(printf '%s\n' "$opn" | grep '^frame_max_ms=')
	mem=$(printf '%s\n' "$opn" | grep '^mem_model_mb=' | head -1)
	mems="$mems$size|$n|$(value rss_mb "$tail")|$(value mem_rings_mb "$mem")|$(value mem_stage_peak_mb "$mem")|$(value mem_mkernels_mb "$mem")|$(value mem_mevents_mb "$mem")|$(value mem_akernels_mb "$mem")|$(value mem_grids_mb "$mem")|$(value mem_packed_mb "$mem")|$(value mem_aindex_mb "$mem")|$(value mem_aevents_mb "$mem")|$(value mem_analysis_mb "$mem")
"
	opens="$opens$size|$(value blocks "$gen")|$(value open_s "$head")/$(value open_cpu_s "$head")|$(value verdicts_s "$head")|$(value full_s "$head")/$(value full_cpu_s "$head")|$(value load_step_max_ms "$head")|$(value stored "$head")|$(value summary_s "$gen")|$(value rss_mb "$tail")
"
	rows="$rows$size|$(value blocks "$gen")|$(value gpu_s "$gen")|$(value gpu_rate "$gen")|$(value kernels "$gen")|$(value events "$ana")|$(value ingest "$gen")/$(value ingest_cpu "$gen")|$(value bytes_per_block "$gen")|$(value rss_mb "$gen")|$(value open_s "$head")/$(value open_cpu_s "$head")|$(value rss_mb "$tail")|$(value frame_max_ms "$tail")/$(value frame_cpu_max_ms "$tail")|$(value detail_max_ms "$tail")/$(value detail_step_max_ms "$tail")|$(value analysis_s "$ana")/$(value analysis_cpu_s "$ana")|$(value rss_mb "$ana")|$(cut -d' ' -f1 /proc/loadavg)
"
done

echo
echo "sessions (synthetic H200: 132 SMs, 8 streams at priorities -5..0; frames on a $(value size "$tail") canvas)"
echo "a/b: wall clock / CPU time (they differ when the machine is busy; load: 1-minute load average after the size)"
printf '%s' "$rows" | awk -F'|' '
function fmt() {
	return "%-5s %11s %6s %7s %7s %6s %13s %6s %7s %15s %8s %13s %15s %13s %7s %5s\n"
}
BEGIN {
	printf fmt(), "size", "blocks", "GPU s", "M blk/s", "kernels", "events", "ingest M/s", "B/blk",
	       "gen MiB", "1st frame s", "view MiB", "frame ms", "detail/key ms", "analysis s", "ana MiB", "load"
}
NF == 2 { printf "%-5s %s\n", $1, $2; next }
{
	printf fmt(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16
	split($7, ing, "/"); split($12, fr, "/")
	if (ing[2] + 0 < 10) miss = miss sprintf("  MISSED: ingest %s M blocks/s (CPU time) at %s (target >= 10)\n", ing[2], $1)
	if (fr[2] + 0 > 10) miss = miss sprintf("  MISSED: frame %s ms (CPU time) at %s (target <= 10 ms at every zoom)\n", fr[2], $1)
	# the viewer below 100 MB (10^8 bytes) for sessions up to 1 G blocks
	if ($2 + 0 <= 1000000000 && $11 * 1048576 >= 100000000)
		miss = miss sprintf("  MISSED: viewer peak RSS %s MiB (%.1f MB) at %s (target < 100 MB)\n", $11, $11 * 1.048576, $1)
}
END {
	print "  ingest: blocks per second inside db_writer_write, one core; frame: slowest frame over all zooms;"
	print "  detail/key: slowest read of a fine window'"'"'s blocks from the file (once per zoom or pan past it)"
	print "    / the longest step of it, the time a key waits (the viewer reads it in slices, coarse bins meanwhile);"
	print "  view MiB: peak RSS of the whole viewer (loader, analysis, model) over the load and every zoom"
	printf "%s", miss
	if (miss == "") print "  targets met: ingest >= 10 M blocks/s, frame <= 10 ms at every zoom (CPU time), viewer < 100 MB up to 1 G blocks"
}'

echo
echo "opening a saved session as smtop open does (a/b: wall clock / CPU time)"
printf '%s' "$opens" | awk -F'|' '
BEGIN {
	printf "%-5s %11s %15s %12s %17s %10s %7s %10s %9s\n", "size", "blocks", "1st frame s",
	       "verdicts s", "full detail s", "step ms", "stored", "finalise s", "view MiB"
}
{
	printf "%-5s %11s %15s %12s %17s %10s %7s %10s %9s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9
	split($3, ff, "/")
	if (ff[1] + 0 > 0.3) miss = miss sprintf("  MISSED: first frame %s s at %s (target <= 0.3 s)\n", ff[1], $1)
}
END {
	print "  1st frame: session_open to the first screen_draw (stored occupancy, episodes and lanes, one"
	print "  batch of blocks); verdicts: until the first episode is on screen; full detail: until every block"
	print "  is in the rings (a poll of the live budget and a frame at a time); step: the longest such poll"
	print "  and frame, the time a key waits while loading; stored: results found in the file (3: occupancy"
	print "  and episodes); finalise: what smtop record adds to store them (gen_session, as record does)"
	printf "%s", miss
	if (miss == "") print "  target met: first frame <= 0.3 s"
}'

echo
echo "viewer memory (MiB) at the end of loading, from the model's and the analysis' counts; peak RSS against the target"
printf '%s' "$mems" | awk -F'|' '
BEGIN {
	printf "%-5s %9s %7s | %6s %6s %8s %7s | %8s %6s %7s %6s %7s %6s\n", "size", "peak RSS", "target",
	       "rings", "stage", "kernels", "events", "kernels", "grids", "packed", "index", "events", "all"
	printf "%-24s| %-31s| %s\n", "", "model", "analysis"
}
{
	t = $2 + 0 > 1000000000 ? "-" : ($3 * 1048576 < 100000000) ? "met" : "MISSED"
	printf "%-5s %9s %7s | %6s %6s %8s %7s | %8s %6s %7s %6s %7s %6s\n", $1, $3, t, $4, $5, $6, $7,
	       $8, $9, $10, $11, $12, $13
}
END {
	print "  peak RSS: the whole viewer over the load and every zoom, target < 100 MB (95.4 MiB) up to 1 G"
	print "  blocks; the rest of the RSS is the loader'"'"'s batches, SQLite'"'"'s page cache, malloc'"'"'s own and the"
	print "  program; rings: occupancy rings in memory (a ring holds what its data spans); stage: blocks staged"
	print "  for binning at most (given back once a saved session is read); packed: per-grid time profiles"
}'
exit $fail
