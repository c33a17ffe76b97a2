#!/bin/sh
# t_petsc.sh: the PETSc plugin under mpiexec on 1, 2 and 4 ranks (4 share
# this machine's cores: oversubscribed).  t_petsc_products' checks of
# products of aijhsp matrices against PETSc's own, then hspgemm-gamg on the
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
    check "$([ "$n" = 5 ] && echo 1)" "$ranks ranks: products of aijhsp matrices as PETSc's own ($n of 5 checks)"
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
echo "1..$t"
