/* fuzz/bitmap.c: bitmap-blocked matrices decoded from the bytes, checked,
 * converted and squared.
 *
 * Bytes 0-2 give the rows and columns (1..40 each) and a choice: the
 * precision, whether nnz is one off the bits' count, a pattern product.
 * The rest are blocks of 10 bytes: block row and block column (each taken
 * modulo 8, so that keys repeat, come out of order or fall outside), then
 * the bitmap's 8 bytes as they come (empty blocks and bits past the edge
 * among them).  hsp_bitmap_check must refuse what is not valid, with a
 * message; what it accepts must convert to CSR and back to the same
 * blocks, and a square one squared by blocks must equal the reference
 * product of its CSR (its pattern, every value 1, for a pattern product). */
#include <string.h>
#include "fuzz.h"

enum { MAX_DIM = 40, BLOCK_BYTES = 10 };

/* A context for values (pattern 0) or patterns (1), made at its first use. */
static hsp_context *context(int pattern)
{
    static hsp_context *ctx[2];
    if (ctx[pattern]) return ctx[pattern];
    hsp_options o;
    hsp_options_init(&o);
    o.device = "cpu", o.threads = 2, o.pattern = pattern;
    if (hsp_context_create(&o, &ctx[pattern]) != HSP_OK) fuzz_fail("no context: %s", hsp_errmsg());
    return ctx[pattern];
}

/* The blocks of the bytes at e as they come; value k is (k % 15 - 7) / 4. */
static hsp_bitmap decoded(int32_t rows, int32_t cols, const uint8_t *e, int64_t n, hsp_precision p, int off)
{
    hsp_bitmap M = {rows, cols, n, 0, p, malloc((size_t)(n + 1) * 8), malloc((size_t)(n + 1) * 8), NULL};
    if (!M.key || !M.bitmap) fuzz_fail("no memory");
    for (int64_t b = 0; b < n; b++) {
        M.key[b] = (uint64_t)(e[BLOCK_BYTES * b] % 8) << 32 | (e[BLOCK_BYTES * b + 1] % 8);
        memcpy(&M.bitmap[b], e + BLOCK_BYTES * b + 2, 8);
        M.nnz += __builtin_popcountll(M.bitmap[b]);
    }
    M.values = malloc((size_t)(M.nnz + 1) * 8);
    if (!M.values) fuzz_fail("no memory");
    for (int64_t k = 0; k < M.nnz; k++)
        if (p == HSP_DOUBLE) ((double *)M.values)[k] = (k % 15 - 7) / 4.0;
        else ((float *)M.values)[k] = (float)((k % 15 - 7) / 4.0);
    M.nnz += off;
    return M;
}

/* A square valid M by blocks against the reference product of its CSR A. */
static void square(const hsp_bitmap *M, const hsp_csr *A, int pattern)
{
    double *mag = NULL;
    hsp_bitmap *C = NULL;
    hsp_csr *CC = NULL, *ref = ref_multiply(A, A, &mag);
    char why[256] = "";
    if (!ref) fuzz_fail("no memory for the reference");
    hsp_status s = hsp_bitmap_multiply(context(pattern), M, M, &C, NULL);
    if (s != HSP_OK || hsp_bitmap_check(C) != HSP_OK || hsp_bitmap_to_csr(C, &CC) != HSP_OK)
        fuzz_fail("the product by blocks failed: %s", hsp_errmsg());
    if (pattern) {
        int same = CC->nnz == ref->nnz && !memcmp(CC->colidx, ref->colidx, (size_t)CC->nnz * 4);
        for (int64_t k = 0; same && k < CC->nnz; k++) same = hsp_csr_value(CC, k) == 1;
        if (!same) fuzz_fail("the pattern by blocks differs from the reference's");
    } else if (!ref_compare(CC, ref, mag, why, sizeof why)) {
        fuzz_fail("the product by blocks differs from the reference: %s", why);
    }
    hsp_bitmap_free(C), hsp_csr_free(CC), hsp_csr_free(ref), free(mag);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) return 0;
    int32_t rows = 1 + data[0] % MAX_DIM, cols = 1 + data[1] % MAX_DIM;
    int choice = data[2];
    hsp_precision p = choice & 1 ? HSP_FLOAT : HSP_DOUBLE;
    hsp_bitmap M = decoded(rows, cols, data + 3, (int64_t)(size - 3) / BLOCK_BYTES, p, (choice >> 1) & 1);
    hsp_csr *A = NULL;
    hsp_status s = hsp_bitmap_check(&M);
    if (s != HSP_OK && (s != HSP_ERR_ARG || !*hsp_errmsg())) fuzz_fail("a bad matrix refused without a message");
    if (s != HSP_OK && hsp_bitmap_to_csr(&M, &A) != HSP_ERR_ARG) fuzz_fail("a bad matrix converted");
    if (s == HSP_OK) {
        hsp_bitmap *back = NULL;
        fuzz_expect_status(hsp_bitmap_to_csr(&M, &A), A);
        if (hsp_csr_check(A) != HSP_OK || hsp_bitmap_from_csr(A, &back) != HSP_OK) fuzz_fail("no way back");
        size_t vs = p == HSP_DOUBLE ? 8 : 4;
        if (back->nblocks != M.nblocks || back->nnz != M.nnz || memcmp(back->key, M.key, (size_t)M.nblocks * 8) ||
            memcmp(back->bitmap, M.bitmap, (size_t)M.nblocks * 8) || memcmp(back->values, M.values, (size_t)M.nnz * vs))
            fuzz_fail("blocks to CSR and back are not the same blocks");
        if (rows == cols) square(&M, A, (choice >> 2) & 1);
        hsp_bitmap_free(back);
    }
    hsp_csr_free(A), free(M.key), free(M.bitmap), free(M.values);
    return 0;
}
