#!/bin/sh
# t_petsc.sh: the PETSc plugin under mpiexec on 1, 2 and 4 ranks (4 share
# this machine's cores: oversubscribed).  t_petsc_products' checks of
# products of aijhsp matrices against PETSc's own (reuses, mixed types, an
# error on one rank), an error on one rank not caught ending the program on
# every rank, in C and from Python, then hspgemm-gamg on the
# paper's four Poisson stencils with hspgemm's products (-hsp 1) and with
# PETSc's (-hsp 0): the same levels (rows and entries), operator complexity
# and CG iterations, and hspgemm's products made only in the first.
b=${top_builddir:-.}
# Open MPI: ranks as root (CI runs as root), more ranks than cores
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_rmaps_base_oversubscribe
run() { # run RANKS PROGRAM ARGS...: the program under mpiexec, a minute at most
    ranks=$1
    shift
    timeout 120 "${MPIEXEC:-mpiexec}" -n "$ranks" "$@" 2>&1
}
t=0
check() { # check OK WHAT
    t=$((t + 1))
    if [ "$1" = 1 ]; then echo "ok $t - $2"; else echo "not ok $t - $2"; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ranks in 1 2 4; do
    run "$ranks" "$b/tests/t_petsc_products" >"$tmp/products"
    grep '^# ' "$tmp/products" | sort -u
    n=$(grep -c '^ok - ' "$tmp/products")
    grep -E '^(not )?ok - ' "$tmp/products" | while read -r line; do
        case $line in
        "not ok - "*) echo "# $ranks ranks: $line" ;;
        esac
    done
    check "$([ "$n" = 18 ] && echo 1)" "$ranks ranks: products of aijhsp matrices as PETSc's own ($n of 18 checks)"
    for problem in 2d5:48 2d9:48 3d7:14 3d27:14; do
        stencil=${problem%:*} size=${problem#*:}
        for hsp in 1 0; do
            run "$ranks" "$b/petsc/hspgemm-gamg" -stencil "$stencil" -n "$size" -hsp "$hsp" >"$tmp/gamg$hsp"
        done
        grep -E '^(levels|operator complexity|iterations)' "$tmp/gamg1" | sed 's/, residual.*//' >"$tmp/ours"
        grep -E '^(levels|operator complexity|iterations)' "$tmp/gamg0" | sed 's/, residual.*//' >"$tmp/theirs"
        products=$(sed -n 's/^products by hspgemm (all ranks): \([0-9]*\) A\*B, \([0-9]*\) P.*/\1 A*B and \2 P^T*A*P/p' "$tmp/gamg1")
        none=$(sed -n 's/^products by hspgemm (all ranks): \(.*\) numeric.*/\1/p' "$tmp/gamg0")
        same=$([ -s "$tmp/ours" ] && cmp -s "$tmp/ours" "$tmp/theirs" && echo 1)
        ran=$(echo "$products" | awk '$1 > 0 && $4 > 0 { print 1 }')
        [ "$none" = "0 A*B, 0 P^T*A*P, 0" ] || ran=
        [ "$same" = 1 ] || { sed 's/^/# ours:   /' "$tmp/gamg1"; sed 's/^/# PETSc: /' "$tmp/gamg0"; }
        check "$([ "$same" = 1 ] && [ "$ran" = 1 ] && echo 1)" \
            "$ranks ranks, poisson$problem: PCGAMG's levels, complexity and CG iterations as with PETSc's products ($(tr '\n' ';' <"$tmp/ours" | sed 's/;$//'); hspgemm made $products)"
    done
done
# -hsp_backend on 2 ranks: PETSc's backend algorithm, its local products
# (of seqaijhsp blocks) by hspgemm: products as PETSc's own, the same
# hierarchy, and more products by hspgemm than one a rank makes
run 2 "$b/tests/t_petsc_products" -hsp_backend >"$tmp/products"
n=$(grep -c '^ok - ' "$tmp/products")
[ "$n" = 17 ] || grep -E '^(# |not ok)' "$tmp/products"
check "$([ "$n" = 18 ] && echo 1)" "2 ranks, -hsp_backend: products of aijhsp matrices as PETSc's own ($n of 18 checks)"
# an error on rank 0 alone, not caught: the program ends on both ranks (an
# exit status other than timeout's), every rank through the plugin's
# agreement: rank 1 naming rank 0's failure, or, where rank 0's abort ended
# rank 1 before it printed, rank 0's traceback through agree() (printed only
# once every rank has joined it, whose result stops rank 1 too)
run 2 "$b/tests/t_petsc_products" -uncaught >"$tmp/uncaught"
rc=$?
agreed=$(grep -q '^\[1\].*failed on rank 0' "$tmp/uncaught" || grep -q '^\[0\]PETSC ERROR: #[0-9]* agree()' "$tmp/uncaught" && echo 1)
ended=$([ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$agreed" = 1 ] && echo 1)
[ "$ended" = 1 ] || sed 's/^/# /' "$tmp/uncaught" | head -20
check "$ended" "2 ranks, an error on rank 0 alone not caught: the program ends on every rank (status $rc)"
for way in "" -hsp_backend; do
    run 2 "$b/petsc/hspgemm-gamg" -stencil 3d7 -n 14 $way >"$tmp/way$way"
done
ab() { sed -n 's/^products by hspgemm (all ranks): \([0-9]*\) A\*B.*/\1/p' "$1"; }
grep -E '^(levels|operator complexity|iterations)' "$tmp/way-hsp_backend" | sed 's/, residual.*//' >"$tmp/backend"
grep -E '^(levels|operator complexity|iterations)' "$tmp/way" | sed 's/, residual.*//' >"$tmp/rows"
same=$([ -s "$tmp/backend" ] && cmp -s "$tmp/backend" "$tmp/rows" && [ "$(ab "$tmp/way-hsp_backend")" -gt "$(ab "$tmp/way")" ] && echo 1)
[ "$same" = 1 ] || { sed 's/^/# rank rows: /' "$tmp/way"; sed 's/^/# backend:   /' "$tmp/way-hsp_backend"; }
check "$same" "2 ranks, poisson3d7:14 with -hsp_backend: the same hierarchy and iterations, local products by hspgemm ($(ab "$tmp/way-hsp_backend") A*B against $(ab "$tmp/way"))"

# the plugin's options: listed by -help, a bad value refused at registration
# (before any product), the rank bound by mpiexec to fewer CPUs than its
# share told on stderr; a program links by the plugin's pkg-config file
run 1 "$b/petsc/hspgemm-gamg" -n 8 -help >"$tmp/help"
listed=$(grep -c -E '^ +-hsp_(device|threads|small_nnz|backend)' "$tmp/help")
check "$([ "$listed" = 4 ] && echo 1)" "-help lists the plugin's four options ($listed)"
run 1 "$b/petsc/hspgemm-gamg" -n 8 -hsp_device gpu >"$tmp/bad"
refused=$([ $? != 0 ] && grep -q 'hsp_device gpu' "$tmp/bad" && grep -q 'PetscHspgemmRegister' "$tmp/bad" &&
    ! grep -q 'product_symbolic' "$tmp/bad" && echo 1)
[ "$refused" = 1 ] || sed 's/^/# /' "$tmp/bad" | head
check "$refused" "-hsp_device gpu refused at registration, before any product"
run 1 "$b/petsc/hspgemm-gamg" -n 8 -hsp_threads 5000 >"$tmp/bad"
refused=$([ $? != 0 ] && grep -q 'threads = 5000: give 0 (one per CPU the process may run on) to 4096' "$tmp/bad" &&
    grep -q 'PetscHspgemmRegister' "$tmp/bad" && echo 1)
[ "$refused" = 1 ] || sed 's/^/# /' "$tmp/bad" | head
check "$refused" "-hsp_threads 5000 refused at registration, in the library's words (hsp_options_check)"
want=$("$b/hspgemm" options | cut -f6 | grep -v '^-$' | sort | tr '\n' ' ')
got=$(grep -o -E '^ +-hsp_[a-z_]+' "$tmp/help" | tr -d ' ' | grep -v -- -hsp_backend | sort -u | tr '\n' ' ')
[ -n "$want" ] && [ "$want" = "$got" ] || echo "# the table: $want"
check "$([ -n "$want" ] && [ "$want" = "$got" ] && echo 1)" \
    "-help lists the option table's PETSc options ($got), and -hsp_backend, the plugin's own"
if [ "$(nproc)" -gt 1 ]; then
    run 1 --bind-to core "$b/petsc/hspgemm-gamg" -n 8 >"$tmp/bound"
    told=$(grep -c "^hspgemm: this rank has 1 CPU(s) to itself" "$tmp/bound")
    check "$([ "$told" = 1 ] && echo 1)" "one rank bound to one core: hspgemm says its products use 1 thread"
    # -info to a file: PETSc writes one a rank (info.0, info.1), where the
    # ranks' lines on one stdout could cut into each other
    taskset -c 0,1 sh -c "$(command -v timeout) 120 ${MPIEXEC:-mpiexec} --bind-to none -n 2 $b/petsc/hspgemm-gamg -n 8 \
        -info $tmp/info" >"$tmp/shared" 2>&1
    one=$(cat "$tmp"/info.* 2>/dev/null | grep -c "hspgemm's context: device cpu, 1 thread(s)")
    [ "$one" = 2 ] || cat "$tmp/shared" "$tmp"/info.* 2>/dev/null | grep "hspgemm" | sed 's/^/# /'
    check "$([ "$one" = 2 ] && echo 1)" "2 unbound ranks on 2 CPUs (taskset -c 0,1): 1 thread each, not 2 taking turns"
else
    t=$((t + 2))
    echo "ok $((t - 1)) - # SKIP one CPU: no binding to fewer CPUs than the rank's share"
    echo "ok $t - # SKIP one CPU: no 2 CPUs for 2 ranks to share"
fi
flags=$(PKG_CONFIG_PATH="$b:$b/petsc" pkg-config --cflags --libs hspgemm_petsc 2>&1)
case "$flags" in
*-lhspgemm_petsc*-lhspgemm*petsc*) linked=1 ;;
*) linked= ; echo "# pkg-config hspgemm_petsc: $flags" ;;
esac
check "$linked" "pkg-config hspgemm_petsc gives the plugin's, hspgemm's and PETSc's flags"

# hspgemm's products on its opencl device (PoCL's buffers): the same hierarchy
. "${top_srcdir:-.}/tests/opencl_device.sh"
dev=$(opencl_device "buffer SVM")
if [ -n "$dev" ]; then
    for hsp in 1 0; do
        run 2 "$b/petsc/hspgemm-gamg" -stencil 2d9 -n 48 -hsp "$hsp" -hsp_device "$dev" -hsp_small_nnz -1 >"$tmp/gamg$hsp"
    done
    grep -E '^(levels|operator complexity|iterations)' "$tmp/gamg1" | sed 's/, residual.*//' >"$tmp/ours"
    grep -E '^(levels|operator complexity|iterations)' "$tmp/gamg0" | sed 's/, residual.*//' >"$tmp/theirs"
    same=$([ -s "$tmp/ours" ] && cmp -s "$tmp/ours" "$tmp/theirs" && grep -q '^products by hspgemm (all ranks): [1-9]' "$tmp/gamg1" && echo 1)
    [ "$same" = 1 ] || sed 's/^/# ours:   /' "$tmp/gamg1"
    check "$same" "2 ranks, poisson2d9:48, hspgemm's products all on $dev (-hsp_device, -hsp_small_nnz -1): PCGAMG as with PETSc's products"
else
    t=$((t + 1))
    echo "ok $t - # SKIP no OpenCL device with buffer SVM"
fi

# the same from Python through petsc4py (Debian's python3-petsc4py, for the
# system's python3), the plugin loaded by -dll_append; not where the plugin is
# built with AddressSanitizer, which an interpreter cannot load
plugin="$b/petsc/.libs/libhspgemm_petsc.so"
why=
/usr/bin/python3 -c 'import petsc4py' 2>/dev/null || why="no petsc4py for /usr/bin/python3 (python3-petsc4py)"
ldd "$plugin" 2>/dev/null | grep -q libasan && why="the plugin is built with AddressSanitizer"
for case in 1:2d5:32 2:3d7:10; do
    ranks=${case%%:*} problem=${case#*:}
    stencil=${problem%:*} size=${problem#*:}
    if [ -n "$why" ]; then
        t=$((t + 1))
        echo "ok $t - # SKIP $why"
        continue
    fi
    run "$ranks" /usr/bin/python3 "${top_srcdir:-.}/petsc/gamg.py" -plugin "$plugin" -stencil "$stencil" -n "$size" >"$tmp/py"
    run "$ranks" "$b/petsc/hspgemm-gamg" -stencil "$stencil" -n "$size" >"$tmp/c"
    grep -E '^(levels|operator|iterations|products)' "$tmp/py" | sed 's/, residual.*//' >"$tmp/py.lines"
    grep -E '^(levels|operator|iterations|products)' "$tmp/c" | sed 's/, residual.*//' >"$tmp/c.lines"
    same=$([ "$(wc -l <"$tmp/py.lines")" = 4 ] && cmp -s "$tmp/py.lines" "$tmp/c.lines" && echo 1)
    [ "$same" = 1 ] || sed 's/^/# python: /' "$tmp/py"
    check "$same" "$ranks ranks, poisson$problem from Python (petsc/gamg.py, petsc4py): what hspgemm-gamg prints"
done
# an error on rank 0 alone from Python: PETSc.Error raised on both ranks,
# then, not caught, the script ended on both
for way in caught uncaught; do
    if [ -n "$why" ]; then
        t=$((t + 1))
        echo "ok $t - # SKIP $why"
        continue
    fi
    flag=$([ "$way" = uncaught ] && echo --uncaught)
    run 2 /usr/bin/python3 "${top_srcdir:-.}/tests/petsc_rank_error.py" "$plugin" $flag >"$tmp/py"
    rc=$?
    if [ "$way" = caught ]; then
        # the ranks' lines may reach mpiexec's output run together ("rank 0: raisedrank 1: raised")
        ok=$([ "$(grep -o 'rank [01]: raised' "$tmp/py" | sort -u | wc -l)" = 2 ] && echo 1)
    else
        ok=$([ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q '^\[1\] hspgemm: the product failed on rank 0' "$tmp/py" &&
            echo 1)
    fi
    [ "$ok" = 1 ] || { echo "# status $rc"; sed 's/^/# /' "$tmp/py" | head -20; }
    check "$ok" "2 ranks from Python, an error on rank 0 alone $way: $([ "$way" = caught ] && echo "PETSc.Error on both ranks" || echo "the script ends on both, rank 1 naming rank 0's failure (status $rc)")"
done
echo "1..$t"
