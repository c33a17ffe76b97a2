/* gamg.c: hspgemm-gamg, a Poisson problem solved by PETSc's KSP and PCGAMG,
 * whose Galerkin products (MatPtAP) and smoothing products (MatMatMult) are
 * hspgemm's (matrices of type aijhsp) or, with -hsp 0, PETSc's own.
 * Options: -n N grid points a side (default 64); -stencil 2d5, 2d9, 3d7 or
 * 3d27 (the paper's problems; default 2d5); -hsp 0|1 (default 1); PETSc's
 * own (-ksp_type, -ksp_rtol, -pc_gamg_*, -log_view) and the plugin's
 * (-hsp_device, -hsp_threads).  Prints the levels, the operator complexity,
 * the iterations, the set-up time, the products hspgemm made and the
 * ranks' peak memory. */
#include <petscksp.h>
#include <string.h>
#include <sys/resource.h>
#include "hsp_petsc.h"

/* A stencil: its dimension, and its reach (1: faces only; 2: all neighbours). */
typedef struct {
    const char *name;
    int dim, all;
} stencil;

static const stencil stencils[] = {{"2d5", 2, 0}, {"2d9", 2, 1}, {"3d7", 3, 0}, {"3d27", 3, 1}};

/* The entries of grid point `row` (of n a side): -1 for each neighbour the
 * stencil reaches, on the diagonal the count of neighbours a point inside
 * has (zero outside the grid: Dirichlet's condition). */
static PetscErrorCode row_entries(const stencil *s, PetscInt n, PetscInt row, PetscInt *cols, PetscScalar *vals,
                                  PetscInt *count)
{
    PetscInt at[3] = {row % n, (row / n) % n, s->dim == 3 ? row / (n * n) : 0}, k = 1;
    int reach = s->dim == 3 ? 1 : 0, inside = s->dim == 3 ? (s->all ? 26 : 6) : (s->all ? 8 : 4);

    PetscFunctionBegin;
    for (int dz = -reach; dz <= reach; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int far = (dx != 0) + (dy != 0) + (dz != 0);
                PetscInt x = at[0] + dx, y = at[1] + dy, z = at[2] + dz;
                if (!far || (!s->all && far > 1) || x < 0 || y < 0 || z < 0 || x >= n || y >= n || z >= n) continue;
                cols[k] = x + n * (y + n * z), vals[k++] = -1;
            }
    cols[0] = row, vals[0] = (PetscScalar)inside;
    *count = k;
    PetscFunctionReturn(0);
}

/* The problem's matrix, of type aijhsp or aij. */
static PetscErrorCode poisson(const stencil *s, PetscInt n, PetscBool hsp, Mat *A)
{
    PetscInt N = s->dim == 3 ? n * n * n : n * n, first, last, width = s->all ? 27 : 7, cols[27], count;
    PetscScalar vals[27];

    PetscFunctionBegin;
    PetscCall(MatCreate(PETSC_COMM_WORLD, A));
    PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N, N));
    PetscCall(MatSetType(*A, hsp ? MATAIJHSP : MATAIJ));
    PetscCall(MatSeqAIJSetPreallocation(*A, width, NULL));
    PetscCall(MatMPIAIJSetPreallocation(*A, width, NULL, width, NULL));
    PetscCall(MatGetOwnershipRange(*A, &first, &last));
    for (PetscInt row = first; row < last; row++) {
        PetscCall(row_entries(s, n, row, cols, vals, &count));
        PetscCall(MatSetValues(*A, 1, &row, count, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* The levels of pc's hierarchy, finest first, and its operator complexity. */
static PetscErrorCode print_levels(PC pc)
{
    PetscInt levels;
    double nnz = 0, fine = 0;

    PetscFunctionBegin;
    PetscCall(PCMGGetLevels(pc, &levels));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "levels %" PetscInt_FMT ":", levels));
    for (PetscInt l = levels - 1; l >= 0; l--) {
        KSP smoother;
        Mat Al;
        MatInfo info;
        PetscInt rows;
        PetscCall(PCMGGetSmoother(pc, l, &smoother));
        PetscCall(KSPGetOperators(smoother, &Al, NULL));
        PetscCall(MatGetSize(Al, &rows, NULL));
        PetscCall(MatGetInfo(Al, MAT_GLOBAL_SUM, &info));
        nnz += info.nz_used;
        if (l == levels - 1) fine = info.nz_used;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %" PetscInt_FMT " (%.0f)", rows, info.nz_used));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\noperator complexity %.6f\n", nnz / fine));
    PetscFunctionReturn(0);
}

/* The products hspgemm made, summed over the ranks. */
static PetscErrorCode print_products(void)
{
    PetscInt mine[3], all[3];

    PetscFunctionBegin;
    PetscCall(PetscHspgemmGetCounts(&mine[0], &mine[1], &mine[2]));
    PetscCall(MPIU_Allreduce(mine, all, 3, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "products by hspgemm (all ranks): %" PetscInt_FMT " A*B, %" PetscInt_FMT
                          " P^T*A*P, %" PetscInt_FMT " numeric phases again\n",
                          all[0], all[1], all[2]));
    PetscFunctionReturn(0);
}

/* The peak resident memory of the ranks, summed (getrusage's maxrss). */
static PetscErrorCode print_memory(void)
{
    struct rusage use;
    double mine = 0, all;

    PetscFunctionBegin;
    if (!getrusage(RUSAGE_SELF, &use)) mine = use.ru_maxrss / 1024.0;
    PetscCall(MPIU_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "peak memory (all ranks): %.1f MB\n", all));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    char name[16] = "2d5";
    PetscInt n = 64, its;
    PetscBool hsp = PETSC_TRUE;
    const stencil *s = NULL;
    Mat A;
    Vec x, b;
    KSP ksp;
    PC pc;
    PetscLogDouble start, setup;
    PetscReal rnorm;

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(PetscHspgemmRegister());
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-stencil", name, sizeof name, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-hsp", &hsp, NULL));
    for (size_t k = 0; k < sizeof stencils / sizeof stencils[0]; k++)
        if (!strcmp(name, stencils[k].name)) s = &stencils[k];
    PetscCheck(s, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-stencil takes 2d5, 2d9, 3d7 or 3d27, not %s", name);
    PetscCheck(n >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 2");
    PetscCall(poisson(s, n, hsp, &A));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCGAMG));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscTime(&start));
    PetscCall(KSPSetUp(ksp));
    PetscCall(PetscTime(&setup));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "poisson%s:%" PetscInt_FMT ", products by %s\n", s->name, n,
                          hsp ? "hspgemm" : "PETSc"));
    PetscCall(print_levels(pc));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iterations %" PetscInt_FMT ", residual norm %g, set-up %.3f ms\n", its,
                          (double)rnorm, 1e3 * (setup - start)));
    PetscCall(print_products());
    PetscCall(print_memory());
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
}
