/* t_rap.c: the transpose, Galerkin products R*A*P in both orders against the
 * reference (random and Poisson operands, both precisions, R given or P^T),
 * and plans: a reuse with new values gives what a fresh product gives and
 * the reference gives (products and Galerkin products, both precisions, R
 * given or P^T), and operands of another pattern are refused with the
 * caller's C untouched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/pool.h"
#include "ref.h"
#include "tap.h"
#include "core/transpose.h"

static hsp_context *ctx;

/* |M| in double: the entries' magnitudes, for the rounding bound. */
static hsp_csr *absolute(const hsp_csr *M)
{
    hsp_csr *X = NULL;
    hsp_csr_convert(M, HSP_DOUBLE, &X);
    for (int64_t k = 0; X && k < X->nnz; k++) ((double *)X->values)[k] = fabs(((double *)X->values)[k]);
    return X;
}

/* Is C = R*A*P (within rounding)?  why gets the first difference. */
static int rap_matches(const hsp_csr *C, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, char *why, size_t len)
{
    hsp_csr *AP = ref_multiply(A, P, NULL), *ref = AP ? ref_multiply(R, AP, NULL) : NULL;
    hsp_csr *aR = absolute(R), *aA = absolute(A), *aP = absolute(P);
    hsp_csr *aAP = ref_multiply(aA, aP, NULL), *mag = aAP ? ref_multiply(aR, aAP, NULL) : NULL;
    int ok = ref && mag && ref_compare(C, ref, mag->values, why, len);
    hsp_csr_free(AP), hsp_csr_free(ref), hsp_csr_free(aR), hsp_csr_free(aA), hsp_csr_free(aP);
    hsp_csr_free(aAP), hsp_csr_free(mag);
    return ok;
}

/* Do C and D have the same shape and pattern?  (Their values may differ in
 * the last bits: a GPU's hash and dense methods add in any order.) */
static int same_pattern(const hsp_csr *C, const hsp_csr *D)
{
    return D && C->nrows == D->nrows && C->ncols == D->ncols && C->nnz == D->nnz &&
           !memcmp(C->rowptr, D->rowptr, ((size_t)C->nrows + 1) * sizeof *C->rowptr) &&
           !memcmp(C->colidx, D->colidx, (size_t)C->nnz * sizeof *C->colidx);
}

static void test_transpose(void)
{
    static const int32_t shapes[][4] = {{0, 0, 0, 0}, {5, 0, 0, 0}, {0, 7, 0, 0}, {40, 13, 0, 5}, {13, 40, 1, 1},
                                        {200, 200, 0, 30}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        hsp_csr *A = ref_random(shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3], HSP_DOUBLE, 100 + k);
        hsp_csr *T = NULL, *TT = NULL;
        int ok = hsp_transpose(A, &T) == HSP_OK && hsp_csr_check(T) == HSP_OK && T->nrows == A->ncols &&
                 hsp_transpose(T, &TT) == HSP_OK && ref_identical(TT, A);
        for (int32_t i = 0; ok && i < A->nrows; i++) /* entry (i, j) of A is entry (j, i) of T */
            for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
                int32_t j = A->colidx[p];
                int64_t q = T->rowptr[j];
                while (q < T->rowptr[j + 1] && T->colidx[q] != i) q++;
                ok = q < T->rowptr[j + 1] && hsp_csr_value(T, q) == hsp_csr_value(A, p);
            }
        tap_ok(ok, "transpose %dx%d (%lld entries): valid, entries moved, twice gives A", A->nrows, A->ncols,
               (long long)A->nnz);
        hsp_csr_free(A), hsp_csr_free(T), hsp_csr_free(TT);
    }
}

/* On a device that copies operands (not the cpu device, not host arrays in
 * place): the intermediate of a product without a plan stays there unless
 * the host wrote rows of it (bin 1, group 1); with a plan it comes back. */
