#!/bin/sh
# t_cli.sh: the command-line contract of hspgemm, as TAP.
hsp="${top_builddir:-.}/hspgemm"
data="${top_srcdir:-.}/tests/data"
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/opencl_device.sh"
run "$hsp" --help
ok $rc "--help exits 0"
run "$hsp" frobnicate
[ $rc -eq 2 ]; ok $? "an unknown command exits 2"
ok "$(has "unknown command 'frobnicate'" "$tmp/err")" "and names the command"

run "$hsp" gen poisson2d5 12 -o "$tmp/a.mtx"
ok $rc "gen writes a matrix"
run "$hsp" gen rmat:7,4 --seed=3 -o "$tmp/r.mtx"
ok $rc "gen takes KIND:ARGS"
run "$hsp" square "$tmp/a.mtx" -o "$tmp/c1.mtx"
ok $rc "square A from a file"
run "$hsp" square --gen=poisson2d5:12 -o "$tmp/c2.mtx"
ok $rc "square --gen"
cmp -s "$tmp/c1.mtx" "$tmp/c2.mtx"; ok $? "the file and the generator give the same C"
run "$hsp" multiply "$tmp/a.mtx" "$tmp/a.mtx" -o "$tmp/c3.mtx" --threads=1 --grow=copy
cmp -s "$tmp/c1.mtx" "$tmp/c3.mtx"; ok $? "multiply A A equals square A, other threads and grow"
run "$hsp" multiply "$tmp/r.mtx" --gen=rmat:7,4 --methods=paper --precision=float
ok $rc "multiply a file by a generated matrix, paper methods, float"

run "$hsp" square --gen=poisson3d27:6 --stats=json --repeat=3
ok $rc "--stats=json runs"
[ "$(wc -l <"$tmp/out")" -eq 1 ]; ok $? "--stats=json prints one line"
for key in ms_median ms_min ms_first gflops nnz_c flops device grow grow_events threads; do
    ok "$(has "\"$key\":" "$tmp/out")" "--stats=json has $key"
done
ok "$(has '"runs":3' "$tmp/out")" "--repeat=3 gives 3 runs"
run "$hsp" square --gen=poisson3d27:6 --stats
ok "$(has "grow events" "$tmp/out")" "--stats prints the table"
ok "$(has "3 compute" "$tmp/out")" "the table has the stages"

run "$hsp" info "$tmp/a.mtx"
ok "$(has "bins of A\*A" "$tmp/out")" "info prints the bins of A*A"
ok "$(has "144 x 144" "$tmp/out")" "info prints the shape"

printf '%%%%MatrixMarket matrix coordinate real general\n2 3 1\n1 3 1.5\n' >"$tmp/rect.mtx"
run "$hsp" square "$tmp/rect.mtx"
[ $rc -eq 1 ]; ok $? "square of a 2 x 3 matrix exits 1"
ok "$(has "squaring needs a square matrix" "$tmp/err")" "square of a 2 x 3 matrix says it needs a square one"
if asan_built; then
    skip "a 2147483647 x 2147483647 file is refused within 4 GiB" "AddressSanitizer needs more address space"
    skip "and says how much it needs" "AddressSanitizer needs more address space"
else
    printf '%%%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 1\n' >"$tmp/huge.mtx"
    (ulimit -v 4194304; "$hsp" square "$tmp/huge.mtx") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ]; ok $? "a 2147483647 x 2147483647 file is refused within 4 GiB of address space"
    ok "$(has "GiB" "$tmp/err")" "and says how much it needs: $(cat "$tmp/err")"
fi
# Issue 28: a 3-line file of 2147483647 x 2147483647 is refused from its size line, before any of
# it is read: it read 16 GiB of row pointers first (49 s), then refused the product. Under the
# machine's memory, or 16 GiB where the machine has the 72 GiB its row arrays need.
printf '%%%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 1.0\n' >"$tmp/huge28.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 0\n' >"$tmp/empty28.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n1 2147483647 1\n1 2147483647 1.0\n' >"$tmp/wide28.mtx"
limit=""
[ "$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)" -lt 75000000 ] || limit=--mem-limit=17179869184
# quick CMD...: run CMD for at most 20 s (status 124 when cut off); took: the seconds it ran.
quick() {
    start=$(date +%s)
    timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$? took=$(($(date +%s) - start))
}
quick "$hsp" square "$tmp/huge28.mtx" $limit
[ $rc -eq 1 ]; ok $? "square of a 3-line 2147483647 x 2147483647 file exits 1 (124: cut off after 20 s): $rc"
[ $took -le 5 ]; ok $? "within seconds: $took s"
ok "$(has "huge28.mtx declares 2147483647 x 2147483647" "$tmp/err")" "the message names the shape: $(cat "$tmp/err")"
ok "$(has "take 77309411328 bytes (72.0 GiB)" "$tmp/err")" "the bytes its row arrays need (36 a row)"
ok "$(has "--mem-limit" "$tmp/err")" "and the option that raises the limit"
for cmd in "multiply huge28 huge28" "rap huge28 huge28" "rap --order=ra-p huge28 huge28" "amg-setup huge28" \
           "square empty28" "multiply empty28 empty28"; do
    set -- $cmd
    c=$1 && shift
    quick "$hsp" $c $(for m in "$@"; do case $m in -*) echo "$m" ;; *) echo "$tmp/$m.mtx" ;; esac; done) $limit
    [ $rc -eq 1 ] && [ $took -le 5 ] && [ "$(has "declares 2147483647 x 2147483647" "$tmp/err")" -eq 0 ]
    ok $? "$cmd: refused within seconds ($rc, $took s): $(cat "$tmp/err")"
done
quick "$hsp" info "$tmp/wide28.mtx" --quiet
[ $rc -eq 0 ] && [ "$(has "1 x 2147483647, nnz 1" "$tmp/out")" -eq 0 ]; ok $? "info of a 1 x 2147483647 file reads it ($took s)"
quick "$hsp" square "$tmp/wide28.mtx"
[ $rc -eq 1 ]; ok $? "square of it: $(cat "$tmp/err")"
printf '%%%%MatrixMarket matrix coordinate real general\n50000000 50000000 1\n1 1 1\n' >"$tmp/tall.mtx"
run "$hsp" square "$tmp/tall.mtx" --mem-limit=100000000
[ $rc -eq 1 ]; ok $? "a 50000000 x 50000000 file is refused under --mem-limit=100000000"
ok "$(has "more than the memory limit (100000000 bytes)" "$tmp/err")" "and says how much it needs: $(cat "$tmp/err")"
run "$hsp" info "$tmp/tall.mtx" --mem-limit=100000000 --quiet
[ $rc -eq 1 ]; ok $? "info reads within --mem-limit too"
# Issue 56: info and spmm read huge28.mtx until the OOM killer came (the limit was the machine's
# memory, not what is free, and they had no check before reading): every command that reads a file
# refuses it from its size line, within the memory available (less under ulimit -v) or --mem-limit.
if asan_built; then
    skip "info, spmm and bench refuse huge28.mtx within 4 GiB" "AddressSanitizer needs more address space"
else
    for cmd in info "spmm --cols=2" "bench --suite=graph --peers=none --csv=$tmp/huge.csv"; do
        (ulimit -v 4194304; timeout 20 "$hsp" $cmd "$tmp/huge28.mtx") >"$tmp/out" 2>"$tmp/err"
        rc=$?
        [ $rc -eq 1 ] && grep -q "declares 2147483647 x 2147483647.*more than the memory available" "$tmp/err"
        ok $? "$cmd: huge28.mtx refused before reading within 4 GiB of address space ($rc): $(cat "$tmp/err")"
    done
fi
run "$hsp" spmm "$tmp/huge28.mtx" --cols=2 --mem-limit=1G
[ $rc -eq 1 ] && grep -q "68719476704 bytes of dense B and C, .*than the memory limit (1073741824 bytes)" "$tmp/err"
ok $? "spmm --mem-limit=1G counts A's row pointers, B and C: $(cat "$tmp/err")"
run "$hsp" square "$tmp/tall.mtx" --mem-limit=100M
[ $rc -eq 1 ] && grep -q "more than the memory limit (104857600 bytes)" "$tmp/err"; ok $? "--mem-limit=100M is 100 MiB"
run "$hsp" square "$tmp/tall.mtx" --mem-limit=100X
[ $rc -eq 2 ] && grep -q "512M or 4G" "$tmp/err"; ok $? "--mem-limit=100X is refused, saying what it takes"
# Issue 56: a product that overflowed wrote inf, which info refused to read; C's values that are not
# finite are written as inf or nan and read back, with a warning, or an error under --nonfinite=fail.
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1e300\n2 2 -1\n' >"$tmp/big.mtx"
run "$hsp" square "$tmp/big.mtx" -o "$tmp/inf.mtx"
[ $rc -eq 0 ] && grep -q "^1 1 inf$" "$tmp/inf.mtx" &&
    grep -q "square: warning: 1 value of C is not finite (inf or nan), the first at row 1, column 1" "$tmp/err"
