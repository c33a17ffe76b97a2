/* peer_hypre.c: the hypre BoomerAMG peer of `hspgemm bench --suite=solve`: A x = ones by hypre's
 * PCG preconditioned with one BoomerAMG V-cycle (hypre's defaults), on one MPI rank; times the
 * setup (HYPRE_ParCSRPCGSetup, which builds the AMG hierarchy) and the solve apart and prints one
 * JSON line (peer_solve.h). */
#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <_hypre_parcsr_ls.h> /* hypre_ParAMGData: 2.26 has no getter of the levels or their matrices */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "peer.h"
#include "peer_solve.h"

/* hypre 2.26's BoomerAMG defaults, as its par_amg.c sets them (HYPRE_BoomerAMGCreate) */
#define COARSENING "HMIS coarsening (10), extended+i interpolation (6) of at most 4 entries a row, strength 0.25"
#define SMOOTHING "l1 Gauss-Seidel forward (13) down and backward (14) up, 1 sweep"
#define COARSEST "Gaussian elimination on the coarsest level (9), max coarse 9"
#define DEFAULTS COARSENING ", " SMOOTHING ", " COARSEST
#define PRECOND "one V-cycle a PCG iteration (MaxIter 1, Tol 0); PCG TwoNorm 1"
/* with --block=K: hypre's nodal systems AMG */
#define NODAL "; --block: NumFunctions K, nodal coarsening on the blocks' row-sum norms (Nodal 4)"
/* hypre takes interpolation vectors with nodal coarsening only */
#define UNUSED "; --nullspace without --block: the candidates not used"
#define VECTORS ", the candidates as interpolation vectors (InterpVecVariant 2, GM approach 2)"

static const char usage[] =
    "usage: peer_hypre --solve [--tol=X] [--maxiter=N] [--repeat=R] [--threads=N] [--block=K --nullspace=B.mtx]\n"
    "                  A.mtx\n"
    "       peer_hypre --version\n"
    "Solves A x = b, b = ones, x0 = 0, by hypre's PCG preconditioned with one BoomerAMG V-cycle to\n"
    "||b - A x||_2 / ||b||_2 <= X (default 1e-8) or N iterations (default 200); one untimed warm-up, then\n"
    "R timed runs (default 3), each a fresh setup and solve.  BoomerAMG as hypre sets it by default:\n"
    "  " COARSENING ",\n  " SMOOTHING ",\n  " COARSEST ".\n"
    "--block=K: K rows a node, nodal systems AMG (NumFunctions K, Nodal 4); --nullspace=B.mtx: the\n"
    "near-nullspace candidates, an n x k Matrix Market array file, given to BoomerAMG as interpolation\n"
    "vectors (InterpVecVariant 2) with --block=K of K > 1, else not used.  One MPI rank, one thread:\n"
    "--threads is taken and reported as 1.  MPI_Init is called without mpiexec; as root, Open MPI needs\n"
    "OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.  Prints one JSON line:\n"
    "{\"peer\":\"hypre\",\"version\":...,\"setup_ms_median\":...,\"solve_ms_median\":...,\"total_ms_median\":...,\n"
    " \"iterations\":...,\"relres\":...,\"converged\":...,\"levels\":...,\"complexity\":...,\"options\":...}\n";

/* The system in hypre's objects, and what each run's solvers are given. */
typedef struct {
    const solve_args *args;
    int n;
    HYPRE_IJMatrix ij;
    HYPRE_ParCSRMatrix A;
    HYPRE_IJVector b_ij, x_ij;
    HYPRE_ParVector b, x;
    int ncandidates;
    HYPRE_IJVector *candidate_ij;
    HYPRE_ParVector *candidates; /* owned here: BoomerAMG frees only the coarse levels' */
    HYPRE_BigInt *rows;          /* 0 .. n-1, the indices of vector values */
} hypre_peer;

/* hypre's error of a call, as a message; 1 where rc is an error. */
static int hypre_failed(HYPRE_Int rc, const char *call)
{
    char text[256] = "";
    if (!rc) return 0;
    HYPRE_DescribeError(rc, text);
    HYPRE_ClearAllErrors();
    return solve_fail(call, text);
}

/* A new IJ vector of the n values on rows 0 .. n-1, and its ParVector. */
static int make_vector(hypre_peer *p, int n, const double *values, HYPRE_IJVector *ij, HYPRE_ParVector *par)
{
    void *object;
    HYPRE_Int rc = HYPRE_IJVectorCreate(MPI_COMM_WORLD, 0, n - 1, ij);
    if (!rc) rc = HYPRE_IJVectorSetObjectType(*ij, HYPRE_PARCSR);
    if (!rc) rc = HYPRE_IJVectorInitialize(*ij);
    if (!rc) rc = HYPRE_IJVectorSetValues(*ij, n, p->rows, values);
    if (!rc) rc = HYPRE_IJVectorAssemble(*ij);
    if (!rc) rc = HYPRE_IJVectorGetObject(*ij, &object);
    *par = (HYPRE_ParVector)object;
    return hypre_failed(rc, "making a vector");
}

