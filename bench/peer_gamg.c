/* peer_gamg.c: the PETSc GAMG peer of `hspgemm bench --suite=solve`: A x = ones by PETSc's KSPCG
 * preconditioned with PCGAMG (PETSc's defaults), on one MPI rank; times the setup (KSPSetUp, which
 * builds the hierarchy) and the solve apart and prints one JSON line (peer_solve.h). */
#include <petscksp.h>
#include <stdio.h>
#include <stdlib.h>
#include "peer.h"
#include "peer_solve.h"

/* PETSc 3.18's PCGAMG defaults, as -ksp_view shows them */
#define AGGREGATION "smoothed aggregation (agg), 1 smoothing step of the prolongator, threshold -1, " \
                    "square graph on level 1"
#define SMOOTHING "Chebyshev(2) smoothing with Jacobi on each level, LU on the coarsest"
#define DEFAULTS AGGREGATION ", " SMOOTHING
#define KRYLOV "KSPCG to the unpreconditioned relative residual (rtol --tol, atol 0)"
#define BLOCK "; --block: MatSetBlockSize K"
#define NULLSPACE "; --nullspace: the candidates orthonormalized, MatSetNearNullSpace"

static const char usage[] =
    "usage: peer_gamg --solve [--tol=X] [--maxiter=N] [--repeat=R] [--threads=N] [--block=K --nullspace=B.mtx]\n"
    "                 A.mtx\n"
    "       peer_gamg --version\n"
    "Solves A x = b, b = ones, x0 = 0, by PETSc's KSPCG preconditioned with PCGAMG (one V-cycle) to\n"
    "||b - A x||_2 / ||b||_2 <= X (default 1e-8: KSP's unpreconditioned norm) or N iterations (default\n"
    "200); one untimed warm-up, then R timed runs (default 3), each a fresh KSP set up (KSPSetUp) and\n"
    "solved (KSPSolve).  PCGAMG as PETSc sets it by default:\n"
    "  " AGGREGATION ",\n  " SMOOTHING ".\n"
    "--block=K: MatSetBlockSize(K); --nullspace=B.mtx: the near-nullspace candidates, an n x k Matrix\n"
    "Market array file, orthonormalized and given as MatSetNearNullSpace.  One MPI rank, one thread:\n"
    "--threads is taken and reported as 1.  PETSc reads its options from PETSC_OPTIONS only (e.g.\n"
    "-ksp_view).  MPI_Init is called without mpiexec; as root, Open MPI needs OMPI_ALLOW_RUN_AS_ROOT=1\n"
    "and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.  Prints one JSON line:\n"
    "{\"peer\":\"gamg\",\"version\":...,\"setup_ms_median\":...,\"solve_ms_median\":...,\"total_ms_median\":...,\n"
    " \"iterations\":...,\"relres\":...,\"converged\":...,\"levels\":...,\"complexity\":...,\"options\":...}\n";

/* The system in PETSc's objects. */
typedef struct {
    const solve_args *args;
    Mat A;
    Vec b, x;
} gamg_peer;

/* A as a MATSEQAIJ of blocks of `block` rows. */
static PetscErrorCode make_matrix(const hsp_csr *A, PetscInt block, Mat *M)
{
    PetscInt *rows;

    PetscFunctionBegin;
    PetscCall(PetscMalloc1(A->nrows + 1, &rows));
    for (int32_t i = 0; i <= A->nrows; i++) rows[i] = (PetscInt)A->rowptr[i];
    PetscCall(MatCreate(PETSC_COMM_SELF, M));
    PetscCall(MatSetSizes(*M, A->nrows, A->ncols, A->nrows, A->ncols));
    PetscCall(MatSetType(*M, MATSEQAIJ));
    PetscCall(MatSetBlockSize(*M, block));
    PetscCall(MatSeqAIJSetPreallocationCSR(*M, rows, A->colidx, A->values));
    PetscCall(PetscFree(rows));
    PetscFunctionReturn(0);
}