static void check_transfers(const char *what, const hsp_stats *first, hsp_precision p, int planned)
{
    if (!first->bytes_to_device) return;
    int stays = !planned && first->rows_group[1] == 0 && first->nnz_c > 0;
    long long mid = (long long)first->nnz_c * (long long)(sizeof(int32_t) + (p == HSP_DOUBLE ? 8 : 4));
    tap_ok(stays ? first->bytes_to_host < mid : first->bytes_to_host >= mid,
           "%s: the intermediate's %lld bytes %s (%lld bytes back)", what, mid,
           stays ? "stay on the device" : "come back", (long long)first->bytes_to_host);
}

/* The transpose on a pool of threads (as hsp_rap forms R when the product
 * does not run meanwhile) equals the one-thread transpose, places and all. */
static void test_transpose_pool(void)
{
    hsp_pool *pool = NULL;
    if (!tap_ok(hsp_pool_create(3, 0, &pool) == HSP_OK, "a pool of 3 threads")) return;
    for (int k = 0; k < 4; k++) {
        int32_t rows = k == 0 ? 2 : 500 * k, cols = k == 3 ? 7 : 300;
        hsp_csr *A = ref_random(rows, cols, 0, k == 3 ? 7 : 20, HSP_DOUBLE, 40 + k), *T1 = NULL, *T3 = NULL;
        int64_t *w1 = NULL, *w3 = NULL;
        int ok = hsp_transpose_keep(A, NULL, &T1, &w1) == HSP_OK && hsp_transpose_keep(A, pool, &T3, &w3) == HSP_OK &&
                 ref_identical(T1, T3) && !memcmp(w1, w3, (size_t)A->nnz * sizeof *w1);
        tap_ok(ok, "transpose of %dx%d (%lld entries) on 3 threads: as on one, places and all", rows, cols,
               (long long)A->nnz);
        hsp_csr_free(A), hsp_csr_free(T1), hsp_csr_free(T3), free(w1), free(w3);
    }
    hsp_pool_free(pool);
}

/* R*A*P in both orders, with R given and with R = P^T. */
static void check_rap(const char *what, const hsp_csr *A, const hsp_csr *P)
{
    hsp_csr *R = NULL;
    hsp_transpose(P, &R);
    for (int order = 0; order < 2; order++) {
        hsp_csr *C = NULL, *C2 = NULL;
        char why[256] = "";
        hsp_stats st[2];
        int ok = hsp_rap(ctx, NULL, A, P, (hsp_rap_order)order, &C, NULL, st) == HSP_OK &&
                 rap_matches(C, R, A, P, why, sizeof why);
        tap_ok(ok, "%s, %s, R = P^T: %dx%d, %lld entries %s", what, order ? "(R*A)*P" : "R*(A*P)", C ? C->nrows : -1,
               C ? C->ncols : -1, C ? (long long)C->nnz : -1LL, why);
        if (ok) check_transfers(what, &st[0], A->precision, 0);
        ok = hsp_rap(ctx, R, A, P, (hsp_rap_order)order, &C2, NULL, NULL) == HSP_OK && C &&
             same_pattern(C, C2) && rap_matches(C2, R, A, P, why, sizeof why);
        tap_ok(ok, "%s, %s: R given gives the same C (its pattern, its values to rounding) %s", what,
               order ? "(R*A)*P" : "R*(A*P)", why);
        hsp_csr_free(C), hsp_csr_free(C2);
    }
    hsp_csr_free(R);
}

static void test_rap(void)
{
    for (int dbl = 0; dbl < 2; dbl++) {
        hsp_precision p = dbl ? HSP_DOUBLE : HSP_FLOAT;
        char what[64];
        hsp_csr *A = ref_random(300, 300, 0, 40, p, 7), *P = ref_random(300, 60, 1, 4, p, 8);
        snprintf(what, sizeof what, "random 300x300 by 300x60, %s", dbl ? "double" : "float");
        check_rap(what, A, P);
        hsp_csr_free(A), hsp_csr_free(P);
        hsp_generate("poisson2d9:24", 1, p, &A);
        P = ref_random(576, 64, 1, 3, p, 9);
        snprintf(what, sizeof what, "poisson2d9:24 by 576x64, %s", dbl ? "double" : "float");
        check_rap(what, A, P);
        hsp_csr_free(A), hsp_csr_free(P);
    }
    hsp_csr *A = ref_random(30, 30, 1, 5, HSP_DOUBLE, 1), *P = ref_random(20, 5, 1, 2, HSP_DOUBLE, 2), *C = NULL;
    tap_ok(hsp_rap(ctx, NULL, A, P, HSP_RAP_R_AP, &C, NULL, NULL) == HSP_ERR_SHAPE && !C,
           "P of 20 rows for A of 30 columns: %s", hsp_errmsg());
    tap_ok(hsp_rap(ctx, NULL, A, A, (hsp_rap_order)7, &C, NULL, NULL) == HSP_ERR_ARG, "an unknown order: %s",
           hsp_errmsg());
    hsp_csr_free(A), hsp_csr_free(P);
}

