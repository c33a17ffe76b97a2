#!/usr/bin/env python3
"""python_amg_solver.py: time to solution of hspgemm.amg_solver against PyAMG's, in Python.

usage: python_amg_solver.py [--runs=N] [--device=NAME] [SPEC ...]

For each generator SPEC (default poisson2d5:1024 poisson3d7:80), N times (default 3)
each, alternating:
  hspgemm  hspgemm.amg_solver(A, device=NAME) (default "auto"), then
           .solve(b, tol=1e-8, accel="cg");
  pyamg    pyamg.smoothed_aggregation_solver(A) (its defaults), then
           .solve(b, tol=1e-8, accel="cg");
b = ones, A from hspgemm.generate (untimed).  Prints per problem and program the
median set-up, solve and total wall ms (time.perf_counter around each call), the
iterations and the final |b - A x| / |b| (recomputed by scipy), then the ratio of
the median totals.  Each program runs once untimed first on poisson2d5:64.  Needs
hspgemm installed and pyamg (/opt/hspgemm-python/bin/python3)."""
import statistics
import sys
import time

import numpy as np
import pyamg

import hspgemm


def run(kind, A, b, device):
    """(setup ms, solve ms, iterations, relative residual) of one program."""
    t0 = time.perf_counter()
    ml = hspgemm.amg_solver(A, device=device) if kind == "hspgemm" else pyamg.smoothed_aggregation_solver(A)
    t1 = time.perf_counter()
    residuals = []
    x = ml.solve(b, tol=1e-8, accel="cg", residuals=residuals)
    t2 = time.perf_counter()
    return (t1 - t0) * 1e3, (t2 - t1) * 1e3, len(residuals) - 1, np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def main(argv):
    runs, device, specs = 3, "auto", []
    for a in argv:
        if a.startswith("--runs="):
            runs = int(a.split("=", 1)[1])
        elif a.startswith("--device="):
            device = a.split("=", 1)[1]
        else:
            specs.append(a)
    specs = specs or ["poisson2d5:1024", "poisson3d7:80"]
    small = hspgemm.generate("poisson2d5:64")
    for kind in ("hspgemm", "pyamg"):
        run(kind, small, np.ones(small.shape[0]), device)
    print(f"{'problem':16} {'program':8} {'setup ms':>9} {'solve ms':>9} {'total ms':>9} {'iters':>5} {'|r|/|b|':>9}")
    for spec in specs:
        A = hspgemm.generate(spec)
        b = np.ones(A.shape[0])
        got = {"hspgemm": [], "pyamg": []}
        for _ in range(runs):
            for kind in got:
                got[kind].append(run(kind, A, b, device))
        totals = {}
        for kind, rows in got.items():
            setup = statistics.median(r[0] for r in rows)
            solve = statistics.median(r[1] for r in rows)
            totals[kind] = statistics.median(r[0] + r[1] for r in rows)
            print(f"{spec:16} {kind:8} {setup:9.0f} {solve:9.0f} {totals[kind]:9.0f} {rows[0][2]:5d} "
                  f"{max(r[3] for r in rows):9.1e}")
        print(f"{spec:16} pyamg / hspgemm: {totals['pyamg'] / totals['hspgemm']:.1f}x")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