/* The k orthonormal candidates Q (n x k, column-major) as A's near nullspace. */
static PetscErrorCode set_near_nullspace(Mat A, const double *Q, int k)
{
    Vec *vectors;
    PetscInt n;
    MatNullSpace space;

    PetscFunctionBegin;
    PetscCall(MatGetLocalSize(A, &n, NULL));
    PetscCall(PetscMalloc1(k, &vectors));
    for (int j = 0; j < k; j++) {
        PetscScalar *values;
        PetscCall(MatCreateVecs(A, &vectors[j], NULL));
        PetscCall(VecGetArrayWrite(vectors[j], &values));
        for (PetscInt i = 0; i < n; i++) values[i] = Q[(int64_t)j * n + i];
        PetscCall(VecRestoreArrayWrite(vectors[j], &values));
    }
    PetscCall(MatNullSpaceCreate(PETSC_COMM_SELF, PETSC_FALSE, k, vectors, &space));
    PetscCall(MatSetNearNullSpace(A, space));
    PetscCall(MatNullSpaceDestroy(&space));
    for (int j = 0; j < k; j++) PetscCall(VecDestroy(&vectors[j]));
    PetscCall(PetscFree(vectors));
    PetscFunctionReturn(0);
}

/* The levels of pc's hierarchy and its operator complexity (their entries over the finest's). */
static PetscErrorCode hierarchy(PC pc, solve_run *run)
{
    PetscInt levels;
    double entries = 0, fine = 0;

    PetscFunctionBegin;
    PetscCall(PCMGGetLevels(pc, &levels));
    for (PetscInt l = 0; l < levels; l++) {
        KSP smoother;
        Mat M;
        MatInfo info;
        PetscCall(PCMGGetSmoother(pc, l, &smoother));
        PetscCall(KSPGetOperators(smoother, &M, NULL));
        PetscCall(MatGetInfo(M, MAT_LOCAL, &info));
        entries += info.nz_used;
        if (l == levels - 1) fine = info.nz_used; /* PCMG's finest level is the last */
    }
    run->levels = (int)levels;
    run->complexity = fine > 0 ? entries / fine : 0;
    PetscFunctionReturn(0);
}