/* R*A*P of an aggregating P (at most one entry a row, some rows empty) and
 * R = P^T or the transpose of another such matrix: the one pass (stats[1]
 * left zero), against the reference, with the two products' pattern (a
 * plan's path), the same bits twice. */
static void check_aggregate(const char *what, const hsp_csr *A, const hsp_csr *P, const hsp_csr *Q)
{
    hsp_csr *R = NULL;
    hsp_transpose(Q ? Q : P, &R);
    hsp_csr *C = NULL, *again = NULL, *two = NULL;
    hsp_plan *plan = NULL;
    hsp_stats st[2];
    char why[256] = "";
    int ok = hsp_rap(ctx, Q ? R : NULL, A, P, HSP_RAP_R_AP, &C, NULL, st) == HSP_OK &&
             rap_matches(C, R, A, P, why, sizeof why);
    tap_ok(ok, "%s, R %s: %dx%d, %lld entries %s", what, Q ? "given" : "= P^T", C ? C->nrows : -1,
           C ? C->ncols : -1, C ? (long long)C->nnz : -1LL, why);
    tap_ok(C && st[0].nnz_c == C->nnz && st[1].nnz_c == 0 && st[1].ms_total == 0 && st[0].threads > 0,
           "%s: one pass (the second product's figures zero)", what);
    ok = C && hsp_rap(ctx, Q ? R : NULL, A, P, HSP_RAP_RA_P, &again, NULL, NULL) == HSP_OK && ref_identical(C, again);
    tap_ok(ok, "%s: the same bits again, whatever the order asked", what);
    ok = C && hsp_rap(ctx, Q ? R : NULL, A, P, HSP_RAP_R_AP, &two, &plan, NULL) == HSP_OK && same_pattern(C, two);
    tap_ok(ok, "%s: the pattern of the two products (a plan's)", what);
    hsp_csr_free(C), hsp_csr_free(again), hsp_csr_free(two), hsp_plan_free(plan), hsp_csr_free(R);
}

static void test_aggregate(void)
{
    for (int dbl = 0; dbl < 2; dbl++) {
        hsp_precision p = dbl ? HSP_DOUBLE : HSP_FLOAT;
        const char *name = dbl ? "double" : "float";
        char what[96];
        hsp_csr *A = NULL, *P = ref_random(576, 70, 0, 1, p, 21), *Q = ref_random(576, 90, 0, 1, p, 22);
        hsp_generate("poisson2d9:24", 1, p, &A);
        snprintf(what, sizeof what, "poisson2d9:24 by an aggregating 576x70, %s", name);
        check_aggregate(what, A, P, NULL);
        check_aggregate(what, A, P, Q);
        hsp_csr_free(A), hsp_csr_free(P), hsp_csr_free(Q);
        A = ref_random(400, 250, 0, 120, p, 23), P = ref_random(250, 40, 0, 1, p, 24), Q = ref_random(400, 9, 0, 1, p, 25);
        snprintf(what, sizeof what, "random 400x250 (empty and long rows) by an aggregating 250x40, %s", name);
        check_aggregate(what, A, P, Q);
        hsp_csr_free(A), hsp_csr_free(P), hsp_csr_free(Q);
    }
}

/* New values on the same pattern: each value times a factor in [0.5, 1.5). */
static void new_values(hsp_csr *M, unsigned seed)
{
    srand(seed);
    for (int64_t k = 0; k < M->nnz; k++) {
        double f = 0.5 + rand() / (RAND_MAX + 1.0);
        if (M->precision == HSP_DOUBLE) ((double *)M->values)[k] *= f;
        else ((float *)M->values)[k] *= (float)f;
    }
}

