#!/bin/sh
# tests/layering.sh checks symbols as well as includes: a call from a floor
# to one above it, declared by hand so that no include shows it, is caught.
# Planted in scratch copies of the floors' archives, never in the tree.
. tests/e2e/lib.sh
S=$E2E_TMP/build
mkdir -p "$S"
cp "$SMTOP_BUILD"/libsmtop-*.a "$S"/
out=$(sh tests/layering.sh "$S" 2>&1)
check "the archives as built pass" contains "$out" "every symbol resolves down the floors"

# core calling the viewer's legend, as fmt.c once did through a declaration
printf 'void legend_draw(void);\nvoid planted_upward_call(void) { legend_draw(); }\n' > "$E2E_TMP/planted.c"
cc -c -o "$E2E_TMP/planted.o" "$E2E_TMP/planted.c"
ar rs "$S/libsmtop-core.a" "$E2E_TMP/planted.o" 2>/dev/null
out=$(sh tests/layering.sh "$S" 2>&1)
rc=$?
check "a planted upward call fails the check" [ $rc -ne 0 ]
check "it names the call and the floors ($out)" contains "$out" "core calls legend_draw, defined in ui"

# the collector calling the session floor
cp "$SMTOP_BUILD"/libsmtop-core.a "$S"/
printf 'int session_open(void);\nint planted_collector_call(void) { return session_open(); }\n' > "$E2E_TMP/planted2.c"
cc -c -o "$E2E_TMP/planted2.o" "$E2E_TMP/planted2.c"
ar rs "$S/libsmtop-coll.a" "$E2E_TMP/planted2.o" 2>/dev/null
out=$(sh tests/layering.sh "$S" 2>&1)
check "the collector may not call the session floor ($out)" contains "$out" "coll calls session_open, defined in session"
e2e_done
