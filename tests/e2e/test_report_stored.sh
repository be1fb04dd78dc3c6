#!/bin/sh
# smtop report of a finished session prints what smtop's cache of it keeps
# (smtop_report in $XDG_CACHE_HOME/smtop/, never in the session itself) when
# it is current, byte for byte what a read of every block prints, and reads
# every block again when the analysis version, the threshold or the
# session's length differ from the kept row's.
. tests/e2e/lib.sh
D=$E2E_TMP/stored
mkdir -p "$D"
export XDG_CACHE_HOME=$E2E_TMP/cache

# cache_of FILE: the newest cache file kept for FILE
cache_of() {
	for c in $(ls -t "$XDG_CACHE_HOME"/smtop/*.smtop-cache 2>/dev/null); do
		if [ "$(sqlite3 "$c" "SELECT value FROM smtop_meta WHERE key = 'cache_of'")" = "$1" ]; then
			echo "$c"
			return
		fi
	done
}

# row FILE: the kept row's key and when it was computed
row() {
	c=$(cache_of "$1")
	[ -n "$c" ] && sqlite3 "$c" "SELECT analysis, thresholdNs, kernelRows, computedNs FROM smtop_report" 2>/dev/null
}

# in_cache FILE SQL: runs SQL on FILE's cache
in_cache() {
	sqlite3 "$(cache_of "$1")" "$2"
}

# reports FILE [OPTIONS]: --json of every episode, then --explain
reports() {
	f=$1
	shift
	"$SMTOP" report "$f" --json --top 1000000 -q "$@"
	"$SMTOP" report "$f" --explain --top 1000000 -q "$@"
}

# fresh FIXTURE [OPTIONS]: the same, each from a fresh copy of the fixture
# (a read of every block), under the name FIXTURE.smtop in $D
fresh() {
	fx=$1
	shift
	for how in --json --explain; do
		cp tests/fixtures/$fx.smtop "$D/fresh.smtop"
		"$SMTOP" report "$D/fresh.smtop" $how --top 1000000 -q "$@" | sed "s|fresh.smtop|$fx.smtop|g"
		rm -f "$D/fresh.smtop"*
	done
}

for fx in head-of-line priority-vs-training two-gpus torch-sm-all equal-priority; do
	cp tests/fixtures/$fx.smtop "$D/$fx.smtop"
	f=$D/$fx.smtop
	fresh $fx > "$D/$fx.computed"
	sum=$(md5sum < "$f")
	"$SMTOP" report "$f" -q > /dev/null
	first=$(row "$f")
	check "$fx: a report keeps its findings in smtop's cache" [ -n "$first" ]
	check "$fx: and leaves the session as it was" [ "$(md5sum < "$f")" = "$sum" ]
	reports "$f" > "$D/$fx.stored"
	check "$fx: stored findings print as computed ones (--json, --explain)" \
		cmp -s "$D/$fx.computed" "$D/$fx.stored"
	check "$fx: the later reports read them, computed nothing" [ "$(row "$f")" = "$first" ]
done

# The findings smtop ls keeps (from a read as the viewer's) print the same.
mkdir -p "$D/lib"
cp tests/fixtures/priority-vs-training.smtop "$D/lib/priority-vs-training.smtop"
sqlite3 "$D/lib/priority-vs-training.smtop" "DELETE FROM smtop_summary"
sum=$(md5sum < "$D/lib/priority-vs-training.smtop")
"$SMTOP" ls "$D/lib" -q > /dev/null
check "smtop ls keeps the report's findings in the cache" [ -n "$(row "$D/lib/priority-vs-training.smtop")" ]
check "smtop ls leaves the session as it was" [ "$(md5sum < "$D/lib/priority-vs-training.smtop")" = "$sum" ]
check "smtop ls keeps its summary in the cache" [ "$(in_cache "$D/lib/priority-vs-training.smtop" "SELECT count(*) FROM smtop_summary")" = 1 ]
reports "$D/lib/priority-vs-training.smtop" | sed "s|$D/lib/|$D/|g" > "$D/ls.stored"
check "the findings smtop ls kept print as computed ones" cmp -s "$D/priority-vs-training.computed" "$D/ls.stored"

# Another analysis version: computed again, the same report, the row replaced.
f=$D/head-of-line.smtop
version=$(in_cache "$f" "SELECT analysis FROM smtop_report")
in_cache "$f" "UPDATE smtop_report SET analysis = analysis - 1, computedNs = 1"
reports "$f" > "$D/again"
check "another analysis version: computed again" [ "$(in_cache "$f" "SELECT analysis, computedNs > 1 FROM smtop_report")" = "$version|1" ]
check "another analysis version: the same report" cmp -s "$D/head-of-line.computed" "$D/again"

# A session longer than the one the row was found for: computed again.
in_cache "$f" "UPDATE smtop_report SET kernelRows = kernelRows - 1, computedNs = 1"
reports "$f" > "$D/again"
check "a longer session: computed again" [ "$(in_cache "$f" "SELECT computedNs > 1 FROM smtop_report")" = 1 ]
check "a longer session: the same report" cmp -s "$D/head-of-line.computed" "$D/again"

# Damaged bytes: computed again, never printed.
in_cache "$f" "UPDATE smtop_report SET data = substr(data, 1, length(data) / 2), computedNs = 1"
reports "$f" > "$D/again"
check "damaged findings: computed again" [ "$(in_cache "$f" "SELECT computedNs > 1 FROM smtop_report")" = 1 ]
check "damaged findings: the same report" cmp -s "$D/head-of-line.computed" "$D/again"

# Another threshold: its own findings, as a fresh read gives them.
reports "$f" --threshold-us 100 > "$D/t100"
check "another threshold: kept with it" [ "$(in_cache "$f" "SELECT thresholdNs FROM smtop_report")" = 100000 ]
fresh head-of-line --threshold-us 100 > "$D/t100.fresh"
check "another threshold: the report of a fresh read" cmp -s "$D/t100.fresh" "$D/t100"
check "another threshold: not the 20 us report" sh -c '! cmp -s "$1" "$2"' _ "$D/t100" "$D/head-of-line.computed"

# Nsight Systems exports are never written to: their report is computed
# in memory, each time.
for n in tests/fixtures/nsys/*.sqlite; do
	cp "$n" "$D/nsys.sqlite"
	break
done
sum=$(md5sum < "$D/nsys.sqlite")
"$SMTOP" report "$D/nsys.sqlite" --json -q > /dev/null
check "nsys export: report writes nothing" [ "$(md5sum < "$D/nsys.sqlite")" = "$sum" ]

# Several files make one view: nothing kept for any of them.
cp tests/fixtures/smoke.smtop "$D/a.smtop"
cp tests/fixtures/timeslice.smtop "$D/b.smtop"
"$SMTOP" report "$D/a.smtop" "$D/b.smtop" -q > /dev/null
check "several files: no findings kept" [ -z "$(row "$D/a.smtop")$(row "$D/b.smtop")" ]

# smtop export takes its episodes from the kept findings too: the same
# files as from a fresh read.
for fx in torch-sm-all priority-vs-training; do
	rm -rf "$XDG_CACHE_HOME/smtop"
	cp tests/fixtures/$fx.smtop "$D/x.smtop"
	"$SMTOP" export "$D/x.smtop" --csv "$D/x-fresh" --perfetto "$D/x-fresh.json" -q
	check "$fx: export keeps nothing itself" [ -z "$(row "$D/x.smtop")" ]
	"$SMTOP" report "$D/x.smtop" -q > /dev/null
	"$SMTOP" export "$D/x.smtop" --csv "$D/x-stored" --perfetto "$D/x-stored.json" -q
	check "$fx: export from stored findings: the same events.csv" \
		cmp -s "$D/x-fresh/events.csv" "$D/x-stored/events.csv"
	check "$fx: export from stored findings: the same kernels.csv and blocks.csv" \
		sh -c 'cmp -s "$1/kernels.csv" "$2/kernels.csv" && cmp -s "$1/blocks.csv" "$2/blocks.csv"' \
		_ "$D/x-fresh" "$D/x-stored"
	check "$fx: export from stored findings: the same Perfetto trace" \
		cmp -s "$D/x-fresh.json" "$D/x-stored.json"
	rm -rf "$D/x.smtop"* "$D/x-fresh" "$D/x-stored" "$D/x-fresh.json" "$D/x-stored.json"
done
cp tests/fixtures/torch-sm-all.smtop "$D/t.smtop"
"$SMTOP" export "$D/t.smtop" --csv "$D/t" -q
n=$(wc -l < "$D/t/events.csv")
check "torch-sm-all: its export lists episodes ($n lines)" [ "${n:-0}" -gt 10 ]

# The kept path prints nothing on stderr (no progress line, no message).
err=$("$SMTOP" report "$D/priority-vs-training.smtop" 2>&1 >/dev/null)
check "kept findings: stderr stays empty" [ -z "$err" ]

# Findings a recording stored in the session itself are read from it (as
# smtop record finalises a session); nothing goes to the cache then.  A
# session recorded now: a fixture's stored findings are of the analysis
# version that recorded it.
"$SMTOP" record -q -o "$D/rec.smtop" -- "$(pwd)/build/e2e/fake_workload" append 0.2 "$D/rec.st" > /dev/null 2>&1
"$SMTOP" report "$D/rec.smtop" -q > /dev/null
check "findings stored in the session: read from it, none cached" [ -z "$(row "$D/rec.smtop")" ]

e2e_done
