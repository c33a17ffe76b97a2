#!/usr/bin/env python3
"""peer_pyamg.py: the PyAMG peer of `hspgemm bench --suite=amg` and `--suite=solve`.
Setup mode (the default) times PyAMG's smoothed-aggregation setup of A with the
options of `hspgemm amg-setup` and prints one JSON line with the median time and
each level's rows and entries; --solve times the setup and a CG solve to a
tolerance, as the solve peers' contract (bench/README.md) says."""
import json
import statistics
import sys
import time

USAGE = """usage: peer_pyamg.py [--strength=classical|symmetric] [--theta=X] [--omega=X] [--levels=N]
                     [--coarse=N] [--repeat=R] [--block=K] [--nullspace=B.mtx] A.mtx
       peer_pyamg.py --solve [--variant=default|ours] [--tol=X] [--maxiter=N] [--repeat=R]
                     [--threads=N] [--block=K] [--nullspace=B.mtx] [--strength --theta --omega --levels --coarse]
                     [--sweep=forward-backward|symmetric] [--coarsening=aggregation|classical] A.mtx
Setup mode: times pyamg.smoothed_aggregation_solver(A) after one warm-up, with
PyAMG's strength measure of that name at threshold theta (default classical, 0.25:
PyAMG's classical measure takes row i's largest entry alone where hspgemm's takes
row i's and row j's; symmetric as hspgemm's), standard aggregation, Jacobi smoothing of
weight omega (over PyAMG's estimate of rho(D^-1 A)), no improvement of the
candidate vector, at most N levels and a coarsest level of at most N rows, as
`hspgemm amg-setup` builds it, and prints
{"peer":"pyamg",...,"ms_median":...,"ms_min":...,"ms_max":...,"ms_q1":...,"ms_q3":...,"rows":[...],"nnz":[...]}.
--solve: b = ones, x0 = 0; the setup, then ml.solve(b, tol, accel='cg', maxiter)
(PyAMG's own stopping test, |r| < tol |b| of its CG; the relres reported is
|b - Ax| / |b| computed here), one untimed run and R timed ones (default 3),
printing setup_ms_*, solve_ms_*, total_ms_* (median, min, max, q1, q3),
iterations, relres, converged, levels, complexity and options.  The variant
default is smoothed_aggregation_solver(A, B=B) with PyAMG's defaults; ours takes
the options of `hspgemm amg-solve`: strength, theta, omega, levels and coarse
(default classical, 0.25, 4/3, 10, 1000), no improvement of the candidates, a dense Cholesky coarse solve,
and its Gauss-Seidel sweeps (--sweep; default forward-backward: presmoother
('gauss_seidel', {'sweep': 'forward'}), postsmoother 'backward'; symmetric:
PyAMG's default sweeps on both sides).  --coarsening=classical (variant ours): PyAMG's
ruge_stuben_solver instead, strength classical at theta, Ruge-Stueben splitting
(first pass) and its classical interpolation (PyAMG has no extended+i, hspgemm's
and hypre's), max_coarse and levels, the same coarse solve and sweeps.
--block=K: A as BSR of K x K blocks (PyAMG's nodes); --nullspace=B.mtx: B, a
Matrix Market array file of A's rows (both modes).  PyAMG runs on one thread: --threads is
taken and reported as 1.
--version prints {"peer":"pyamg","version":...} when pyamg imports."""

DEFAULTS = {"strength": "classical", "theta": 0.25, "omega": 4.0 / 3.0, "levels": 10, "coarse": 1000, "repeat": 3,
            "solve": False, "variant": "default", "tol": 1e-8, "maxiter": 200, "threads": 1, "block": 1,
            "nullspace": None, "sweep": "forward-backward", "coarsening": "aggregation"}
# the presmoother's and postsmoother's Gauss-Seidel sweeps of --sweep
SWEEPS = {"forward-backward": ("forward", "backward"), "symmetric": ("symmetric", "symmetric")}
NUMBERS = {"theta": float, "omega": float, "tol": float, "levels": int, "coarse": int, "repeat": int,
           "maxiter": int, "threads": int, "block": int}


