/* t_resident.c: matrices resident on the device under test.  Chains of
 * products whose operands and results stay there equal the reference, both
 * precisions, shapes with empty rows, single-product rows (bin 1, on the
 * device here), long rows and rectangles; the timed product moves none of
 * its matrices (its transfers are a host-to-host product's less exactly the
 * bytes of A, B and C); operands are untouched; a refused product leaves the
 * resident matrices usable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ref.h"
#include "tap.h"

static hsp_context *ctx;

/* Does the resident C, brought home, equal A*B?  why gets the difference. */
static int home_matches(hsp_resident *C, const hsp_csr *A, const hsp_csr *B, char *why, size_t len)
{
    const hsp_csr *H = NULL;
    double *mag = NULL;
    hsp_csr *ref = ref_multiply(A, B, &mag);
    int ok = hsp_resident_host(C, &H) == HSP_OK && hsp_csr_check(H) == HSP_OK && ref &&
             ref_compare(H, ref, mag, why, len);
    if (!H) snprintf(why, len, "not brought home: %s", hsp_errmsg());
    hsp_csr_free(ref), free(mag);
    return ok;
}

/* The resident product's transfers hold nothing of A, B or C.  Where host
 * arrays are used in place, nothing moves.  On a device that copies they are
 * a few numbers: to the device the bins (12 bytes each); back, the rows of
 * each bin (8 bytes a bin), the sums of u of the five bin groups (80: each
 * as two halves) and of the sample of how often products meet (16), and
 * nnz(C) (8); and per
 * long row its number and u (12 back), its state (48 out at the start, and
 * 48 each way per round of growth) and its place in the order of launches (4
 * out), and 4 bytes out per growth.  (nnz(C) is read only where some row
 * has products.) */
static void check_transfers(const char *what, const hsp_csr *A, const hsp_stats *host, const hsp_stats *res)
{
    if (!host->bytes_to_device) {
        tap_ok(!res->bytes_to_device && !res->bytes_to_host, "%s: host arrays in place: nothing moves", what);
        return;
    }
    long long m = A->nrows, nb = hsp_context_bins(ctx)->nbins, busy = 0;
    long long nlong = res->rows_group[4];
    for (int k = 1; k < HSP_NGROUPS; k++) busy += res->rows_group[k];
    long long out = m ? 12 * nb : 0;
    long long back = m ? 8 * nb + 96 + (busy ? 8 : 0) : 0;
    out += 52 * nlong + 4 * (long long)res->grow_events, back += 60 * nlong;
    long long rounds_out = res->bytes_to_device - out, rounds_back = res->bytes_to_host - back;
    int ok = rounds_out == rounds_back && rounds_out >= 0 && (nlong ? rounds_out % (48 * nlong) == 0 : !rounds_out);
    tap_ok(ok, "%s: the resident product moves %lld + %lld bytes: its row figures alone", what,
           (long long)res->bytes_to_device, (long long)res->bytes_to_host);
}

/* A*B resident equals the reference, with the transfers above (a product
 * host to host says whether the device copies). */
static void test_pair(const char *what, const hsp_csr *A, const hsp_csr *B)
{
    hsp_csr *A0 = NULL, *B0 = NULL, *C = NULL;
    hsp_resident *rA = NULL, *rB = NULL, *rC = NULL;
    hsp_stats host, res;
    char why[256] = "";
    hsp_csr_convert(A, A->precision, &A0), hsp_csr_convert(B, B->precision, &B0);
    int placed = hsp_place(ctx, A, &rA) == HSP_OK && hsp_place(ctx, B, &rB) == HSP_OK;
    int ok = placed && hsp_multiply_resident(ctx, rA, rB, &rC, &res) == HSP_OK && res.resident &&
             home_matches(rC, A, B, why, sizeof why);
    tap_ok(ok, "%s: resident A*B equals the reference%s%s", what, *why ? ": " : " ", *why ? why : hsp_errmsg());
    if (ok && hsp_multiply(ctx, A, B, &C, &host) == HSP_OK) check_transfers(what, A, &host, &res);
    tap_ok(ref_identical(A, A0) && ref_identical(B, B0), "%s: A and B untouched", what);
    hsp_resident_free(rA), hsp_resident_free(rB), hsp_resident_free(rC);
    hsp_csr_free(A0), hsp_csr_free(B0), hsp_csr_free(C);
}