static void test_reuse(void)
{
    hsp_csr *A = NULL, *P = ref_random(400, 50, 1, 3, HSP_DOUBLE, 11), *R = NULL, *C = NULL, *fresh = NULL;
    hsp_plan *plan = NULL;
    char why[256] = "";
    hsp_generate("poisson2d5:20", 1, HSP_DOUBLE, &A);
    hsp_transpose(P, &R);
    for (int order = 0; order < 2; order++) {
        const char *name = order ? "(R*A)*P" : "R*(A*P)";
        hsp_stats st[2];
        int ok = hsp_rap(ctx, NULL, A, P, (hsp_rap_order)order, &C, &plan, st) == HSP_OK;
        if (ok) check_transfers(name, &st[0], HSP_DOUBLE, 1);
        new_values(A, 3 + order), new_values(P, 5 + order), hsp_csr_free(R), hsp_transpose(P, &R);
        ok = ok && hsp_rap_reuse(ctx, plan, NULL, A, P, C) == HSP_OK;
        ok = ok && hsp_rap(ctx, NULL, A, P, (hsp_rap_order)order, &fresh, NULL, NULL) == HSP_OK;
        tap_ok(ok && rap_matches(C, R, A, P, why, sizeof why) && rap_matches(fresh, R, A, P, why, sizeof why),
               "reuse %s with new values of A and P: C as a fresh product, both as the reference %s", name, why);
        hsp_csr *B = ref_random(400, 400, 1, 6, HSP_DOUBLE, 12), *before = NULL;
        hsp_csr_convert(C, HSP_DOUBLE, &before);
        tap_ok(hsp_rap_reuse(ctx, plan, NULL, B, P, C) == HSP_ERR_ARG && strstr(hsp_errmsg(), "A ") == hsp_errmsg() &&
                   ref_identical(C, before),
               "reuse %s: an A of another pattern is refused, C untouched: %s", name, hsp_errmsg());
        tap_ok(hsp_rap_reuse(ctx, plan, R, A, P, C) == HSP_ERR_ARG, "reuse %s: R given to a plan made with R = P^T: %s",
               name, hsp_errmsg());
        hsp_csr_free(B), hsp_csr_free(before), hsp_csr_free(C), hsp_csr_free(fresh), hsp_plan_free(plan);
        C = fresh = NULL, plan = NULL;
    }
    int ok = hsp_multiply_plan(ctx, A, A, &C, &plan, NULL) == HSP_OK;
    new_values(A, 9);
    double *mag = NULL;
    hsp_csr *ref = ref_multiply(A, A, &mag);
    ok = ok && hsp_multiply_reuse(ctx, plan, A, A, C) == HSP_OK && ref_compare(C, ref, mag, why, sizeof why);
    tap_ok(ok, "multiply reuse A*A with new values: as the reference %s", why);
    hsp_csr *moved = NULL, *before = NULL;
    hsp_csr_convert(A, HSP_DOUBLE, &moved), hsp_csr_convert(C, HSP_DOUBLE, &before);
    moved->colidx[moved->rowptr[1] - 1]++; /* row 0's last column one to the right: same counts */
    tap_ok(hsp_multiply_reuse(ctx, plan, moved, moved, C) == HSP_ERR_ARG && strstr(hsp_errmsg(), "in row 0") &&
               ref_identical(C, before),
           "multiply reuse: one column moved is found, C untouched: %s", hsp_errmsg());
    hsp_csr_free(moved), hsp_csr_free(before);
    tap_ok(hsp_rap_reuse(ctx, plan, NULL, A, P, C) == HSP_ERR_ARG, "a product's plan given to hsp_rap_reuse: %s",
           hsp_errmsg());
    tap_ok(hsp_multiply_reuse(ctx, plan, A, P, C) == HSP_ERR_ARG, "a plan for A*A given A*P: %s", hsp_errmsg());
    hsp_csr_free(ref), free(mag), hsp_csr_free(C), hsp_plan_free(plan);
    hsp_csr_free(A), hsp_csr_free(P), hsp_csr_free(R);
}

