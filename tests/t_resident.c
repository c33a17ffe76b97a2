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

/* Bytes of M's three arrays. */
static long long csr_bytes(const hsp_csr *M, int rowptr)
{
    size_t vs = M->precision == HSP_DOUBLE ? sizeof(double) : sizeof(float);
    return (rowptr ? ((long long)M->nrows + 1) * 8 : 0) + (long long)M->nnz * (long long)(4 + vs);
}

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

/* The resident product's transfers (res) hold nothing of A, B or C.  On a
 * device that copies: without long rows they are its row data alone (u and
 * counts back, 8 bytes a row each; rows and slots out, 4 + 8, and C's row
 * pointers); without rows of one product (which the host computes when C
 * comes home) they are a host-to-host product's (host) less exactly A's, B's
 * and C's arrays. */
static void check_transfers(const char *what, const hsp_csr *A, const hsp_csr *B, const hsp_csr *C,
                            const hsp_stats *host, const hsp_stats *res)
{
    long long m = A->nrows, busy = 0;
    for (int g = 1; g < HSP_NGROUPS; g++) busy += res->rows_group[g];
    if (!host->bytes_to_device) {
        tap_ok(!res->bytes_to_device && !res->bytes_to_host, "%s: host arrays in place: nothing moves", what);
        return;
    }
    if (!res->rows_group[4])
        tap_ok(res->bytes_to_device == (busy ? 20 * m + 8 : 0) && res->bytes_to_host == (busy ? 16 * m : 8 * m),
               "%s: the resident product moves its row data alone: %lld + %lld bytes", what,
               (long long)res->bytes_to_device, (long long)res->bytes_to_host);
    if (!res->rows_group[1]) {
        long long in = host->bytes_to_device - res->bytes_to_device, out = host->bytes_to_host - res->bytes_to_host;
        tap_ok(in == csr_bytes(A, 1) + csr_bytes(B, 1) && out == csr_bytes(C, 0),
               "%s: it moves %lld + %lld bytes fewer than host to host: A's and B's %lld, C's %lld", what, in, out,
               csr_bytes(A, 1) + csr_bytes(B, 1), csr_bytes(C, 0));
    }
}

/* A*B resident, and host to host: the same C, the transfers above. */
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
    if (ok && hsp_multiply(ctx, A, B, &C, &host) == HSP_OK) check_transfers(what, A, B, C, &host, &res);
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
        {2000, 2000, 2000, 1, 1, 1, 1}, {64, 500, 10, 0, 9, 0, 10},
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

int main(void)
{
    ctx = ref_context();
    if (!tap_ok(ctx != NULL, "a context on %s %s", ref_device(), ctx ? "" : hsp_errmsg())) return tap_done();
    test_shapes();
    test_chain(HSP_FLOAT);
    test_chain(HSP_DOUBLE);
    test_in_place();
    test_errors();
    hsp_context_free(ctx);
    return tap_done();
}
