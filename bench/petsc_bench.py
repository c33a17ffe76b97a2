#!/usr/bin/env python3
"""petsc_bench.py: PETSc's PCGAMG set-up with hspgemm's products against PETSc's own.

Runs petsc/hspgemm-gamg (built where configure found PETSc) under mpiexec on
each rank count and problem, with hspgemm's products (-hsp 1) and PETSc's
(-hsp 0) alternated, `repeat` times each, and reads PETSc's -log_view: the
time of the products inside the set-up (MatMatMult's and MatPtAP's symbolic
and numeric phases, the slowest rank's) and of the whole set-up (PCSetUp),
and the peak memory of the ranks together (hspgemm-gamg's getrusage).
Prints the medians, their spread (min-max) and PETSc's median over ours
(for memory, ours over PETSc's).

  python3 bench/petsc_bench.py [--ranks=1,2,4] [--problems=2d5:1024,2d9:1024,3d7:101,3d27:64]
                               [--repeat=5] [--build=.] [--mpiexec="--bind-to none"]
                               [-- extra hspgemm-gamg options]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

PRODUCT_EVENTS = ("MatMatMultSym", "MatMatMultNum", "MatPtAPSymbolic", "MatPtAPNumeric")


def run(build, mpiexec, ranks, stencil, n, hsp, extra):
    """One run's times (ms): the products' and PCSetUp's, from -log_view."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    cmd = ["mpiexec"] + mpiexec.split() + ["-n", str(ranks), os.path.join(build, "petsc", "hspgemm-gamg"), "-stencil", stencil,
           "-n", str(n), "-hsp", str(hsp), "-log_view"] + extra
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    times = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+\d+\s+[\d.]+\s+([\d.e+-]+)\s", line)
        if m:
            times[m.group(1)] = times.get(m.group(1), 0.0) + 1e3 * float(m.group(2))
    its = re.search(r"^iterations (\d+)", out, re.M)
    mb = re.search(r"^peak memory \(all ranks\): ([\d.]+) MB", out, re.M)
    return (sum(times.get(e, 0.0) for e in PRODUCT_EVENTS), times.get("PCSetUp", 0.0), float(mb.group(1)) if mb else 0.0,
            its.group(1) if its else "?")


def spread(xs):
    return "%.1f-%.1f" % (min(xs), max(xs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--problems", default="2d5:1024,2d9:1024,3d7:101,3d27:64")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--build", default=".")
    ap.add_argument("--mpiexec", default="--bind-to none",
                    help="mpiexec's options (default, Open MPI's: ranks not bound to a core each, so that "
                         "hspgemm's threads can use the cores the ranks leave)")
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    print("%-6s %-12s %5s %22s %22s %7s %22s %22s %7s %22s %22s %7s" % (
        "ranks", "problem", "its", "products ms: hspgemm", "PETSc", "x", "set-up ms: hspgemm", "PETSc", "x",
        "peak MB: hspgemm", "PETSc", "ours/x"))
    for ranks in [int(r) for r in a.ranks.split(",")]:
        for problem in a.problems.split(","):
            stencil, n = problem.split(":")
            got = {1: ([], [], []), 0: ([], [], [])}
            its = {}
            for _ in range(a.repeat):
                for hsp in (1, 0):
                    *figures, its[hsp] = run(a.build, a.mpiexec, ranks, stencil, int(n), hsp, a.extra)
                    for k, x in enumerate(figures):
                        got[hsp][k].append(x)
            med = {h: [statistics.median(xs) for xs in got[h]] for h in got}
            print("%-6d %-12s %5s %9.1f (%10s) %9.1f (%10s) %6.2fx %9.1f (%10s) %9.1f (%10s) %6.2fx "
                  "%9.1f (%10s) %9.1f (%10s) %6.2fx" % (
                      ranks, "poisson" + problem, its[1] + "/" + its[0], med[1][0], spread(got[1][0]), med[0][0],
                      spread(got[0][0]), med[0][0] / med[1][0], med[1][1], spread(got[1][1]), med[0][1],
                      spread(got[0][1]), med[0][1] / med[1][1], med[1][2], spread(got[1][2]), med[0][2],
                      spread(got[0][2]), med[1][2] / med[0][2]))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