def parse(argv):
    """Options and the file from the command line; (None, None) for --version."""
    opts, files = dict(DEFAULTS), []
    for a in argv:
        if a in ("--help", "-h"):
            print(USAGE)
            sys.exit(0)
        if a == "--version":
            return None, None
        name, eq, value = a[2:].partition("=") if a.startswith("--") else ("", "", "")
        try:
            if name in NUMBERS and value:
                opts[name] = NUMBERS[name](value)
            elif name == "solve" and not eq:
                opts["solve"] = True
            elif name == "variant" and value in ("default", "ours"):
                opts["variant"] = value
            elif name == "strength" and value in ("classical", "symmetric"):
                opts["strength"] = value
            elif name == "coarsening" and value in ("aggregation", "classical"):
                opts["coarsening"] = value
            elif name == "sweep" and value in SWEEPS:
                opts["sweep"] = value
            elif name == "nullspace" and value:
                opts["nullspace"] = value
            elif not a.startswith("-"):
                files.append(a)
            else:
                raise ValueError
        except ValueError:
            sys.exit("peer_pyamg: bad argument '%s'\n%s" % (a, USAGE))
    if len(files) != 1 or opts["repeat"] < 1 or opts["block"] < 1 or opts["maxiter"] < 0:
        sys.exit("peer_pyamg: give one A.mtx, --repeat and --block from 1, --maxiter from 0\n" + USAGE)
    return opts, files[0]


def setup(pyamg, A, B, opts):
    """PyAMG's hierarchy of A (and B) with the options of `hspgemm amg-setup`."""
    return pyamg.smoothed_aggregation_solver(
        A, B=B, strength=(opts["strength"], {"theta": opts["theta"]}), aggregate="standard",
        smooth=("jacobi", {"omega": opts["omega"]}), improve_candidates=None,
        max_levels=opts["levels"], max_coarse=opts["coarse"], keep=False)


def figures(prefix, ms):
    """The JSON fields PREFIX_median, _min, _max, _q1, _q3 of the times ms."""
    quartiles = statistics.quantiles(ms, n=4, method="inclusive") if len(ms) > 1 else ms * 3
    return {prefix + "_median": round(statistics.median(ms), 4), prefix + "_min": round(min(ms), 4),
            prefix + "_max": round(max(ms), 4), prefix + "_q1": round(quartiles[0], 4),
            prefix + "_q3": round(quartiles[2], 4)}


def time_setups(pyamg, A, B, opts):
    """Setup mode: the setup times and the last hierarchy's levels."""
    ms = []
    for run in range(opts["repeat"] + 1):  # run 0 is the warm-up
        t0 = time.perf_counter()
        ml = setup(pyamg, A, B, opts)
        if run:
            ms.append((time.perf_counter() - t0) * 1e3)
    out = {"threads": 1, "runs": opts["repeat"]}
    out.update(figures("ms", ms))
    out.update({"rows": [lv.A.shape[0] for lv in ml.levels], "nnz": [int(lv.A.nnz) for lv in ml.levels]})
    return out


