#!/bin/sh
# Ready times and waits read a second time, by tests/e2e/check_waits.py from
# the session tables with plain SQL, against smtop report --json: every
# recorded session and every Nsight Systems export in tests/fixtures.
. tests/e2e/lib.sh
# On copies: smtop report stores its events in the smtop sessions it reads.
FX=$E2E_TMP/waits
mkdir -p "$FX"
cp tests/fixtures/*.smtop tests/fixtures/nsys/*.sqlite "$FX"/
if ! command -v python3 >/dev/null; then
	echo "  skipped: no python3"
	exit 0
fi
for f in "$FX"/*.smtop "$FX"/*.sqlite; do
	v=$(python3 tests/e2e/check_waits.py "$SMTOP" "$f" 2>&1)
	printf '%s\n' "$v" | sed 's/^/    /'
	check "$(basename "$f"): ready times and waits agree with plain SQL" \
		sh -c '! printf "%s" "$1" | grep -q -e "^FAIL" -e Traceback' _ "$v"
done

# The PyTorch export's three old episodes (13 to 15 ms) were launch calls
# that returned late (lazy module loading), not the scheduler.
v=$("$SMTOP" report "$FX/nsys-2025.3-h200-torch.sqlite" --json -q | python3 -c "import json,sys; r=json.load(sys.stdin); print(r['episodes_total'], max(s['wait_ns']['max'] for s in r['streams'] if s['wait_ns']))")
check "torch export: no episode, the longest wait under 20 us ($v)" sh -c "[ '${v% *}' -eq 0 ] && [ '${v#* }' -lt 20000 ]"
v=$("$SMTOP" report "$FX/nsys-3.16.1.sqlite" --explain)
check "--explain names the launch call" contains "$v" "because of the host: its launch call (correlation id"
check "--explain lists what was resident" contains "$v" "resident meanwhile ("

e2e_done
