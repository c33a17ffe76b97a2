/* t_bitmap.c: the bitmap-blocked format and its product.  CSR to blocks and
 * back gives the same matrix bit for bit (shapes not a multiple of 8,
 * rectangular, empty rows, single entries, full blocks, explicit zeros);
 * bad blocks are refused naming the block; products of random operands
 * equal the reference (pattern exact, values to rounding), an entry that
 * cancels to zero inside a block is kept, and bad operands are refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ref.h"
#include "tap.h"

/* A as blocks and back: the same matrix, a valid B, its memory counted. */
static void round_trip(const hsp_csr *A, const char *what)
{
    hsp_bitmap *M = NULL;
    hsp_csr *back = NULL;
    int ok = hsp_bitmap_from_csr(A, &M) == HSP_OK && hsp_bitmap_check(M) == HSP_OK && M->nnz == A->nnz &&
             hsp_bitmap_to_csr(M, &back) == HSP_OK && ref_identical(A, back);
    size_t vs = A->precision == HSP_DOUBLE ? 8 : 4;
    tap_ok(ok && hsp_bitmap_bytes(M) == M->nblocks * 16 + M->nnz * (int64_t)vs,
           "%s (%d x %d, %lld entries): to %lld blocks and back, the same matrix%s%s", what, A->nrows, A->ncols,
           (long long)A->nnz, M ? (long long)M->nblocks : -1LL, ok ? "" : ": ", ok ? "" : hsp_errmsg());
    hsp_bitmap_free(M), hsp_csr_free(back);
}