/* Random pairs of many shapes, both precisions. */
static void test_shapes(void)
{
    /* rows(A), cols(A) = rows(B), cols(B), row lengths of A, of B */
    static const int32_t shape[][7] = {
        {0, 0, 0, 0, 0, 0, 0},          {1, 1, 1, 1, 1, 1, 1},       {300, 200, 150, 0, 1, 0, 1},
        {300, 300, 300, 0, 4, 0, 4},    {500, 50, 700, 0, 30, 0, 40}, {40, 3000, 3000, 0, 3000, 20, 40},
        {2000, 2000, 2000, 1, 1, 1, 1}, {64, 500, 10, 0, 9, 0, 10},   {10000, 3000, 3000, 0, 6, 0, 8},
        {5000, 5000, 5000, 0, 40, 0, 40}, {600000, 1000, 1000, 0, 2, 0, 2}, /* row pointers in 293 work-groups */
    };
    for (int p = 0; p < 2; p++)
        for (size_t k = 0; k < sizeof shape / sizeof shape[0]; k++) {
            const int32_t *s = shape[k];
            hsp_csr *A = ref_random(s[0], s[1], s[3], s[4], (hsp_precision)p, 7 + k);
            hsp_csr *B = ref_random(s[1], s[2], s[5], s[6], (hsp_precision)p, 70 + k);
            char what[96];
            snprintf(what, sizeof what, "%s %dx%d * %dx%d", p ? "double" : "float", s[0], s[1], s[1], s[2]);
            if (A && B) test_pair(what, A, B);
            hsp_csr_free(A), hsp_csr_free(B);
        }
}

/* A^2, A^3 = A^2*A and A^3*A^2: a chain of three products, each result an
 * operand of the next, brought home only at its end. */
static void test_chain(hsp_precision p)
{
    hsp_csr *A = ref_random(400, 400, 0, 12, p, 11), *AA = ref_multiply(A, A, NULL);
    hsp_csr *AAA = AA ? ref_multiply(AA, A, NULL) : NULL;
    hsp_resident *rA = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL;
    char why[256] = "";
    int ok = hsp_place(ctx, A, &rA) == HSP_OK && hsp_multiply_resident(ctx, rA, rA, &r2, NULL) == HSP_OK &&
             hsp_multiply_resident(ctx, r2, rA, &r3, NULL) == HSP_OK &&
             hsp_multiply_resident(ctx, r3, r2, &r4, NULL) == HSP_OK && AAA &&
             home_matches(r4, AAA, AA, why, sizeof why);
    tap_ok(ok, "%s: A^2, A^3 and A^3*A^2 resident, brought home once, equal the reference %s", p ? "double" : "float",
           *why ? why : hsp_errmsg());
    const hsp_csr *H1 = NULL, *H2 = NULL;
    ok = ok && hsp_resident_host(r4, &H1) == HSP_OK && hsp_resident_host(r4, &H2) == HSP_OK && H1 == H2;
    tap_ok(ok, "bringing home twice gives the same matrix");
    int32_t m = -1, n = -1;
    int64_t nnz = -1;
    hsp_resident_shape(r3, &m, &n, &nnz);
    tap_ok(AAA && m == AAA->nrows && n == AAA->ncols && nnz == AAA->nnz, "the shape of a resident C is known at home");
    hsp_resident_free(rA), hsp_resident_free(r2), hsp_resident_free(r3), hsp_resident_free(r4);
    hsp_csr_free(A), hsp_csr_free(AA), hsp_csr_free(AAA);
}