/* R*A*P with a plan (R NULL: R = P^T), then twice new values of R, A and P
 * and a reuse into the same C: C as the reference product each time. */
static void check_rap_reuse(const char *what, hsp_csr *R, hsp_csr *A, hsp_csr *P, hsp_rap_order order)
{
    hsp_csr *C = NULL;
    hsp_plan *plan = NULL;
    char why[256] = "";
    int ok = hsp_rap(ctx, R, A, P, order, &C, &plan, NULL) == HSP_OK;
    for (unsigned round = 1; round <= 2; round++) {
        hsp_csr *PT = NULL;
        if (R) new_values(R, 30 + round);
        new_values(A, 40 + round), new_values(P, 50 + round);
        ok = ok && hsp_rap_reuse(ctx, plan, R, A, P, C) == HSP_OK && (R || hsp_transpose(P, &PT) == HSP_OK) &&
             rap_matches(C, R ? R : PT, A, P, why, sizeof why);
        tap_ok(ok, "%s, reuse %u with new values of %s: as the reference %s", what, round, R ? "R, A and P" : "A and P",
               why);
        hsp_csr_free(PT);
    }
    hsp_csr_free(C), hsp_plan_free(plan);
}

/* Plans in precision p with the operands' values changed between runs: a
 * product A*B, and R*A*P in both orders with R given (a pattern other than
 * P^T's) and with R = P^T; every reuse against the reference. */
static void test_reuse_values(hsp_precision p)
{
    const char *prec = p == HSP_DOUBLE ? "double" : "float";
    char what[96], why[256] = "";
    hsp_csr *A = ref_random(300, 200, 0, 30, p, 21), *B = ref_random(200, 250, 0, 20, p, 22), *C = NULL;
    hsp_plan *plan = NULL;
    int ok = hsp_multiply_plan(ctx, A, B, &C, &plan, NULL) == HSP_OK;
    for (unsigned round = 1; round <= 2; round++) {
        double *mag = NULL;
        new_values(A, 60 + round), new_values(B, 70 + round);
        hsp_csr *ref = ref_multiply(A, B, &mag);
        ok = ok && hsp_multiply_reuse(ctx, plan, A, B, C) == HSP_OK && ref && ref_compare(C, ref, mag, why, sizeof why);
        tap_ok(ok, "multiply plan, %s, reuse %u with new values of A and B: as the reference %s", prec, round, why);
        hsp_csr_free(ref), free(mag);
    }
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(C), hsp_plan_free(plan);
    for (int given = 0; given < 2; given++)
        for (int order = 0; order < 2; order++) {
            hsp_csr *R = given ? ref_random(40, 300, 1, 12, p, 23) : NULL;
            A = ref_random(300, 300, 0, 25, p, 24);
            hsp_csr *P = ref_random(300, 40, 1, 3, p, 25);
            snprintf(what, sizeof what, "Galerkin plan %s, %s, %s", order ? "(R*A)*P" : "R*(A*P)",
                     given ? "R given" : "R = P^T", prec);
            check_rap_reuse(what, R, A, P, (hsp_rap_order)order);
            hsp_csr_free(R), hsp_csr_free(A), hsp_csr_free(P);
        }
}

/* A matrix of n rows from its rows' entries: row i has count[i] entries at
 * columns col[i][..], values 1 + (i + k) / 7. */
static hsp_csr *rows_of(int32_t n, int32_t ncols, const int *count, const int32_t (*col)[2])
{
    int32_t r[128], c[128];
    double v[128];
    int64_t nnz = 0;
    for (int32_t i = 0; i < n; i++)
        for (int k = 0; k < count[i]; k++, nnz++) r[nnz] = i, c[nnz] = col[i][k], v[nnz] = 1 + (i + k) / 7.0;
    hsp_csr *M = NULL;
    hsp_csr_from_triplets(n, ncols, nnz, r, c, v, HSP_DOUBLE, &M);
    return M;
}

/* Galerkin products whose second has rows of one product (an intermediate
 * row of one entry times a row of one entry), and one whose second product
 * is small enough for the CPU threads while the first is not: on a device
 * with memory of its own the intermediate, made there, comes home for it. */