ok $? "square of a matrix holding 1e300 writes inf and warns: $(cat "$tmp/err")"
run "$hsp" info "$tmp/inf.mtx"
[ $rc -eq 0 ] && grep -q "2 x 2, nnz 2" "$tmp/out"; ok $? "info reads the inf it wrote: $(cat "$tmp/err")"
run "$hsp" square "$tmp/big.mtx" -o "$tmp/inf2.mtx" --nonfinite=fail
[ $rc -eq 1 ] && [ ! -e "$tmp/inf2.mtx" ] && grep -q "C is not written (--nonfinite=fail)" "$tmp/err"
ok $? "--nonfinite=fail exits 1 and writes nothing"
run "$hsp" rap "$tmp/big.mtx" "$tmp/big.mtx" --nonfinite=ignore
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]; ok $? "--nonfinite=ignore says nothing"
run "$hsp" rap "$tmp/big.mtx" "$tmp/big.mtx"
[ $rc -eq 0 ] && grep -q "rap: warning: 1 value of C" "$tmp/err"; ok $? "rap warns too (C not asked for)"
run "$hsp" square "$tmp/big.mtx" --nonfinite=maybe
[ $rc -eq 2 ]; ok $? "--nonfinite=maybe is refused"
# outputs against products worked out by hand (tests/data/known_*.mtx)
run "$hsp" square "$data/known_a.mtx" -o "$tmp/k1.mtx"
cmp -s "$tmp/k1.mtx" "$data/known_a_squared.mtx"; ok $? "square -o writes A*A, entry by entry"
run "$hsp" square "$data/known_a.mtx" --precision=float -o "$tmp/k2.mtx"
cmp -s "$tmp/k2.mtx" "$data/known_a_squared.mtx"; ok $? "square --precision=float -o writes A*A"
run "$hsp" multiply "$data/known_a.mtx" "$data/known_b.mtx" -o "$tmp/k3.mtx"
cmp -s "$tmp/k3.mtx" "$data/known_a_times_b.mtx"; ok $? "multiply -o writes A*B (3 x 3 times 3 x 2)"
run "$hsp" rap "$data/known_a.mtx" "$data/known_b.mtx" -o "$tmp/k4.mtx"
cmp -s "$tmp/k4.mtx" "$data/known_rap.mtx"; ok $? "rap -o writes P^T*A*P"
echo old >"$tmp/keep.mtx"
(trap '' XFSZ; ulimit -f 8; "$hsp" square --gen=poisson2d5:60 -o "$tmp/keep.mtx") >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(cat "$tmp/keep.mtx")" = old ]
ok $? "a write that fails (file size limit) leaves the old file: $(cat "$tmp/err")"
[ -z "$(ls "$tmp" | grep '\.tmp$')" ]; ok $? "and no temporary file beside it"
run "$hsp" square --gen=poisson2d5:6 -o /dev/null
ok $rc "-o /dev/null writes to the device in place"
# Issue 56: -o /dev/full said "Inappropriate ioctl for device" (a stale errno); a report lost on a
# full stdout exited 0; -o - made a file named '-'.
if [ -w /dev/full ]; then
    run "$hsp" square --gen=poisson2d5:6 -o /dev/full
    [ $rc -eq 1 ] && grep -q "/dev/full: write failed: No space left on device" "$tmp/err"
    ok $? "-o /dev/full says no space is left: $(cat "$tmp/err")"
    "$hsp" info --gen=poisson2d5:6 >/dev/full 2>"$tmp/err"
    [ $? -eq 1 ] && grep -q "writing the standard output: No space left on device" "$tmp/err"
    ok $? "a report to a full stdout exits 1, saying so: $(cat "$tmp/err")"
else
    skip "-o /dev/full" "no /dev/full here"
    skip "a report to a full stdout" "no /dev/full here"
fi
hsp_path=$(cd "$(dirname "$hsp")" && pwd)/hspgemm
(cd "$tmp" && "$hsp_path" square --gen=poisson2d5:6 -o - >"$tmp/dash.mtx" 2>"$tmp/err")
"$hsp" square --gen=poisson2d5:6 -o "$tmp/file.mtx" >/dev/null
[ ! -e "$tmp/-" ] && cmp -s "$tmp/dash.mtx" "$tmp/file.mtx" && grep -q "^C: 36 x 36" "$tmp/err"
ok $? "-o - writes C to stdout (the figures to stderr), no file named '-'"
run "$hsp" spmm --gen=poisson2d5:6 --cols=2 -o -
[ $rc -eq 0 ] && [ "$(head -2 "$tmp/out" | tr '\n' ' ')" = "%%MatrixMarket matrix array real general 36 2 " ]
ok $? "spmm -o - writes C to stdout"
run "$hsp" square "$tmp/missing.mtx"
[ $rc -eq 1 ]; ok $? "a missing file exits 1"
ok "$(has "missing.mtx" "$tmp/err")" "and names the file"
run "$hsp" multiply "$tmp/a.mtx" --gen=poisson2d5:5
[ $rc -eq 1 ]; ok $? "a shape mismatch exits 1"
ok "$(has "shape mismatch" "$tmp/err")" "and says so"
run "$hsp" square "$tmp/a.mtx" --grow=sideways
[ $rc -eq 2 ]; ok $? "a bad option value exits 2"
ok "$(has "realloc or copy" "$tmp/err")" "and says what it takes"
# Issue 56: bad usage exits 2 as said above, also where the library refuses the text (a device or a
# generator spec; they exited 1); a usage error prints one line and where the help is (it printed
# the whole help), an overlong value cut; square's errors are square's (they said multiply).
run "$hsp" square --gen=cube:3
[ $rc -eq 2 ]; ok $? "an unknown generator exits 2"
run "$hsp" square --gen=poisson2d5:10 --device=cuda
[ $rc -eq 2 ]; ok $? "an unknown device exits 2"
ok "$(has "unknown device" "$tmp/err")" "and says so"
for bad in "--gen=poisson2d5:10 --device=opencl:99" --gen=poisson2d5:0 "--gen=poisson2d5:10 --wavefront=3" \
           --gen=random:10,20; do
    run "$hsp" square $bad
    [ $rc -eq 2 ] && grep -q "invalid argument" "$tmp/err"; ok $? "square $bad exits 2: $(cat "$tmp/err")"
done
run "$hsp" spmm --gen=poisson2d5:10 --cols=2 --device=opencl:99
[ $rc -eq 2 ]; ok $? "spmm --device=opencl:99 exits 2, before reading A"
run "$hsp" bench --suite=quick --device=bogus --peers=none --csv="$tmp/bogus.csv"
[ $rc -eq 2 ] && [ ! -e "$tmp/bogus.csv" ]; ok $? "bench --device=bogus exits 2 before the first product"
run "$hsp" square "$tmp/a.mtx" --grow=sideways
[ "$(wc -l <"$tmp/err")" -eq 2 ] && grep -q "^(see 'hspgemm square --help')$" "$tmp/err"
ok $? "a usage error is its line and where the help is: $(cat "$tmp/err")"
long=$(printf '%0300d' 0)
run "$hsp" square --gen=poisson2d5:10 --device="x$long"
[ $rc -eq 2 ] && [ "$(wc -c <"$tmp/err")" -lt 200 ] && grep -q "x0000000000.*\.\.\." "$tmp/err"
ok $? "an overlong value is cut in the message: $(cat "$tmp/err")"
run "$hsp" square --gen="x$long"
[ $rc -eq 2 ] && [ "$(wc -c <"$tmp/err")" -lt 300 ]; ok $? "an overlong generator spec too"
run "$hsp" square --gen=poisson2d5:30 --mem-limit=1K
[ $rc -eq 1 ] && grep -q "^hspgemm: square: out of memory" "$tmp/err"; ok $? "square's errors say square"
run "$hsp" bench --suite=quick "$tmp/a.mtx"
[ $rc -eq 2 ] && grep -q "suite=quick takes no file (.*a.mtx)" "$tmp/err"
ok $? "bench --suite=quick FILE says the suite takes no file: $(cat "$tmp/err")"
run "$hsp" bench --suite=quik
[ $rc -eq 2 ] && grep -q "unknown suite 'quik' (the suites: default, paper, quick" "$tmp/err"
ok $? "an unknown suite is named, with the suites"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1.0\n' >"$tmp/bad.mtx"
run "$hsp" square "$tmp/bad.mtx"
[ $rc -eq 1 ]; ok $? "a malformed file exits 1"
ok "$(has "bad.mtx:3" "$tmp/err")" "and names its line"

