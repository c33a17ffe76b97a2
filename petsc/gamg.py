#!/usr/bin/python3
"""gamg.py: hspgemm-gamg from Python through petsc4py.

A Poisson problem solved by PETSc's CG and PCGAMG, whose products are
hspgemm's (matrices of type aijhsp: the plugin loaded by PETSc's -dll_append)
or, with -hsp 0, PETSc's own; prints what petsc/hspgemm-gamg prints.

  mpiexec -n 2 python3 petsc/gamg.py -plugin /usr/local/lib/libhspgemm_petsc.so \\
      -stencil 2d5 -n 64 [-hsp 0] [PETSc's options]

-plugin defaults to $HSPGEMM_PETSC_PLUGIN, else libhspgemm_petsc.so on the
loader's path.
"""
import ctypes
import sys

import petsc4py

STENCILS = {"2d5": (2, False), "2d9": (2, True), "3d7": (3, False), "3d27": (3, True)}


def plugin_path(argv):
    """The plugin's file: -plugin's value, else $HSPGEMM_PETSC_PLUGIN, else its name."""
    import os
    if "-plugin" in argv:
        return argv[argv.index("-plugin") + 1]
    return os.environ.get("HSPGEMM_PETSC_PLUGIN", "libhspgemm_petsc.so")


LIB = plugin_path(sys.argv)
petsc4py.init(sys.argv + ["-dll_append", LIB])
from petsc4py import PETSc  # noqa: E402 (after init, which takes the options)


def row_entries(dim, every, n, row):
    """Columns and values of a grid point's row: -1 a neighbour, the count of an inside point's on the diagonal."""
    at = (row % n, (row // n) % n, row // (n * n) if dim == 3 else 0)
    cols, vals = [row], [float((26 if every else 6) if dim == 3 else (8 if every else 4))]
    for dz in (-1, 0, 1) if dim == 3 else (0,):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                far = (dx != 0) + (dy != 0) + (dz != 0)
                x, y, z = at[0] + dx, at[1] + dy, at[2] + dz
                if not far or (not every and far > 1) or min(x, y, z) < 0 or max(x, y, z) >= n:
                    continue
                cols.append(x + n * (y + n * z))
                vals.append(-1.0)
    return cols, vals


def poisson(dim, every, n, hsp):
    """The problem's matrix, of type aijhsp or aij."""
    N = n ** dim
    A = PETSc.Mat().create()
    A.setSizes([N, N])
    A.setType("aijhsp" if hsp else "aij")
    width = 27 if every else 7
    A.setPreallocationNNZ((width, width))
    first, last = A.getOwnershipRange()
    for row in range(first, last):
        cols, vals = row_entries(dim, every, n, row)
        A.setValues([row], cols, vals)
    A.assemble()
    return A


def products():
    """The products hspgemm made, summed over the ranks: A*B, P^T*A*P, numeric phases again."""
    counts = [ctypes.c_int(0) for _ in range(3)]
    ctypes.CDLL(LIB).PetscHspgemmGetCounts(*[ctypes.byref(c) for c in counts])
    total = PETSc.Vec().createMPI((None, 3))
    total.setValues([0, 1, 2], [c.value for c in counts], addv=PETSc.InsertMode.ADD_VALUES)
    total.assemble()
    scatter, whole = PETSc.Scatter.toAll(total)
    scatter.scatter(total, whole)
    return [int(v) for v in whole.getArray()]


def main():
    opts = PETSc.Options()
    n, name, hsp = opts.getInt("n", 64), opts.getString("stencil", "2d5"), opts.getBool("hsp", True)
    if name not in STENCILS:
        raise SystemExit("-stencil takes 2d5, 2d9, 3d7 or 3d27, not %s" % name)
    dim, every = STENCILS[name]
    A = poisson(dim, every, n, hsp)
    x, b = A.createVecs()
    b.set(1.0)
    ksp = PETSc.KSP().create()
    ksp.setOperators(A, A)
    ksp.setType("cg")
    ksp.getPC().setType("gamg")
    ksp.setTolerances(rtol=1e-8)
    ksp.setFromOptions()
    start = PETSc.Log.getTime()
    ksp.setUp()
    setup = PETSc.Log.getTime() - start
    ksp.solve(b, x)
    pc = ksp.getPC()
    out = PETSc.Sys.Print
    out("poisson%s:%d, products by %s" % (name, n, "hspgemm" if hsp else "PETSc"))
    levels, sizes, nnz = pc.getMGLevels(), [], []
    for level in reversed(range(levels)):
        Al = pc.getMGSmoother(level).getOperators()[0]
        sizes.append(Al.getSize()[0])
        nnz.append(Al.getInfo(PETSc.Mat.InfoType.GLOBAL_SUM)["nz_used"])
    out("levels %d:%s" % (levels, "".join(" %d (%.0f)" % (s, z) for s, z in zip(sizes, nnz))))
    out("operator complexity %.6f" % (sum(nnz) / nnz[0]))
    out("iterations %d, residual norm %g, set-up %.3f ms" % (ksp.getIterationNumber(), ksp.getResidualNorm(),
                                                            1e3 * setup))
    made = products()
    out("products by hspgemm (all ranks): %d A*B, %d P^T*A*P, %d numeric phases again" % tuple(made))


if __name__ == "__main__":
    main()
