#!/bin/sh
# The man page's KEYS and the viewer's help box (ui/help.c) name the same
# keys: each key of the help is a tag or named in the man page's section,
# and each tag of the man page is in the help.  Also: the man page renders
# without words glued together by a font macro (".BR x )." before a line).
. tests/e2e/lib.sh

keys_diff() {
	python3 - "$@" <<'PY'
import re, sys
help_src = open("ui/help.c").read()
lines = re.findall(r'^\s*"((?:[^"\\]|\\.)*)",\s*$', help_src.split("lines[] = {")[1].split("};")[0], re.M)
def split_keys(col):
    if col == "/":
        return {"/"}
    return {t for t in re.split(r"[ ,]+|(?<=\w)/(?=\w)|\s/\s", col) if t}
help_keys = set()
for l in lines:
    if not l or not re.match(r"\S", l) or "  " not in l:
        break
    col, text = l[:16].strip(), l[16:]
    help_keys |= split_keys(col)
    for pair in re.findall(r"\b([A-Z][A-Za-z]*)/([A-Z][A-Za-z]*)\b", text):
        help_keys |= set(pair)
    help_keys |= set(re.findall(r"(?:^|;\s+)([a-z?])\s+\w", text))
man = open("docs/smtop.1").read()
sec = man.split(".SH KEYS\n")[1].split("\n.SH ")[0]
def words(macro_line):
    body = re.sub(r"^\.[A-Z]+\s*", "", macro_line)
    out = []
    for q, w in re.findall(r'"([^"]*)"|(\S+)', body):
        out.extend((q or w).replace(",", " ").split())
    return out
tags, named = set(), set()
rows = sec.split("\n")
for i, r in enumerate(rows):
    if r.startswith("."):
        ws = set(words(r)) - {":", ";", "(", ")"}
        (tags if i and rows[i - 1] == ".TP" else named).update(ws)
alias = {"arrows": "arrows", "up": "up/down", "down": "up/down"}
missing_in_man = sorted(k for k in help_keys if k not in tags | named and not (k in ("up", "down") and "up" in tags))
missing_in_help = sorted(t for t in tags if t not in help_keys)
if missing_in_man:
    print("in the help, not in the man page:", " ".join(missing_in_man))
if missing_in_help:
    print("in the man page, not in the help:", " ".join(missing_in_help))
sys.exit(1 if missing_in_man or missing_in_help else 0)
PY
}
out=$(keys_diff)
check "man page KEYS and the help name the same keys${out:+: $out}" [ -z "$out" ]

if command -v groff > /dev/null; then
	text=$(groff -man -Tutf8 docs/smtop.1 2> /dev/null | sed 's/\x1b\[[0-9;]*m//g; s/.\x08//g')
	check "man page: no words glued by a macro" sh -c "! printf '%s' \"\$1\" | grep -Eq '[a-z]\)\.[A-Z][a-z]+[A-Z]'" _ "$text"
	check "man page: the --sm all paragraph reads" contains "$text" "It  *makes"
fi
e2e_done