run "$hsp" devices
ok $rc "devices runs"
ok "$(has "^cpu .*host" "$tmp/out")" "devices lists cpu first"
ok "$(has "\[auto\]" "$tmp/out")" "devices marks what auto picks"
ocl=$(awk '$1 ~ /^opencl:/ { print $1; exit }' "$tmp/out") # the first OpenCL device devices lists
run "$hsp" devices extra
[ $rc -eq 2 ]; ok $? "devices with an argument exits 2"
# devices --build: an OpenCL device opened (its kernels built or found in the cache), a line each
if [ -n "$ocl" ]; then
    run "$hsp" devices --build --device="$ocl"
    [ $rc -eq 0 ] && grep -q "^$ocl .*: kernels ready (" "$tmp/out" && [ "$(wc -l <"$tmp/out")" -eq 1 ]
    ok $? "devices --build --device=$ocl: kernels ready, one line"
else
    skip "devices --build --device=opencl:N" "no OpenCL device here"
fi
run "$hsp" devices --build --device=cpu
[ $rc -eq 2 ] && grep -q "no usable OpenCL device of that name" "$tmp/err"
ok $? "devices --build --device=cpu: nothing to build, exit status 2"

# hsa without an AMD GPU (every machine here): refused saying why, and auto
# passes over it and says so; built without hsa, it is refused as such.
run "$hsp" square --gen=poisson2d5:10 --device=hsa
[ $rc -eq 1 ]; ok $? "--device=hsa without a usable AMD GPU exits 1"
built=yes
if grep -q "not built" "$tmp/err"; then
    built=no note='"device_note":""'
elif [ ! -e /dev/kfd ]; then
    ok "$(has "no AMD GPU: /dev/kfd" "$tmp/err")" "and says /dev/kfd is missing"
    note='"device_note":"auto passed over hsa: device .hsa.: no AMD GPU'
else
    note='"device_note":"auto passed over hsa'
fi
run "$hsp" square --gen=poisson2d5:10 --stats=json
ok $rc "auto runs"
ok "$(has "$note" "$tmp/out")" "auto's stats say what it passed over"
run "$hsp" square --gen=poisson2d5:10 --device=hsa,fast
[ $rc -eq 2 ]; ok $? "a bad hsa option is refused (bad usage)"
[ $built = no ] || [ "$(has "give hsa.:N.\[,nosvm\]" "$tmp/err")" -eq 0 ]; ok $? "and says what hsa takes"

# Issue 56: a GPU device left small products to the CPU threads saying so only under --stats.
dev=$(opencl_device "buffer SVM")
if [ -n "$dev" ]; then
    run "$hsp" square --gen=poisson2d5:30 --device="$dev"
    [ $rc -eq 0 ] && grep -q "^(ran on the CPU threads: a product whose A and B hold at most --small-nnz" "$tmp/out"
    ok $? "square on $dev says a small product ran on the CPU threads: $(tail -1 "$tmp/out")"
    run "$hsp" rap --gen=poisson2d5:30 --gen=random:900,2 --device="$dev"
    [ $rc -eq 0 ] && grep -q "^(both products ran on the CPU threads" "$tmp/out"; ok $? "rap says so too"
    run "$hsp" square --gen=poisson2d5:30 --device="$dev" --small-nnz=-1
    [ $rc -eq 0 ] && ! grep -q "CPU threads" "$tmp/out"; ok $? "and not where the device ran it (--small-nnz=-1)"
    # Issue 56: a GPU device's first use built its kernels for seconds to minutes without a word.
    run env HSPGEMM_CACHE_DIR="$tmp/kernels" "$hsp" square --gen=poisson2d5:6 --device="$dev"
    built="^hspgemm: building the OpenCL kernels for .* (once: they are cached in $tmp/kernels) ...$"
    [ $rc -eq 0 ] && [ "$(grep -c "$built" "$tmp/err")" -eq 1 ]
    ok $? "the first use of $dev says, in one line, that its kernels are being built: $(cat "$tmp/err")"
    run env HSPGEMM_CACHE_DIR="$tmp/kernels" "$hsp" square --gen=poisson2d5:6 --device="$dev"
    [ $rc -eq 0 ] && [ ! -s "$tmp/err" ]; ok $? "the next, from the cache, says nothing"
    run env HSPGEMM_CACHE_DIR=off "$hsp" square --gen=poisson2d5:6 --device="$dev" --quiet
    [ $rc -eq 0 ] && [ ! -s "$tmp/err" ]; ok $? "nor does --quiet"
else
    for t in square rap "--small-nnz=-1"; do skip "$t says a small product ran on the CPU threads" "no PoCL"; done
    for t in "first use" "next" "--quiet"; do skip "$t: the notice of a kernel build" "no PoCL"; done
fi

# Galerkin products and AMG set-up
# (on the cpu device: another device, or another method, sums in another order)
run "$hsp" rap "$tmp/a.mtx" --gen=random:144,2 -o "$tmp/c.mtx" --device=cpu
ok $rc "rap A P (R = P^T) runs"
ok "$(has "^%%MatrixMarket" "$tmp/c.mtx")" "and writes C"
run "$hsp" rap "$tmp/a.mtx" --gen=random:144,2 -o "$tmp/c2.mtx" --resident --stats=json --device=cpu
ok $rc "rap --resident runs"
cmp -s "$tmp/c.mtx" "$tmp/c2.mtx"; ok $? "and writes the same C"
ok "$(has '"resident":true' "$tmp/out")" "its JSON says resident"
run "$hsp" square "$tmp/a.mtx" -o "$tmp/s1.mtx" --device=cpu
run "$hsp" square "$tmp/a.mtx" -o "$tmp/s2.mtx" --resident --stats=json --device=cpu
ok $rc "square --resident runs"
cmp -s "$tmp/s1.mtx" "$tmp/s2.mtx"; ok $? "and writes the same C as square"
ok "$(has '"resident":true,"ms_place":[0-9.]*,"ms_home":[0-9.]*' "$tmp/out")" \
    "its JSON gives the times of placing and home"
run "$hsp" square --gen=random:300,12 --device=cpu -o "$tmp/u0.mtx"
run "$hsp" square --gen=random:300,12 --device=cpu -o "$tmp/u1.mtx" --unsorted
ok $rc "square --unsorted runs"
! cmp -s "$tmp/u0.mtx" "$tmp/u1.mtx"; ok $? "and writes C's entries in another order"
sort "$tmp/u0.mtx" >"$tmp/u0.sorted"; sort "$tmp/u1.mtx" >"$tmp/u1.sorted"
cmp -s "$tmp/u0.sorted" "$tmp/u1.sorted"; ok $? "the same entries, bit for bit"
printf '%%%%MatrixMarket matrix coordinate real general\n1 2 2\n1 1 1\n1 2 1\n' >"$tmp/row.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 1 2\n1 1 1\n2 1 -1\n' >"$tmp/col.mtx"
run "$hsp" multiply "$tmp/row.mtx" "$tmp/col.mtx"
ok "$(has "nnz 1," "$tmp/out")" "multiply keeps the entry that cancels to 0"
run "$hsp" multiply "$tmp/row.mtx" "$tmp/col.mtx" --drop-zeros -o "$tmp/z.mtx"
ok "$(has "nnz 0," "$tmp/out")" "multiply --drop-zeros leaves it out"
ok "$(has "^1 1 0$" "$tmp/z.mtx")" "and writes a 1 x 1 C of no entries"
run "$hsp" multiply "$tmp/row.mtx" "$tmp/col.mtx" --drop-zeros --resident
[ $rc -eq 2 ]; ok $? "--drop-zeros with --resident exits 2"
# Issue 56: --resident --unsorted and --pattern --drop-zeros were taken, the second flag ignored.
run "$hsp" square "$tmp/a.mtx" --resident --unsorted
[ $rc -eq 2 ] && grep -q "unsorted: not with --resident" "$tmp/err"; ok $? "--unsorted with --resident exits 2"
run "$hsp" multiply "$tmp/row.mtx" "$tmp/col.mtx" --pattern --drop-zeros
[ $rc -eq 2 ] && grep -q "pattern --drop-zeros: a pattern is where products land" "$tmp/err"
ok $? "--pattern with --drop-zeros exits 2, saying why"
run "$hsp" square "$tmp/a.mtx" --methods=bitmap --stats -o "$tmp/c4.mtx"
cmp -s "$tmp/c1.mtx" "$tmp/c4.mtx"; ok $? "square --methods=bitmap gives the same C"
ok "$(has "method bitmap: C in" "$tmp/out")" "and its figures say so"
run "$hsp" square "$tmp/a.mtx" --methods=bitmap --pattern -o "$tmp/p.mtx"
ok "$(awk 'NR > 2 && $3 != 1 { bad = 1 } END { print (bad || NR < 3) ? 1 : 0 }' "$tmp/p.mtx")" "square --pattern writes every value as 1"
run "$hsp" square "$tmp/a.mtx" --methods=bitmap --resident
[ $rc -eq 2 ]; ok $? "--methods=bitmap with --resident exits 2"
ok "$(has "not with --resident" "$tmp/err")" "and says why"
run "$hsp" amg-setup --gen=poisson2d5:200 --theta=0.25
ok "$(has "^    1       6700 " "$tmp/out")" "amg-setup --theta=0.25 coarsens a 5-point stencil as PyAMG does (6700 rows)"
run "$hsp" rap --gen=random:144,2 "$tmp/a.mtx" --gen=random:144,2 --order=ra-p --stats=json
ok $rc "rap R A P in the order (R*A)*P runs"
ok "$(has '"order":"ra-p".*"ms_products":\[' "$tmp/out")" "and its JSON gives the order and each product's time"
run "$hsp" rap "$tmp/a.mtx"
[ $rc -eq 2 ]; ok $? "rap with one matrix exits 2"
run "$hsp" rap "$tmp/a.mtx" "$tmp/a.mtx" --order=backwards
[ $rc -eq 2 ]; ok $? "rap with a bad order exits 2"
run "$hsp" rap "$tmp/a.mtx" --gen=random:10,2
[ $rc -eq 1 ]; ok $? "rap with P of the wrong height exits 1"
ok "$(has "shape mismatch" "$tmp/err")" "and says so"
run "$hsp" amg-setup --gen=poisson2d5:60 --coarse=100 --resetup --write-levels="$tmp/levels/deeper"
ok $rc "amg-setup runs"
ok "$(has "^    1 " "$tmp/out")" "amg-setup prints a table of levels"
ok "$(has "faster" "$tmp/out")" "amg-setup --resetup compares the two times"
[ -s "$tmp/levels/deeper/A1.mtx" ] && [ -s "$tmp/levels/deeper/P0.mtx" ]
ok $? "amg-setup --write-levels writes A and P of each level, into a directory made with its parent"
levels="$tmp/levels/deeper" l=0 same=0
while [ -s "$levels/P$l.mtx" ]; do
    "$hsp" rap "$levels/A$l.mtx" "$levels/P$l.mtx" -o "$tmp/rap$l.mtx" >/dev/null &&
        close "$tmp/rap$l.mtx" "$levels/A$((l + 1)).mtx" || same=1
    l=$((l + 1))