/* R*A*P resident in both orders, R = P^T placed: the reference's C. */
static void test_rap(hsp_precision p)
{
    hsp_csr *A = ref_random(600, 600, 0, 9, p, 31), *P = ref_random(600, 150, 1, 3, p, 32), *R = NULL;
    hsp_csr *AP = ref_multiply(A, P, NULL);
    hsp_resident *rR = NULL, *rA = NULL, *rP = NULL;
    int placed = hsp_transpose(P, &R) == HSP_OK && hsp_place(ctx, R, &rR) == HSP_OK &&
                 hsp_place(ctx, A, &rA) == HSP_OK && hsp_place(ctx, P, &rP) == HSP_OK;
    for (int order = 0; order < 2; order++) {
        hsp_resident *rC = NULL;
        hsp_stats st[2];
        char why[256] = "";
        int ok = placed && AP && hsp_rap_resident(ctx, rR, rA, rP, (hsp_rap_order)order, &rC, st) == HSP_OK &&
                 st[0].resident && st[1].resident && home_matches(rC, R, AP, why, sizeof why);
        tap_ok(ok, "%s R*A*P resident, %s: equals the reference %s", p ? "double" : "float", order ? "(RA)P" : "R(AP)",
               *why ? why : hsp_errmsg());
        hsp_resident_free(rC);
    }
    hsp_resident_free(rR), hsp_resident_free(rA), hsp_resident_free(rP);
    hsp_csr_free(A), hsp_csr_free(P), hsp_csr_free(R), hsp_csr_free(AP);
}

/* Where the device uses host arrays in place, a placed matrix is the
 * caller's, brought home without a copy. */
static void test_in_place(void)
{
    hsp_csr *A = ref_random(100, 100, 0, 5, HSP_DOUBLE, 5);
    hsp_resident *rA = NULL;
    const hsp_csr *H = NULL;
    hsp_stats st;
    hsp_csr *C = NULL;
    if (hsp_multiply(ctx, A, A, &C, &st) != HSP_OK || st.bytes_to_device) { /* a device that copies */
        hsp_csr_free(A), hsp_csr_free(C);
        return;
    }
    int ok = hsp_place(ctx, A, &rA) == HSP_OK && hsp_resident_host(rA, &H) == HSP_OK && H == A;
    tap_ok(ok, "host arrays in place: the placed matrix at home is the caller's, nothing copied");
    hsp_resident_free(rA), hsp_csr_free(A), hsp_csr_free(C);
}

/* Refused products: a shape mismatch, mixed precisions, another context's
 * matrix, an invalid matrix to place; the resident matrices still serve. */
static void test_errors(void)
{
    hsp_csr *A = ref_random(50, 40, 0, 6, HSP_DOUBLE, 1), *B = ref_random(40, 30, 0, 6, HSP_DOUBLE, 2);
    hsp_csr *F = ref_random(40, 30, 0, 6, HSP_FLOAT, 3);
    hsp_resident *rA = NULL, *rB = NULL, *rF = NULL, *rX = NULL, *rC = NULL;
    hsp_context *other = ref_context();
    char why[256] = "";
    int placed =
        hsp_place(ctx, A, &rA) == HSP_OK && hsp_place(ctx, B, &rB) == HSP_OK && hsp_place(ctx, F, &rF) == HSP_OK;
    tap_ok(placed, "three matrices placed");
    tap_ok(hsp_multiply_resident(ctx, rA, rA, &rC, NULL) == HSP_ERR_SHAPE && !rC, "A*A of 50x40 is a shape error: %s",
           hsp_errmsg());
    tap_ok(hsp_multiply_resident(ctx, rA, rF, &rC, NULL) == HSP_ERR_ARG && !rC, "double times float refused: %s",
           hsp_errmsg());
    if (other) {
        tap_ok(hsp_multiply_resident(other, rA, rB, &rC, NULL) == HSP_ERR_ARG && !rC,
               "another context's matrices refused: %s", hsp_errmsg());
        hsp_context_free(other);
    }
    int ok = hsp_multiply_resident(ctx, rA, rB, &rC, NULL) == HSP_OK && home_matches(rC, A, B, why, sizeof why);
    tap_ok(ok, "after them, A*B still equals the reference %s", why);
    B->colidx[B->nnz - 1] = B->ncols; /* out of range */
    tap_ok(hsp_place(ctx, B, &rX) == HSP_ERR_INVALID_CSR && !rX, "an invalid matrix is not placed: %s", hsp_errmsg());
    hsp_resident_free(rA), hsp_resident_free(rB), hsp_resident_free(rF), hsp_resident_free(rC);
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(F);
}

