#!/bin/sh
# t_layers.sh: the library's folders are layers, each using only those below
# it, and no files call each other in a circle; a feature uses another only
# through that feature's one header (src/spgemm/spgemm.h).  Read from the
# code itself: the includes of every source and header, and the symbols each
# object file of the built library defines and uses (nm).  The layers,
# bottom first (src/hspgemm.h, the public header, is below them all):
layers="${LAYERS:-src/core src/device src/device/opencl src/device/hsa src/bitmap src/spgemm src/spmm src/amg src/open}"
# The features: each may use the device core, core, the public header and,
# of a feature below it, only what the public header or that feature's
# header <f>/<f>.h declares.
features="src/bitmap src/spgemm src/spmm src/amg"
src="${top_srcdir:-.}"
build="${top_builddir:-.}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The layer of each source and header, by its folder: "path layer-number".
n=0
for dir in $layers; do
    n=$((n + 1))
    for f in "$src/$dir"/*.c "$src/$dir"/*.h; do
        [ -e "$f" ] && echo "${f#"$src"/} $n"
    done
done >"$tmp/layer"
echo "src/hspgemm.h 0" >>"$tmp/layer"

# Each feature's header, and the names it declares: "header name".
for f in $features; do
    h="$f/${f##*/}.h"
    [ -e "$src/$h" ] && grep -o '[A-Za-z_][A-Za-z0-9_]*' "$src/$h" | sed "s|^|$h |"
done >"$tmp/exports"
grep -o '[A-Za-z_][A-Za-z0-9_]*' "$src/src/hspgemm.h" | sed 's|^|public |' >>"$tmp/exports"
echo "features $features" >>"$tmp/exports"

# Includes: "file header" for each #include "header" of a file of a layer.
while read -r file layer; do
    sed -n 's/^#include "\([^"]*\)".*/\1/p' "$src/$file" | while read -r inc; do echo "$file ${inc##*/}"; done
done <"$tmp/layer" >"$tmp/includes"

# Symbols: "source D name" for each symbol the object of a source of the
# library defines, "source U name" for each it uses.
for dir in $layers; do
    for c in "$src/$dir"/*.c; do
        o="$build/$dir/.libs/$(basename "$c" .c).o"
        [ -e "$o" ] || continue
        nm "$o" | awk -v f="$dir/${c##*/}" '$1 == "U" { print f, "U", $2; next }
                                         $2 ~ /^[TDBRCV]$/ { print f, "D", $3 }'
    done
done >"$tmp/symbols"

