#!/bin/sh
# man-commands.sh HSPGEMM: the man page's COMMANDS and SEE ALSO sections, for
# help2man's --include: each command of `HSPGEMM --help`'s list with its own
# --help, kept as printed (no-fill), roff's escapes made plain text.
set -eu
hsp=$1
# roff-safe text: backslashes printed as such, lines that start with . or ' kept as text
plain() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
echo "[COMMANDS]"
"$hsp" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' |
    while read -r cmd; do
        [ "$cmd" = help ] && continue
        echo ".SS $cmd"
        echo ".nf"
        "$hsp" "$cmd" --help | plain
        echo ".fi"
    done
cat <<'TEXT'
[SEE ALSO]
The manual: README.md and the pages of doc/ (doc/cli.md: every command and option), installed
with the sources; the library's interface: hspgemm.h.
TEXT
