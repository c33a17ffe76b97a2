#!/usr/bin/env python3
"""python_bench.py: the Python package against scipy and PyAMG, from Python.

  python_bench.py products [--threads=N] [--repeat=R] [SPEC ...]
      hspgemm.matmul(A, A) (cpu device) against scipy's A @ A on the generated matrices
      (default: the default bench suite), alternating the two, R runs each after a warm-up:
      the median ms of each and their ratio.
  python_bench.py amg [--threads=N] [--coarse=N] [SPEC ...]
      per problem (default: the paper's four), the setup ms, levels and operator complexity of
      hspgemm.amg_setup (cpu device) and of pyamg.smoothed_aggregation_solver with the same
      theta, omega, coarse size and levels, then the iterations of PyAMG's CG to a relative
      residual of 1e-8 (b random, x0 = 0) on each hierarchy (hspgemm.pyamg_solver for ours).

Run it with a Python that has the package (pip install ./python), numpy, scipy and PyAMG,
e.g. /opt/hspgemm-python/bin/python3."""
import statistics
import sys
import time

import numpy as np

import hspgemm

SUITE = ["poisson2d5:400", "poisson2d9:300", "poisson3d7:60", "poisson3d27:30", "band:100000,4",
         "random:100000,8", "rmat:16,8"]
PAPER = ["poisson2d5:1024", "poisson2d9:1024", "poisson3d7:101", "poisson3d27:101"]


def ms(f):
    """f() and the ms it took."""
    t = time.perf_counter()
    out = f()
    return out, 1000 * (time.perf_counter() - t)


def products(specs, threads, repeat):
    print(f"{'matrix':<18} {'hspgemm ms':>11} {'scipy ms':>10} {'x':>6}")
    with hspgemm.Context(device="cpu", threads=threads) as ctx:
        for spec in specs:
            A = hspgemm.generate(spec)
            ctx.matmul(A, A), A @ A  # warm-up
            ours, theirs = [], []
            for _ in range(repeat):
                ours.append(ms(lambda: ctx.matmul(A, A))[1])
                theirs.append(ms(lambda: A @ A)[1])
            o, t = statistics.median(ours), statistics.median(theirs)
            print(f"{spec:<18} {o:>11.2f} {t:>10.2f} {t / o:>5.2f}x", flush=True)


def cg_iterations(ml, A, b):
    """PyAMG's CG on hierarchy ml to a relative residual of 1e-8: iterations, and the residual reached."""
    residuals = []
    x = ml.solve(b, tol=1e-8, accel="cg", residuals=residuals, maxiter=500)
    return len(residuals) - 1, np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def amg(specs, threads, coarse):
    import pyamg
    print(f"{'problem':<17} {'setup ms':>9} {'pyamg ms':>9} {'levels':>7} {'complexity':>12} {'CG its':>8} "
          f"{'pyamg CG its':>12}  residuals")
    with hspgemm.Context(device="cpu", threads=threads) as ctx:
        for spec in specs:
            A = hspgemm.generate(spec)
            b = np.random.default_rng(1).standard_normal(A.shape[0])
            ctx.amg_setup(A, coarse_size=coarse)  # warm-up
            h, ours_ms = ms(lambda: ctx.amg_setup(A, coarse_size=coarse))
            theirs, theirs_ms = ms(lambda: pyamg.smoothed_aggregation_solver(
                A, strength=("symmetric", {"theta": 0.0}), aggregate="standard",
                smooth=("jacobi", {"omega": 4.0 / 3.0}), improve_candidates=None, max_coarse=coarse, max_levels=10))
            its, res = cg_iterations(hspgemm.pyamg_solver(h), A, b)
            their_its, their_res = cg_iterations(theirs, A, b)
            print(f"{spec:<17} {ours_ms:>9.0f} {theirs_ms:>9.0f} {len(h.levels):>3}/{len(theirs.levels):<3} "
                  f"{h.operator_complexity():>5.3f}/{theirs.operator_complexity():<5.3f} {its:>8} {their_its:>12}  "
                  f"{res:.1e}/{their_res:.1e}", flush=True)


def main(argv):
    if not argv or argv[0] not in ("products", "amg") or "--help" in argv:
        sys.exit(__doc__)
    opts = {"threads": 2, "repeat": 5, "coarse": 1000}
    specs = []
    for a in argv[1:]:
        name, _, value = a[2:].partition("=")
        if a.startswith("--") and name in opts and value.isdigit():
            opts[name] = int(value)
        elif not a.startswith("-"):
            specs.append(a)
        else:
            sys.exit(f"python_bench: bad argument '{a}'\n{__doc__}")
    if argv[0] == "products":
        products(specs or SUITE, opts["threads"], opts["repeat"])
    else:
        amg(specs or PAPER, opts["threads"], opts["coarse"])


if __name__ == "__main__":
    main(sys.argv[1:])
