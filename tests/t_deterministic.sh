#!/bin/sh
# t_deterministic.sh: --deterministic (hsp_options.deterministic) on the
# OpenCL device with buffers (PoCL here): the methods it takes and refuses,
# the same bits from run to run host to host, resident and in a resident AMG
# set-up; and the time a product spends outside its stages (ms_other), as TAP.
hsp="${top_builddir:-.}/hspgemm"
. "${top_srcdir:-.}/tests/opencl_device.sh"
. "${top_srcdir:-.}/tests/tap.sh"

dev=$(opencl_device "buffer SVM")
if [ -z "$dev" ]; then
    echo "1..0 # SKIP no OpenCL device with buffer SVM"
    exit 0
fi
dev="$dev,nosvm"
on_gpu="--device=$dev --small-nnz=-1"

run "$hsp" square --gen=poisson3d27:8 $on_gpu --deterministic --stats=json
[ $rc -eq 0 ] && grep -q '"methods":\["rmerge","rmerge","auto"\]' "$tmp/out"
ok $? "deterministic on $dev: rmerge for short and medium rows, auto (ESC or merge) for long ones"
run "$hsp" square --gen=poisson3d27:8 $on_gpu --deterministic --methods=hash,hash,auto
[ $rc -ne 0 ] && grep -q "method hash adds the short rows .* varies from run to run; deterministic takes heap, esc, rmerge" "$tmp/err"
ok $? "deterministic refuses hash on a GPU, naming the methods it takes"
run "$hsp" square --gen=poisson3d27:8 $on_gpu --deterministic --methods=rmerge,hash2,auto
[ $rc -ne 0 ] && grep -q "method hash2 adds the medium rows .* varies from run to run" "$tmp/err"
ok $? "deterministic refuses hash2 on a GPU"
run "$hsp" square --gen=poisson3d27:8 $on_gpu --deterministic --methods=rmerge,esc,dense
[ $rc -ne 0 ] && grep -q "method dense adds the long rows" "$tmp/err"
ok $? "deterministic refuses dense long rows on a GPU"
run "$hsp" square --gen=poisson3d27:8 --device=cpu --deterministic --methods=hash,hash,dense
ok $rc "deterministic takes every method on the cpu device (a row a thread)"

# the same bits each run: rows of every group (rmat has long ones), double and float
same_bits() { # what, then the command's arguments after -o
    what=$1
    shift
    for k in 1 2 3; do
        "$hsp" "$@" -o "$tmp/c$k.mtx" >/dev/null 2>"$tmp/err" || return 1
    done
    cmp -s "$tmp/c1.mtx" "$tmp/c2.mtx" && cmp -s "$tmp/c1.mtx" "$tmp/c3.mtx"
}
same_bits x square --gen=rmat:11,16 $on_gpu --deterministic
ok $? "three deterministic squares of rmat:11,16 (long rows) on $dev: the same bits"
same_bits x square --gen=random:3000,40 $on_gpu --deterministic --precision=float --resident
ok $? "three deterministic resident squares in float: the same bits"
run "$hsp" amg-setup --gen=poisson2d5:60 $on_gpu --deterministic --resident --resetup
ok $rc "a resident AMG set-up and re-setup run deterministic (values summed a row a work-item)"

# --digest: the same digest for the same bits, another for another C
d1=$("$hsp" square --gen=rmat:11,16 $on_gpu --deterministic --digest | grep "^digest of C: ")
d2=$("$hsp" square --gen=rmat:11,16 $on_gpu --deterministic --resident --digest | grep "^digest of C: ")
d3=$("$hsp" square --gen=rmat:11,16 --seed=2 $on_gpu --deterministic --digest | grep "^digest of C: ")
[ -n "$d1" ] && [ "$d1" = "$d2" ] && [ "$d1" != "$d3" ]
ok $? "--digest: host to host and resident C the same ($d1), another matrix's C another"

# the call's time outside the four stages
run "$hsp" square --gen=poisson2d5:100 $on_gpu --resident --repeat=3 --stats=json
tr ',{}' '\n\n\n' <"$tmp/out" | awk -F: '$1 == "\"ms_other\"" { o = $2 } $1 == "\"ms_total\"" { t = $2 }
    $1 == "\"ms_stage\"" { s = $2 } END { exit !(o != "" && t > 0 && o >= 0 && o <= t) }'
ok $? "--stats=json gives ms_other, the part of ms_total outside the stages"
run "$hsp" square --gen=poisson2d5:100 $on_gpu --resident --stats
grep -q "^outside them " "$tmp/out"
ok $? "--stats prints the time outside the stages"

echo "1..$n"
exit $fail
