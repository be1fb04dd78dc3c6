#!/bin/sh
# Ready times and waits read a second time, by tests/e2e/check_waits.py from
# the session tables with plain SQL, against smtop report --json: every
# recorded session and every Nsight Systems export in tests/fixtures.
. tests/e2e/lib.sh
# On copies: the checks below take rows out of some of them.  The session
# with dropped launches (drops/) is read too: its kernels that never started
# leave the waits after them unknown, in both readings.
FX=$E2E_TMP/waits
mkdir -p "$FX"
cp tests/fixtures/*.smtop tests/fixtures/drops/*.smtop tests/fixtures/nsys/*.sqlite "$FX"/
if ! command -v python3 >/dev/null; then
	echo "  skipped: no python3"
	exit 0
fi
# agrees_with_sql LABEL FILE: check_waits.py's reading of FILE matches the report's
agrees_with_sql() {
	v=$(python3 tests/e2e/check_waits.py "$SMTOP" "$2" 2>&1)
	printf '%s\n' "$v" | sed 's/^/    /'
	check "$1: ready times and waits agree with plain SQL" \
		sh -c '! printf "%s" "$1" | grep -q -e "^FAIL" -e Traceback' _ "$v"
}
for f in "$FX"/*.smtop "$FX"/*.sqlite; do
	agrees_with_sql "$(basename "$f")" "$f"
done

# The PyTorch export's three old episodes (13 to 15 ms) were launch calls
# that returned late (lazy module loading), not the scheduler.
v=$("$SMTOP" report "$FX/nsys-2025.3-h200-torch.sqlite" --json -q | python3 -c "import json,sys; r=json.load(sys.stdin); print(r['episodes_total'], max(s['wait_ns']['max'] for s in r['streams'] if s['wait_ns']))")
check "torch export: no episode, the longest wait under 20 us ($v)" sh -c "[ '${v% *}' -eq 0 ] && [ '${v#* }' -lt 20000 ]"
# Programs whose kernels wait only for their copies, the events they wait on
# and module loading, recorded on the H200 (tests/gpu/waits_fixtures.sh): no
# episode, in the sessions and in their Nsight Systems exports.  Taking a
# bound's rows out of an export brings the false episodes back, so each bound
# explains real waits there (the sessions carry CUPTI's submission times,
# which the exports lack).
episodes() {
	"$SMTOP" report "$1" --json -q | python3 -c "import json,sys; print(json.load(sys.stdin)['episodes_total'])"
}
for f in copy-compute.smtop wait-stream.smtop lazy-load.smtop copy-compute-sm-all.smtop \
	wait-stream-sm-all.smtop nsys-2025.3-h200-copy-compute.sqlite \
	nsys-2025.3-h200-wait-stream.sqlite nsys-2025.3-h200-lazy-load.sqlite; do
	n=$(episodes "$FX/$f")
	check "$f: no episode ($n)" [ "$n" = 0 ]
done
# (the sessions' stored episodes go too: they were found with the rows)
# without FILE SQL: a copy of FILE after SQL, its stored results gone
without() {
	T=$E2E_TMP/without-$(basename "$1")
	cp "$1" "$T"
	python3 - "$T" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute(sys.argv[2])
for t in ("smtop_event_culprits", "smtop_events", "smtop_summary", "smtop_report"):
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (t,)).fetchone():
        db.execute(f"DELETE FROM {t}")
db.commit()
PY
	echo "$T"
}
for spec in "nsys-2025.3-h200-copy-compute.sqlite:the copies:DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY" \
	"nsys-2025.3-h200-wait-stream.sqlite:the event records:DELETE FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT" \
	"nsys-2025.3-h200-lazy-load.sqlite:the launch calls' durations:UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = start" \
	"wait-stream-sm-all.smtop:the event records:DELETE FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT" \
	"copy-compute-sm-all.smtop:the copies without times:DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY"; do
	f=${spec%%:*}
	rest=${spec#*:}
	what=${rest%%:*}
	n=$(episodes "$(without "$FX/$f" "${rest#*:}")")
	check "$f without $what: false episodes come back ($n)" [ "$n" -gt 0 ]
done

# A graph's edges (tests/gpu/graph_branch.cu, recorded with both backends,
# and a PyTorch CUDA graph): its kernels wait behind the low-priority
# blocks as inversions, each ready when what it depends on in its own launch
# ended.  Without the edges (graph order: a kernel of its own stream that
# ended before it started) the waits read twice as long, and the kernels of
# the graph's branch stream, which has no such kernel, read as ready when
# the launch call returned: innocent kernels blamed.  Without the launch's
# stream their waits read as plain blocking (the graph's own streams have
# priority 0, the stream it was launched into -5).
# totals FILE: "blocking resident dispatch summed-wait-us graph-edge-bounds
# high-priority-victims-blocking"
totals() {
	"$SMTOP" report "$1" --json -q --top 1000000 | python3 -c "import json,sys
r = json.load(sys.stdin); t = r['totals']
print(t['blocking']['count'], t['inversion_resident']['count'], t['inversion_dispatch']['count'],
      sum(e['wait_ns'] for e in r['episodes']) // 1000,
      sum(e['ready_bound'] == 'graph_edge' for e in r['episodes']),
      sum(e['kind'] == 'blocking' and e['priority'] is not None and e['priority'] < 0 for e in r['episodes']))"
}
for f in graph-branch.smtop graph-branch-sm-all.smtop torch-graph.smtop torch-graph-sm-all.smtop; do
	set -- $(totals "$FX/$f")
	check "$f: the graph's waits behind the low-priority work are inversions, none plain blocking ($*)" \
		sh -c "[ $6 -eq 0 ] && [ $(($2 + $3)) -gt 0 ] && [ $5 -gt 0 ]"
	wait_with=$4
	set -- $(totals "$(without "$FX/$f" "DELETE FROM smtop_graph_dep")")
	check "$f without its edges: longer waits ($4 us, with them $wait_with us), no edge named" \
		sh -c "[ $4 -gt $wait_with ] && [ $5 -eq 0 ]"
done
set -- $(totals "$(without "$FX/graph-branch.smtop" "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET streamId = NULL")")
check "graph-branch.smtop without its launches' stream: the branch kernels' waits read as plain blocking ($1)" \
	[ "$1" -gt 0 ]
# (torch-graph-sm-all's blocking episodes are the priority 0 stream's matrix
# products waiting behind the graph: blocking, rightly)
v=$("$SMTOP" report "$FX/graph-branch.smtop" --explain --top 1)
check "--explain names the graph's edges" contains "$v" "because of the graph's edges: a kernel it depends on in the same graph launch"

v=$("$SMTOP" report "$FX/nsys-3.16.1.sqlite" --explain)
check "--explain names the launch call" contains "$v" "because of the host: its launch call (correlation id"
check "--explain lists what was resident" contains "$v" "resident meanwhile ("

# Every bound at work, in a copy of equal-priority.smtop (which has none but
# the host's): rows added with plain SQL before its four episodes' victims
# (by correlation id, worst first) move their ready times; both readings must
# still agree, and the report must name the new bounds.
B=$E2E_TMP/bounds.smtop
cp tests/fixtures/equal-priority.smtop "$B"
v=$(python3 - "$B" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def k(corr):
    return db.execute("SELECT globalPid, deviceId, contextId, streamId, start, submitted"
                      " FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = ?", (corr,)).fetchone()
def sync(corr, end, kind):
    g, d, c, s, _, _ = k(corr)
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(start, end, contextId, streamId,"
               " correlationId, globalPid, syncType) VALUES(?,?,?,?,?,?,?)",
               (end - 2000, end, c, s, corr - 1, g, kind))
# a copy ending 5 us after the host submitted 128647
g, d, c, s, start, sub = k(128647)
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(start, end, deviceId, contextId, streamId,"
           " correlationId, globalPid, bytes, copyKind) VALUES(?,?,?,?,?,?,?,4096,1)",
           (sub + 1000, sub + 5000, d, c, s, 128647 - 2, g))
# and a stream synchronize (type 3) ending as it starts, which is no bound:
# taken for one, it would explain the whole wait
sync(128647, start, 3)
# a stream-wait-event ending 8 us after 128644 was submitted
sync(128644, k(128644)[5] + 8000, 2)
# 128069 without CUPTI's times: its launch call returned 3 us after them
sub = k(128069)[5]
db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET submitted = 0, queued = 0 WHERE correlationId = 128069")
db.execute("DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId = 128069")
db.execute("INSERT OR IGNORE INTO StringIds(value) VALUES('cudaLaunchKernel')")
name = db.execute("SELECT id FROM StringIds WHERE value = 'cudaLaunchKernel'").fetchone()[0]
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, globalTid, correlationId,"
           " nameId, returnValue) VALUES(?,?,0,?,128069,?,0)", (sub - 2000, sub + 3000, g + 1, name))
# a wait that ends after 128641 started explains all of its wait
sync(128641, k(128641)[4] + 1000, 2)
db.commit()
PY
)
agrees_with_sql "bounds added with SQL" "$B"
v=$("$SMTOP" report "$B" --json -q | python3 -c "
import json, sys
r = json.load(sys.stdin)
e = {x['correlation_id']: x for x in r['episodes']}
def b(c):
    return (e[c]['ready_bound'] + '/' + (e[c]['ready_bound_op'] or '')) if c in e else 'none'
print(b(128647), b(128644), b(128069), b(128641))")
check "bounds added with SQL: memcpy (a stream synchronize beside it no bound), event wait, launch call, explained ($v)" \
	[ "$v" = "stream_order/memcpy event_wait/ launch_call/ none" ]

# The bounds of event records and the legacy default stream, in another
# copy: 128647 waits (call 128646) on an event recorded on stream 14 right
# after its culprit 123987, and 128644 follows a memset on the legacy
# stream (7) once stream 13 is made a blocking stream.
B=$E2E_TMP/bounds2.smtop
cp tests/fixtures/equal-priority.smtop "$B"
python3 - "$B" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def k(corr):
    return db.execute("SELECT globalPid, deviceId, contextId, streamId, start, submitted, end"
                      " FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = ?", (corr,)).fetchone()
# the fixture was recorded before event records were stored
db.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT(deviceId, contextId, greenContextId, streamId,"
           " correlationId, globalPid, eventId, eventSyncId, deviceTimestamp)")
db.execute("ALTER TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION ADD COLUMN eventSyncId INTEGER")
g, d, c, s, start, sub, _ = k(128647)
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT(deviceId, contextId, streamId, correlationId,"
           " globalPid, eventId, eventSyncId) VALUES(?,?,14,123988,?,42,1)", (d, c, g))
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(start, end, contextId, streamId,"
           " correlationId, globalPid, syncType, eventId, eventSyncId) VALUES(?,?,?,?,128646,?,2,42,1)",
           (sub - 3000, sub - 2000, c, s, g))
g, d, c, s, start, sub, _ = k(128644)
db.execute("UPDATE TARGET_INFO_CUDA_STREAM SET flag = 1 WHERE streamId = 13")
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(start, end, deviceId, contextId, streamId,"
           " correlationId, globalPid, value, bytes) VALUES(?,?,?,?,7,128643,?,0,4096)",
           (sub + 1000, sub + 8000, d, c, g))
db.commit()
PY
agrees_with_sql "event records and the legacy stream" "$B"
v=$("$SMTOP" report "$B" --json -q | python3 -c "
import json, sys
r = json.load(sys.stdin)
e = {x['correlation_id']: x for x in r['episodes']}
def b(c):
    return (e[c]['ready_bound'] + '/' + (e[c]['ready_bound_op'] or '') + ' ' + str(e[c]['ready_ns'])) if c in e else 'none'
print(b(128647) + ',' + b(128644))")
# the culprit ran until the victim's first block: the wait is explained
check "the event's recorded work explains 128647, the legacy memset bounds 128644 ($v)" \
	[ "${v%%,*}" = none ]
check "128644 names the legacy stream's memset" contains "$v" ",legacy_stream/memset "
v=$("$SMTOP" report "$B" --explain -q)
check "--explain says the legacy default stream" contains "$v" "because of the legacy default stream: the memset before it"

e2e_done
