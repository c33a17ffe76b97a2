#!/bin/sh
# t_solve_peers.sh: the AMG solve peers of bench --suite=solve (bench/peer_hypre, bench/peer_gamg)
# by their contract (bench/README.md), as TAP: --version; Poisson 2D and 3D solved to 1e-8 (the
# JSON line parsed: runs, times, iterations, true relative residual, levels, one thread); a maxiter
# too small reported as not converged, exit 0; --help; bad files and options refused with a
# message; PyAMG's 2D elasticity solved as a system with --block=2 and its rigid-body modes (under
# $HSPGEMM_PYTHON, else /opt/hspgemm-python/bin/python3: skipped where it lacks PyAMG).  A peer not
# built is skipped.
b=${top_builddir:-.}
src=${top_srcdir:-.}
. "$src/tests/tap.sh"
py=${HSPGEMM_PYTHON:-/opt/hspgemm-python/bin/python3}
# The peers call MPI_Init themselves; Open MPI refuses root unless told (the CI runs as root).
if [ "$(id -u)" = 0 ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
fi
# Built with AddressSanitizer: no leak check of the peers' runs.  Open MPI's MPI_Init and MPI_Finalize
# leave allocations of its components, which it unloads (dlclose) before LeakSanitizer looks, so that
# they can be neither named nor suppressed (tests/lsan.supp); the other checks of ASan and UBSan stay.
if asan_built; then
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export ASAN_OPTIONS
fi
TESTS_PER_PEER=9
echo "1..$((2 * TESTS_PER_PEER))"

# line FILE RUNS TOL CONVERGED: 0 when FILE's one line is the contract's JSON of RUNS runs, converged
# (relres <= TOL, iterations 1..60, levels >= 2) or not (CONVERGED false: relres > TOL); else 1, why on
# stderr.
line() {
    /usr/bin/python3 - "$@" <<'EOF'
import json, sys
path, runs, tol, want = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "true"
lines = open(path).read().splitlines()
bad = []
try:
    d = json.loads(lines[0]) if len(lines) == 1 else {}
except ValueError as e:
    d = {}
    bad.append("not JSON: %s" % e)
for key in ("setup_ms", "solve_ms", "total_ms"):
    for stat in ("median", "min", "max", "q1", "q3"):
        if not isinstance(d.get("%s_%s" % (key, stat)), (int, float)) or d["%s_%s" % (key, stat)] <= 0:
            bad.append("%s_%s missing or not positive" % (key, stat))
    if not bad and not d[key + "_min"] <= d[key + "_q1"] <= d[key + "_median"] <= d[key + "_q3"] <= d[key + "_max"]:
        bad.append(key + " quartiles out of order")
if d.get("runs") != runs or d.get("threads") != 1:
    bad.append("runs %s, threads %s" % (d.get("runs"), d.get("threads")))
if d.get("converged") is not want:
    bad.append("converged %s" % d.get("converged"))
relres, its = d.get("relres", 1e300), d.get("iterations", -1)
if want and not (relres <= tol and 1 <= its <= 60 and d.get("levels", 0) >= 2):
    bad.append("relres %s, iterations %s, levels %s" % (relres, its, d.get("levels")))
if not want and not relres > tol:
    bad.append("relres %s yet not converged" % relres)
if not d.get("version") or not d.get("options"):
    bad.append("no version or options")
if bad:
    sys.stderr.write("# %s: %s\n" % (lines[0][:200] if lines else "no output", "; ".join(bad)))
sys.exit(1 if bad else 0)
EOF
    echo $?
}
# version_line FILE: 0 when FILE is {"peer":"hypre"|"gamg","version":V}; else 1.
version_line() {
    /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
sys.exit(not (d["peer"] in ("hypre", "gamg") and d["version"]))' "$1" 2>/dev/null
    echo $?
}
# err_line: 0 when the last run failed with one line on stderr naming the peer.
err_line() { [ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^$name: " "$tmp/err"; echo $?; }

"$b/hspgemm" gen poisson2d5:40 -o "$tmp/p2.mtx" >/dev/null && "$b/hspgemm" gen poisson3d7:12 -o "$tmp/p3.mtx" >/dev/null
elasticity=$("$py" -c 'import pyamg, scipy.io, sys
A, B = pyamg.gallery.linear_elasticity((16, 16))
scipy.io.mmwrite(sys.argv[1] + "/el.mtx", A)
scipy.io.mmwrite(sys.argv[1] + "/elB.mtx", B)
print("ok")' "$tmp" 2>/dev/null)
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n1\n1\n' >"$tmp/short.mtx"

for name in peer_hypre peer_gamg; do
    peer=$b/bench/$name
    if [ ! -x "$peer" ]; then
        for k in $(seq "$TESTS_PER_PEER"); do skip "$name test $k" "$name not built"; done
        continue
    fi
    run timeout 120 "$peer" --version
    ok "$([ $rc = 0 ] && version_line "$tmp/out" || echo 1)" "$name --version"
    for problem in p2:poisson2d5:40 p3:poisson3d7:12; do
        run timeout 120 "$peer" --solve --repeat=2 --threads=2 "$tmp/${problem%%:*}.mtx"
        ok "$(line "$tmp/out" 2 1e-8 true)" "$name ${problem#*:}: converged to 1e-8, 2 runs, times and levels, 1 thread"
    done
    run timeout 120 "$peer" --solve --maxiter=2 --tol=1e-10 "$tmp/p3.mtx"
    ok "$([ $rc = 0 ] && line "$tmp/out" 3 1e-10 false || echo 1)" "$name --maxiter=2: not converged, exit 0"
    run timeout 120 "$peer" --solve "$tmp/missing.mtx"
    ok "$(err_line)" "$name: a missing file fails with one line ($(cat "$tmp/err"))"
    run timeout 120 "$peer" --help
    ok "$([ $rc = 0 ] && has "^usage: $name --solve" "$tmp/out" || echo 1)" "$name --help: the usage on stdout, exit 0"
    run timeout 120 "$peer" --solve --tol=fast "$tmp/p2.mtx"
    ok "$([ $rc = 2 ] && has "'--tol=fast'" "$tmp/err" || echo 1)" "$name: --tol=fast refused (exit $rc)"
    run timeout 120 "$peer" --solve --block=2 --nullspace="$tmp/short.mtx" "$tmp/p2.mtx"
    ok "$(err_line)" "$name: candidates of the wrong length fail with one line ($(cat "$tmp/err"))"
    if [ "$elasticity" = ok ]; then
        run timeout 120 "$peer" --solve --block=2 --nullspace="$tmp/elB.mtx" "$tmp/el.mtx"
        ok "$([ $rc = 0 ] && line "$tmp/out" 3 1e-8 true || echo 1)" \
            "$name 2D elasticity (PyAMG's, 16 x 16), --block=2, rigid-body modes"
    else
        skip "$name 2D elasticity" "no python with PyAMG at $py"
    fi
done
exit $fail
