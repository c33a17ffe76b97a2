#!/usr/bin/env python3
"""peer_scipy.py: the scipy peer of `hspgemm bench`: times C = A @ B, or the
Galerkin product C = R @ A @ P as two products, on CSR matrices (single-threaded;
the result's column indices are left unsorted, as scipy leaves them), or with
--spmm=L the product C = A @ X of A and a dense X of L columns (row-major, or
column-major with --layout=col: numpy's Fortran order), and prints one JSON line."""
import json
import statistics
import sys
import time

USAGE = """usage: peer_scipy.py [--threads=N] [--repeat=R] [--precision=float|double] A.mtx [B.mtx]
       peer_scipy.py [same options] --rap=r-ap|ra-p R.mtx A.mtx P.mtx
       peer_scipy.py [same options] --spmm=L [--layout=row|col] A.mtx
Times C = A @ B (B = A when absent), or C = R @ A @ P as R @ (A @ P) (r-ap) or
(R @ A) @ P (ra-p), or C = A @ X for a dense X of L columns (numpy, row-major, or
Fortran order with --layout=col) with --spmm=L, after untimed runs for 50 ms
(at least one) and prints
{"peer":"scipy",...,"ms_median":...,"ms_min":...,"ms_max":...,"ms_q1":...,"ms_q3":...,
"nnz_c":...} (and "order"
with --rap); --threads is ignored (scipy's sparse product runs on one thread).
--version prints {"peer":"scipy","version":...} when scipy imports."""

# The warm-up, as hspgemm's bench and the other peers warm up (bench/peer.h):
# untimed runs until WARM_MS have passed, at least one and at most WARM_RUNS.
WARM_MS, WARM_RUNS = 50.0, 100

# The product of the factors in each order: A*B, or R*A*P as two products.
PRODUCT = {None: lambda A, B: A @ B,
           "r-ap": lambda R, A, P: R @ (A @ P),
           "ra-p": lambda R, A, P: (R @ A) @ P}


def parse(argv):
    """Options and files from the command line."""
    opts = {"repeat": 3, "dtype": "float64", "order": None, "files": [], "spmm": 0, "layout": None}
    for a in argv:
        if a == "--help":
            print(USAGE)
            sys.exit(0)
        if a == "--version":
            return None
        elif a.startswith("--threads="):
            pass
        elif a.startswith("--repeat="):
            opts["repeat"] = int(a.split("=", 1)[1])
        elif a in ("--precision=float", "--precision=double"):
            opts["dtype"] = "float32" if a.endswith("float") else "float64"
        elif a.startswith("--spmm="):
            opts["spmm"] = int(a.split("=", 1)[1]) if a[7:].isdigit() else 0
            if opts["spmm"] < 1:
                sys.exit("peer_scipy: --spmm=L takes L >= 1, not '%s'\n%s" % (a, USAGE))
        elif a in ("--layout=row", "--layout=col"):
            opts["layout"] = a.split("=", 1)[1]
        elif a in ("--rap=r-ap", "--rap=ra-p"):
            opts["order"] = a.split("=", 1)[1]
        elif not a.startswith("-") and len(opts["files"]) < 3:
            opts["files"].append(a)
        else:
            what = "bad argument" if a.startswith("-") else "too many files at"
            sys.exit("peer_scipy: %s '%s'\n%s" % (what, a, USAGE))
    nfiles = len(opts["files"])
    if opts["spmm"] and (nfiles != 1 or opts["order"]):
        sys.exit("peer_scipy: --spmm=L takes one file, A.mtx\n" + USAGE)
    if opts["layout"] and not opts["spmm"]:
        sys.exit("peer_scipy: --layout goes with --spmm=L\n" + USAGE)
    if opts["order"] and nfiles != 3:
        sys.exit("peer_scipy: --rap takes three files, R.mtx A.mtx P.mtx\n" + USAGE)
    if not opts["order"] and nfiles == 3:
        sys.exit("peer_scipy: three files need --rap=r-ap or --rap=ra-p\n" + USAGE)
    if not nfiles or opts["repeat"] < 1:
        sys.exit(USAGE)
    return opts


def read_factors(opts, mmread):
    """The factors in CSR (B is A when one file is given); exits when a file cannot be read or
    their shapes do not chain."""
    M = []
    for f in opts["files"]:
        try:
            M.append(mmread(f).tocsr().astype(opts["dtype"]))
        except (OSError, ValueError) as e:
            sys.exit("peer_scipy: %s: %s" % (f, e))
    if len(M) == 1 and not opts["spmm"]:
        M.append(M[0])
    names = "RAP" if opts["order"] else "AB"
    for k in range(1, len(M)):
        if M[k - 1].shape[1] != M[k].shape[0]:
            sys.exit("peer_scipy: shape mismatch: %s is %d x %d but %s is %d x %d"
                     % (names[k - 1], *M[k - 1].shape, names[k], *M[k].shape))
    return M


def on_a_line(X, order):
    """A copy of X in order ("C" or "F") whose data starts on a cache line (64
    bytes), as the bench gives hspgemm's and the other peers' B."""
    import numpy
    buf = numpy.empty(X.nbytes + 64, dtype=numpy.uint8)
    start = -buf.ctypes.data % 64
    out = buf[start:start + X.nbytes].view(X.dtype).reshape(X.shape, order=order)
    out[...] = X
    return out


def main():
    opts = parse(sys.argv[1:])
    try:
        import scipy
        import scipy.io
    except ImportError:
        print("peer_scipy: scipy is not installed", file=sys.stderr)
        sys.exit(2)
    if opts is None:
        print(json.dumps({"peer": "scipy", "version": scipy.__version__}, separators=(",", ":")))
        return
    M = read_factors(opts, scipy.io.mmread)
    product = PRODUCT[opts["order"]]
    if opts["spmm"]:
        import numpy
        X = numpy.random.default_rng(2).uniform(-1, 1, (M[0].shape[1], opts["spmm"])).astype(opts["dtype"])
        M.append(on_a_line(X, "F" if opts["layout"] == "col" else "C"))
    start, runs = time.perf_counter(), 0
    while runs == 0 or (runs < WARM_RUNS and (time.perf_counter() - start) * 1e3 < WARM_MS):
        product(*M)
        runs += 1
    ms = []
    for run in range(opts["repeat"]):
        t0 = time.perf_counter()
        C = product(*M)
        ms.append((time.perf_counter() - t0) * 1e3)
    quartiles = statistics.quantiles(ms, n=4, method="inclusive") if len(ms) > 1 else ms * 3
    line = {"peer": "scipy", "version": scipy.__version__, "threads": 1,
            "precision": "double" if opts["dtype"] == "float64" else "float"}
    if opts["order"]:
        line["order"] = opts["order"]
    if opts["spmm"]:
        line["spmm_cols"] = opts["spmm"]
        line["layout"] = opts["layout"] or "row"
    line.update({"runs": opts["repeat"], "ms_median": statistics.median(ms), "ms_min": min(ms),
                 "ms_max": max(ms), "ms_q1": quartiles[0], "ms_q3": quartiles[2],
                 "nnz_c": int(C.size if opts["spmm"] else C.nnz)})
    print(json.dumps(line, separators=(",", ":")))


if __name__ == "__main__":
    main()
