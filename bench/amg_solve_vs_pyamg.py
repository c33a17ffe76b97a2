#!/usr/bin/env python3
"""amg_solve_vs_pyamg.py: time to solution of `hspgemm amg-solve` against PyAMG's.

usage: amg_solve_vs_pyamg.py [--hspgemm=PATH] [--runs=N] [--threads=N] [SPEC ...]

For each generator SPEC (default poisson2d5:1024 poisson3d7:80), runs in turn,
N times (default 3) each, alternating:
  ours       `hspgemm amg-solve --gen=SPEC --stats=json --sweep=symmetric` (its defaults:
             coarse 1000, CG preconditioned by V(1,1), b = ones, tol 1e-8; PyAMG's
             symmetric Gauss-Seidel sweeps);
  pyamg      pyamg.smoothed_aggregation_solver(A) with PyAMG's defaults (max_coarse 10,
             improve_candidates), then ml.solve(b, tol=1e-8, accel='cg'), b = ones;
  pyamg-ours PyAMG with our set-up's options (max_coarse 1000, no improvement of the
             candidates) and our coarse solve (dense Cholesky: PyAMG's default pinv of
             1000 rows takes seconds), solved alike.
and prints per problem and program the median set-up, solve and total ms and the
iterations, then the ratios of the totals.  Each program runs once untimed first
(poisson2d5:64: PyAMG's first set-up in a process loads modules).  A is made by pyamg.gallery.poisson (the
same matrix as hspgemm's generator), untimed.  Needs pyamg (the peers' python:
/opt/hspgemm-python/bin/python3)."""
import json
import statistics
import subprocess
import sys
import time

import numpy as np
import pyamg


def problem(spec):
    """PyAMG's matrix of a poisson2d5:N or poisson3d7:N spec."""
    kind, n = spec.split(":")
    shape = {"poisson2d5": (int(n),) * 2, "poisson3d7": (int(n),) * 3}[kind]
    return pyamg.gallery.poisson(shape, format="csr")


def ours(hsp, spec, threads):
    """Set-up ms, solve ms and iterations of hspgemm amg-solve."""
    cmd = [hsp, "amg-solve", "--gen=" + spec, "--stats=json", "--quiet", "--sweep=symmetric"]
    if threads:
        cmd.append("--threads=%d" % threads)
    d = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    if not d["converged"]:
        sys.exit("amg_solve_vs_pyamg: hspgemm did not converge on %s" % spec)
    return d["setup_ms"], d["solve_ms"], d["iterations"]


def pyamg_run(A, **setup):
    """Set-up ms, solve ms and iterations of PyAMG with the set-up options given."""
    b = np.ones(A.shape[0])
    t0 = time.perf_counter()
    ml = pyamg.smoothed_aggregation_solver(A, **setup)
    t1 = time.perf_counter()
    res = []
    x = ml.solve(b, tol=1e-8, accel="cg", residuals=res)
    t2 = time.perf_counter()
    if np.linalg.norm(b - A @ x) > 1e-8 * np.linalg.norm(b) * 1.01:
        sys.exit("amg_solve_vs_pyamg: PyAMG did not converge")
    return (t1 - t0) * 1e3, (t2 - t1) * 1e3, len(res) - 1


def main(argv):
    opts = {"hspgemm": "./hspgemm", "runs": "3", "threads": "0"}
    specs = []
    for a in argv:
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        name, eq, value = a[2:].partition("=")
        if a.startswith("--") and eq and name in opts:
            opts[name] = value
        elif not a.startswith("-"):
            specs.append(a)
        else:
            sys.exit("amg_solve_vs_pyamg: bad argument '%s'" % a)
    specs = specs or ["poisson2d5:1024", "poisson3d7:80"]
    programs = {
        "ours": lambda A, s: ours(opts["hspgemm"], s, int(opts["threads"])),
        "pyamg": lambda A, s: pyamg_run(A),
        "pyamg-ours": lambda A, s: pyamg_run(A, max_coarse=1000, improve_candidates=None, coarse_solver="cholesky"),
    }
    for run in programs.values():
        run(problem("poisson2d5:64"), "poisson2d5:64")
    print("%-16s %-11s %5s %10s %10s %10s" % ("problem", "program", "its", "setup ms", "solve ms", "total ms"))
    for spec in specs:
        A = problem(spec)
        runs = {p: [] for p in programs}
        for _ in range(int(opts["runs"])):
            for p, run in programs.items():
                runs[p].append(run(A, spec))
        total = {}
        for p, r in runs.items():
            setup = statistics.median(x[0] for x in r)
            solve = statistics.median(x[1] for x in r)
            total[p] = statistics.median(x[0] + x[1] for x in r)
            print("%-16s %-11s %5d %10.1f %10.1f %10.1f" % (spec, p, r[0][2], setup, solve, total[p]))
        print("%-16s ours faster, total: %.2fx PyAMG's default, %.2fx PyAMG with our options" %
              (spec, total["pyamg"] / total["ours"], total["pyamg-ours"] / total["ours"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
