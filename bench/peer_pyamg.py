#!/usr/bin/env python3
"""peer_pyamg.py: the PyAMG peer of `hspgemm bench --suite=amg`: times PyAMG's
smoothed-aggregation setup of A with the options of `hspgemm amg-setup` and
prints one JSON line with the median time and each level's rows and entries."""
import json
import statistics
import sys
import time

USAGE = """usage: peer_pyamg.py [--theta=X] [--omega=X] [--levels=N] [--coarse=N] [--repeat=R] A.mtx
Times pyamg.smoothed_aggregation_solver(A) after one warm-up, with the strength
threshold theta (symmetric), standard aggregation, Jacobi smoothing of weight
omega (over PyAMG's estimate of rho(D^-1 A)), no improvement of the candidate
vector, at most N levels and a coarsest level of at most N rows, as
`hspgemm amg-setup` builds it, and prints
{"peer":"pyamg",...,"ms_median":...,"ms_min":...,"ms_max":...,"ms_q1":...,"ms_q3":...,"rows":[...],"nnz":[...]}.
--version prints {"peer":"pyamg","version":...} when pyamg imports."""

DEFAULTS = {"theta": 0.0, "omega": 4.0 / 3.0, "levels": 10, "coarse": 1000, "repeat": 3}


def parse(argv):
    """Options and the file from the command line."""
    opts, files = dict(DEFAULTS), []
    for a in argv:
        if a == "--help":
            print(USAGE)
            sys.exit(0)
        if a == "--version":
            return None, None
        name, _, value = a[2:].partition("=") if a.startswith("--") else ("", "", "")
        if name in ("theta", "omega") and value:
            opts[name] = float(value)
        elif name in ("levels", "coarse", "repeat") and value:
            opts[name] = int(value)
        elif not a.startswith("-"):
            files.append(a)
        else:
            sys.exit("peer_pyamg: bad argument '%s'\n%s" % (a, USAGE))
    if len(files) != 1 or opts["repeat"] < 1:
        sys.exit(USAGE)
    return opts, files[0]


def setup(pyamg, A, opts):
    """PyAMG's hierarchy of A with the options."""
    return pyamg.smoothed_aggregation_solver(
        A, strength=("symmetric", {"theta": opts["theta"]}), aggregate="standard",
        smooth=("jacobi", {"omega": opts["omega"]}), improve_candidates=None,
        max_levels=opts["levels"], max_coarse=opts["coarse"], keep=False)


def main():
    opts, path = parse(sys.argv[1:])
    try:
        import pyamg
        from scipy.io import mmread
    except ImportError as e:
        sys.exit("peer_pyamg: %s" % e)
    if opts is None:
        print(json.dumps({"peer": "pyamg", "version": pyamg.__version__}, separators=(",", ":")))
        return
    try:
        A = mmread(path).tocsr().astype("float64")
    except (OSError, ValueError) as e:
        sys.exit("peer_pyamg: %s: %s" % (path, e))
    ms = []
    for run in range(opts["repeat"] + 1):  # run 0 is the warm-up
        t0 = time.perf_counter()
        ml = setup(pyamg, A, opts)
        if run:
            ms.append((time.perf_counter() - t0) * 1e3)
    quartiles = statistics.quantiles(ms, n=4, method="inclusive") if len(ms) > 1 else ms * 3
    rows = [lv.A.shape[0] for lv in ml.levels]
    nnz = [int(lv.A.nnz) for lv in ml.levels]
    print(json.dumps({"peer": "pyamg", "version": pyamg.__version__, "threads": 1, "runs": opts["repeat"],
                      "ms_median": round(statistics.median(ms), 4), "ms_min": round(min(ms), 4),
                      "ms_max": round(max(ms), 4), "ms_q1": round(quartiles[0], 4),
                      "ms_q3": round(quartiles[2], 4),
                      "rows": rows, "nnz": nnz}, separators=(",", ":")))


if __name__ == "__main__":
    main()