/* A fresh KSPCG with PCGAMG on A, to the relative unpreconditioned norm tol. */
static PetscErrorCode make_ksp(const gamg_peer *p, KSP *ksp)
{
    PC pc;

    PetscFunctionBegin;
    PetscCall(KSPCreate(PETSC_COMM_SELF, ksp));
    PetscCall(KSPSetOperators(*ksp, p->A, p->A));
    PetscCall(KSPSetType(*ksp, KSPCG));
    PetscCall(KSPGetPC(*ksp, &pc));
    PetscCall(PCSetType(pc, PCGAMG));
    PetscCall(KSPSetNormType(*ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(*ksp, p->args->tol, 0, PETSC_DEFAULT, p->args->maxiter));
    PetscCall(KSPSetFromOptions(*ksp));
    PetscFunctionReturn(0);
}

/* One run: a fresh KSP, set up and solved, timed apart; x from p->x. */
static PetscErrorCode gamg_solve(gamg_peer *p, double *x, solve_run *run)
{
    KSP ksp;
    PC pc;
    PetscInt its, n;
    const PetscScalar *values;

    PetscFunctionBegin;
    PetscCall(make_ksp(p, &ksp));
    PetscCall(VecSet(p->x, 0));
    double t0 = peer_now_ms();
    PetscCall(KSPSetUp(ksp));
    double t1 = peer_now_ms();
    PetscCall(KSPSolve(ksp, p->b, p->x));
    run->setup_ms = t1 - t0, run->solve_ms = peer_now_ms() - t1;
    PetscCall(KSPGetIterationNumber(ksp, &its));
    run->iterations = (int)its;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(hierarchy(pc, run));
    PetscCall(VecGetLocalSize(p->x, &n));
    PetscCall(VecGetArrayRead(p->x, &values));
    for (PetscInt i = 0; i < n; i++) x[i] = values[i];
    PetscCall(VecRestoreArrayRead(p->x, &values));
    PetscCall(KSPDestroy(&ksp));
    PetscFunctionReturn(0);
}

/* solve_fn over gamg_solve; PETSc's error was printed by print_error. */
static int gamg_run(void *peer, double *x, solve_run *run)
{
    return gamg_solve(peer, x, run) != 0;
}

/* PETSc's error handler: the first message of an error as one line, "peer_gamg: PETSc: ...". */
static PetscErrorCode print_error(MPI_Comm comm, int line, const char *function, const char *file, PetscErrorCode n,
                                  PetscErrorType type, const char *message, void *context)
{
    char where[256];
    (void)comm, (void)context;
    snprintf(where, sizeof where, "%s (%s, %s:%d)", message && *message ? message : "error", function, file, line);
    if (type == PETSC_ERROR_INITIAL) solve_fail("PETSc", where);
    return n;
}

/* The system in PETSc's objects: A (its blocks, and the orthonormal candidates Q as its near
 * nullspace where given), b (ones) and x. */
static PetscErrorCode make_system(gamg_peer *p, const solve_system *s, const double *Q)
{
    PetscFunctionBegin;
    PetscCall(make_matrix(s->A, p->args->block, &p->A));
    if (Q) PetscCall(set_near_nullspace(p->A, Q, s->B.ncols));
    PetscCall(MatCreateVecs(p->A, &p->x, &p->b));
    PetscCall(VecSet(p->b, 1));
    PetscFunctionReturn(0);
}

/* The PETSc version as "3.18.5". */
static void version_text(char *text, size_t size)
{
    PetscInt major, minor, patch;
    PetscGetVersionNumber(&major, &minor, &patch, NULL);
    snprintf(text, size, "%d.%d.%d", (int)major, (int)minor, (int)patch);
}

/* What "options" says: the defaults, the Krylov method and the system's options. */
static const char *options_text(const solve_args *a)
{
    if (a->nullspace) return a->block > 1 ? DEFAULTS "; " KRYLOV BLOCK NULLSPACE : DEFAULTS "; " KRYLOV NULLSPACE;
    return a->block > 1 ? DEFAULTS "; " KRYLOV BLOCK : DEFAULTS "; " KRYLOV;
}

/* Read the system, make PETSc's objects, run and print (the parsed command line). */
static int bench(const solve_args *args)
{
    gamg_peer p = {.args = args};
    solve_system s;
    char version[32];
    if (solve_read(args, &s)) return 1;
    version_text(version, sizeof version);
    solve_report report = {.peer = "gamg", .version = version, .options = options_text(args)};
    double *Q = s.B.values ? solve_orthonormal(&s.B) : NULL;
    int rc = s.B.values && !Q;
    if (!rc) rc = make_system(&p, &s, Q) != 0;
    if (!rc) rc = solve_bench(args, s.A, gamg_run, &p, &report);
    free(Q);
    VecDestroy(&p.x), VecDestroy(&p.b), MatDestroy(&p.A);
    solve_system_free(&s);
    return rc;
}

int main(int argc, char **argv)
{
    solve_args args = {.name = "peer_gamg", .usage = usage};
    char version[32];
    int rc = solve_parse(argc, argv, &args);
    if (rc != 0 && rc != SOLVE_VERSION) return rc == -1 ? 0 : 2;
    if (PetscInitializeNoArguments()) return solve_fail("PETSc did not start", NULL);
    PetscPushErrorHandler(print_error, NULL);
    if (rc == SOLVE_VERSION) {
        version_text(version, sizeof version);
        printf("{\"peer\":\"gamg\",\"version\":\"%s\"}\n", version);
        rc = 0;
    } else rc = bench(&args);
    PetscFinalize();
    return rc;
}
