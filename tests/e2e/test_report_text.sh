#!/bin/sh
# smtop report's text speaks the viewer's language on every recorded session:
# times from the session start, never raw epoch nanoseconds; short kernel
# names, never mangled ones (but with --long-names and in --json); lines that
# fit 100 columns; footnotes only where a row needs them.
. tests/e2e/lib.sh
D=$E2E_TMP/text
C=$E2E_TMP/copy
mkdir -p "$D" "$C"

# report FILE OPTIONS...: the text of every episode, explained, from a copy
# (report stores its findings into the file)
report() {
	f=$1
	shift
	cp "$f" "$C/s"
	"$SMTOP" report "$C/s" --top 1000000 -q "$@"
	rm -f "$C/s"*
}

# a run of 13 or more digits is a raw timestamp (the epoch is 19 digits; a
# session's own counts stay far below)
no_epoch() { ! grep -Eq '[0-9]{13}' "$1"; }
no_mangled() { ! grep -Eq '(^|[^A-Za-z0-9])_Z[A-Za-z0-9_]' "$1"; }
fits() { ! awk 'length($0) > 100 { bad = 1 } END { exit !bad }' "$1"; }
# the "~" footnote only below a table with a "~" row
tilde_told() {
	rows=$(grep -Ec '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ .*[0-9]~ ' "$1")
	note=$(grep -c '(~: SM share estimated' "$1")
	[ "$rows" -gt 0 ] && [ "$note" -eq 1 ] || { [ "$rows" -eq 0 ] && [ "$note" -eq 0 ]; }
}

for f in tests/fixtures/*.smtop tests/fixtures/nsys/*.sqlite; do
	[ -f "$f" ] || continue
	n=$(basename "$f")
	out=$D/$n.txt
	report "$f" --explain > "$out" 2>"$D/err" || { fail "$n: report failed: $(cat "$D/err")"; continue; }
	check "$n: no raw epoch timestamp" no_epoch "$out"
	check "$n: no mangled name" no_mangled "$out"
	check "$n: fits 100 columns" fits "$out"
	check "$n: ~ footnote only with a ~ row" tilde_told "$out"
done

# what the options keep: full names on request and in JSON
f=tests/fixtures/priority-vs-training.smtop
report "$f" > "$D/short.txt"
report "$f" --long-names > "$D/long.txt"
report "$f" --json > "$D/json.txt"
check "short name shown" grep -q 'gemm_kernel (stream 13, priority -5) waited' "$D/short.txt"
check "--long-names: the full, demangled name" grep -q 'void gemm_kernel<32, 32, conv_fused_p>' "$D/long.txt"
check "--json: the full name and the short one" sh -c \
	"grep -q '\"name\": \"_Z11gemm_kernel' '$D/json.txt' && grep -q '\"short_name\": \"gemm_kernel\"' '$D/json.txt'"
check "--json: raw times and the session start" grep -q '"session_start_ns": 1796166633' "$D/json.txt"
check "times from the session start" grep -q 'at 9.893ms  dev 0 pid 1167 stream 13 prio -5' "$D/short.txt"
check "sm% over 100 explained" grep -q 'passes 100' "$D/short.txt"

# what the collector dropped is said before the figures that miss it
cp tests/fixtures/head-of-line.smtop "$D/drops.smtop"
python3 -c 'import sqlite3, sys; d = sqlite3.connect(sys.argv[1]); d.execute("UPDATE smtop_process SET drops_blocks = 1000, drops_cupti = 2"); d.commit()' "$D/drops.smtop"
"$SMTOP" report "$D/drops.smtop" > "$D/drops.txt"
"$SMTOP" report "$D/drops.smtop" --json > "$D/drops.json"
check "dropped blocks said, with their share of what ran" \
	grep -q '^dropped: 1,000 blocks (65.4% of 1,528 that ran), 2 CUPTI records, 0 ring records;' "$D/drops.txt"
check "--json: the drop counts" grep -q '"dropped": {"blocks": 1000, "cupti": 2, "ring": 0},' "$D/drops.json"
check "nothing dropped, nothing said" sh -c "! grep -q '^dropped' '$D/short.txt'"
report tests/fixtures/nsys/nsys-2025.3-h200-smoke.sqlite --json > "$D/nsys.json"
check "--json: an Nsight Systems export counts no drops" grep -q '"dropped": null,' "$D/nsys.json"
e2e_done