done
[ $l -ge 2 ]; ok $? "amg-setup --write-levels writes $l levels' P"
ok $same "each written A_{l+1} is P_l^T A_l P_l as hspgemm rap computes it from the written A_l and P_l, to rounding"
run "$hsp" amg-setup --gen=poisson2d5:60 --coarse=100 --resident --device=cpu --write-levels="$tmp/resident"
ok "$(has "brought home" "$tmp/out")" "amg-setup --resident times placing and bringing home apart"
same=0
for f in A0 P0 A1 P1 A2; do cmp -s "$tmp/levels/deeper/$f.mtx" "$tmp/resident/$f.mtx" || same=1; done
ok $same "amg-setup --resident on the cpu device writes the levels of the host setup"
run "$hsp" amg-setup --gen=poisson2d5:60 --coarse=100 --resident --resetup --device=cpu --write-levels="$tmp/resetup"
ok "$(has "faster" "$tmp/out")" "amg-setup --resident --resetup compares the two times"
same=0
for f in A0 P0 A1 P1 A2; do cmp -s "$tmp/levels/deeper/$f.mtx" "$tmp/resetup/$f.mtx" || same=1; done
ok $same "amg-setup --resident --resetup writes the levels of A after setting A back"
run "$hsp" amg-setup --gen=random:100,3 --coarse=10
[ $rc -eq 1 ]; ok $? "amg-setup of a matrix without a full diagonal exits 1"
ok "$(has "diagonal" "$tmp/err")" "and says why"
run "$hsp" amg-setup --gen=poisson2d5:10 --theta=-1
[ $rc -eq 2 ]; ok $? "amg-setup with a negative theta exits 2"
# Issue 56: the diagonal was checked only where the set-up coarsened (a matrix of no more rows than
# --coarse exited 0, its summary naming no device), rows were named from 0, a 0 x 0 A exited 0.
run "$hsp" amg-setup --gen=random:100,3
[ $rc -eq 1 ] && grep -q "has no nonzero diagonal entry" "$tmp/err" && [ ! -s "$tmp/out" ]
ok $? "amg-setup of 100 rows (below --coarse) without a full diagonal exits 1: $(cat "$tmp/err")"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 4\n2 1 1\n' >"$tmp/nodiag.mtx"
run "$hsp" amg-setup "$tmp/nodiag.mtx" --coarse=1
[ $rc -eq 1 ] && grep -q "row 2 of A (counted from 1, as in a Matrix Market file) has no nonzero diagonal" "$tmp/err"
ok $? "and names the row as the file counts it: $(cat "$tmp/err")"
printf '%%%%MatrixMarket matrix coordinate real general\n0 0 0\n' >"$tmp/zero.mtx"
run "$hsp" amg-setup "$tmp/zero.mtx"
[ $rc -eq 1 ] && grep -q "A is 0 x 0" "$tmp/err"; ok $? "amg-setup of a 0 x 0 matrix exits 1"

# amg-solve: the hierarchy's set-up, then CG preconditioned by its cycles (issue 57)
run "$hsp" amg-solve --gen=poisson2d5:64 --coarse=10
ok $rc "amg-solve runs"
ok "$(has "^converged after [0-9]* iterations" "$tmp/out")" "amg-solve converges: $(grep converged "$tmp/out")"
ok "$(has "time to solution" "$tmp/out")" "amg-solve prints the time to solution"
[ "$(grep -c '^ *[0-9]*  [0-9.]*e[-+][0-9]*$' "$tmp/out")" -ge 5 ]; ok $? "amg-solve prints the residual history"
run "$hsp" amg-solve --gen=poisson3d7:12 --smoother=chebyshev --cycle=W --accel=none --pre=2 --post=2 \
    --precision=float --tol=1e-5 --stats=json -o "$tmp/x.mtx"
[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ]; ok $? "amg-solve --stats=json prints one line"
for key in setup_ms solve_ms total_ms iterations history residual; do
    ok "$(has "\"$key\":" "$tmp/out")" "amg-solve --stats=json has $key"
done
ok "$(has '"converged":true' "$tmp/out")" "amg-solve W(2,2) Chebyshev stationary in float converges"
ok "$(has '"float_levels":false' "$tmp/out")" "amg-solve of a float A: no float levels (nothing to copy)"
run "$hsp" amg-solve --gen=poisson3d7:12 --stats=json
ok "$(has '"float_levels":true' "$tmp/out")" "amg-solve of a double A: float levels by default"
run "$hsp" amg-solve --gen=poisson3d7:12 --float-levels=no
ok "$(has "^smoothed aggregation: [0-9]* levels, rows" "$tmp/out")" "amg-solve --float-levels=no: levels of A's precision"
run "$hsp" amg-solve --gen=poisson3d7:12
ok "$(has "^smoothed aggregation: [0-9]* levels (float but A), rows" "$tmp/out")" "amg-solve says its levels are float"
run "$hsp" bench --suite=quick --float-levels=yes
[ $rc -eq 2 ] && grep -q "option of --suite=solve" "$tmp/err"; ok $? "bench --float-levels: the solve suites' alone"
run "$hsp" amg-solve --gen=aniso2d:64 --coarsening=classical --coarse=20 --stats=json
ok "$(has '"coarsening":"classical"' "$tmp/out")" "amg-solve --coarsening=classical says so"
ok "$(has '"converged":true' "$tmp/out")" "amg-solve --coarsening=classical converges on aniso2d:64"
run "$hsp" amg-setup --gen=aniso2d:64 --coarsening=classical --coarse=20
ok "$(has "^classical AMG (Ruge-Stueben splitting, extended+i interpolation), theta 0.25" "$tmp/out")" \
    "amg-setup --coarsening=classical: theta 0.25 by default"
run "$hsp" amg-setup --gen=elasticity2d:8 --coarsening=classical --coarse=20
ok "$(has "near-nullspace: the constant vector" "$tmp/out")" "classical AMG of elasticity2d: no rigid-body modes"
run "$hsp" amg-setup --gen=poisson2d5:16 --coarsening=ruge
[ $rc -eq 2 ] && grep -q "coarsening takes aggregation or classical" "$tmp/err"; ok $? "--coarsening=ruge refused"
run "$hsp" bench --suite=amg --coarsening=classical
[ $rc -eq 2 ] && grep -q "coarsening is an option of --suite=solve" "$tmp/err"; ok $? \
    "bench --coarsening: the solve suites' alone"
run "$hsp" amg-solve --gen=poisson3d7:12 --rhs="$tmp/x.mtx" --maxiter=2 --tol=1e-14
[ $rc -eq 0 ] && grep -q "NOT converged after 2 iterations" "$tmp/out"
ok $? "amg-solve --rhs reads b (x of before); maxiter reached is no error"
run "$hsp" amg-solve --gen=poisson2d5:10 --rhs="$tmp/x.mtx"
[ $rc -eq 1 ] && grep -q "give 100 x 1" "$tmp/err"; ok $? "amg-solve refuses a b of another length: $(cat "$tmp/err")"
for bad in --smoother=sor --cycle=F --accel=gmres --tol=-1 --maxiter=-2 --pre=101 --jacobi-omega=2 --degree=0 \
    --chebyshev-lower=0 --chebyshev-lower=1.1 --float-levels=maybe; do
    run "$hsp" amg-solve --gen=poisson2d5:10 "$bad"
    [ $rc -eq 2 ]; ok $? "amg-solve $bad exits 2: $(head -1 "$tmp/err")"
