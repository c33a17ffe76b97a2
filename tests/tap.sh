# tap.sh: sourced by the test scripts: a scratch folder $tmp (removed on
# exit), and TAP lines counted in n, fail set by any that is not ok.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0

# ok STATUS NAME: a TAP line, ok when STATUS is 0.
ok() {
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
# skip NAME WHY: a TAP line for a test that cannot run here.
skip() {
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}
# run CMD...: run, keeping stdout, stderr and the exit status (rc).
run() {
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}
# asan_built: 0 when this build's libhspgemm is built with AddressSanitizer.
asan_built() { ldd "${top_builddir:-.}/.libs/libhspgemm.so" 2>/dev/null | grep -q libasan; }
# has TEXT FILE: 0 when FILE holds TEXT (a grep pattern), else 1, printed.
has() { grep -q -- "$1" "$2"; echo $?; }
# close X.mtx Y.mtx: 0 when the two files (as hsp_mm_write writes them) hold
# matrices of one shape and pattern whose values differ by at most 1e-12 of
# the largest; else 1, naming the first difference on stderr.
close() {
    awk 'FNR == 1 { file++ } /^%/ { next }
         file == 1 { line[++n1] = $0; v = $3 < 0 ? -$3 : $3; if (n1 > 1 && v > big) big = v; next }
         { k++; split(line[k], a, " ")
           if (k == 1 ? $0 != line[1] : (a[1] != $1 || a[2] != $2 || (a[3] - $3 > 1e-12 * big || $3 - a[3] > 1e-12 * big))) {
               print FILENAME ":" FNR ": " $0 ", the other: " line[k] >"/dev/stderr"; bad = 1; exit } }
         END { if (!bad && k != n1) { print "entries: " n1 " and " k >"/dev/stderr"; bad = 1 } exit bad }' "$1" "$2"
}
