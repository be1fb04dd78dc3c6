#!/bin/sh
# tests/fixtures/head-of-line-windows.smtop: the head-of-line demo under
# --sm entry (its kernels' marks off: their ends bounded) with a 100 ms
# exact window every second, cut to 140 ms from 20 ms before its first
# window, its derived tables dropped (smtop computes them again, into its
# own cache).
#   tests/gpu/windows_fixture.sh OUTDIR
cd "$(dirname "$0")/../.." || exit 1
d=${1:-build/gpu-out}
mkdir -p "$d"
rm -f "$d/hol-win.smtop" "$d/head-of-line-windows.smtop"
SMTOP_ENTRY_MARKS=0 build/smtop record --sm entry --exact-every 1s --exact-for 100ms -q -o "$d/hol-win.smtop" -- \
	build/smtop-demo head-of-line --seconds 3 > "$d/hol-win.out" 2>&1 || exit 1
st=$(python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); print(d.execute("select n.start from NVTX_EVENTS n left join StringIds s on n.textId=s.id where coalesce(n.text,s.value)=\"exact block ends\" order by n.start limit 1").fetchone()[0])' "$d/hol-win.smtop")
python3 tests/gpu/trim_session.py "$d/hol-win.smtop" "$d/head-of-line-windows.smtop" --start-ns $((st - 20000000)) --window-ms 140 || exit 1
python3 - "$d/head-of-line-windows.smtop" <<'PY'
import sqlite3, sys
d = sqlite3.connect(sys.argv[1])
for t in ["smtop_occupancy", "smtop_events", "smtop_event_culprits", "smtop_report", "smtop_summary"]:
    d.execute(f"DELETE FROM {t}")
d.commit()
d.execute("PRAGMA page_size=1024")
d.execute("VACUUM")
PY
build/smtop info "$d/head-of-line-windows.smtop"
