/* t_petsc_products.c: products of aijhsp matrices (the PETSc plugin) against
 * PETSc's own of the same matrices as aij, on however many ranks mpiexec
 * gives it: C = A*P, P^T*A*P and P^T*A (pattern exact, values to
 * rounding), the three again after A's values change (numeric phases by
 * hspgemm's plans),
 * P^T*A*P of an aggregating P (PETSc's own on several ranks),
 * a product whose operand's pattern changed between the symbolic and the
 * numeric phase (PETSc's error, hspgemm's message inside), and one of bad
 * sizes, and a first product made by one rank alone; reuses with new
 * operand objects and after C changed, A*B*C of aijhsp and aij mixed, A*X
 * of a dense X, and an error on one rank only.  Prints "ok - ..." or "not ok - ..." a check
 * (rank 0); tests/t_petsc.sh numbers them.  -uncaught: only the error on
 * one rank, not caught (the program ends with it on every rank). */
#include <petscmat.h>
#include <string.h>
#include "hsp_petsc.h"

enum { SIDE = 40, PER = 4 }; /* A: 2d9 stencil on SIDE x SIDE; P: PER rows an aggregate */

static char last_error[1024];

/* Keeps the first message of an error (not printed). */
static PetscErrorCode keep_message(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n,
                                   PetscErrorType p, const char *mess, void *ctx)
{
    (void)comm, (void)line, (void)fun, (void)file, (void)ctx;
    if (p == PETSC_ERROR_INITIAL && mess && !last_error[0]) strncpy(last_error, mess, sizeof last_error - 1);
    return n;
}

/* ok on every rank? Printed by rank 0. */
static PetscErrorCode report(PetscBool ok, const char *what)
{
    PetscBool all;

    PetscFunctionBegin;
    PetscCall(MPIU_Allreduce(&ok, &all, 1, MPIU_BOOL, MPI_LAND, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s - %s\n", all ? "ok" : "not ok", what));
    PetscFunctionReturn(0);
}

/* A new M x N matrix of the type, room for width entries a row; this
 * rank's rows [*first, *last). */
static PetscErrorCode new_matrix(MatType type, PetscInt M, PetscInt N, PetscInt width, Mat *A, PetscInt *first,
                                 PetscInt *last)
{
    PetscFunctionBegin;
    PetscCall(MatCreate(PETSC_COMM_WORLD, A));
    PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, M, N));
    PetscCall(MatSetType(*A, type));
    PetscCall(MatSeqAIJSetPreallocation(*A, width, NULL));
    PetscCall(MatMPIAIJSetPreallocation(*A, width, NULL, width, NULL));
    PetscCall(MatGetOwnershipRange(*A, first, last));
    PetscFunctionReturn(0);
}

/* A: the 9-point stencil, off-diagonal values varying by row and column,
 * diag on the diagonal. */
