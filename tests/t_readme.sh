#!/bin/sh
# t_readme.sh: README.md's first products run as a reader would run them, as
# TAP: its shell block (./hspgemm being this build's) and its C program,
# compiled against this build and checked against `hspgemm square`; and the
# manual's pages each listed by README and distributed.  Its Python block
# runs in the Python package's tests (test_readme.py).
src="${top_srcdir:-.}"
build=$(cd "${top_builddir:-.}" && pwd)
. "$src/tests/tap.sh"
echo "1..5"

# block LANG: the first ```LANG block after "## First products"
block() {
    awk -v lang="$1" '/^## First products/ { on = 1 } on && $0 == "```" lang { inside = 1; next }
        inside && /^```/ { exit } inside { print }' "$src/README.md"
}
block sh | sed "s|\./hspgemm|$build/hspgemm|g" >"$tmp/first.sh"
(cd "$tmp" && sh -e ./first.sh >"$tmp/sh.out" 2>&1)
[ $? -eq 0 ] && [ -s "$tmp/C.mtx" ] && grep -q "converged" "$tmp/sh.out"
ok $? "the README's commands run: C.mtx written, the solve converged"
[ $? -eq 0 ] || sed 's/^/# /' "$tmp/sh.out" | tail -5

block c >"$tmp/first.c"
${CC:-cc} -std=c11 -Wall -Werror -I"$src/src" -o "$tmp/first" "$tmp/first.c" -L"$build/.libs" -lhspgemm \
    -Wl,-rpath,"$build/.libs" 2>"$tmp/cc.err"
ok $? "the README's C program compiles against hspgemm.h with -Wall -Werror$(head -c 300 "$tmp/cc.err")"
"$build/hspgemm" gen poisson2d9 30 -o "$tmp/A.mtx" >/dev/null &&
    "$build/hspgemm" square "$tmp/A.mtx" -o "$tmp/ref.mtx" --quiet >/dev/null &&
    "$tmp/first" "$tmp/A.mtx" "$tmp/AA.mtx" && close "$tmp/AA.mtx" "$tmp/ref.mtx"
ok $? "and its A*A of poisson2d9:30 is hspgemm square's"

# the manual's pages: each in README's table and in the distribution (Makefile.am's DOC_FILES)
unlisted="" undist=""
for f in "$src"/doc/*.md; do
    page="doc/$(basename "$f")"
    grep -q "^| \[$page\]($page) |" "$src/README.md" || unlisted="$unlisted $page"
    sed -n '/^DOC_FILES = /,/[^\\]$/p' "$src/Makefile.am" | grep -q -- "$page" || undist="$undist $page"
done
[ -z "$unlisted" ]; ok $? "README's table lists every page of doc/:$unlisted"
[ -z "$undist" ]; ok $? "Makefile.am's DOC_FILES distributes every page of doc/:$undist"
exit $fail