done
run "$hsp" amg-solve --gen=random:100,3
[ $rc -eq 1 ] && grep -q "amg-solve: row" "$tmp/err"; ok $? "amg-solve of a matrix without a full diagonal exits 1"
run "$hsp" amg-setup --gen=poisson2d5:10
[ $rc -eq 0 ] && ! grep -q "^:" "$tmp/out"; ok $? "a hierarchy of one level names no empty device"
# Issue 56: output paths were checked after the work (square printed C's figures, amg-setup ran
# the whole set-up, then each failed): now before, as bench checks its CSV.
touch "$tmp/plain"
run "$hsp" square --gen=poisson2d5:60 -o "$tmp/nodir/o.mtx"
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "cannot write $tmp/nodir/o.mtx: no folder" "$tmp/err"
ok $? "square -o into a missing folder is refused before the product: $(cat "$tmp/err")"
run "$hsp" amg-setup --gen=poisson2d5:60 --write-levels="$tmp/plain/sub"
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "write-levels=$tmp/plain/sub: Not a directory" "$tmp/err"
ok $? "amg-setup --write-levels under a file is refused before the set-up: $(cat "$tmp/err")"

run "$hsp" bench --suite=quick --peers=none --repeat=1 --csv="$tmp/b.csv"
ok $rc "bench --suite=quick runs"
[ "$(wc -l <"$tmp/b.csv")" -eq 4 ]; ok $? "bench writes a CSV row per matrix"
ok "$(has '^"rmat:9,8",' "$tmp/b.csv")" "bench quotes a matrix name with a comma in the CSV"
ok "$(has "poisson3d27:8" "$tmp/out")" "bench prints the table"
run "$hsp" bench --suite=graph --gen=rmat:8,4 --peers=none --repeat=1 --csv="$tmp/gr.csv"
ok "$(has "^ *bitmap .*entries a block of C" "$tmp/out")" "bench --suite=graph times the bitmap method too"
ok "$(has "bitmap_ms" "$tmp/gr.csv")" "and writes its times in the CSV"
run "$hsp" bench --suite=graph "$tmp/a.mtx" --peers=none --repeat=1 --csv="$tmp/gf.csv"
ok "$(has '^"a.mtx",' "$tmp/gf.csv")" "bench --suite=graph reads a file given, named by its base name"
run "$hsp" bench --suite=quick "$tmp/a.mtx" --peers=none --repeat=1
[ $rc -eq 2 ]; ok $? "other product suites take no file"

if [ -x "${top_builddir:-.}/bench/peer_mkl" ]; then
    run "$hsp" bench --suite=quick --peers=mkl --repeat=1 --csv="$tmp/m.csv"
    [ "$(grep -c "^  *mkl  .*x" "$tmp/out")" -eq 3 ] && ! grep -q "differs" "$tmp/out"
    ok $? "bench --peers=mkl: a line for oneMKL a matrix, nnz(C) as hspgemm's"
    run "$hsp" bench --suite=amg --gen=poisson2d5:40 --coarse=50 --repeat=1 --peers=none --csv="$tmp/a.csv"
[ $rc -eq 0 ] && grep -q "^poisson2d5:40 .*hspgemm .*levels 1600/" "$tmp/out" && [ "$(wc -l <"$tmp/a.csv")" -eq 2 ]
ok $? "bench --suite=amg times amg-setup and prints its levels"
if python=$(for p in "${HSPGEMM_PYTHON:-}" /opt/hspgemm-python/bin/python3 python3 /usr/bin/python3; do
                [ -n "$p" ] && "$p" -c 'import pyamg' 2>/dev/null && echo "$p" && break; done); then
    # the script is in the source tree (a build elsewhere has no copy in its bench/)
    run env HSPGEMM_PEER_DIR="${top_srcdir:-.}/bench" "$hsp" bench --suite=amg --gen=poisson2d5:40 --coarse=50 \
        --repeat=1 --csv="$tmp/a.csv"
    grep -q "^  *pyamg .*x  levels 1600/" "$tmp/out" && grep -q "speedup over PyAMG" "$tmp/out"
    ok $? "bench --suite=amg runs PyAMG on the same problem ($python)"
else
    skip "bench --suite=amg against PyAMG" "no python3 with pyamg (build-aux/install-peer-python.sh)"