static PetscErrorCode make_a(MatType type, PetscScalar diag, Mat *A)
{
    PetscInt N = SIDE * SIDE, first, last;

    PetscFunctionBegin;
    PetscCall(new_matrix(type, N, N, 9, A, &first, &last));
    for (PetscInt i = first; i < last; i++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                PetscInt x = i % SIDE + dx, y = i / SIDE + dy, j = x + SIDE * y;
                PetscScalar v = dx || dy ? -1.0 / (1 + (i + 3 * j) % 7) : diag;
                if (x >= 0 && y >= 0 && x < SIDE && y < SIDE) PetscCall(MatSetValue(*A, i, j, v, INSERT_VALUES));
            }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* P: row i in aggregate i / PER and, every third row, the next one too,
 * its values scaled. */
static PetscErrorCode make_p(MatType type, PetscScalar scale, Mat *P)
{
    PetscInt N = SIDE * SIDE, nc = N / PER, first, last;

    PetscFunctionBegin;
    PetscCall(new_matrix(type, N, nc, 2, P, &first, &last));
    for (PetscInt i = first; i < last; i++) {
        PetscCall(MatSetValue(*P, i, i / PER, scale * (0.5 + 0.01 * (i % 5)), INSERT_VALUES));
        if (i % 3 == 0) PetscCall(MatSetValue(*P, i, (i / PER + 1) % nc, scale * 0.25, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* P of PCGAMG's coarsener: one 1 a row, row i in aggregate i / PER. */
static PetscErrorCode make_aggregating_p(Mat *P)
{
    PetscInt N = SIDE * SIDE, first, last;

    PetscFunctionBegin;
    PetscCall(new_matrix(MATAIJHSP, N, N / PER, 1, P, &first, &last));
    for (PetscInt i = first; i < last; i++) PetscCall(MatSetValue(*P, i, i / PER, 1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* Do X and Y (this rank's rows) hold the same entries, values to rounding? */
static PetscErrorCode same(Mat X, Mat Y, PetscBool *ok)
{
    PetscInt M[2], N[2], first, last;

    PetscFunctionBegin;
    PetscCall(MatGetSize(X, &M[0], &N[0]));
    PetscCall(MatGetSize(Y, &M[1], &N[1]));
    *ok = M[0] == M[1] && N[0] == N[1];
    PetscCall(MatGetOwnershipRange(X, &first, &last));
    for (PetscInt i = first; i < last && *ok; i++) {
        PetscInt nx, ny;
        const PetscInt *cx, *cy;
        const PetscScalar *vx, *vy;
        PetscCall(MatGetRow(X, i, &nx, &cx, &vx));
        PetscCall(MatGetRow(Y, i, &ny, &cy, &vy));
        *ok = nx == ny;
        for (PetscInt k = 0; k < nx && *ok; k++)
            *ok = cx[k] == cy[k] && PetscAbsScalar(vx[k] - vy[k]) <= 1e-12 * (1 + PetscAbsScalar(vy[k]));
        PetscCall(MatRestoreRow(Y, i, &ny, &cy, &vy));
        PetscCall(MatRestoreRow(X, i, &nx, &cx, &vx));
    }
    PetscFunctionReturn(0);
}

/* Is C op(A, P) as PETSc's own of aij copies computes it? */
static PetscErrorCode right(int o, Mat A, Mat P, Mat C, PetscBool *ok)
{
    Mat a, p, c;

    PetscFunctionBegin;
    PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &a));
    PetscCall(MatConvert(P, MATAIJ, MAT_INITIAL_MATRIX, &p));
    if (o == 0) PetscCall(MatMatMult(a, p, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &c));
    else PetscCall(MatPtAP(a, p, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &c));
    PetscCall(same(C, c, ok));
    PetscCall(MatDestroy(&a));
    PetscCall(MatDestroy(&p));
    PetscCall(MatDestroy(&c));
    PetscFunctionReturn(0);
}

/* The products made by hspgemm so far, on all ranks. */
static PetscInt made(int which)
{
    PetscInt c[3], all = 0;
    PetscCallAbort(PETSC_COMM_WORLD, PetscHspgemmGetCounts(&c[0], &c[1], &c[2]));
    PetscCallAbort(PETSC_COMM_WORLD, MPIU_Allreduce(&c[which], &all, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    return all;
}

/* A*P, P^T*A*P and P^T*A, then the three again after A's values change. */
static PetscErrorCode test_products(void)
{
    Mat A[2], P[2], AP[2], PtAP[2], PtA[2]; /* [0] PETSc's, [1] hspgemm's */
    PetscBool ok;
    PetscInt before;

    PetscFunctionBegin;
    for (int k = 0; k < 2; k++) {
        PetscCall(make_a(k ? MATAIJHSP : MATAIJ, 8.5, &A[k]));
        PetscCall(make_p(k ? MATAIJHSP : MATAIJ, 1.0, &P[k]));
        PetscCall(MatMatMult(A[k], P[k], MAT_INITIAL_MATRIX, PETSC_DEFAULT, &AP[k]));
        PetscCall(MatPtAP(A[k], P[k], MAT_INITIAL_MATRIX, PETSC_DEFAULT, &PtAP[k]));
        PetscCall(MatTransposeMatMult(P[k], A[k], MAT_INITIAL_MATRIX, PETSC_DEFAULT, &PtA[k]));
    }
    PetscCall(same(AP[1], AP[0], &ok));
    PetscCall(report(ok && made(0) > 0, "A*P of aijhsp matrices by hspgemm equals PETSc's"));
    PetscCall(same(PtAP[1], PtAP[0], &ok));
    PetscCall(report(ok && made(1) > 0, "P^T*A*P of aijhsp matrices by hspgemm equals PETSc's"));
    PetscCall(same(PtA[1], PtA[0], &ok));
    PetscCall(report(ok, "P^T*A (MatTransposeMatMult) of aijhsp matrices by hspgemm equals PETSc's"));
    before = made(2);
    for (int k = 0; k < 2; k++) {
        PetscCall(MatScale(A[k], -3.0));
        PetscCall(MatShift(A[k], 0.5));
        PetscCall(MatMatMult(A[k], P[k], MAT_REUSE_MATRIX, PETSC_DEFAULT, &AP[k]));
        PetscCall(MatPtAP(A[k], P[k], MAT_REUSE_MATRIX, PETSC_DEFAULT, &PtAP[k]));
        PetscCall(MatTransposeMatMult(P[k], A[k], MAT_REUSE_MATRIX, PETSC_DEFAULT, &PtA[k]));
    }
    PetscBool ok2, ok3;
    PetscCall(same(AP[1], AP[0], &ok));
    PetscCall(same(PtAP[1], PtAP[0], &ok2));
    PetscCall(same(PtA[1], PtA[0], &ok3));
    PetscCall(report(ok && ok2 && ok3 && made(2) > before, "the three again after A's values change: by hspgemm's plans, PETSc's values"));
    for (int k = 0; k < 2; k++) {
        PetscCall(MatDestroy(&A[k]));
        PetscCall(MatDestroy(&P[k]));
        PetscCall(MatDestroy(&AP[k]));
        PetscCall(MatDestroy(&PtAP[k]));
        PetscCall(MatDestroy(&PtA[k]));
    }
    PetscFunctionReturn(0);
}

/* P^T*A*P where P aggregates: by hspgemm on one rank (one pass over A), by
 * PETSc's own on several (faster there; -hsp_backend: its backend algorithm's
 * local products by hspgemm); PETSc's values, again after A's change. */
static PetscErrorCode test_aggregating(void)
{
    Mat A, P, C;
    PetscBool ok, ok2, backend;
    PetscMPIInt size;
    PetscInt before = made(1), after;

    PetscFunctionBegin;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-hsp_backend", &backend));
    PetscCall(make_a(MATAIJHSP, 8.5, &A));
    PetscCall(make_aggregating_p(&P));
    PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
    after = made(1);
    PetscCall(right(1, A, P, C, &ok));
    PetscCall(MatScale(A, -2.0));
    PetscCall(MatPtAP(A, P, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C));
    PetscCall(right(1, A, P, C, &ok2));
    PetscCall(report(ok && ok2 && (size == 1 || backend ? after > before : after == before),
                     "P^T*A*P of an aggregating P: PETSc's values, again after A's change, by hspgemm on one rank "
                     "and PETSc's own on several"));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&C));
    PetscFunctionReturn(0);
}

/* A product whose A gains an entry between its symbolic and numeric phases
 * (on every rank, in its own columns: each rank's local product fails
 * before the collective assembly of C), and one of sizes that do not
 * match: errors, no crash. */
static PetscErrorCode test_errors(void)
{
    Mat A, P, C, D;
    PetscInt first, last;
    PetscErrorCode e;
    PetscBool fine = PETSC_FALSE;

    PetscFunctionBegin;
    PetscCall(make_a(MATAIJHSP, 8.5, &A));
    PetscCall(make_p(MATAIJHSP, 1.0, &P));
    PetscCall(MatProductCreate(A, P, NULL, &C));
    PetscCall(MatProductSetType(C, MATPRODUCT_AB));
    PetscCall(MatProductSetFromOptions(C));
    PetscCall(MatProductSymbolic(C));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatGetOwnershipRange(A, &first, &last));
    if (last - first > 2 * SIDE) PetscCall(MatSetValue(A, first, last - 1, 1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    last_error[0] = 0;
    PetscCall(PetscPushErrorHandler(keep_message, NULL));
    e = MatProductNumeric(C);
    PetscCall(PetscPopErrorHandler());
    if (!e) PetscCall(right(0, A, P, C, &fine)); /* PETSc's backend algorithm (-hsp_backend), set up anew */
    PetscCall(report((e != 0 && strstr(last_error, "hspgemm") != NULL) || fine,
                     "A's pattern changed after the symbolic phase: PETSc's error with hspgemm's message (or, "
                     "PETSc's backend algorithm set up anew, the changed A's product)"));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# [rank] %s\n", last_error));
    last_error[0] = 0;
    PetscCall(PetscPushErrorHandler(keep_message, NULL));
    e = MatMatMult(P, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &D);
    PetscCall(PetscPopErrorHandler());
    PetscCall(report(e != 0 && last_error[0], "P*A of sizes that do not match: PETSc's error"));
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&P));
    PetscFunctionReturn(0);
}

/* The first product of the process made by rank 0 alone, on
 * PETSC_COMM_SELF: nothing behind it waits for the other ranks. */
static PetscErrorCode test_one_rank(void)
{
    PetscMPIInt rank;
    PetscBool ok = PETSC_TRUE;

    PetscFunctionBegin;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    if (rank == 0) {
        Mat A, C;
        PetscScalar v = 0;
        PetscInt zero = 0;
        PetscCall(MatCreate(PETSC_COMM_SELF, &A));
        PetscCall(MatSetSizes(A, 10, 10, 10, 10));
        PetscCall(MatSetType(A, MATSEQAIJHSP));
        PetscCall(MatSeqAIJSetPreallocation(A, 1, NULL));
        for (PetscInt i = 0; i < 10; i++) PetscCall(MatSetValue(A, i, i, 2.0, INSERT_VALUES));
        PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
        PetscCall(MatMatMult(A, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
        PetscCall(MatGetValues(C, 1, &zero, 1, &zero, &v));
        ok = v == 4.0;
        PetscCall(MatDestroy(&C));
        PetscCall(MatDestroy(&A));
    }
    PetscCall(report(ok && made(0) == 1, "the first product made by one rank alone (PETSC_COMM_SELF): no wait for the others"));
    PetscFunctionReturn(0);
}

/* C = op(A, P) of the reuse given: A*P, P^T*A*P or P^T*A. */
typedef enum { OP_AB, OP_PTAP, OP_ATB } op;
static const char *const op_names[] = {"A*P", "P^T*A*P", "P^T*A"};

static PetscErrorCode product(op o, Mat A, Mat P, MatReuse reuse, Mat *C)
{
    PetscFunctionBegin;
    if (o == OP_AB) PetscCall(MatMatMult(A, P, reuse, PETSC_DEFAULT, C));
    if (o == OP_PTAP) PetscCall(MatPtAP(A, P, reuse, PETSC_DEFAULT, C));
    if (o == OP_ATB) PetscCall(MatTransposeMatMult(P, A, reuse, PETSC_DEFAULT, C));
    PetscFunctionReturn(0);
}

/* The two of each: A, P and C, PETSc's and hspgemm's. */
static PetscErrorCode destroy_pairs(Mat A[2], Mat P[2], Mat C[2])
{
    PetscFunctionBegin;
    for (int k = 0; k < 2; k++) {
        PetscCall(MatDestroy(&A[k]));
        PetscCall(MatDestroy(&P[k]));
        PetscCall(MatDestroy(&C[k]));
    }
    PetscFunctionReturn(0);
}

/* Each step a new operand of the same pattern, built by the same calls (so
 * of the same PETSc state as the one before; A, then P, then both), the
 * product reused with it (MatProductReplaceMats), the old one destroyed: C
 * is the new operands' product, as PETSc's made anew. */
static PetscErrorCode test_new_operands(op o)
{
    Mat A[2] = {NULL, NULL}, P[2] = {NULL, NULL}, C[2];
    PetscBool ok = PETSC_TRUE, step;
    char what[160];

    PetscFunctionBegin;
    for (int s = 0; s < 4; s++) {
        for (int k = 0; k < 2; k++) {
            if (s != 2) PetscCall(MatDestroy(&A[k]));
            if (s != 1) PetscCall(MatDestroy(&P[k]));
            if (!A[k]) PetscCall(make_a(k ? MATAIJHSP : MATAIJ, 8.5 + 3 * s, &A[k]));
            if (!P[k]) PetscCall(make_p(k ? MATAIJHSP : MATAIJ, 1.0 + s, &P[k]));
        }
        if (s) PetscCall(MatDestroy(&C[0])); /* PETSc's own, made anew: its MPIAIJ P^T*A*P refuses a new P */
        PetscCall(product(o, A[0], P[0], MAT_INITIAL_MATRIX, &C[0]));
        PetscCall(product(o, A[1], P[1], s ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, &C[1]));
        PetscCall(same(C[1], C[0], &step));
        ok = ok && step;
    }
    PetscCall(PetscSNPrintf(what, sizeof what, "%s reused with a new A, P or both of the same pattern and state: "
                            "the new operands' product", op_names[o]));
    PetscCall(report(ok, what));
    PetscCall(destroy_pairs(A, P, C));
    PetscFunctionReturn(0);
}

/* C changed by the user (scaled, shifted where square, zeroed), then the
 * product reused with A and P unchanged: C is the product again. */
static PetscErrorCode test_changed_c(op o)
{
    Mat A[2], P[2], C[2];
    PetscBool ok = PETSC_TRUE, step;
    char what[160];

    PetscFunctionBegin;
    for (int k = 0; k < 2; k++) {
        PetscCall(make_a(k ? MATAIJHSP : MATAIJ, 8.5, &A[k]));
        PetscCall(make_p(k ? MATAIJHSP : MATAIJ, 1.0, &P[k]));
        PetscCall(product(o, A[k], P[k], MAT_INITIAL_MATRIX, &C[k]));
    }
    for (int change = 0; change < 3; change++) {
        if (change == 0) PetscCall(MatScale(C[1], 2.0));
        if (change == 1 && o == OP_PTAP) PetscCall(MatShift(C[1], 1.0));
        if (change == 2) PetscCall(MatZeroEntries(C[1]));
        PetscCall(product(o, A[1], P[1], MAT_REUSE_MATRIX, &C[1]));
        PetscCall(same(C[1], C[0], &step));
        ok = ok && step;
    }
    PetscCall(PetscSNPrintf(what, sizeof what, "%s reused after C was scaled, shifted or zeroed: the product again",
                            op_names[o]));
    PetscCall(report(ok, what));
    PetscCall(destroy_pairs(A, P, C));
    PetscFunctionReturn(0);
}

/* A*A*P (MatMatMatMult) with aijhsp and aij mixed, either way round, then
 * reused after A's values change: as PETSc's of aij matrices. */
static PetscErrorCode test_mixed_abc(void)
{
    Mat A[2], P, D[3];
    PetscBool ok[2];

    PetscFunctionBegin;
    PetscCall(make_a(MATAIJ, 8.5, &A[0]));
    PetscCall(make_a(MATAIJHSP, 8.5, &A[1]));
    PetscCall(make_p(MATAIJ, 1.0, &P));
    for (int round = 0; round < 2; round++) {
        MatReuse reuse = round ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX;
        if (round)
            for (int k = 0; k < 2; k++) PetscCall(MatScale(A[k], -2.0));
        PetscCall(MatMatMatMult(A[0], A[0], P, reuse, PETSC_DEFAULT, &D[0]));
        PetscCall(MatMatMatMult(A[1], A[0], P, reuse, PETSC_DEFAULT, &D[1]));
        PetscCall(MatMatMatMult(A[0], A[1], P, reuse, PETSC_DEFAULT, &D[2]));
        PetscCall(same(D[1], D[0], &ok[0]));
        PetscCall(same(D[2], D[0], &ok[1]));
        PetscCall(report(ok[0] && ok[1], round ? "A*A*P of aijhsp and aij mixed, reused after A changed: PETSc's values"
                                             : "A*A*P of aijhsp and aij mixed, either order: PETSc's values"));
    }
    for (int k = 0; k < 3; k++) PetscCall(MatDestroy(&D[k]));
    for (int k = 0; k < 2; k++) PetscCall(MatDestroy(&A[k]));
    PetscCall(MatDestroy(&P));
    PetscFunctionReturn(0);
}

/* Rank 0 alone gives A a new entry, then A*P and P^T*A*P are reused: an
 * error on every rank, none left waiting for rank 0.  Not caught: the
 * error ends the program on every rank. */
static PetscErrorCode test_one_rank_error(PetscBool caught)
{
    Mat A, P, C[2];
    PetscMPIInt rank;
    PetscInt first, last;
    PetscErrorCode e[2];
    PetscBool fine[2] = {PETSC_FALSE, PETSC_FALSE};

    PetscFunctionBegin;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCall(make_a(MATAIJHSP, 8.5, &A));
    PetscCall(make_p(MATAIJHSP, 1.0, &P));
    PetscCall(MatMatMult(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C[0]));
    PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C[1]));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatGetOwnershipRange(A, &first, &last));
    if (rank == 0) PetscCall(MatSetValue(A, first, last - 1, 1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    if (!caught) PetscCall(MatMatMult(A, P, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C[0]));
    PetscCall(PetscPushErrorHandler(keep_message, NULL));
    e[0] = MatMatMult(A, P, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C[0]);
    e[1] = MatPtAP(A, P, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C[1]);
    PetscCall(PetscPopErrorHandler());
    for (int k = 0; k < 2; k++)
        if (!e[k]) PetscCall(right(k, A, P, C[k], &fine[k])); /* PETSc's backend algorithm, set up anew */
    PetscCall(report((e[0] || fine[0]) && (e[1] || fine[1]), "A's pattern changed on rank 0 alone, A*P and P^T*A*P "
                     "reused: an error on every rank (or the changed A's products), no rank left waiting"));
    PetscCall(MatDestroy(&C[0]));
    PetscCall(MatDestroy(&C[1]));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&P));
    PetscFunctionReturn(0);
}

/* A*X of an aijhsp A and a dense X (5 columns), then again after A's values
 * change: as PETSc's of aij; by hspgemm (hsp_spmm) on one rank. */
static PetscErrorCode test_dense(void)
{
    Mat A[2], X, C[2];
    PetscInt first, last, n, before = made(0), after;
    PetscReal diff[2], norm;
    PetscMPIInt size;

    PetscFunctionBegin;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    for (int k = 0; k < 2; k++) PetscCall(make_a(k ? MATAIJHSP : MATAIJ, 8.5, &A[k]));
    PetscCall(MatGetLocalSize(A[0], NULL, &n));
    PetscCall(MatCreateDense(PETSC_COMM_WORLD, n, PETSC_DECIDE, PETSC_DETERMINE, 5, NULL, &X));
    PetscCall(MatGetOwnershipRange(X, &first, &last));
    for (PetscInt i = first; i < last; i++)
        for (PetscInt j = 0; j < 5; j++) PetscCall(MatSetValue(X, i, j, 1.0 + (i * 7 + j * 3) % 11, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 2; k++) {
            if (round) PetscCall(MatScale(A[k], -2.0));
            PetscCall(MatMatMult(A[k], X, round ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C[k]));
        }
        PetscCall(MatNorm(C[0], NORM_FROBENIUS, &norm));
        PetscCall(MatAXPY(C[1], -1.0, C[0], SAME_NONZERO_PATTERN));
        PetscCall(MatNorm(C[1], NORM_FROBENIUS, &diff[round]));
        diff[round] /= norm;
    }
    after = made(0);
    PetscCall(report(diff[0] < 1e-13 && diff[1] < 1e-13 && (size > 1 || after == before + 1),
                     "A*X of an aijhsp A and a dense X, then reused: PETSc's values (hsp_spmm on one rank)"));
    for (int k = 0; k < 2; k++) {
        PetscCall(MatDestroy(&A[k]));
        PetscCall(MatDestroy(&C[k]));
    }
    PetscCall(MatDestroy(&X));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    PetscBool uncaught = PETSC_FALSE;

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(PetscHspgemmRegister());
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-uncaught", &uncaught, NULL));
    if (uncaught) PetscCall(test_one_rank_error(PETSC_FALSE));
    PetscCall(test_one_rank());
    PetscCall(test_products());
    PetscCall(test_aggregating());
    PetscCall(test_errors());
    for (op o = OP_AB; o <= OP_ATB; o++) {
        PetscCall(test_new_operands(o));
        PetscCall(test_changed_c(o));
    }
    PetscCall(test_mixed_abc());
    PetscCall(test_dense());
    PetscCall(test_one_rank_error(PETSC_TRUE));
    PetscCall(PetscFinalize());
    return 0;
}
