#!/bin/sh
# amgx_solve.sh: NVIDIA's AmgX on the solve suite's problems, the GPU anchor of
# `hspgemm bench --suite=solve --resident` (bench/README.md, "AmgX").
#
# usage: bench/amgx_solve.sh OUTDIR [CONFIG...]      run, then write OUTDIR/amgx.csv
#        bench/amgx_solve.sh --parse OUTDIR          only write OUTDIR/amgx.csv from its logs
#
# AmgX is not part of hspgemm: build it from its public source (CMake, the CUDA toolkit;
# e.g. cmake -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_NO_MPI=true, then its amgx_capi target) and
# say where it is:
#   AMGX_SRC   its source tree (the configs are read from AMGX_SRC/src/configs)
#   AMGX_CAPI  its examples/amgx_capi program
#   HSPGEMM    the hspgemm program that writes the problems (default ./hspgemm)
#   REPEAT     set-ups and solves a run (default 4; the first is a warm-up, left out)
# Each CONFIG (default PCG_AGGREGATION_JACOBI FGMRES_AGGREGATION) is AmgX's own, with the
# tolerance 1e-8 of |r| / |r0| (RELATIVE_INI_CORE, r0 = b = ones, x0 = 0: no right-hand side
# in the file) and at most 1000 iterations, in double (mode dDDI). amgx_capi reads the file and
# puts A, b and x on the GPU before its clock, as the suite places A before its own.
set -u
PROBLEMS="poisson2d5:1024 poisson2d9:1024 poisson3d7:101 poisson3d27:101 aniso2d:1024 elasticity2d:512"

# A config of AmgX's with the suite's tolerance and limit, into $2.
config() {
    python3 -c "import json, sys
c = json.load(open(sys.argv[1]))
c['solver'].update(tolerance=1e-8, max_iters=1000, convergence='RELATIVE_INI_CORE')
json.dump(c, open(sys.argv[2], 'w'), indent=1)" "$AMGX_SRC/src/configs/$1.json" "$2"
}

# One CSV row from a log of amgx_capi: the median of the repeats after the first.
row() {
    awk -v problem="$1" -v cfg="$2" '
        /has [0-9]+ rows/ { for (i = 1; i < NF; i++) if ($i == "has") rows = $(i + 1) }
        /Total Iterations:/ { its = $3 }
        /Final Residual:/ { res = $NF }
        /^ *setup: / { setup[++n] = $2 * 1000 }
        /^ *solve: / { solve[++m] = $2 * 1000 }
        /Thrust failure|rror/ && err == "" { err = $0; gsub(/"/, "", err) }
        function median(a, lo, hi,   k, j, t, c, x) {
            c = 0
            for (k = lo; k <= hi; k++) t[++c] = a[k]
            for (k = 2; k <= c; k++) for (j = k; j > 1 && t[j - 1] > t[j]; j--) { x = t[j]; t[j] = t[j - 1]; t[j - 1] = x }
            return c % 2 ? t[(c + 1) / 2] : (t[c / 2] + t[c / 2 + 1]) / 2
        }
        END {
            if (n < 2 || m < 2) { printf "\"%s\",amgx,\"%s\",,,,,,0,\"%s\"\n", problem, cfg, err; exit }
            s = median(setup, 2, n); v = median(solve, 2, m); relres = res / sqrt(rows)
            printf "\"%s\",amgx,\"%s\",%d,%.3f,%.3f,%.3f,%.3e,%d,\"\"\n", problem, cfg, its, s, v, s + v, relres,
                relres <= 1e-8 * 1.000001
        }' "$3"
}

# OUTDIR/amgx.csv from the logs in OUTDIR/logs.
parse() {
    echo "problem,program,config,iterations,setup_ms,solve_ms,total_ms,relres,converged,error" > "$1/amgx.csv"
    for log in "$1"/logs/*.txt; do
        name=$(basename "$log" .txt)
        row "$(echo "${name%%--*}" | tr _ :)" "${name#*--}" "$log" >> "$1/amgx.csv"
    done
    cat "$1/amgx.csv"
}

if [ "${1:-}" = --parse ]; then
    [ $# -eq 2 ] || { echo "usage: $0 --parse OUTDIR" >&2; exit 2; }
    parse "$2"
    exit
fi
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [CONFIG...] (AMGX_SRC, AMGX_CAPI: see the script's head)" >&2; exit 2; }
: "${AMGX_SRC:?set AMGX_SRC to AmgX's source tree}" "${AMGX_CAPI:?set AMGX_CAPI to its amgx_capi}"
out=$1; shift
configs=${*:-PCG_AGGREGATION_JACOBI FGMRES_AGGREGATION}
mkdir -p "$out/mtx" "$out/cfg" "$out/logs" || exit 1
for c in $configs; do config "$c" "$out/cfg/$c.json" || exit 1; done
for p in $PROBLEMS; do
    file=$(echo "$p" | tr : _)
    "${HSPGEMM:-./hspgemm}" gen "$p" -o "$out/mtx/$file.mtx" > /dev/null || exit 1
    for c in $configs; do
        "$AMGX_CAPI" -mode dDDI -m "$out/mtx/$file.mtx" -c "$out/cfg/$c.json" -r "${REPEAT:-4}" \
            > "$out/logs/$file--$c.txt" 2>&1
        echo "$p $c: exit $?" >&2
    done
    rm -f "$out/mtx/$file.mtx"
done
parse "$out"
