#!/usr/bin/env python3
"""python_bench.py: the Python package against scipy and PyAMG, from Python.

  python_bench.py products [--threads=N] [--repeat=R] [SPEC ...]
      hspgemm.matmul(A, A) (cpu device, drop_zeros=True: scipy's result) against scipy's A @ A
      on the generated matrices
      (default: the default bench suite), alternating the two, R runs each after a warm-up:
      the median ms of each and their ratio.
  python_bench.py amg [--threads=N] [--coarse=N] [--device=D] [SPEC ...]
      per problem (default: the paper's four), the time to solution of three hierarchies:
      hspgemm.amg_setup on device D (default cpu; the host path: aggregation on the CPU
      threads), the same with resident=True (every level made on the device, then brought
      home; with D cpu it is the host path again) and pyamg.smoothed_aggregation_solver with
      the same theta, omega, coarse size and levels: the setup ms of each (after a warm-up),
      levels and operator complexity, then PyAMG's CG to a relative residual of 1e-8 (b
      random, x0 = 0) on each (hspgemm.pyamg_solver for ours): iterations, solve ms, and
      setup plus solve.

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
    with hspgemm.Context(device="cpu", threads=threads, drop_zeros=True) as ctx:
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


def solved(ml, A, b):
    """PyAMG's CG on ml: iterations, the residual reached, and the ms it took."""
    (its, res), solve_ms = ms(lambda: cg_iterations(ml, A, b))
    return its, res, solve_ms


def amg(specs, threads, coarse, device):
    import pyamg
    print(f"{'problem':<17} {'hierarchy':<9} {'setup ms':>9} {'levels':>6} {'complexity':>10} {'CG its':>6} "
          f"{'solve ms':>9} {'total ms':>9}  residual")
    with hspgemm.Context(device=device, threads=threads) as ctx:
        for spec in specs:
            A = hspgemm.generate(spec)
            b = np.random.default_rng(1).standard_normal(A.shape[0])
            setups = {"host": lambda: ctx.amg_setup(A, coarse_size=coarse),
                      "resident": lambda: ctx.amg_setup(A, coarse_size=coarse, resident=True),
                      "pyamg": lambda: pyamg.smoothed_aggregation_solver(
                          A, strength=("symmetric", {"theta": 0.0}), aggregate="standard",
                          smooth=("jacobi", {"omega": 4.0 / 3.0}), improve_candidates=None, max_coarse=coarse,
                          max_levels=10)}
            for name, setup in setups.items():
                setup()  # warm-up
                h, setup_ms = ms(setup)
                ml = h if name == "pyamg" else hspgemm.pyamg_solver(h)
                its, res, solve_ms = solved(ml, A, b)
                print(f"{spec:<17} {name:<9} {setup_ms:>9.0f} {len(ml.levels):>6} {ml.operator_complexity():>10.3f} "
                      f"{its:>6} {solve_ms:>9.0f} {setup_ms + solve_ms:>9.0f}  {res:.1e}", flush=True)


def main(argv):
    if not argv or argv[0] not in ("products", "amg") or "--help" in argv:
        sys.exit(__doc__)
    opts = {"threads": 2, "repeat": 5, "coarse": 1000}
    specs, device = [], "cpu"
    for a in argv[1:]:
        name, _, value = a[2:].partition("=")
        if a.startswith("--") and name in opts and value.isdigit():
            opts[name] = int(value)
        elif a.startswith("--device=") and value:
            device = value
        elif not a.startswith("-"):
            specs.append(a)
        else:
            sys.exit(f"python_bench: bad argument '{a}'\n{__doc__}")
    if argv[0] == "products":
        products(specs or SUITE, opts["threads"], opts["repeat"])
    else:
        amg(specs or PAPER, opts["threads"], opts["coarse"], device)


if __name__ == "__main__":
    main(sys.argv[1:])
