"""petsc_rank_error.py: an error on one rank of a product by the PETSc plugin,
from Python (petsc4py): rank 0 alone gives A a new entry, then A*P is reused.
Every rank must raise PETSc.Error (none left waiting in a collective call);
each prints "rank R: raised".  With --uncaught the error is not caught and
ends the script on every rank.

  mpiexec -n 2 /usr/bin/python3 tests/petsc_rank_error.py PLUGIN [--uncaught]
"""
import sys

import petsc4py

petsc4py.init([sys.argv[0], "-dll_append", sys.argv[1]])
from petsc4py import PETSc  # noqa: E402 (after init, which takes the options)

SIDE = 30


def laplacian():
    """The 5-point stencil on SIDE x SIDE, of type aijhsp."""
    n = SIDE * SIDE
    A = PETSc.Mat().create()
    A.setSizes([n, n])
    A.setType("aijhsp")
    A.setPreallocationNNZ(5)
    first, last = A.getOwnershipRange()
    for i in range(first, last):
        x, y = i % SIDE, i // SIDE
        for j, v in ((i, 4.0), (i - 1, -1.0), (i + 1, -1.0), (i - SIDE, -1.0), (i + SIDE, -1.0)):
            if 0 <= j < n and (j // SIDE == y or j % SIDE == x):
                A.setValue(i, j, v)
    A.assemble()
    return A


def aggregates():
    """P: row i in aggregate i // 4, of type aijhsp."""
    n = SIDE * SIDE
    P = PETSc.Mat().create()
    P.setSizes([n, n // 4])
    P.setType("aijhsp")
    P.setPreallocationNNZ(1)
    first, last = P.getOwnershipRange()
    for i in range(first, last):
        P.setValue(i, i // 4, 1.0)
    P.assemble()
    return P


def main():
    rank = PETSc.COMM_WORLD.getRank()
    A, P = laplacian(), aggregates()
    C = A.matMult(P)
    A.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, False)
    first, last = A.getOwnershipRange()
    if rank == 0:
        A.setValue(first, last - 1, 1.0)
    A.assemble()
    if "--uncaught" in sys.argv:
        A.matMult(P, C)
    try:
        A.matMult(P, C)
        print(f"rank {rank}: no error", flush=True)
    except PETSc.Error:
        print(f"rank {rank}: raised", flush=True)


main()
