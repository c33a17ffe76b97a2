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
# has TEXT FILE: 0 when FILE holds TEXT (a grep pattern), else 1, printed.
has() { grep -q -- "$1" "$2"; echo $?; }
