#!/bin/sh
# t_bench_scripts.sh: bench/doc.py, bench/compare.py and bench/plot.py on the
# runs in tests/data/bench (hand-written; solve.csv a real run, spmm-gpu.csv three rows of one),
# and the tables of README.md and doc/benchmark.md against the runs in doc/bench, as TAP.
# Python: $HSPGEMM_PLOT_PYTHON, else /usr/bin/python3 (plot.py's tests are skipped where it
# lacks matplotlib).
src="${top_srcdir:-.}"
bench="$src/bench"
data="$src/tests/data/bench"
py="${HSPGEMM_PLOT_PYTHON:-/usr/bin/python3}"
. "$src/tests/tap.sh"

echo "1..33"

# is STATUS WANTED: 0 when the two are equal.
is() { [ "$1" -eq "$2" ]; echo $?; }
# no_traceback: 0 when the last command printed no Python traceback.
no_traceback() { grep -q Traceback "$tmp/err"; [ $? -ne 0 ]; echo $?; }

# A copy of the fixtures, the Markdown's generated lines taken out.
mkdir "$tmp/d"
cp "$data"/*.csv "$data"/*.json "$tmp/d/"
sed '/^<!-- bench-table /,/^<!-- end bench-table -->/{/^<!--/!d;}' "$data/tables.md" >"$tmp/d/tables.md"

run "$py" "$bench/doc.py" "$tmp/d/tables.md"
ok $rc "doc.py regenerates the fixture's tables"
cmp -s "$tmp/d/tables.md" "$data/tables.md"; ok $? "and writes the committed tables.md"
grep -q '^| aniso2d:128 | 51 | 95.3 (95.3-95.3) | 51 | 1180 (1180-1180) | 12.38 (12.38-12.38) |' "$tmp/d/tables.md" &&
    grep -q 'over the problems: pyamg 9.55x; pyamg-ours 9.52x; hypre 0.47x; gamg 1.00x\.$' "$tmp/d/tables.md"
ok $? "the solve table: iterations, ms and x per program, the geometric means hspgemm bench printed"
t="$tmp/d/tables.md"
grep -q '^| rmat:14,8 | 8 | col | 0.25 (.*) | 0.80 (.*) | 0.34 (0.34-0.34), 1 of 2 runs | 2.30 (1.31-3.29) |$' "$t" &&
    grep -q ': L=8, row: 1.33x, 1.34x (one per run), least 1.30x (poisson2d5:400); L=8, col: 1.19x, 1.57x' "$t" &&
    grep -q '^| poisson2d5:400 | 8 | row | 0.026 (0.023-0.026) | 0.049 (0.048-0.050) | 1.93 (1.84-2.16) |$' "$t"
ok $? "the spmm tables: ms of each program (cuSPARSE device-only if resident), x faster peer, its geometric means"
run "$py" "$bench/doc.py" --check "$data/tables.md"
ok $rc "doc.py --check passes on the committed tables.md"

sed 's/| 8.30 (7.11-9.50) |/| 8.31 (7.11-9.50) |/' "$tmp/d/tables.md" >"$tmp/d/changed.md"
run "$py" "$bench/doc.py" --check "$tmp/d/changed.md"
ok "$(is $rc 1)" "doc.py --check exits 1 when a number differs from its CSV"
ok "$(has '^-| poisson2d5:400 | 8.31' "$tmp/out")" "and prints a diff"
cmp -s "$tmp/d/changed.md" "$tmp/d/tables.md"; [ $? -ne 0 ]; ok $? "and writes nothing"

printf '# x\n\n<!-- bench-table bogus products-1.csv -->\n<!-- end bench-table -->\n' >"$tmp/d/kind.md"
run "$py" "$bench/doc.py" "$tmp/d/kind.md"
ok "$(is $rc 2)" "an unknown KIND exits 2"
ok "$(has 'kind.md:3: unknown table kind' "$tmp/err")" "and names the file and line"

printf '# x\n<!-- bench-table amg amg.csv -->\nold\n' >"$tmp/d/open.md"
run "$py" "$bench/doc.py" --check "$tmp/d/open.md"
ok "$(is $rc 2)" "an unclosed marker exits 2"
ok "$(has 'open.md:2: .*without' "$tmp/err")" "and names the file and line"

printf '<!-- bench-table amg none-*.csv -->\n<!-- end bench-table -->\n' >"$tmp/d/none.md"
run "$py" "$bench/doc.py" "$tmp/d/none.md"
ok "$(is $rc 2)" "a glob that matches nothing exits 2"

printf 'matrix,rows\nx,1\n' >"$tmp/d/short.csv"
printf '{"suite":"quick"}\n' >"$tmp/d/short.json"
run "$py" "$bench/compare.py" "$tmp/d/short.csv" "$data/products-1.csv"
ok "$(is $rc 2)" "compare.py exits 2 on a CSV without the column ms"
ok "$(no_traceback)" "with a message, no traceback"
run "$py" "$bench/compare.py" "$tmp/d/missing.csv" "$data/products-1.csv"
ok "$(is $rc 2)" "compare.py exits 2 on a missing file"

run "$py" "$bench/compare.py" "$data/products-1.csv" "$data/products-2.csv"
ok $rc "compare.py on two products runs"
rows=0
for m in poisson2d5:400 band:100000,4 rmat:16,8; do
    sed -n '/^hspgemm ms /,/^$/p' "$tmp/out" | grep -q "^$m " && rows=$((rows + 1))
done
ok "$(is $rows 3)" "prints a row per matrix"
ok "$(has '^poisson2d5:400 .* 1\.34  \*$' "$tmp/out")" "marks the times whose ranges do not overlap"
grep '^band:100000,4 ' "$tmp/out" | grep -q '\*'; [ $? -ne 0 ]
ok $? "and not those that overlap"

run "$py" "$bench/compare.py" "$data/solve.csv" "$data/solve.csv"
ok $rc "compare.py on two solve runs"
rows=$(sed -n '/^total ms /,/^$/p' "$tmp/out" | grep -c '^aniso2d:128 [a-z-]* .* 1\.00$')
ok "$(is "$rows" 5)" "prints a row per problem and program (the same run: B/A 1.00)"
run "$py" "$bench/compare.py" "$data/solve.csv" "$data/amg.csv"
ok "$(is $rc 2)" "compare.py exits 2 on a solve run and an amg run"
ok "$(has 'solve.csv is a run of kind solve, .*amg.csv of kind amg' "$tmp/err")" "and says why"

# What make bench-doc does with a solve block, on a scratch copy of README.md and doc/bench.
mkdir "$tmp/r" "$tmp/r/doc"
cp -R "$src/doc/bench" "$tmp/r/doc/"
rm -f "$tmp/r/doc/bench/solve-vm-"*
cp "$data/solve.csv" "$tmp/r/doc/bench/solve-vm-1.csv"
cp "$data/solve.json" "$tmp/r/doc/bench/solve-vm-1.json"
marker='<!-- bench-table solve doc/bench/solve-vm-[0-9].csv -->'
printf '%s\n\n%s\n%s\n' "$(cat "$src/README.md")" "$marker" '<!-- end bench-table -->' >"$tmp/r/README.md"
run "$py" "$bench/doc.py" "$tmp/r/README.md"
[ $rc -eq 0 ] && grep -q '^| elasticity2d:64 | 9 | 522 (522-522) |' "$tmp/r/README.md"
ok $? "doc.py fills a solve block in a copy of README.md"

# plot.py: an SVG for each kind, the same on a second run.
if "$py" -c 'import matplotlib' 2>/dev/null; then
    bad=0
    for set in "products-1.csv products-2.csv" resident.csv realloc.csv galerkin.csv amg.csv solve.csv; do
        files=""
        for f in $set; do files="$files $data/$f"; done
        # shellcheck disable=SC2086
        "$py" "$bench/plot.py" -o "$tmp/a.svg" $files 2>>"$tmp/plot.err" || bad=1
        # shellcheck disable=SC2086
        "$py" "$bench/plot.py" -o "$tmp/b.svg" $files 2>>"$tmp/plot.err" || bad=1
        head -c 5 "$tmp/a.svg" | grep -q '^<?xml' || { echo "# $set: not an SVG"; bad=1; }
        cmp -s "$tmp/a.svg" "$tmp/b.svg" || { echo "# $set: two runs differ"; bad=2; }
        rm -f "$tmp/a.svg" "$tmp/b.svg"
        [ $bad -eq 0 ] || break
    done
    [ $bad -ne 1 ]; ok $? "plot.py writes an SVG for each kind"
    [ $bad -eq 0 ]; ok $? "the same byte for byte on two runs"
    cp "$data/amg.csv" "$data/amg.json" "$tmp/d/"
    run "$py" "$bench/plot.py" "$tmp/d/amg.csv"
    [ $rc -eq 0 ] && [ -s "$tmp/d/amg.svg" ]; ok $? "plot.py writes FILE.svg by default"
    run "$py" "$bench/plot.py" -o "$tmp/r/doc/bench/solve-vm.svg" "$tmp/r/doc/bench/"solve-vm-[0-9].csv
    [ $rc -eq 0 ] && grep -q 'AMG time to solution' "$tmp/r/doc/bench/solve-vm.svg"
    ok $? "plot.py draws the solve runs as make bench-doc names them"
else
    skip "plot.py writes an SVG for each kind" "no matplotlib"
    skip "the same byte for byte on two runs" "no matplotlib"
    skip "plot.py writes FILE.svg by default" "no matplotlib"
    skip "plot.py draws the solve runs as make bench-doc names them" "no matplotlib"
fi

# amgx_solve.sh --parse: logs of amgx_capi as it prints them (4 repeats; one failed run).
mkdir -p "$tmp/amgx/logs"
{
    echo "Matrix A is scalar and has 4096 rows"
    for t in "0.09 0.5" "0.03 0.2" "0.01 0.4" "0.02 0.3"; do
        set -- $t
        printf '         Total Iterations: 12\n         Final Residual: \t\t   5.0e-07\n'
        printf 'Total Time: 1\n    setup: %s s\n    solve: %s s\n    solve(per iteration): 0.01 s\n' "$1" "$2"
    done
} >"$tmp/amgx/logs/poisson2d5_64--PCG_AGGREGATION_JACOBI.txt"
sed 's/5.0e-07/1.0e-05/' "$tmp/amgx/logs/poisson2d5_64--PCG_AGGREGATION_JACOBI.txt" \
    >"$tmp/amgx/logs/poisson2d5_64--FGMRES_AGGREGATION.txt"
printf 'Matrix A is scalar and has 4096 rows\nThrust failure: parallel_for failed: x\n***Solver Failed\n' \
    >"$tmp/amgx/logs/poisson2d5_64--PCG_CLASSICAL_V_JACOBI.txt"
run sh "$bench/amgx_solve.sh" --parse "$tmp/amgx"
[ $rc -eq 0 ] && grep -qx '"poisson2d5:64",amgx,"PCG_AGGREGATION_JACOBI",12,20.000,300.000,320.000,7.812e-09,1,""' \
    "$tmp/amgx/amgx.csv"
ok $? "amgx_solve.sh --parse: iterations, the medians of the repeats after the first, |r|/|b| and converged"
grep -qx '"poisson2d5:64",amgx,"FGMRES_AGGREGATION",12,20.000,300.000,320.000,1.563e-07,0,""' "$tmp/amgx/amgx.csv" &&
    grep -qx '"poisson2d5:64",amgx,"PCG_CLASSICAL_V_JACOBI",,,,,,0,"Thrust failure: parallel_for failed: x"' \
        "$tmp/amgx/amgx.csv"
ok $? "a residual above 1e-8 is not converged; a failed run gives AmgX's error and no figures"
run sh "$bench/amgx_solve.sh"
ok "$(is $rc 2)" "amgx_solve.sh without arguments exits 2"

# The tables of figures (README.md, doc/benchmark.md) are those the committed runs (doc/bench) give.
run "$py" "$bench/doc.py" --check "$src/README.md" "$src/doc/benchmark.md"
[ $rc -eq 0 ] && grep -q "bench-table" "$src/README.md" && grep -q "bench-table" "$src/doc/benchmark.md"
ok $? "README.md's and doc/benchmark.md's tables of figures agree with their CSVs in doc/bench (make bench-doc)"
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/out" "$tmp/err"

[ $n -eq 33 ] || { echo "# ran $n tests, planned 33"; fail=1; }
exit $fail