fi
# column NAME FILE: the values of CSV column NAME (by its header), one a line.
column() { awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$2"; }
run "$hsp" bench --suite=solve-quick --repeat=1 --peers=none --threads=2 --csv="$tmp/s.csv"
[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/s.csv")" -eq 7 ] && [ "$(column program "$tmp/s.csv" | sort -u)" = hspgemm ] &&
    [ "$(column problem "$tmp/s.csv" | tr -d '"' | tr '\n' ' ')" = \
      "poisson2d5:128 poisson2d9:128 poisson3d7:24 poisson3d27:24 aniso2d:128 elasticity2d:64 " ] &&
    head -1 "$tmp/s.csv" | grep -q "^problem,program,.*,setup_ms,.*,solve_ms,.*,total_ms,.*,iterations,relres,"
ok $? "bench --suite=solve-quick: a CSV row for hspgemm on each of its six problems, with its columns"
[ "$(column relres "$tmp/s.csv" | awk '$1 == "" || $1 + 0 > 1e-8' | wc -l)" -eq 0 ] &&
    [ "$(column converged "$tmp/s.csv" | sort -u)" = 1 ] && grep -q "^elasticity2d:64 .*hspgemm " "$tmp/out" &&
    grep -q "rigid-body modes of elasticity2d:64" "$tmp/out" && [ -s "$tmp/s.json" ]
ok $? "and every problem converged to relres <= 1e-8 (elasticity by its rigid-body modes); the JSON beside it"
if [ -n "$python" ]; then
    run env HSPGEMM_PEER_DIR="${top_srcdir:-.}/bench" "$hsp" bench --suite=solve --gen=poisson2d5:40 \
        --gen=elasticity2d:12 --repeat=1 --peers=pyamg --csv="$tmp/sp.csv"
    [ $rc -eq 0 ] && [ "$(column program "$tmp/sp.csv" | tr '\n' ' ')" = \
                       "hspgemm pyamg pyamg-ours hspgemm pyamg pyamg-ours " ] &&
        [ "$(column relres "$tmp/sp.csv" | awk '$1 == "" || $1 + 0 > 1e-8' | wc -l)" -eq 0 ] &&
        grep -q "^  *pyamg-ours  .*x  relres" "$tmp/out" && grep -q "speedup over pyamg-ours" "$tmp/out"
    ok $? "bench --suite=solve --peers=pyamg: rows for PyAMG's default solver and PyAMG with our options ($python)"
else
    skip "bench --suite=solve against PyAMG" "no python3 with pyamg (build-aux/install-peer-python.sh)"
fi
run "$hsp" bench --suite=solve-quick --smoother=sor --peers=none --csv="$tmp/bad.csv"
[ $rc -eq 2 ] && grep -q "smoother takes auto" "$tmp/err" && [ ! -e "$tmp/bad.csv" ]
ok $? "bench --suite=solve refuses a bad --smoother (status 2, no CSV)"
run "$hsp" bench --suite=quick --tol=1e-6 --peers=none --csv="$tmp/bad.csv"
[ $rc -eq 2 ] && grep -q "options of --suite=solve" "$tmp/err"; ok $? "a solve option on a products suite is refused"
run "$hsp" bench --suite=solve-quick --peers=mkl --csv="$tmp/bad.csv"
[ $rc -eq 2 ] && grep -q "not a peer of this suite" "$tmp/err"; ok $? "a products peer on the solve suite is refused"
run "$hsp" bench --suite=solve --gen=poisson2d5:20 --gen=poisson2d5:30 --nullspace="$tmp/none.mtx" --peers=none \
    --repeat=1 --csv="$tmp/sn.csv"
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/sn.csv")" -eq 3 ] && grep -q "none.mtx" "$tmp/err" &&
    grep -q "^poisson2d5:30 .*near-nullspace" "$tmp/out"
ok $? "bench --suite=solve: a problem that fails gets a row saying why, the suite goes on, status 1"

# --nullspace and --block: B checked against A before the set-up.
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n1\n1\n' >"$tmp/b3.mtx"
run "$hsp" amg-solve --gen=poisson2d5:10 --nullspace="$tmp/b3.mtx"
[ $rc -eq 1 ] && grep -q "is 3 x 1: give A's 100 rows" "$tmp/err"; ok $? "amg-solve: a B of the wrong rows is refused"
printf '%%%%MatrixMarket matrix array real general\n100 0\n' >"$tmp/b0.mtx"
run "$hsp" amg-setup --gen=poisson2d5:10 --nullspace="$tmp/b0.mtx"
[ $rc -eq 1 ] && grep -q "is 100 x 0: give A's 100 rows and 1 to 16 columns" "$tmp/err"
ok $? "amg-setup: a B of no columns is refused"
run "$hsp" amg-solve --gen=poisson2d5:10 --nullspace="$tmp/missing.mtx"
[ $rc -eq 1 ] && grep -q "amg-solve: --nullspace: .*missing.mtx" "$tmp/err"; ok $? "amg-solve: a missing B file is said"
run "$hsp" amg-solve --gen=poisson2d5:10 --block=3
[ $rc -eq 2 ] && grep -q "block=3 does not divide A's 100 rows" "$tmp/err"
ok $? "a --block that does not divide A's rows is refused"
run "$hsp" amg-solve --gen=elasticity2d:8 --nullspace=none
[ $rc -eq 0 ] && grep -q "near-nullspace: the constant vector" "$tmp/out"
ok $? "amg-solve --gen=elasticity2d --nullspace=none sets up on the constant vector"
run "$hsp" bench --suite=galerkin --gen=poisson2d5:40 --coarse=50 --repeat=1 --peers=mkl --csv="$tmp/mg.csv"
    [ $rc -eq 0 ] && ! grep -q "differs" "$tmp/out" && grep -q "^  *mkl  .*x" "$tmp/out" &&
        [ -n "$(tail -1 "$tmp/mg.csv" | cut -d, -f"$(head -1 "$tmp/mg.csv" | tr , '\n' | grep -n '^mkl_ms$' | cut -d: -f1)")" ]
    ok $? "bench --suite=galerkin --peers=mkl: MKL's R*A*P of each level, nnz(C) as hspgemm's"
    levels="$tmp/levels/deeper"
    run "${top_builddir:-.}/bench/peer_mkl" --repeat=1 --rap=r-ap "$levels/P0.mtx" "$levels/A0.mtx" "$levels/P0.mtx"
    [ $rc -ne 0 ] && grep -q "shape mismatch: R is" "$tmp/err"
    ok $? "peer_mkl --rap refuses factors whose shapes do not chain"
else
    skip "bench --peers=mkl" "no oneMKL peer (build-aux/install-mkl.py)"
    skip "bench --suite=galerkin --peers=mkl" "no oneMKL peer"
    skip "peer_mkl --rap" "no oneMKL peer"
fi
run "$hsp" bench --suite=galerkin --gen=poisson2d5:40 --coarse=50 --repeat=1 --peers=none --csv="$tmp/g.csv"
ok $rc "bench --suite=galerkin runs"
[ "$(grep -c r-ap "$tmp/g.csv")" -ge 2 ] && [ "$(grep -c ra-p "$tmp/g.csv")" -ge 2 ]
ok $? "it times every level in both orders"

run "$hsp" bench --suite=realloc --device=cpu --repeat=1 --gen=rmat:10,16 "$data/sym_int.mtx" --csv="$tmp/r.csv"
ok $rc "bench --suite=realloc runs on a generated matrix and a file"
[ "$(wc -l <"$tmp/r.csv")" -eq 5 ]; ok $? "it writes a CSV row per matrix and precision"
# columns (the name "rmat:10,16" counts as two): 9 grow_events, 19 bytes copied by copy, 20 by realloc, 21 moves
awk -F, '/^"rmat/ && !($9 > 0 && $19 > 0 && $20 == 0 && $21 == 0) { bad = 1 } END { exit bad }' "$tmp/r.csv"
ok $? "rmat's long rows grow; copy copies, the cpu device's realloc neither copies nor moves"
ok "$(has "^sym_int.mtx  *float" "$tmp/out")" "the table names a file by its name"
set -- $(i=0; while [ $i -lt 65 ]; do echo "$data/sym_int.mtx"; i=$((i + 1)); done)
run "$hsp" bench --suite=realloc --device=cpu "$@"
[ $rc -eq 2 ] && [ "$(has "at most 64" "$tmp/err")" -eq 0 ]; ok $? "65 matrices are refused, naming the limit"


run "$hsp" bench --suite=spmm --gen=poisson2d5:20 --gen=rmat:8,4 --repeat=1 --peers=none --csv="$tmp/s.csv"
[ $rc -eq 0 ] && [ "$(grep -c "check ok" "$tmp/out")" -eq 12 ] && [ "$(wc -l <"$tmp/s.csv")" -eq 13 ]
ok $? "bench --suite=spmm checks and times hsp_spmm for six L on each matrix, a CSV row each"
run "$hsp" bench --suite=spmm --gen=poisson2d5:20 --cols=3 --repeat=1 --peers=none --csv="$tmp/s3.csv"
[ $rc -eq 0 ] && grep -q '^"poisson2d5:20",3,400,' "$tmp/s3.csv" && [ "$(wc -l <"$tmp/s3.csv")" -eq 2 ]
ok $? "bench --suite=spmm --cols=L times that L alone"
run "$hsp" bench --suite=quick --cols=3 --peers=none --csv="$tmp/typo.csv"
[ $rc -eq 2 ] && grep -q "an option of --suite=spmm" "$tmp/err"; ok $? "--cols outside --suite=spmm is refused"
run "$hsp" bench --suite=spmm --peers=graphblas --csv="$tmp/typo.csv"
[ $rc -eq 2 ] && grep -q "not a peer of this suite" "$tmp/err"; ok $? "bench --suite=spmm refuses a SpGEMM-only peer"
if python=$(for p in "${HSPGEMM_PYTHON:-}" /opt/hspgemm-python/bin/python3 python3 /usr/bin/python3; do
                [ -n "$p" ] && "$p" -c 'import scipy' 2>/dev/null && echo "$p" && break; done); then
    run env HSPGEMM_PEER_DIR="${top_srcdir:-.}/bench" "$hsp" bench --suite=spmm --gen=rmat:8,4 --cols=4 --repeat=1 \
        --peers=scipy --csv="$tmp/ss.csv"
    # field 16 is scipy_ms: the name "rmat:8,4" counts as two
    [ $rc -eq 0 ] && grep -q "^  *scipy  .*x" "$tmp/out" && [ -n "$(tail -1 "$tmp/ss.csv" | cut -d, -f16)" ]
    ok $? "bench --suite=spmm --peers=scipy: A @ X beside hspgemm ($python)"
else
    skip "bench --suite=spmm --peers=scipy" "no python3 with scipy (build-aux/install-peer-python.sh)"
fi
if [ -x "${top_builddir:-.}/bench/peer_mkl" ]; then
    run "$hsp" bench --suite=spmm --gen=poisson2d5:20 --cols=8 --repeat=1 --peers=mkl --csv="$tmp/sm.csv"
    [ $rc -eq 0 ] && grep -q "^  *mkl  .*x" "$tmp/out" && grep -q "^L = 8: geomean speedup over the faster peer" "$tmp/out"
    ok $? "bench --suite=spmm --peers=mkl: oneMKL's mkl_sparse_d_mm beside hspgemm"
    run "${top_builddir:-.}/bench/peer_mkl" --spmm=0 "$data/sym_int.mtx"
    [ $rc -eq 2 ] && grep -q "takes L >= 1" "$tmp/err"; ok $? "peer_mkl refuses --spmm=0"
    run "$hsp" bench --suite=spmm --gen=poisson2d5:20 --cols=8 --layout=col --repeat=1 --peers=mkl --csv="$tmp/smc.csv"
    [ $rc -eq 0 ] && grep -q "^  *mkl  .*x" "$tmp/out" && grep -q "column-major: .*x" "$tmp/out" &&
        [ "$(tail -1 "$tmp/smc.csv" | awk -F, '{print $NF}')" = col ]
    ok $? "bench --suite=spmm --layout=col --peers=mkl: oneMKL's column-major product beside hspgemm's"
    run "${top_builddir:-.}/bench/peer_mkl" --spmm=3 --layout=col --repeat=1 "$data/sym_int.mtx"
    [ $rc -eq 0 ] && grep -q '"layout":"col"' "$tmp/out"; ok $? "peer_mkl --spmm=3 --layout=col says so"
    run "${top_builddir:-.}/bench/peer_mkl" --layout=col "$data/sym_int.mtx"
    [ $rc -eq 2 ] && grep -q "layout=col goes with --spmm" "$tmp/err"; ok $? "peer_mkl refuses --layout without --spmm"
else
    skip "bench --suite=spmm --peers=mkl" "no oneMKL peer (build-aux/install-mkl.py)"
    skip "peer_mkl --spmm=0" "no oneMKL peer"
    skip "bench --suite=spmm --layout=col --peers=mkl" "no oneMKL peer"
    skip "peer_mkl --spmm=3 --layout=col" "no oneMKL peer"
    skip "peer_mkl --layout without --spmm" "no oneMKL peer"
fi
run "$hsp" bench --suite=spmm --gen=poisson2d5:20 "$data/sym_int.mtx" --cols=9 --layout=both --repeat=1 --peers=none \
    --csv="$tmp/sb.csv"
[ $rc -eq 0 ] && [ "$(grep -c "check ok" "$tmp/out")" -eq 4 ] && [ "$(grep -c ',row$' "$tmp/sb.csv")" -eq 2 ] &&
    [ "$(grep -c ',col$' "$tmp/sb.csv")" -eq 2 ] && grep -q '^"sym_int.mtx",9,' "$tmp/sb.csv"
ok $? "bench --suite=spmm --layout=both: a checked row for each layout, of a generator and a file"
run "$hsp" bench --suite=quick --layout=col --peers=none --csv="$tmp/typo.csv"
[ $rc -eq 2 ] && grep -q "layout is an option of --suite=spmm" "$tmp/err"
ok $? "--layout outside --suite=spmm is refused"
run "$hsp" bench --suite=spmm --layout=diag --peers=none --csv="$tmp/typo.csv"
[ $rc -eq 2 ] && grep -q "layout takes row, col or both" "$tmp/err"; ok $? "bench refuses an unknown --layout"
run "$hsp" spmm --gen=poisson2d5:20 --cols=4 --layout=both
[ $rc -eq 2 ] && grep -q "both is bench --suite=spmm's" "$tmp/err"; ok $? "spmm refuses --layout=both"
if [ -n "${python:-}" ]; then
    run "$python" "${top_srcdir:-.}/bench/peer_scipy.py" --spmm=3 --layout=col --repeat=1 "$data/sym_int.mtx"
    [ $rc -eq 0 ] && grep -q '"layout":"col"' "$tmp/out"; ok $? "peer_scipy --spmm=3 --layout=col: a Fortran-ordered X"
else
    skip "peer_scipy --spmm=3 --layout=col" "no python3 with scipy"
fi

# Issue 56: the documentation against the code: doc/cli.md's multiply table has every option of
# square --help, bench's spmm peers are --help's, the header's chunks of rows are the code's.
missing=""
for o in $("$hsp" square --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    case $o in --help | --gen) continue ;; esac
    awk '/^Options of `multiply` and `square`:/, /^Generators/' "${top_srcdir:-.}/doc/cli.md" | grep -q -- "\`$o" ||
        missing="$missing $o"
done
[ -z "$missing" ]; ok $? "doc/cli.md's table of multiply's options has each of square --help's:$missing"
"$hsp" bench --help | grep -q "scipy,cusparse,mkl for --suite=spmm" &&
    tr '\n' ' ' <"${top_srcdir:-.}/doc/benchmark.md" | grep -q '`scipy,cusparse,mkl` for *`--suite=spmm`'
ok $? "doc/benchmark.md and bench --help name the same peers of --suite=spmm"
chunk=$(sed -n 's/.*MIS_CHUNK = 1 << \([0-9]*\).*/\1/p' "${top_srcdir:-.}/src/amg/gpu_amg.c")
grep -q "chunks of 2^$chunk rows" "${top_srcdir:-.}/src/hspgemm.h" &&
    tr '\n' ' ' <"${top_srcdir:-.}/doc/library.md" | grep -q "within chunks of 2^$chunk rows"
ok $? "hspgemm.h and doc/library.md give the device aggregation's chunks of rows as the code: 2^$chunk"

# The bench's mistakes are refused before the first product, with status 2.
run "$hsp" --version
[ $rc -eq 0 ] && grep -q "^hspgemm [0-9][0-9.]* (commit " "$tmp/out"; ok $? "--version names the version and the commit"
run "$hsp" bench --help
ok "$(has "suite=.*|amg|spmm|solve|" "$tmp/out")" "bench's usage line names --suite=amg, spmm and solve"
run "$hsp" bench --suite=quick --peers=mkl,scpiy --csv="$tmp/typo.csv"
[ $rc -eq 2 ] && grep -q "'scpiy' is no peer" "$tmp/err" && [ ! -e "$tmp/typo.csv" ]
ok $? "a misspelled peer is refused (status 2, no CSV)"
run "$hsp" bench --suite=quick --peers=pyamg --csv="$tmp/typo.csv"
[ $rc -eq 2 ] && grep -q "not a peer of this suite" "$tmp/err"; ok $? "a peer of another suite is refused"
if "${top_builddir:-.}/bench/peer_cusparse" --version >/dev/null 2>&1; then
    skip "--peers=cusparse without a CUDA GPU" "this machine has one"
else
    run "$hsp" bench --suite=quick --peers=cusparse --csv="$tmp/typo.csv"
    [ $rc -eq 2 ] && grep -q "peer cusparse cannot run here" "$tmp/err" && ! grep -q "failed on" "$tmp/err"
    ok $? "--peers=cusparse without a CUDA GPU is refused before the first product"
    run "$hsp" bench --suite=quick --repeat=1 --csv="$tmp/auto.csv"
    [ $rc -eq 0 ] && ! grep -q "cusparse" "$tmp/out" && ! grep -q "failed" "$tmp/err" &&
        grep -q '"cusparse":{"version":"","status":"not available: ' "$tmp/auto.json"
    ok $? "the default (auto) leaves out cuSPARSE, saying why in the run's description"
fi
run "$hsp" bench --suite=realloc --device=cpu --repeat=1 --gen=rmat:10,16 "$tmp/missing.mtx" --csv="$tmp/late.csv"
[ $rc -eq 2 ] && grep -q "missing.mtx: No such file" "$tmp/err" && [ ! -s "$tmp/out" ]
ok $? "a missing file at the end of the list is refused before the first product"
run "$hsp" bench --suite=quick --peers=none --csv="$tmp/no/such/folder/b.csv"
[ $rc -eq 2 ] && grep -q "no folder $tmp/no/such/folder" "$tmp/err" && [ ! -s "$tmp/out" ]
ok $? "a CSV in a folder that does not exist is refused before the first product"
run "$hsp" bench --suite=realloc --peers=mkl
[ $rc -eq 2 ]; ok $? "--suite=realloc takes no peers"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 1\n9 9 1.0\n' >"$tmp/bad.mtx"
run "$hsp" bench --suite=realloc --device=cpu --repeat=1 --gen=rmat:10,16 "$tmp/bad.mtx" --csv="$tmp/late.csv"
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/late.csv")" -eq 3 ] && grep -q '"complete":false' "$tmp/late.json" &&
    grep -q 'bad.mtx' "$tmp/late.json" && grep -q "stopped early" "$tmp/out"
