#!/bin/sh
# The floors of docs/architecture.md, checked on every #include: a file may
# include its own floor's headers and those of the floors below it, never
# one above (app -> ui -> session -> db -> core; collectors -> db -> core;
# kernels -> core, for the block-trace ABI),
# and only the floors that may touch a library include its headers (curses:
# ui/tty.c alone).  Then on symbols, in the floors' archives of BUILD_DIR
# (default build; skipped when not built): no symbol a floor's objects use
# may be defined by a floor above it, which a hand-written declaration would
# get past the includes.
#   tests/layering.sh [BUILD_DIR]
cd "$(dirname "$0")/.." || exit 1
B=${1:-build}
fail=0
# floor PATH -> its rank, or the floor's name for the side branches
rank() {
	case $1 in
	src/core/*) echo 0 ;;
	db/session/*) echo 2 ;;
	db/*) echo 1 ;;
	ui/app/*) echo 4 ;;
	ui/*) echo 3 ;;
	collectors/*) echo collectors ;;
	kernels/*) echo kernels ;;
	*) echo other ;;
	esac
}
# allowed FILE-FLOOR HEADER-FLOOR
allowed() {
	case $1 in
	collectors) case $2 in 0 | 1 | collectors | kernels) return 0 ;; esac; return 1 ;;
	kernels) case $2 in 0 | kernels) return 0 ;; esac; return 1 ;;
	*) case $2 in collectors | kernels) return 1 ;; other) return 1 ;; esac
	   [ "$2" -le "$1" ] ;;
	esac
}
# Libraries each floor may include: core libc only, db SQLite, ui ncurses,
# collectors CUDA, CUPTI and the Compute Sanitizer.
forbidden_system() {
	case $1 in
	0) echo 'sqlite3\.h|curses\.h|cupti|cuda|sanitizer' ;;
	1) echo 'curses\.h|cupti|cuda\.h|sanitizer' ;;
	2) echo 'curses\.h|cupti|cuda\.h|sanitizer' ;;
	3 | 4) echo 'cupti|cuda\.h|sanitizer' ;;
	collectors) echo 'curses\.h' ;;
	*) echo '^$' ;;
	esac
}
for f in $(git ls-files 'src/*.[ch]' 'src/*.cuh' 'db/*.[ch]' 'ui/*.[ch]' 'collectors/*.[ch]' 'collectors/*.cu' 'kernels/*.cu' 'kernels/*.cuh' 'kernels/*.h'); do
	fr=$(rank "$f")
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		hr=$(rank "$h")
		if ! allowed "$fr" "$hr"; then
			echo "layering: $f includes $h, a floor above or beside its own"
			fail=1
		fi
	done
	forbid=$(forbidden_system "$fr")
	[ "$f" != ui/tty.c ] && [ "$fr" = 3 -o "$fr" = 4 ] && forbid="$forbid|curses\.h"
	bad=$(sed -n 's/^#include <\([^>]*\)>.*/\1/p' "$f" | grep -E "$forbid" | head -1)
	if [ -n "$bad" ]; then
		echo "layering: $f includes <$bad>, a library its floor must not touch"
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "layering: every include runs down the floors"

# archive FLOOR: the archive of a floor's objects
archive() { echo "$B/libsmtop-$1.a"; }
# above FLOOR: the floors a floor must not call
above() {
	case $1 in
	core) echo db session ui app coll ;;
	db) echo session ui app coll ;;
	session) echo ui app coll ;;
	ui) echo app coll ;;
	app) echo coll ;;
	coll) echo session ui app ;;
	esac
}
if [ ! -f "$(archive core)" ]; then
	echo "layering: symbols not checked ($B not built)"
	exit $fail
fi
sym_fail=0
for fl in core db session ui app coll; do
	[ -f "$(archive $fl)" ] || continue
	nm -u "$(archive $fl)" 2>/dev/null | awk '{ print $NF }' | sort -u > "$B/.layering-undef"
	for up in $(above $fl); do
		[ -f "$(archive $up)" ] || continue
		nm -g --defined-only "$(archive $up)" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u > "$B/.layering-def"
		for s in $(comm -12 "$B/.layering-undef" "$B/.layering-def"); do
			echo "layering: $fl calls $s, defined in $up, a floor above it"
			sym_fail=1
		done
	done
done
rm -f "$B/.layering-undef" "$B/.layering-def"
[ $sym_fail -eq 0 ] && echo "layering: every symbol resolves down the floors"
[ $fail -eq 0 ] && [ $sym_fail -eq 0 ]
