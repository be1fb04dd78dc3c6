#!/bin/sh
# Every committed session, through the product alone: smtop export joins
# every block to its kernel and stream, smtop info counts no drop, the viewer
# draws the blocks, and smtop report --json gives each scenario's verdict.
. tests/e2e/lib.sh
FX=$E2E_TMP/integrity
mkdir -p "$FX" && cp tests/fixtures/*.smtop "$FX"/

json() { "$SMTOP" report "$1" --json -q | python3 -c "import json,sys; r=json.load(sys.stdin); $2"; }
info_blocks() { "$SMTOP" info "$1" | sed -n 's/^blocks  *//p' | tr -d ,; }

for f in "$FX"/*.smtop; do
	n=$(basename "$f" .smtop)
	out=$("$SMTOP" info "$f")
	check "$n: no block dropped" contains "$out" " 0 blocks"
	blocks=$(info_blocks "$f")
	"$SMTOP" export "$f" --csv "$E2E_TMP/$n-csv" -q
	rows=$(($(wc -l < "$E2E_TMP/$n-csv/blocks.csv") - 1))
	check "$n: the export holds every block ($rows of $blocks)" [ "$rows" -eq "$blocks" ]
	orphans=$(awk -F, 'NR > 1 && ($9 == "" || $10 == "")' "$E2E_TMP/$n-csv/blocks.csv" | wc -l)
	check "$n: every exported block names its stream and kernel ($orphans without)" [ "$orphans" -eq 0 ]
	[ "$blocks" -gt 0 ] || continue
	tui_start 160 50 "$SMTOP" open "$f"
	tui_wait 'blocks [0-9]' 5
	s=$(tui_cap)
	# an SM row with a stream's letter in it: "│   4-7      ··aaAa··"
	drawn=$(printf '%s\n' "$s" | grep -cE '^│ *[0-9]+-[0-9]+ +[^ ]*[A-Za-z]')
	check "$n: the viewer draws blocks on the SMs ($drawn rows)" [ "$drawn" -gt 0 ]
	check "$n: no block left unmatched on screen" sh -c '! printf "%s" "$1" | grep -q unmatched' _ "$s"
	tui_keys q
	tui_end
done

# Green contexts: 16 SMs for inference, the rest for training, each stream
# on its own SMs, with its priority.
sets=$(awk -F, 'NR > 1 { print $9, $4 }' "$E2E_TMP/green-contexts-csv/blocks.csv" | sort -u |
	awk '{ n[$1]++; s[$2]++ } END { shared = 0; for (m in s) if (s[m] > 1) shared++; for (k in n) printf "%s ", n[k]; print "shared", shared }')
check "green-contexts: two streams on disjoint SM sets ($sets)" sh -c 'printf "%s" "$1" | grep -Eq "^(16 116|116 16) shared 0$"' _ "$sets"
v=$(json "$FX/green-contexts.smtop" "print(sorted(s['priority'] for s in r['streams'] if s['kernels']))")
check "green-contexts: the green contexts' streams show priorities -5 and 0 ($v)" [ "$v" = "[-5, 0]" ]

# Two processes: without MPS they take turns on the GPU, as MPS clients
# their blocks start side by side on the same SMs.
v=$(python3 tests/gpu/cross_process.py "$E2E_TMP/timeslice-csv/blocks.csv" --expect apart)
check "timeslice: the processes take turns ($v)" [ $? -eq 0 ]
v=$(python3 tests/gpu/cross_process.py "$E2E_TMP/mps-csv/blocks.csv" --expect shared)
check "mps: the clients' blocks start side by side ($v)" [ $? -eq 0 ]
v=$(json "$FX/mps.smtop" "print(sum(1 for e in r['episodes'] if e['kind'].startswith('inversion') and any(c['pid'] != e['pid'] for c in e['culprits'])))")
check "mps: inversions behind the other client's blocks: no priorities across clients ($v)" [ "$v" -gt 0 ]
v=$(json "$FX/timeslice.smtop" "print(r['totals']['timeslice']['count'])")
check "timeslice: waits behind the other process are timeslice episodes ($v)" [ "$v" -gt 0 ]
e2e_done