ok $? "a failure late in the run keeps the rows before it (CSV and table) and says the run is incomplete"

# What a run writes describes it: the JSON beside the CSV, and empty fields where nothing was measured.
json="$tmp/b.json"
for key in hspgemm_version commit command date cpu_model cores memory_bytes threads precision repeat; do
    grep -q "\"$key\":" "$json" || { echo "# $json lacks $key"; false; } || break
done
ok $? "bench.csv's description names the version, commit, command, date, CPU, memory, threads, precision, runs"
grep -q '"command":"hspgemm bench --suite=quick --peers=none --repeat=1 --csv=' "$json" &&
    grep -q '"description":"CPU threads' "$json" && grep -q '"complete":true' "$json"
ok $? "it names the command line as given and the device"
head -1 "$tmp/b.csv" | grep -q "ms_min,ms_max" &&
    awk -F, 'NR == 2 && ($21 != "" || $33 != "") { bad = 1 } END { exit bad }' "$tmp/b.csv"
ok $? "the CSV has each figure's least and largest run, and empty fields for the peers that did not run"

# spmm: a sparse A times a dense B (array files), and its errors
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n1 2 2\n2 2 3\n' >"$tmp/sa.mtx"
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n1\n2\n0\n' >"$tmp/sb.mtx"
run "$hsp" spmm "$tmp/sa.mtx" "$tmp/sb.mtx" -o "$tmp/sc.mtx" --threads=1
[ $rc -eq 0 ] && [ "$(tr '\n' ' ' <"$tmp/sc.mtx")" = "%%MatrixMarket matrix array real general 2 2 3 3 2 0 " ]
ok $? "spmm A B.mtx writes C = A*B as an array file, column by column"
run "$hsp" spmm --gen=poisson2d5:20 --cols=5 --layout=col --stats=json --repeat=3 --precision=float
[ $rc -eq 0 ] && grep -q '"cols_b":5' "$tmp/out" && grep -q '"runs":3' "$tmp/out" && grep -q '"layout":"col"' "$tmp/out"
ok $? "spmm --gen --cols=5 --layout=col --stats=json --repeat=3"
run "$hsp" spmm --gen=poisson2d5:3 "$tmp/sb.mtx"
[ $rc -eq 1 ] && grep -q "B is 2 x 2, A 9 x 9: B needs as many rows as A has columns" "$tmp/err"
ok $? "spmm refuses a B whose rows are not A's columns"
printf '%%%%MatrixMarket matrix array real general\n2 1\n1\n%% no more\n' >"$tmp/sbad.mtx"
run "$hsp" spmm "$tmp/sa.mtx" "$tmp/sbad.mtx"
[ $rc -eq 1 ] && grep -q "sbad.mtx:4: the file ends after 1 of 2 values" "$tmp/err"
ok $? "spmm names the line where a short array file ends"
printf '%%%%MatrixMarket matrix array real general\n2 1\n1\ninf\n' >"$tmp/sinf.mtx"
run "$hsp" spmm "$tmp/sa.mtx" "$tmp/sinf.mtx" -o "$tmp/sinfc.mtx"
[ $rc -eq 0 ] && [ "$(tr '\n' ' ' <"$tmp/sinfc.mtx")" = "%%MatrixMarket matrix array real general 2 1 inf inf " ] &&
    grep -q "spmm: warning: 2 values of C are not finite (inf or nan), the first at row 1, column 1" "$tmp/err"