static void test_round_trips(void)
{
    static const struct {
        int32_t nrows, ncols, minrow, maxrow;
    } shapes[] = {{0, 0, 0, 0},   {1, 1, 1, 1},    {7, 9, 0, 3},     {8, 8, 8, 8},      {9, 17, 0, 17},
                  {64, 40, 1, 1}, {100, 3, 0, 2},  {3, 100, 30, 90}, {257, 129, 0, 12}, {1000, 1000, 0, 6}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        for (int p = 0; p < 2; p++) {
            hsp_csr *A = ref_random(shapes[k].nrows, shapes[k].ncols, shapes[k].minrow, shapes[k].maxrow,
                                    p ? HSP_DOUBLE : HSP_FLOAT, 100 + k);
            char what[64];
            snprintf(what, sizeof what, "random %s", p ? "double" : "float");
            round_trip(A, what);
            hsp_csr_free(A);
        }
}

/* A full 8 x 8 block, a block of one entry and an explicit zero. */
static void test_blocks(void)
{
    hsp_csr *A = ref_random(8, 8, 8, 8, HSP_DOUBLE, 7);
    hsp_bitmap *M = NULL;
    tap_ok(hsp_bitmap_from_csr(A, &M) == HSP_OK && M->nblocks == 1 && M->bitmap[0] == ~0ull && M->key[0] == 0,
           "a full 8 x 8 matrix is one block of 64 bits");
    hsp_bitmap_free(M), hsp_csr_free(A);
    int32_t rows[] = {0, 20, 20}, cols[] = {17, 3, 9};
    double values[] = {5, 0, -2};
    hsp_csr_from_triplets(21, 18, 3, rows, cols, values, HSP_DOUBLE, &A);
    int ok = hsp_bitmap_from_csr(A, &M) == HSP_OK && M->nblocks == 3 &&
             M->key[0] == 2 && M->bitmap[0] == 1ull << 1 && M->key[1] == (2ull << 32) &&
             M->bitmap[1] == 1ull << (8 * 4 + 3) && ((double *)M->values)[1] == 0;
    tap_ok(ok, "single entries each a block, at their bits; the explicit zero kept");
    round_trip(A, "single entries and an explicit zero");
    hsp_bitmap_free(M), hsp_csr_free(A);
}

/* A valid 9 x 9 matrix of two blocks to spoil. */
static hsp_bitmap *two_blocks(void)
{
    int32_t rows[] = {0, 8}, cols[] = {0, 8};
    double values[] = {1, 2};
    hsp_csr *A;
    hsp_bitmap *M = NULL;
    hsp_csr_from_triplets(9, 9, 2, rows, cols, values, HSP_DOUBLE, &A);
    hsp_bitmap_from_csr(A, &M);
    hsp_csr_free(A);
    return M;
}

static void test_bad_blocks(void)
{
    static const char *const what[] = {"keys out of order", "a block outside", "a bit past the last row",
                                       "an empty block", "nnz that is not the bits'"};
    for (int k = 0; k < 5; k++) {
        hsp_bitmap *M = two_blocks();
        if (k == 0) M->key[1] = 0;
        if (k == 1) M->key[1] = 2ull << 32 | 1;
        if (k == 2) M->bitmap[1] = 1ull << 8;
        if (k == 3) M->bitmap[1] = 0, M->nnz = 1;
        if (k == 4) M->nnz = 3;
        hsp_csr *A = NULL;
        int refused = hsp_bitmap_check(M) == HSP_ERR_ARG && strstr(hsp_errmsg(), k < 4 ? "block 1" : "entries");
        tap_ok(refused && hsp_bitmap_to_csr(M, &A) == HSP_ERR_ARG && !A, "%s is refused: %s", what[k],
               hsp_errmsg());
        hsp_bitmap_free(M);
    }
    hsp_csr *A = ref_small();
    ((int32_t *)A->colidx)[1] = 0; /* row 0's columns 0, 0 */
    hsp_bitmap *M = (hsp_bitmap *)1;
    tap_ok(hsp_bitmap_from_csr(A, &M) == HSP_ERR_INVALID_CSR && !M, "invalid CSR is refused: %s", hsp_errmsg());
    hsp_csr_free(A);
    tap_ok(hsp_bitmap_check(NULL) == HSP_ERR_ARG && hsp_bitmap_from_csr(NULL, &M) == HSP_ERR_ARG,
           "NULL is refused");
}

/* C = A*B by blocks against the reference. */
static void product(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, const char *what)
{
    hsp_bitmap *a = NULL, *b = NULL, *c = NULL;
    hsp_csr *C = NULL, *ref = NULL;
    double *mag = NULL;
    hsp_stats st;
    char why[256] = "";
    int ok = hsp_bitmap_from_csr(A, &a) == HSP_OK && hsp_bitmap_from_csr(B, &b) == HSP_OK &&
             hsp_bitmap_multiply(ctx, a, b, &c, &st) == HSP_OK && hsp_bitmap_check(c) == HSP_OK &&
             hsp_bitmap_to_csr(c, &C) == HSP_OK && (ref = ref_multiply(A, B, &mag)) &&
             ref_compare(C, ref, mag, why, sizeof why) && st.nnz_c == ref->nnz;
    tap_ok(ok, "%s: (%d x %d) (%d x %d) by blocks equals the reference (%lld entries)%s%s", what, A->nrows, A->ncols,
           B->nrows, B->ncols, ref ? (long long)ref->nnz : -1LL, why[0] ? ": " : "", why[0] ? why : hsp_errmsg());
    hsp_bitmap_free(a), hsp_bitmap_free(b), hsp_bitmap_free(c), hsp_csr_free(C), hsp_csr_free(ref), free(mag);
}

static void test_products(hsp_context *ctx)
{
    static const struct {
        int32_t m, k, n, minrow, maxrow;
    } shapes[] = {{1, 1, 1, 1, 1},     {7, 9, 5, 0, 4},      {8, 8, 8, 8, 8},       {33, 17, 65, 0, 9},
                  {200, 3, 200, 1, 3}, {3, 300, 2, 50, 300}, {500, 500, 500, 0, 8}, {2000, 1500, 900, 0, 20}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int p = 0; p < 2; p++) {
            hsp_precision prec = p ? HSP_DOUBLE : HSP_FLOAT;
            hsp_csr *A = ref_random(shapes[s].m, shapes[s].k, shapes[s].minrow, shapes[s].maxrow, prec, 300 + s);
            hsp_csr *B = ref_random(shapes[s].k, shapes[s].n, shapes[s].minrow, shapes[s].maxrow, prec, 400 + s);
            product(ctx, A, B, p ? "random double" : "random float");
            if (shapes[s].m == shapes[s].k) product(ctx, A, A, p ? "square double" : "square float");
            hsp_csr_free(A), hsp_csr_free(B);
        }
    hsp_csr *L = ref_random(300, 3000, 0, 3, HSP_DOUBLE, 9), *R = ref_random(3000, 300, 0, 3, HSP_DOUBLE, 10);
    int32_t row[3000], col[3000];
    double one[3000];
    for (int j = 0; j < 3000; j++) row[j] = 5, col[j] = j, one[j] = 1;
    hsp_csr *Long;
    hsp_csr_from_triplets(300, 3000, 3000, row, col, one, HSP_DOUBLE, &Long);
    product(ctx, Long, R, "a row of 3000 entries");
    product(ctx, L, R, "long and thin");
    hsp_csr *Few = ref_random(40, 8, 1, 4, HSP_DOUBLE, 11), *Wide = ref_random(8, 9000, 2000, 6000, HSP_DOUBLE, 12);
    product(ctx, Few, Wide, "block rows of C of over 512 blocks (a device orders them by its marks)");
    hsp_csr_free(L), hsp_csr_free(R), hsp_csr_free(Long), hsp_csr_free(Few), hsp_csr_free(Wide);
}

/* [1 1] [1; -1]: one entry, 0, kept. */
static void test_cancellation(hsp_context *ctx)
{
    int32_t ar[] = {0, 0}, ac[] = {0, 1}, br[] = {0, 1}, bc[] = {0, 0};
    double av[] = {1, 1}, bv[] = {1, -1};
    hsp_csr *A, *B;
    hsp_bitmap *a = NULL, *b = NULL, *c = NULL;
    hsp_csr_from_triplets(1, 2, 2, ar, ac, av, HSP_DOUBLE, &A);
    hsp_csr_from_triplets(2, 1, 2, br, bc, bv, HSP_DOUBLE, &B);
    int ok = hsp_bitmap_from_csr(A, &a) == HSP_OK && hsp_bitmap_from_csr(B, &b) == HSP_OK &&
             hsp_bitmap_multiply(ctx, a, b, &c, NULL) == HSP_OK && c->nnz == 1 && c->bitmap[0] == 1 &&
             ((double *)c->values)[0] == 0;
    tap_ok(ok, "a sum that cancels to zero inside a block stays an entry");
    hsp_bitmap_free(c), c = NULL;
    tap_ok(hsp_bitmap_multiply(ctx, a, a, &c, NULL) == HSP_ERR_SHAPE && !c, "A*A of a 1 x 2 A is refused: %s",
           hsp_errmsg());
    hsp_csr *F;
    hsp_bitmap *f = NULL;
    hsp_csr_convert(B, HSP_FLOAT, &F), hsp_bitmap_from_csr(F, &f);
    tap_ok(hsp_bitmap_multiply(ctx, a, f, &c, NULL) == HSP_ERR_ARG && !c, "operands of two precisions are refused: %s",
           hsp_errmsg());
    b->bitmap[0] = 0;
    tap_ok(hsp_bitmap_multiply(ctx, a, b, &c, NULL) == HSP_ERR_ARG && !c && strstr(hsp_errmsg(), "B:"),
           "an invalid B is refused: %s", hsp_errmsg());
    hsp_bitmap_free(a), hsp_bitmap_free(b), hsp_bitmap_free(f), hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(F);
}

/* hsp_multiply of a context with options.bitmap: blocked, the reference's C. */
static void test_option(void)
{
    hsp_options o;
    hsp_options_init(&o);
    o.device = ref_device(), o.bitmap = 1;
    hsp_context *ctx = NULL;
    hsp_csr *A = ref_random(300, 200, 0, 30, HSP_DOUBLE, 21), *B = ref_random(200, 250, 0, 30, HSP_DOUBLE, 22);
    double *mag = NULL;
    hsp_csr *C = NULL, *ref = ref_multiply(A, B, &mag);
    hsp_stats st;
    int ok = hsp_context_create(&o, &ctx) == HSP_OK && hsp_multiply(ctx, A, B, &C, &st) == HSP_OK;
    char why[256] = "";
    ok = ok && ref_compare(C, ref, mag, why, sizeof why) && st.bitmap == 1 && st.blocks_c > 0 && st.nnz_c == C->nnz;
    tap_ok(ok, "hsp_multiply with options.bitmap: blocked, the reference's C%s%s", why[0] ? ": " : "", why);
    hsp_csr_free(C), C = NULL;
    tap_ok(ctx && hsp_multiply(ctx, A, A, &C, NULL) == HSP_ERR_SHAPE && !C, "and a product of bad shapes is refused: %s",
           hsp_errmsg());
    hsp_context_free(ctx), hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(ref), free(mag);
}

/* options.pattern, by blocks and in CSR: the reference's pattern, every
 * value 1, and no flops counted by blocks. */
static void test_pattern(void)
{
    hsp_csr *A = ref_random(120, 90, 0, 12, HSP_FLOAT, 31), *B = ref_random(90, 150, 0, 12, HSP_FLOAT, 32);
    hsp_csr *ref = ref_multiply(A, B, NULL);
    for (int bitmap = 0; bitmap < 2; bitmap++) {
        hsp_options o;
        hsp_options_init(&o);
        o.device = ref_device(), o.bitmap = bitmap, o.pattern = 1;
        hsp_context *ctx = NULL;
        hsp_csr *C = NULL;
        hsp_stats st;
        int ok = hsp_context_create(&o, &ctx) == HSP_OK && hsp_multiply(ctx, A, B, &C, &st) == HSP_OK &&
                 C->nnz == ref->nnz && !memcmp(C->rowptr, ref->rowptr, ((size_t)C->nrows + 1) * sizeof *C->rowptr) &&
                 !memcmp(C->colidx, ref->colidx, (size_t)C->nnz * sizeof *C->colidx) && (!bitmap || st.flops == 0);
        for (int64_t k = 0; ok && k < C->nnz; k++) ok = hsp_csr_value(C, k) == 1;
        tap_ok(ok, "options.pattern%s: the reference's pattern, every value 1", bitmap ? " by blocks" : " in CSR");
        hsp_csr_free(C), hsp_context_free(ctx);
    }
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(ref);
}

int main(void)
{
    hsp_context *ctx = ref_context();
    if (!ctx) {
        tap_ok(0, "a context on %s: %s", ref_device(), hsp_errmsg());
        return tap_done();
    }
    test_round_trips();
    test_blocks();
    test_bad_blocks();
    test_products(ctx);
    test_cancellation(ctx);
    test_option();
    test_pattern();
    hsp_context_free(ctx);
    return tap_done();
}
