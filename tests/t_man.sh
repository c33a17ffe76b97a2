#!/bin/sh
# t_man.sh: the man page hspgemm(1) (help2man from --help, man/hspgemm.1) and
# doc/cli.md against the commands' --help, as TAP: the page has a section for
# every command and every option any --help names, and renders without
# warnings; doc/cli.md names every option of every --help, and each option it
# names is one a --help gives; `hspgemm help COMMAND` is COMMAND --help.
src="${top_srcdir:-.}"
hsp="${top_builddir:-.}/hspgemm"
page="${top_builddir:-.}/man/hspgemm.1"
. "$src/tests/tap.sh"

echo "1..7"
commands=$("$hsp" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' |
    grep -v '^help$')
# every option of every command's --help, "COMMAND OPTION" a line
for c in $commands; do "$hsp" "$c" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u | sed "s/^/$c /"; done \
    >"$tmp/options"

if [ -f "$page" ]; then
    missing=""
    for c in $commands; do grep -q "^\.SS $c\$" "$page" || missing="$missing $c"; done
    [ -n "$commands" ] && [ -z "$missing" ]; ok $? "man/hspgemm.1 has a section for each command:$missing"
    MANWIDTH=100 man --warnings -l "$page" >"$tmp/rendered" 2>"$tmp/warnings"
    [ $? -eq 0 ] && [ ! -s "$tmp/warnings" ]; ok $? "man renders it without a warning$(head -c 200 "$tmp/warnings")"
    missing=$(while read -r c o; do grep -q -- "$o" "$tmp/rendered" || echo "$c $o"; done <"$tmp/options" | tr '\n' ',')
    [ -z "$missing" ]; ok $? "the rendered page names every option of every --help: $missing"
else
    skip "man/hspgemm.1 has a section for each command" "no man page (configure found no help2man)"
    skip "man renders it without a warning" "no man page"
    skip "the rendered page names every option of every --help" "no man page"
fi

missing=$(while read -r c o; do grep -q -- "\`$o" "$src/doc/cli.md" || echo "$c $o"; done <"$tmp/options" | tr '\n' ',')
[ -z "$missing" ]; ok $? "doc/cli.md names every option of every command's --help: $missing"
unknown=""
for o in $(grep -o -- '`--[a-z][a-z0-9-]*' "$src/doc/cli.md" | tr -d '`' | sort -u); do
    case $o in --help | --version) continue ;; esac
    grep -q -- " $o\$" "$tmp/options" || unknown="$unknown $o"
done
[ -z "$unknown" ]; ok $? "each option doc/cli.md names is one a --help gives:$unknown"

"$hsp" help amg-solve >"$tmp/help" 2>&1 && "$hsp" amg-solve --help | cmp -s - "$tmp/help"
ok $? "hspgemm help amg-solve prints amg-solve --help"
run "$hsp" help bogus
[ $rc -eq 2 ] && grep -q "unknown command 'bogus'" "$tmp/err"; ok $? "hspgemm help bogus: unknown command, exit status 2"
exit $fail
