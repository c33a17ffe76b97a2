#!/bin/sh
# t_gen_pyamg.sh: hspgemm's aniso2d and elasticity2d generators against the
# matrices PyAMG's gallery makes, entry for entry, and elasticity2d's default
# near-nullspace (the rigid-body modes) against the B PyAMG returns, as TAP.
# Python: $HSPGEMM_PYTHON, else /opt/hspgemm-python/bin/python3; skipped
# where it lacks pyamg.
hsp="${top_builddir:-.}/hspgemm"
py="${HSPGEMM_PYTHON:-/opt/hspgemm-python/bin/python3}"
. "${top_srcdir:-.}/tests/tap.sh"

echo "1..6"

# pyamg_matrix SPEC OUT: PyAMG's matrix (and B, as OUT.B.mtx) of SPEC into OUT.
pyamg_matrix() {
    "$py" - "$1" "$2" <<'PY'
import sys
import numpy as np
import pyamg
from scipy.io import mmwrite
kind, n = sys.argv[1].split(":")
B = None
if kind == "aniso2d":
    stencil = pyamg.gallery.diffusion_stencil_2d(epsilon=0.001, theta=np.pi / 3, type="FE")
    A = pyamg.gallery.stencil_grid(stencil, (int(n), int(n)), format="csr")
else:
    A, B = pyamg.gallery.linear_elasticity((int(n), int(n)))
mmwrite(sys.argv[2], A.tocsr())
if B is not None:
    mmwrite(sys.argv[2] + ".B.mtx", B)
PY
}

# same X.mtx Y.mtx: 0 when the two hold one shape and pattern (explicit zeros
# too) and values within 1e-13 of the largest; else 1, saying where.
same() {
    "$py" - "$1" "$2" <<'PY'
import sys
import numpy as np
from scipy.io import mmread
X, Y = (mmread(p) for p in sys.argv[1:3])
if hasattr(X, "tocsr"):
    X, Y = X.tocsr(), Y.tocsr()
    X.sort_indices(), Y.sort_indices()
    if X.shape != Y.shape or not (np.array_equal(X.indptr, Y.indptr) and np.array_equal(X.indices, Y.indices)):
        sys.exit("the patterns differ: %s %d entries, %s %d" % (X.shape, X.nnz, Y.shape, Y.nnz))
    X, Y = X.data, Y.data
err = np.abs(np.asarray(X) - np.asarray(Y)).max() if np.size(X) else 0.0
big = np.abs(np.asarray(X)).max() if np.size(X) else 0.0
sys.exit(0 if np.shape(X) == np.shape(Y) and err <= 1e-13 * big else "largest difference %g of %g" % (err, big))
PY
}

if ! "$py" -c 'import pyamg' 2>/dev/null; then
    for spec in aniso2d:5 aniso2d:12 elasticity2d:5 elasticity2d:12; do
        skip "$spec is PyAMG's, entry for entry" "no pyamg under $py"
    done
    for side in 5 12; do skip "elasticity2d:$side's default rigid-body modes are PyAMG's B" "no pyamg under $py"; done
    exit 0
fi
for spec in aniso2d:5 aniso2d:12 elasticity2d:5 elasticity2d:12; do
    "$hsp" gen "$spec" -o "$tmp/ours.mtx" --quiet && pyamg_matrix "$spec" "$tmp/pyamg.mtx" &&
        same "$tmp/ours.mtx" "$tmp/pyamg.mtx"
    ok $? "$spec is PyAMG's, entry for entry (explicit zeros too)"
done
# history SPEC OPTIONS...: amg-solve's residual history (its JSON's "history") of SPEC.
history() {
    spec=$1
    shift
    "$hsp" amg-solve --gen="$spec" --stats=json --quiet "$@" | sed 's/.*"history":\(\[[^]]*\]\).*/\1/'
}
for side in 5 12; do
    pyamg_matrix "elasticity2d:$side" "$tmp/pyamg.mtx" && history "elasticity2d:$side" >"$tmp/ours" &&
        history "elasticity2d:$side" --nullspace="$tmp/pyamg.mtx.B.mtx" --block=2 >"$tmp/theirs" &&
        grep -q '^\[' "$tmp/ours" && cmp -s "$tmp/ours" "$tmp/theirs"
    ok $? "elasticity2d:$side's default rigid-body modes solve as PyAMG's B does (the same residual history)"
done
[ $fail -eq 0 ]