/* A as an IJ matrix on this rank (rows and columns 0 .. n-1), and its ParCSR matrix. */
static int make_matrix(hypre_peer *p, const hsp_csr *A)
{
    int n = A->nrows;
    HYPRE_Int *sizes = malloc((size_t)n * sizeof *sizes);
    HYPRE_BigInt *cols = malloc((size_t)A->nnz * sizeof *cols);
    void *object;
    if (!sizes || !cols) return free(sizes), free(cols), solve_fail("out of memory", "A for hypre");
    for (int i = 0; i < n; i++) sizes[i] = (HYPRE_Int)(A->rowptr[i + 1] - A->rowptr[i]);
    for (int64_t k = 0; k < A->nnz; k++) cols[k] = A->colidx[k];
    HYPRE_Int rc = HYPRE_IJMatrixCreate(MPI_COMM_WORLD, 0, n - 1, 0, n - 1, &p->ij);
    if (!rc) rc = HYPRE_IJMatrixSetObjectType(p->ij, HYPRE_PARCSR);
    if (!rc) rc = HYPRE_IJMatrixSetRowSizes(p->ij, sizes);
    if (!rc) rc = HYPRE_IJMatrixInitialize(p->ij);
    if (!rc) rc = HYPRE_IJMatrixSetValues(p->ij, n, sizes, p->rows, cols, A->values);
    if (!rc) rc = HYPRE_IJMatrixAssemble(p->ij);
    if (!rc) rc = HYPRE_IJMatrixGetObject(p->ij, &object);
    p->A = (HYPRE_ParCSRMatrix)object;
    free(sizes), free(cols);
    return hypre_failed(rc, "making A");
}

/* The candidates, each column of B a ParVector. */
static int make_candidates(hypre_peer *p, const hsp_dense *B)
{
    p->ncandidates = B->ncols;
    p->candidate_ij = calloc((size_t)B->ncols, sizeof *p->candidate_ij);
    p->candidates = calloc((size_t)B->ncols, sizeof *p->candidates);
    if (!p->candidate_ij || !p->candidates) return solve_fail("out of memory", "B for hypre");
    for (int j = 0; j < B->ncols; j++)
        if (make_vector(p, B->nrows, (const double *)B->values + j * B->ld, &p->candidate_ij[j], &p->candidates[j]))
            return 1;
    return 0;
}

/* The system in hypre's objects: A, b (ones), x and the candidates; 1 after a message. */
static int make_system(hypre_peer *p, const solve_system *s, const double *ones)
{
    int n = p->n = s->A->nrows;
    if (!(p->rows = malloc((size_t)n * sizeof *p->rows))) return solve_fail("out of memory", NULL);
    for (int i = 0; i < n; i++) p->rows[i] = i;
    if (make_matrix(p, s->A) || make_vector(p, n, ones, &p->b_ij, &p->b) || make_vector(p, n, ones, &p->x_ij, &p->x))
        return 1;
    return s->B.values && p->args->block > 1 ? make_candidates(p, &s->B) : 0;
}

static void free_system(hypre_peer *p)
{
    for (int j = 0; j < p->ncandidates; j++)
        if (p->candidate_ij && p->candidate_ij[j]) HYPRE_IJVectorDestroy(p->candidate_ij[j]);
    free(p->candidate_ij), free(p->candidates);
    if (p->x_ij) HYPRE_IJVectorDestroy(p->x_ij);
    if (p->b_ij) HYPRE_IJVectorDestroy(p->b_ij);
    if (p->ij) HYPRE_IJMatrixDestroy(p->ij);
    free(p->rows);
}

/* BoomerAMG as a preconditioner: one V-cycle of hypre's defaults, nodal with --block. */
static HYPRE_Int configure_amg(const hypre_peer *p, HYPRE_Solver amg)
{
    HYPRE_Int rc = HYPRE_BoomerAMGSetMaxIter(amg, 1);
    if (!rc) rc = HYPRE_BoomerAMGSetTol(amg, 0);
    if (!rc && p->args->block > 1) rc = HYPRE_BoomerAMGSetNumFunctions(amg, p->args->block);
    if (!rc && p->args->block > 1) rc = HYPRE_BoomerAMGSetNodal(amg, 4);
    if (!rc && p->ncandidates) rc = HYPRE_BoomerAMGSetInterpVectors(amg, p->ncandidates, p->candidates);
    if (!rc && p->ncandidates) rc = HYPRE_BoomerAMGSetInterpVecVariant(amg, 2);
    return rc;
}

/* PCG to the relative 2-norm tol, at most maxiter iterations. */
static HYPRE_Int configure_pcg(const hypre_peer *p, HYPRE_Solver pcg, HYPRE_Solver amg)
{
    HYPRE_Int rc = HYPRE_PCGSetTol(pcg, p->args->tol);
    if (!rc) rc = HYPRE_PCGSetMaxIter(pcg, p->args->maxiter);
    if (!rc) rc = HYPRE_PCGSetTwoNorm(pcg, 1);
    if (!rc) rc = HYPRE_ParCSRPCGSetPrecond(pcg, HYPRE_BoomerAMGSolve, HYPRE_BoomerAMGSetup, amg);
    return rc;
}