def solver_options(opts):
    """The keyword arguments of smoothed_aggregation_solver for the variant, and their text."""
    if opts["variant"] == "default":
        return {}, "PyAMG's defaults (smoothed_aggregation_solver(A, B))"
    pre, post = SWEEPS[opts["sweep"]]
    kw = {"max_levels": opts["levels"], "max_coarse": opts["coarse"], "coarse_solver": "cholesky",
          "presmoother": ("gauss_seidel", {"sweep": pre}), "postsmoother": ("gauss_seidel", {"sweep": post})}
    if opts["coarsening"] == "classical":
        kw.update(strength=("classical", {"theta": opts["theta"]}), CF="RS", interpolation="classical")
        return kw, ("ruge_stuben_solver: classical strength, theta %g, RS splitting, classical interpolation, "
                    "levels %d, max_coarse %d, coarse cholesky, gauss_seidel %s" %
                    (opts["theta"], opts["levels"], opts["coarse"], opts["sweep"]))
    kw.update(strength=(opts["strength"], {"theta": opts["theta"]}), aggregate="standard",
              smooth=("jacobi", {"omega": opts["omega"]}), improve_candidates=None)
    return kw, ("%s strength, theta %g, omega %g, levels %d, max_coarse %d, improve_candidates None, "
                "coarse cholesky, gauss_seidel %s" % (opts["strength"], opts["theta"], opts["omega"], opts["levels"],
                                                      opts["coarse"], opts["sweep"]))


def time_solves(pyamg, np, A, B, opts):
    """Solve mode: setup and CG solve times, iterations, the true relres, levels and complexity."""
    kw, text = solver_options(opts)
    b = np.ones(A.shape[0])
    setup_ms, solve_ms = [], []
    for run in range(opts["repeat"] + 1):  # run 0 is the warm-up
        res = []
        t0 = time.perf_counter()
        ml = (pyamg.ruge_stuben_solver(A, keep=False, **kw) if "CF" in kw
              else pyamg.smoothed_aggregation_solver(A, B=B, keep=False, **kw))
        t1 = time.perf_counter()
        x, info = ml.solve(b, tol=opts["tol"], accel="cg", maxiter=opts["maxiter"], residuals=res,
                           return_info=True)
        t2 = time.perf_counter()
        if run:
            setup_ms.append((t1 - t0) * 1e3)
            solve_ms.append((t2 - t1) * 1e3)
    out = {"threads": 1, "runs": opts["repeat"]}
    for prefix, ms in (("setup_ms", setup_ms), ("solve_ms", solve_ms),
                       ("total_ms", [s + t for s, t in zip(setup_ms, solve_ms)])):
        out.update(figures(prefix, ms))
    relres = float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))
    out.update({"iterations": len(res) - 1, "relres": relres, "converged": info == 0,
                "levels": len(ml.levels), "complexity": round(float(ml.operator_complexity()), 4),
                "options": "variant %s: %s; cg, tol %g, maxiter %d, block %d" %
                           (opts["variant"], text, opts["tol"], opts["maxiter"], opts["block"])})
    return out


def load(path, opts, np):
    """A (BSR of --block's blocks when > 1) and B (or None) from their files."""
    from scipy.io import mmread
    A = mmread(path).tocsr().astype("float64")
    if A.shape[0] % opts["block"]:
        raise ValueError("--block=%d does not divide A's %d rows" % (opts["block"], A.shape[0]))
    if opts["block"] > 1:
        A = A.tobsr(blocksize=(opts["block"],) * 2)
    B = None
    if opts["nullspace"]:
        B = np.asarray(mmread(opts["nullspace"]), dtype="float64")
        if B.ndim != 2 or B.shape[0] != A.shape[0]:
            raise ValueError("--nullspace=%s is %s: give A's %d rows" % (opts["nullspace"], B.shape, A.shape[0]))
    return A, B


def main():
    opts, path = parse(sys.argv[1:])
    try:
        import numpy as np
        import pyamg
    except ImportError as e:
        sys.exit("peer_pyamg: %s" % e)
    if opts is None:
        print(json.dumps({"peer": "pyamg", "version": pyamg.__version__}, separators=(",", ":")))
        return
    try:
        A, B = load(path, opts, np)
    except (OSError, ValueError) as e:
        sys.exit("peer_pyamg: %s: %s" % (path, e))
    out = {"peer": "pyamg", "version": pyamg.__version__}
    out.update(time_solves(pyamg, np, A, B, opts) if opts["solve"] else time_setups(pyamg, A, B, opts))
    print(json.dumps(out, separators=(",", ":")))


if __name__ == "__main__":
    main()