awk '
# The folder of a file under src ("src/spgemm"), and the header of a feature folder.
function folder(f) { sub(/\/[^\/]*$/, "", f); return f }
function head(d,    b) { b = d; sub(/.*\//, "", b); return d "/" b ".h" }
# The files on circles of the graph whose edges are "from to" in
# list[1..n]: the strongly connected components of more than one file
# (by Tarjan: reach[f] lists the files that f reaches).
function circles(list, n,    k, w, f) {
    delete reach; delete files; delete number; delete low; delete on; found = ""; count = 0; depth = 0
    for (k = 1; k <= n; k++) { split(list[k], w, " "); reach[w[1]] = reach[w[1]] " " w[2]; files[w[1]]; files[w[2]] }
    for (f in files) if (!(f in number)) visit(f)
    return found
}
function visit(v,    next_, m, i, x, ring, size) {
    number[v] = low[v] = ++count; stack[++depth] = v; on[v] = 1
    m = split(reach[v], next_, " ")
    for (i = 1; i <= m; i++) {
        x = next_[i]
        if (!(x in number)) { visit(x); if (low[x] < low[v]) low[v] = low[x] }
        else if (on[x] && number[x] < low[v]) low[v] = number[x]
    }
    if (low[v] != number[v]) return
    ring = ""; size = 0
    do { x = stack[depth--]; on[x] = 0; ring = ring " " x; size++ } while (x != v)
    if (size > 1) found = found " {" substr(ring, 2) "}"
}
FNR == 1 { part++ }
part == 1 && $1 == "features" { for (k = 2; k <= NF; k++) feature[$k] = 1; next }
part == 1 && $1 == "public" { public[$2] = 1; next }
part == 1 { exported[$1, $2] = 1; next }
part == 2 { layer[$1] = $2; base = $1; sub(/.*\//, "", base); if (base in where) dup[base] = where[base] " " $1; where[base] = $1; next }
part == 3 { includes[++ni] = $0; next }
part == 4 && $2 == "D" { owner[$3] = $1; next }
part == 4 { uses[++nu] = $1 " " $3 }
END {
    t = 0
    for (b in dup) { printf "not ok %d - header name %s is not unique: %s\n", ++t, b, dup[b]; bad = 1 }
    up = 0
    for (k = 1; k <= ni; k++) {
        split(includes[k], w, " ")
        if (!(w[2] in where)) continue             # a system or generated header
        to = where[w[2]]
        if (layer[to] > layer[w[1]]) { printf "# %s includes %s, a layer above\n", w[1], to; up++ }
        if (w[1] != to) ilist[++nil] = w[1] " " to
    }
    printf "%s %d - no file includes a header of a layer above its own (%d includes read)\n", up ? "not ok" : "ok", ++t, ni
    bad = bad || up
    aside = 0
    for (k = 1; k <= ni; k++) {
        split(includes[k], w, " ")
        if (!(w[2] in where)) continue
        to = where[w[2]]; from_f = folder(w[1]); to_f = folder(to)
        if (!(from_f in feature) || !(to_f in feature) || from_f == to_f || to == head(to_f)) continue
        printf "# %s includes %s, not %s\n", w[1], to, head(to_f); aside++
    }
    printf "%s %d - a feature includes of another only its header <f>/<f>.h\n", aside ? "not ok" : "ok", ++t
    bad = bad || aside
    left = circles(ilist, nil)
    printf "%s %d - no headers include each other in a circle%s\n", left ? "not ok" : "ok", ++t, left ? ":" left : ""
    bad = bad || left != ""
    if (nu == 0) { printf "not ok %d - the library'"'"'s objects were read (build it first)\n", ++t; print "1.." t; exit 1 }
    up = 0
    for (k = 1; k <= nu; k++) {
        split(uses[k], w, " ")
        if (!(w[2] in owner) || owner[w[2]] == w[1]) continue
        to = owner[w[2]]
        if (layer[to] > layer[w[1]]) { printf "# %s uses %s of %s, a layer above\n", w[1], w[2], to; up++ }
        if (!((w[1], to) in seen)) { seen[w[1], to] = 1; clist[++ncl] = w[1] " " to }
    }
    printf "%s %d - no object uses a symbol defined a layer above its own (%d uses read)\n", up ? "not ok" : "ok", ++t, nu
    bad = bad || up
    aside = 0
    for (k = 1; k <= nu; k++) {
        split(uses[k], w, " ")
        if (!(w[2] in owner)) continue
        from_f = folder(w[1]); to_f = folder(owner[w[2]])
        if (!(from_f in feature) || !(to_f in feature) || from_f == to_f || w[2] in public || (head(to_f), w[2]) in exported) continue
        printf "# %s uses %s of %s, which %s does not declare\n", w[1], w[2], owner[w[2]], head(to_f); aside++
    }
    printf "%s %d - a feature uses of another only what its header or the public one declares\n", aside ? "not ok" : "ok", ++t
    bad = bad || aside
    left = circles(clist, ncl)
    printf "%s %d - no files call each other in a circle%s\n", left ? "not ok" : "ok", ++t, left ? ": on circles:" left : ""
    bad = bad || left != ""
    print "1.." t
    exit bad
}' "$tmp/exports" "$tmp/layer" "$tmp/includes" "$tmp/symbols"