/* The levels of the hierarchy amg built and its operator complexity (their entries over A's). */
static void hierarchy(HYPRE_Solver amg, solve_run *run)
{
    hypre_ParAMGData *data = (hypre_ParAMGData *)amg;
    hypre_ParCSRMatrix **levels = hypre_ParAMGDataAArray(data);
    double entries = 0, fine = 0;
    run->levels = hypre_ParAMGDataNumLevels(data);
    for (int l = 0; l < run->levels; l++) {
        double nnz = hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(levels[l])) +
                     hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(levels[l]));
        entries += nnz;
        if (!l) fine = nnz;
    }
    run->complexity = fine > 0 ? entries / fine : 0;
}

/* A fresh PCG and BoomerAMG: setup and solve timed apart (solve_fn). PCG's not converging
 * (HYPRE_ERROR_CONV) is no failure: the driver reports it. */
static int hypre_run(void *peer, double *x, solve_run *run)
{
    hypre_peer *p = peer;
    HYPRE_Solver pcg = NULL, amg = NULL;
    HYPRE_Int rc = HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg), its = 0;
    if (!rc) rc = HYPRE_BoomerAMGCreate(&amg);
    if (!rc) rc = configure_amg(p, amg);
    if (!rc) rc = configure_pcg(p, pcg, amg);
    if (!rc) rc = HYPRE_ParVectorSetConstantValues(p->x, 0);
    double t0 = peer_now_ms();
    if (!rc) rc = HYPRE_ParCSRPCGSetup(pcg, p->A, p->b, p->x);
    double t1 = peer_now_ms();
    if (!rc) rc = HYPRE_ParCSRPCGSolve(pcg, p->A, p->b, p->x);
    if (rc & HYPRE_ERROR_CONV) HYPRE_ClearError(HYPRE_ERROR_CONV), rc &= ~HYPRE_ERROR_CONV;
    run->setup_ms = t1 - t0, run->solve_ms = peer_now_ms() - t1;
    if (!rc) rc = HYPRE_PCGGetNumIterations(pcg, &its);
    if (!rc) rc = HYPRE_IJVectorGetValues(p->x_ij, p->n, p->rows, x);
    if (!rc) hierarchy(amg, run);
    run->iterations = its;
    if (amg) HYPRE_BoomerAMGDestroy(amg);
    if (pcg) HYPRE_ParCSRPCGDestroy(pcg);
    return hypre_failed(rc, "hypre's PCG with BoomerAMG");
}

/* What "options" says: the defaults, the preconditioner's use and the system's options. */
static const char *options_text(const hypre_peer *p)
{
    if (p->ncandidates) return DEFAULTS "; " PRECOND NODAL VECTORS;
    if (p->args->block > 1) return DEFAULTS "; " PRECOND NODAL;
    return p->args->nullspace ? DEFAULTS "; " PRECOND UNUSED : DEFAULTS "; " PRECOND;
}

/* --version: the hypre this peer runs with, once MPI and hypre start. */
static int print_version(void)
{
    HYPRE_Int major, minor, patch;
    HYPRE_VersionNumber(&major, &minor, &patch, NULL);
    printf("{\"peer\":\"hypre\",\"version\":\"%d.%d.%d\"}\n", (int)major, (int)minor, (int)patch);
    return 0;
}

/* Read the system, make hypre's objects, run and print (the parsed command line). */
static int bench(const solve_args *args)
{
    hypre_peer p = {.args = args};
    solve_system s;
    char version[32];
    HYPRE_Int major, minor, patch;
    if (solve_read(args, &s)) return 1;
    double *ones = malloc((size_t)s.A->nrows * sizeof *ones);
    for (int i = 0; ones && i < s.A->nrows; i++) ones[i] = 1;
    int rc = ones ? make_system(&p, &s, ones) : solve_fail("out of memory", NULL);
    HYPRE_VersionNumber(&major, &minor, &patch, NULL);
    snprintf(version, sizeof version, "%d.%d.%d", (int)major, (int)minor, (int)patch);
    solve_report report = {.peer = "hypre", .version = version, .options = options_text(&p)};
    if (!rc) rc = solve_bench(args, s.A, hypre_run, &p, &report);
    free_system(&p);
    free(ones);
    solve_system_free(&s);
    return rc;
}

int main(int argc, char **argv)
{
    solve_args args = {.name = "peer_hypre", .usage = usage};
    int rc = solve_parse(argc, argv, &args);
    if (rc != 0 && rc != SOLVE_VERSION) return rc == -1 ? 0 : 2;
    MPI_Init(NULL, NULL);
    HYPRE_Init();
    rc = rc == SOLVE_VERSION ? print_version() : bench(&args);
    HYPRE_Finalize();
    MPI_Finalize();
    return rc;
}