static void test_kept(void)
{
    enum { N = 32 };
    int count[3][N];
    int32_t col[3][N][2];
    for (int32_t i = 0; i < N; i++) { /* A: rows of two; P: row i at column i/2; R: row j at 2j, 2j+1 */
        count[0][i] = 2, col[0][i][0] = i, col[0][i][1] = (i + 1) % N;
        count[1][i] = 1, col[1][i][0] = i / 2;
        count[2][i] = i < N / 2 ? 2 : 0, col[2][i][0] = 2 * i, col[2][i][1] = 2 * i + 1;
    }
    count[1][N - 1] = 2, col[1][N - 1][1] = 0; /* not an aggregation: two products, not one pass */
    count[2][0] = 1; /* R*(A*P): (A*P)'s row 0 is one entry (P's rows 0 and 1 meet), so is R's */
    hsp_csr *A = rows_of(N, N, count[0], col[0]), *P = rows_of(N, N / 2, count[1], col[1]);
    hsp_csr *R = rows_of(N / 2, N, count[2], col[2]), *C = NULL;
    char why[256] = "";
    hsp_stats st[2];
    int ok = hsp_rap(ctx, R, A, P, HSP_RAP_R_AP, &C, NULL, st) == HSP_OK && rap_matches(C, R, A, P, why, sizeof why);
    tap_ok(ok && st[1].rows_group[1] == 1, "R*(A*P) with a row of one product in the second: as the reference %s", why);
    hsp_csr_free(A), hsp_csr_free(R), hsp_csr_free(C);
    count[0][0] = count[0][1] = 1, col[0][0][0] = col[0][1][0] = 5; /* A's rows 0 and 1: column 5 alone */
    count[2][0] = 2, col[2][0][0] = 0, col[2][0][1] = 1;            /* R's row 0 meets them: (R*A)'s row 0 */
    A = rows_of(N, N, count[0], col[0]), R = rows_of(N / 2, N, count[2], col[2]), C = NULL;
    ok = hsp_rap(ctx, R, A, P, HSP_RAP_RA_P, &C, NULL, st) == HSP_OK && rap_matches(C, R, A, P, why, sizeof why);
    tap_ok(ok && st[1].rows_group[1] == 1, "(R*A)*P with a row of one product in the second: as the reference %s", why);
    hsp_csr_free(A), hsp_csr_free(P), hsp_csr_free(R), hsp_csr_free(C);

    hsp_options o;
    hsp_context *small = NULL;
    hsp_options_init(&o);
    o.device = ref_device(), o.small_nnz = 3000; /* A*P and R*A above, the second products below */
    hsp_generate("poisson2d9:24", 1, HSP_DOUBLE, &A);
    P = ref_random(576, 2, 1, 2, HSP_DOUBLE, 13); /* rows of two: two products */
    hsp_transpose(P, &R);
    for (int order = 0; order < 2; order++) {
        C = NULL;
        ok = hsp_context_create(&o, &small) == HSP_OK &&
             hsp_rap(small, NULL, A, P, (hsp_rap_order)order, &C, NULL, st) == HSP_OK &&
             rap_matches(C, R, A, P, why, sizeof why);
        int placed = strcmp(ref_device(), "cpu") ? strstr(st[1].device, "small") && !strstr(st[0].device, "small")
                                                 : !strcmp(st[0].device, "cpu") && !strcmp(st[1].device, "cpu");
        tap_ok(ok && placed, "%s, the second product alone on the CPU threads (%s): as the reference %s",
               order ? "(R*A)*P" : "R*(A*P)", st[1].device, why);
        hsp_csr_free(C), hsp_context_free(small);
    }
    hsp_csr_free(A), hsp_csr_free(P), hsp_csr_free(R);
}

int main(void)
{
    if (!tap_ok((ctx = ref_context()) != NULL, "a context on %s", ref_device())) return tap_done();
    test_transpose();
    test_transpose_pool();
    test_rap();
    test_aggregate();
    test_reuse();
    test_reuse_values(HSP_FLOAT);
    test_reuse_values(HSP_DOUBLE);
    test_kept();
    hsp_context_free(ctx);
    return tap_done();
}
