#!/usr/bin/env python3
"""peer_scipy.py: the scipy peer of `hspgemm bench`: times C = A @ B on CSR
matrices (single-threaded; the result's column indices are left unsorted, as
scipy leaves them) and prints one JSON line."""
import json
import statistics
import sys
import time

USAGE = """usage: peer_scipy.py [--threads=N] [--repeat=R] [--precision=float|double] A.mtx [B.mtx]
Times C = A @ B (B = A when absent) after one warm-up and prints
{"peer":"scipy",...,"ms_median":...,"ms_min":...,"nnz_c":...}; --threads is ignored
(scipy's sparse product runs on one thread)."""


def parse(argv):
    """Options and files from the command line."""
    opts = {"repeat": 3, "dtype": "float64", "files": []}
    for a in argv:
        if a == "--help":
            print(USAGE)
            sys.exit(0)
        elif a.startswith("--threads="):
            pass
        elif a.startswith("--repeat="):
            opts["repeat"] = int(a.split("=", 1)[1])
        elif a in ("--precision=float", "--precision=double"):
            opts["dtype"] = "float32" if a.endswith("float") else "float64"
        elif not a.startswith("-") and len(opts["files"]) < 2:
            opts["files"].append(a)
        else:
            sys.exit("peer_scipy: bad argument '%s'\n%s" % (a, USAGE))
    if not opts["files"] or opts["repeat"] < 1:
        sys.exit(USAGE)
    return opts


def main():
    opts = parse(sys.argv[1:])
    try:
        import scipy
        import scipy.io
    except ImportError:
        print("peer_scipy: scipy is not installed", file=sys.stderr)
        sys.exit(2)
    files = opts["files"]
    A = scipy.io.mmread(files[0]).tocsr().astype(opts["dtype"])
    B = A if len(files) == 1 else scipy.io.mmread(files[1]).tocsr().astype(opts["dtype"])
    ms = []
    for run in range(opts["repeat"] + 1):  # run 0 is the warm-up
        t0 = time.perf_counter()
        C = A @ B
        ms.append((time.perf_counter() - t0) * 1e3)
    ms = ms[1:]
    print(json.dumps({"peer": "scipy", "version": scipy.__version__, "threads": 1,
                      "precision": "double" if opts["dtype"] == "float64" else "float",
                      "runs": opts["repeat"], "ms_median": statistics.median(ms),
                      "ms_min": min(ms), "nnz_c": int(C.nnz)}, separators=(",", ":")))


if __name__ == "__main__":
    main()
