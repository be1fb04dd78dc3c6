#!/bin/sh
# Commands that read never write what they read: info, report, ls, export,
# open and replay leave every fixture byte for byte as it was, with no
# -wal, -shm or -journal beside it, and so a session as smtop record leaves
# it (WAL mode); what they compute goes to smtop's cache.  A read-only
# session reports without a word on stderr.  On a copy of tests/fixtures,
# so that a failure leaves the tree clean.
. tests/e2e/lib.sh
export XDG_CACHE_HOME=$E2E_TMP/cache
FX=$E2E_TMP/fixtures
mkdir -p "$FX/nsys"
cp tests/fixtures/*.smtop "$FX/"
cp tests/fixtures/nsys/*.sqlite "$FX/nsys/"
W=$E2E_TMP/wal
mkdir -p "$W"
cp $FX/head-of-line.smtop "$W/recorded.smtop"
sqlite3 "$W/recorded.smtop" "PRAGMA journal_mode=WAL" > /dev/null

files() { ls $FX/*.smtop $FX/nsys/*.sqlite "$W"/*.smtop; }
# every file's digest, then any companion SQLite left beside them
state() {
	for f in $(files); do md5sum "$f"; done
	ls $FX $FX/nsys "$W" | grep -e '-wal$' -e '-shm$' -e '-journal$'
}
before=$(state)

for f in $(files); do
	"$SMTOP" info "$f" > /dev/null 2>&1
	"$SMTOP" report "$f" -q > /dev/null 2>&1
done
check "info and report: every file as it was, nothing beside it" [ "$(state)" = "$before" ]
for d in $FX $FX/nsys "$W"; do
	"$SMTOP" ls "$d" -q > /dev/null 2>&1
done
check "ls: every file as it was, nothing beside it" [ "$(state)" = "$before" ]
check "ls and report kept what they computed in the cache" \
	[ "$(ls "$XDG_CACHE_HOME"/smtop/*.smtop-cache | wc -l)" -gt 20 ]
for f in $FX/head-of-line.smtop $FX/two-gpus.smtop $FX/nsys/nsys-3.16.1-turing.sqlite "$W/recorded.smtop"; do
	"$SMTOP" export "$f" --csv "$E2E_TMP/csv" --perfetto "$E2E_TMP/t.json" -q > /dev/null 2>&1
	rm -rf "$E2E_TMP/csv" "$E2E_TMP/t.json"
done
check "export: every file as it was, nothing beside it" [ "$(state)" = "$before" ]

for f in "$W/recorded.smtop" $FX/priority-vs-training.smtop $FX/nsys/nsys-3.28.1-volta.sqlite; do
	tui_start 160 48 "$SMTOP" open "$f"
	tui_keys w Enter + - q
	tui_wait 'EXIT=' 15
	tui_end
done
check "open: every file as it was, nothing beside it" [ "$(state)" = "$before" ]
tui_start 160 48 "$SMTOP" replay "$W/recorded.smtop" --speed 1e5
sleep 1
tui_keys n q
tui_wait 'EXIT=' 15
tui_end
check "replay: every file as it was, nothing beside it" [ "$(state)" = "$before" ]

# A read-only session (root writes any file: as uid 65534 through setpriv)
R=$E2E_TMP/ro
mkdir -p "$R" "$E2E_TMP/ro-cache"
cp $FX/priority-vs-training.smtop "$W/recorded.smtop" "$R/"
chmod 755 "$E2E_TMP" "$R"
chmod 777 "$E2E_TMP/ro-cache"
chmod 444 "$R"/*.smtop
as_user=
[ "$(id -u)" -eq 0 ] && as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ -z "$as_user" ] || $as_user test -x "$SMTOP" 2>/dev/null; then
	for f in "$R"/*.smtop; do
		err=$(XDG_CACHE_HOME=$E2E_TMP/ro-cache $as_user "$SMTOP" report "$f" 2>&1 >/dev/null)
		rc=$?
		check "read-only $(basename "$f"): report exits 0, says nothing ($err)" [ "$rc:$err" = "0:" ]
	done
	check "read-only files: nothing beside them" [ -z "$(ls "$R" | grep -v '\.smtop$')" ]
else
	echo "  skip: read-only files (running as root, and cannot run as uid 65534 with setpriv)"
fi
e2e_done
