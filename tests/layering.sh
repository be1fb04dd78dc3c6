#!/bin/sh
# The floors of docs/architecture.md, checked on every #include: a file may
# include its own floor's headers and those of the floors below it, never
# one above (app -> ui -> session -> db -> core; collectors -> db -> core),
# and only the floors that may touch a library include its headers.  The
# link order checks the same on symbols (Makefile: no --start-group).
cd "$(dirname "$0")/.." || exit 1
fail=0
# floor PATH -> its rank, or the floor's name for the side branches
rank() {
	case $1 in
	src/core/*) echo 0 ;;
	db/*) echo 1 ;;
	src/session/*) echo 2 ;;
	ui/*) echo 3 ;;
	src/app/*) echo 4 ;;
	collectors/*) echo collectors ;;
	kernels/*) echo kernels ;;
	*) echo other ;;
	esac
}
# allowed FILE-FLOOR HEADER-FLOOR
allowed() {
	case $1 in
	collectors) case $2 in 0 | 1 | collectors | kernels) return 0 ;; esac; return 1 ;;
	kernels) [ "$2" = kernels ]; return ;;
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
for f in $(git ls-files 'src/*.[ch]' 'db/*.[ch]' 'ui/*.[ch]' 'collectors/*.[ch]' 'collectors/*.cu' 'kernels/*.cu' 'kernels/*.cuh' 'kernels/*.h'); do
	fr=$(rank "$f")
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		hr=$(rank "$h")
		if ! allowed "$fr" "$hr"; then
			echo "layering: $f includes $h, a floor above or beside its own"
			fail=1
		fi
	done
	bad=$(sed -n 's/^#include <\([^>]*\)>.*/\1/p' "$f" | grep -E "$(forbidden_system "$fr")" | head -1)
	if [ -n "$bad" ]; then
		echo "layering: $f includes <$bad>, a library its floor must not touch"
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "layering: every include runs down the floors"
exit $fail