/* M's values times a factor a row, that of row i being 1 + i / 7. */
static void scale_rows(hsp_csr *M)
{
    for (int32_t i = 0; i < M->nrows; i++)
        for (int64_t k = M->rowptr[i]; k < M->rowptr[i + 1]; k++)
            if (M->precision == HSP_DOUBLE) ((double *)M->values)[k] *= 1 + i / 7.0;
            else ((float *)M->values)[k] *= 1 + i / 7.0f;
}

/* A plan of a resident product: operands of the same patterns and new
 * values give C's values as the reference product (where the device holds
 * them, computed there); an operand of another pattern is refused, naming it
 * and the row, and C is still usable. */
static void test_plan(hsp_precision p)
{
    const char *what = p == HSP_DOUBLE ? "double" : "float";
    char why[256] = "";
    hsp_csr *A = ref_random(700, 300, 0, 40, p, 31), *B = ref_random(300, 500, 0, 30, p, 32), *A2 = NULL, *B2 = NULL;
    hsp_resident *rA = NULL, *rB = NULL, *rA2 = NULL, *rB2 = NULL, *rC = NULL;
    hsp_plan *plan = NULL;
    hsp_csr_convert(A, p, &A2), hsp_csr_convert(B, p, &B2);
    scale_rows(A2), scale_rows(B2);
    int ok = hsp_place(ctx, A, &rA) == HSP_OK && hsp_place(ctx, B, &rB) == HSP_OK &&
             hsp_multiply_plan_resident(ctx, rA, rB, &rC, &plan, NULL) == HSP_OK;
    tap_ok(ok && home_matches(rC, A, B, why, sizeof why), "plan, %s: C = A*B resident %s", what, why);
    ok = hsp_place(ctx, A2, &rA2) == HSP_OK && hsp_place(ctx, B2, &rB2) == HSP_OK &&
         hsp_multiply_reuse_resident(ctx, plan, rA2, rB2, rC) == HSP_OK;
    tap_ok(ok && home_matches(rC, A2, B2, why, sizeof why), "plan, %s: new values, values only %s", what, why);
    hsp_resident_free(rB2), rB2 = NULL;
    int32_t row = 0;
    while (B2->rowptr[row + 1] - B2->rowptr[row] < 2 || B2->colidx[B2->rowptr[row + 1] - 1] + 1 >= B2->ncols) row++;
    B2->colidx[B2->rowptr[row + 1] - 1] += 1; /* as many entries, still sorted */
    char row_name[32];
    snprintf(row_name, sizeof row_name, "row %d", row);
    tap_ok(hsp_place(ctx, B2, &rB2) == HSP_OK && hsp_multiply_reuse_resident(ctx, plan, rA2, rB2, rC) == HSP_ERR_ARG &&
               strstr(hsp_errmsg(), "B's pattern") && strstr(hsp_errmsg(), row_name),
           "plan, %s: B with a column moved in %s is refused: %s", what, row_name, hsp_errmsg());
    ok = hsp_multiply_reuse_resident(ctx, plan, rA, rB, rC) == HSP_OK;
    tap_ok(ok && home_matches(rC, A, B, why, sizeof why), "plan, %s: C usable after, back to A*B %s", what, why);
    hsp_plan_free(plan);
    hsp_resident_free(rA), hsp_resident_free(rB), hsp_resident_free(rA2), hsp_resident_free(rB2);
    hsp_resident_free(rC);
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(A2), hsp_csr_free(B2);
}

/* A plan of resident operands compares patterns, not the matrices: one of
 * S*S serves S2*S3, one of S*(a copy of S) serves S2*S2 (S2, S3 of S's
 * pattern). */