ok $? "spmm reads an array file holding inf (as it writes one), and warns of C's: $(cat "$tmp/err")"
printf '%%%%MatrixMarket matrix array real general\n2 1\n1\n1e999\n' >"$tmp/sbad.mtx"
run "$hsp" spmm "$tmp/sa.mtx" "$tmp/sbad.mtx"
[ $rc -eq 1 ] && grep -q "sbad.mtx:4: the value '1e999' is not a finite double" "$tmp/err"
ok $? "spmm refuses an array file holding 1e999 (no double)"
run "$hsp" spmm "$tmp/sa.mtx"
[ $rc -eq 2 ] && grep -q "spmm: takes A and either B.mtx" "$tmp/err"
ok $? "spmm without B or --cols is a usage error"
run "$hsp" spmm --gen=poisson2d5:20 --cols=4 --stats --repeat=2
[ $rc -eq 0 ] && grep -q "A read as csr" "$tmp/out" &&
    grep -q "A prepared in CSR, which the CPU threads read: longest row 5" "$tmp/out"
ok $? "spmm prepares A once (--format=ellr, the default; CSR on the CPU threads) and says how"
run "$hsp" spmm --gen=poisson2d5:20 --cols=4 --stats=json --format=csr
[ $rc -eq 0 ] && grep -q '"format":"csr"' "$tmp/out" && grep -q '"slots":0' "$tmp/out"
ok $? "spmm --format=csr reads A as given"
run "$hsp" spmm --gen=poisson2d5:20 --cols=4 --format=coo
[ $rc -eq 2 ] && grep -q "format takes csr or ellr" "$tmp/err"
ok $? "spmm refuses an unknown --format"
run "$hsp" spmm --gen=poisson2d5:20 --cols=6 --resident -o "$tmp/sr.mtx" --stats=json --repeat=2
[ $rc -eq 0 ] && grep -q '"resident":true' "$tmp/out"; ok $? "spmm --resident runs (cpu: B and C used in place)"
run "$hsp" spmm --gen=poisson2d5:20 --cols=6 -o "$tmp/sh.mtx"
[ $rc -eq 0 ] && cmp -s "$tmp/sr.mtx" "$tmp/sh.mtx"; ok $? "and writes the C of the host-to-host product"
run "$hsp" spmm --gen=poisson2d5:20 --cols=6 --resident --format=csr
[ $rc -eq 2 ] && grep -q "not with --format=csr" "$tmp/err"; ok $? "spmm --resident --format=csr is refused"
# close_values F G: do Matrix Market array files F and G hold the same header and values within
# 1e-13 of each other's size?  The CPU threads and a device differ in the last bits where one fuses
# multiplies and adds and the other does not (doc/library.md, "Sparse times dense").
close_values() {
    awk 'NR == FNR { a[FNR] = $0; n = FNR; next }
         { x = a[FNR]; if (FNR > n || (x != $0 && (x ~ /^%/ || NF != 1))) exit 1
           d = x - $0; m = x < 0 ? -x : x; if (d > 1e-13 * m || -d > 1e-13 * m) exit 1 }
         END { if (FNR != n) exit 1 }' "$1" "$2"
}
dev=$(opencl_device "buffer SVM")
if [ -n "$dev" ]; then
    run "$hsp" spmm --gen=poisson2d5:20 --cols=6 --device="$dev,nosvm" -o "$tmp/sd0.mtx"
    [ $rc -eq 0 ] && close_values "$tmp/sd0.mtx" "$tmp/sh.mtx"
    ok $? "spmm on $dev with buffers: the CPU threads' C to the last bits"
    run "$hsp" spmm --gen=poisson2d5:20 --cols=6 --resident --device="$dev,nosvm" -o "$tmp/sd.mtx"
    [ $rc -eq 0 ] && cmp -s "$tmp/sd.mtx" "$tmp/sd0.mtx"
    ok $? "spmm --resident on $dev with buffers (B and C copied there, C brought home): the same C"
    run "$hsp" bench --suite=spmm --gen=poisson2d5:20 --cols=3 --repeat=1 --peers=none --device="$dev,nosvm" --resident \
        --csv="$tmp/sres.csv"
    [ $rc -eq 0 ] && grep -q "B and C resident (device-only times)" "$tmp/out" && grep -q "check ok" "$tmp/out" &&
        grep -q ',1,ok,' "$tmp/sres.csv"
    ok $? "bench --suite=spmm --resident on $dev: checked, device-only times, marked resident in the CSV"
    run "$hsp" spmm --gen=poisson2d5:20 --cols=6 --device="$dev,nosvm" --blocks=3 --stats=json -o "$tmp/sb.mtx"
    [ $rc -eq 0 ] && grep -q '"blocks":3' "$tmp/out" && cmp -s "$tmp/sb.mtx" "$tmp/sd0.mtx"
    ok $? "spmm --blocks=3 on $dev with buffers: C in 3 blocks, the same C"
    run "$hsp" bench --suite=spmm --gen=poisson2d5:20 --cols=3 --repeat=1 --peers=none --device="$dev,nosvm" --blocks=2 \
        --csv="$tmp/sblk.csv"
    [ $rc -eq 0 ] && grep -q "no blocks" "$tmp/out" && grep -q "transfers .*% hidden" "$tmp/out" && grep -q ',ok,2,' "$tmp/sblk.csv"
    ok $? "bench --suite=spmm --blocks=2 on $dev: also timed without blocks and resident, the hidden share"
else
    skip "spmm on a device with buffers" "no OpenCL device with buffer SVM"
    skip "spmm --resident on a device with buffers" "no OpenCL device with buffer SVM"
    skip "bench --suite=spmm --resident" "no OpenCL device with buffer SVM"
    skip "spmm --blocks=3" "no OpenCL device with buffer SVM"
    skip "bench --suite=spmm --blocks=2" "no OpenCL device with buffer SVM"
fi
run "$hsp" spmm --gen=poisson2d5:20 --cols=6 --blocks=0
[ $rc -eq 2 ] && grep -q "blocks takes 1" "$tmp/err"; ok $? "spmm --blocks=0 is refused"
run "$hsp" bench --suite=quick --blocks=2 --peers=none --csv="$tmp/typo.csv"
[ $rc -eq 2 ] && grep -q "blocks=N is an option of --suite=spmm" "$tmp/err"; ok $? "--blocks outside --suite=spmm is refused"
run "$hsp" spmm --gen=poisson2d5:20 --cols=6 --cpu-share=1.5
[ $rc -eq 2 ] && grep -q "cpu-share takes auto or a share" "$tmp/err"; ok $? "spmm --cpu-share=1.5 is refused"
dev=$(opencl_device "system SVM")
if [ -n "$dev" ]; then
    run "$hsp" spmm --gen=poisson2d5:20 --cols=6 --device="$dev" --cpu-share=0.5 --stats=json -o "$tmp/ss.mtx"
    [ $rc -eq 0 ] && grep -q '"cpu_cols":3' "$tmp/out" && grep -q ' and cpu"' "$tmp/out" &&
        "$hsp" spmm --gen=poisson2d5:20 --cols=6 -o "$tmp/sc.mtx" >/dev/null && close_values "$tmp/ss.mtx" "$tmp/sc.mtx"
    ok $? "spmm --cpu-share=0.5 on $dev: the CPU threads make 3 of 6 columns beside it, the CPU's C to the last bits"
    run "$hsp" spmm --gen=poisson2d5:20 --cols=6 --device="$dev" --cpu-share=auto --stats
    [ $rc -eq 0 ] && grep -q "device alone .* ms, CPU threads alone .* ms, split by their rates .* ms" "$tmp/out"
    ok $? "spmm --cpu-share=auto on $dev times each side alone and the split, and says which it kept"
else
    skip "spmm --cpu-share=0.5" "no OpenCL device with system SVM"
    skip "spmm --cpu-share=auto" "no OpenCL device with system SVM"
fi

echo "1..$n"
exit $fail
