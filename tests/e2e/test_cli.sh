#!/bin/sh
# The binary's front door: help, version, bad input on real files.
. tests/e2e/lib.sh
S=$E2E_TMP

out=$("$SMTOP" --version)
check "--version exits 0" [ $? -eq 0 ]
# built in a checkout: the commit too (a bug report says which build)
if git rev-parse --git-dir > /dev/null 2>&1; then
	check "--version names the release and the commit ($out)" contains "$out" "^smtop 0\.1\.0 (git [0-9a-f]*\(-dirty\)\{0,1\})$"
else
	check "--version names the release ($out)" [ "$out" = "smtop 0.1.0" ]
fi
out=$("$SMTOP" --help)
check "--help exits 0" [ $? -eq 0 ]
for cmd in record run demo open replay info report export ls rm mv launch env; do
	check "--help lists $cmd" contains "$out" "  $cmd"
done
check "man page lists every command" sh -c 'for c in record run demo open replay info report export ls rm mv launch env; do grep -q "^.B $c" docs/smtop.1 || exit 1; done'

err=$("$SMTOP" bogus 2>&1)
check "unknown command exits 2" [ $? -eq 2 ]
check "unknown command: one line" one_line "$err"

err=$("$SMTOP" info "$S/missing.smtop" 2>&1)
check "missing file exits 1" [ $? -eq 1 ]
check "missing file: one line naming it" contains "$err" "missing.smtop"
check "missing file: one line" one_line "$err"

head -c 5000 /dev/urandom > "$S/garbage.smtop"
err=$("$SMTOP" info "$S/garbage.smtop" 2>&1)
check "garbage file exits 1" [ $? -eq 1 ]
check "garbage file: one line naming it" contains "$err" "garbage.smtop"

err=$("$SMTOP" report "$S" 2>&1)
check "directory refused" [ $? -eq 1 ]
check "directory: one line" one_line "$err"

sqlite3 "$S/foreign.db" "CREATE TABLE t(x); INSERT INTO t VALUES(1);"
err=$("$SMTOP" info "$S/foreign.db" 2>&1)
check "foreign database refused" [ $? -eq 1 ]
check "foreign database: says so" contains "$err" "not a smtop session"

# the demo workloads travel beside the smtop binary (not in sanitizer builds)
if [ -x "$SMTOP_BUILD/smtop-demo" ]; then
	out=$("$SMTOP" demo --list)
	check "demo --list: the scenarios" contains "$out" "priority-vs-training"
	check "demo --list: then the paper's comparison" sh -c 'printf "%s" "$1" | tail -4 | grep -q "smtop demo paper"' _ "$out"
fi
# A misspelled scenario: one line, before anything starts (no session)
if [ -x "$SMTOP_BUILD/smtop-demo" ]; then
	err=$(XDG_DATA_HOME=$S/demo-lib "$SMTOP" demo bogus 2>&1)
	rc=$?
	check "demo bogus: exit 2 ($rc)" [ $rc -eq 2 ]
	check "demo bogus: one line naming it ($err)" sh -c '[ "$(printf "%s\n" "$1" | wc -l)" -eq 1 ] && printf "%s" "$1" | grep -q "no scenario .bogus."' _ "$err"
	check "demo bogus: no session made" [ ! -e "$S/demo-lib" ]
fi
if [ ! -e /dev/nvidiactl ] && [ -x "$SMTOP_BUILD/smtop-demo" ]; then
	err=$(XDG_DATA_HOME=$S/demo-lib "$SMTOP" demo head-of-line 2>&1)
	rc=$?
	check "demo without a GPU: exit 1 ($rc)" [ $rc -eq 1 ]
	check "demo without a GPU: one line saying so" sh -c '[ "$(printf "%s\n" "$1" | wc -l)" -eq 1 ] && printf "%s" "$1" | grep -q "demo head-of-line needs an NVIDIA GPU"' _ "$err"
	check "demo without a GPU: no session made" [ ! -e "$S/demo-lib" ]
	# smtop demo alone: the scenario plain smtop used to run
	err=$(XDG_DATA_HOME=$S/demo-lib "$SMTOP" demo 2>&1)
	check "demo alone: priority-vs-training ($err)" contains "$err" "demo priority-vs-training needs an NVIDIA GPU"
fi
if [ ! -e /dev/nvidiactl ]; then
	out=$("$SMTOP" demo paper 2>&1)
	check "demo paper without a GPU: exit 1" [ $? -eq 1 ]
	check "demo paper without a GPU: one line saying so" sh -c '[ "$(printf "%s\n" "$1" | wc -l)" -eq 1 ] && printf "%s" "$1" | grep -q "needs an NVIDIA GPU"' _ "$out"
fi

e2e_done