static void test_plan_patterns(void)
{
    hsp_csr *S = ref_random(200, 200, 0, 12, HSP_DOUBLE, 41), *copy = NULL, *S2 = NULL, *S3 = NULL;
    hsp_csr_convert(S, HSP_DOUBLE, &copy), hsp_csr_convert(S, HSP_DOUBLE, &S2), hsp_csr_convert(S, HSP_DOUBLE, &S3);
    scale_rows(S2), scale_rows(S3), scale_rows(S3);
    hsp_resident *rS = NULL, *rcopy = NULL, *rS2 = NULL, *rS3 = NULL;
    int placed = hsp_place(ctx, S, &rS) == HSP_OK && hsp_place(ctx, copy, &rcopy) == HSP_OK &&
                 hsp_place(ctx, S2, &rS2) == HSP_OK && hsp_place(ctx, S3, &rS3) == HSP_OK;
    const hsp_resident *made[2][2] = {{rS, rS}, {rS, rcopy}}, *used[2][2] = {{rS2, rS3}, {rS2, rS2}};
    const hsp_csr *want[2][2] = {{S2, S3}, {S2, S2}};
    const char *what[2] = {"S*S reused for S2*S3", "S*(a copy of S) reused for S2*S2"};
    for (int k = 0; k < 2; k++) {
        hsp_resident *rC = NULL;
        hsp_plan *plan = NULL;
        char why[256] = "";
        int ok = placed && hsp_multiply_plan_resident(ctx, made[k][0], made[k][1], &rC, &plan, NULL) == HSP_OK &&
                 hsp_multiply_reuse_resident(ctx, plan, used[k][0], used[k][1], rC) == HSP_OK &&
                 home_matches(rC, want[k][0], want[k][1], why, sizeof why);
        tap_ok(ok, "a resident plan of %s: the reference %s", what[k], ok ? "" : *why ? why : hsp_errmsg());
        hsp_plan_free(plan), hsp_resident_free(rC);
    }
    hsp_resident_free(rS), hsp_resident_free(rcopy), hsp_resident_free(rS2), hsp_resident_free(rS3);
    hsp_csr_free(S), hsp_csr_free(copy), hsp_csr_free(S2), hsp_csr_free(S3);
}

/* A resident product, however small, runs on the device (small_nnz, here
 * its default, is for host products): its stats name the device, not the
 * CPU threads, where the same product from the host runs on them. */
static void test_small_stays(void)
{
    hsp_options o;
    hsp_context *small_ctx = NULL;
    hsp_options_init(&o);
    o.device = ref_device();
    hsp_csr *A = ref_random(60, 60, 0, 4, HSP_DOUBLE, 51), *C = NULL;
    hsp_resident *rA = NULL, *rC = NULL;
    hsp_stats host, res;
    int ok = hsp_context_create(&o, &small_ctx) == HSP_OK && hsp_place(small_ctx, A, &rA) == HSP_OK &&
             hsp_multiply_resident(small_ctx, rA, rA, &rC, &res) == HSP_OK &&
             hsp_multiply(small_ctx, A, A, &C, &host) == HSP_OK;
    tap_ok(ok && res.resident && !strstr(res.device, "small product"),
           "a small resident product runs on the device: '%s' (the same product from the host: '%s')",
           ok ? res.device : hsp_errmsg(), ok ? host.device : "");
    hsp_resident_free(rA), hsp_resident_free(rC), hsp_csr_free(A), hsp_csr_free(C);
    hsp_context_free(small_ctx);
}

int main(void)
{
    ctx = ref_context();
    if (!tap_ok(ctx != NULL, "a context on %s %s", ref_device(), ctx ? "" : hsp_errmsg())) return tap_done();
    test_shapes();
    test_chain(HSP_FLOAT);
    test_chain(HSP_DOUBLE);
    test_rap(HSP_FLOAT);
    test_rap(HSP_DOUBLE);
    test_plan(HSP_FLOAT);
    test_plan(HSP_DOUBLE);
    test_plan_patterns();
    test_small_stays();
    test_in_place();
    test_errors();
    hsp_context_free(ctx);
    return tap_done();
}
