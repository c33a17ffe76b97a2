/* bitmap.c: the bitmap-blocked format (hspgemm.h's hsp_bitmap): building it
 * from CSR and back, checking it, its memory.  Valid CSR has each row's
 * columns increasing, so the entries of a block row's block, taken row by
 * row, come in the block's bit order: a value's place is its block's start
 * plus the bits set before its own. */
#include <stdlib.h>
#include <string.h>
#include "bitmap/bitmap.h"
#include "core/internal.h"

enum { B = HSP_BITMAP_SIDE };

/* The bits of an 8x8 block inside a matrix whose last block row and
 * column hold `rows` and `cols` of the 8 (8: all). */
static uint64_t inside(int rows, int cols)
{
    uint64_t row = cols == B ? 0xff : ((uint64_t)1 << cols) - 1, bits = 0;
    for (int r = 0; r < rows; r++) bits |= row << (B * r);
    return bits;
}

hsp_status hsp_bitmap_check(const hsp_bitmap *M)
{
    if (!M) return hsp_fail(HSP_ERR_ARG, "the bitmap-blocked matrix is NULL");
    if (M->nrows < 0 || M->ncols < 0 || M->nblocks < 0 || M->nnz < 0 ||
        (M->precision != HSP_FLOAT && M->precision != HSP_DOUBLE))
        return hsp_fail(HSP_ERR_ARG, "bad bitmap-blocked matrix: %d x %d, %lld blocks, %lld entries, precision %d",
                        M->nrows, M->ncols, (long long)M->nblocks, (long long)M->nnz, (int)M->precision);
    if (M->nblocks && (!M->key || !M->bitmap || !M->values))
        return hsp_fail(HSP_ERR_ARG, "bad bitmap-blocked matrix: an array is NULL");
    int64_t nbrows = hsp_blocks(M->nrows), nbcols = hsp_blocks(M->ncols), nnz = 0;
    for (int64_t b = 0; b < M->nblocks; b++) {
        uint64_t bi = M->key[b] >> 32, bj = M->key[b] & 0xffffffffu;
        if (b > 0 && M->key[b] <= M->key[b - 1])
            return hsp_fail(HSP_ERR_ARG, "bitmap block %lld: its key does not follow block %lld's", (long long)b,
                            (long long)b - 1);
        if ((int64_t)bi >= nbrows || (int64_t)bj >= nbcols)
            return hsp_fail(HSP_ERR_ARG, "bitmap block %lld: block (%llu, %llu) is outside a %d x %d matrix",
                            (long long)b, (unsigned long long)bi, (unsigned long long)bj, M->nrows, M->ncols);
        uint64_t edge = inside((int64_t)bi == nbrows - 1 ? M->nrows - B * (int)bi : B,
                               (int64_t)bj == nbcols - 1 ? M->ncols - B * (int)bj : B);
        if (!M->bitmap[b] || (M->bitmap[b] & ~edge))
            return hsp_fail(HSP_ERR_ARG, "bitmap block %lld: %s", (long long)b,
                            M->bitmap[b] ? "a bit past the matrix's last row or column" : "no bit set");
        nnz += __builtin_popcountll(M->bitmap[b]);
    }
    if (nnz != M->nnz)
        return hsp_fail(HSP_ERR_ARG, "bad bitmap-blocked matrix: its bitmaps hold %lld entries, nnz says %lld",
                        (long long)nnz, (long long)M->nnz);
    return HSP_OK;
}

static int by_value(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

void hsp_sort_block_columns(int32_t *cols, int64_t n)
{
    qsort(cols, (size_t)n, sizeof *cols, by_value);
}

/* Scratch of one block row: per block column, whether it is taken (by
 * block row I + 1) and where; the taken columns in order, their bitmaps
 * and where their values start. */
typedef struct {
    int32_t *seen, *at, *cols;
    uint64_t *bits;
    int64_t *start;
} row_scratch;

/* The blocks of block row I of A into s: their columns in order and
 * bitmaps; returns how many. */
static int64_t block_row(const hsp_csr *A, int64_t I, row_scratch *s)
{
    int64_t n = 0, last = A->nrows < B * (I + 1) ? A->nrows : B * (I + 1);
    for (int64_t i = B * I; i < last; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int32_t J = A->colidx[k] / B;
            if (s->seen[J] != I + 1) s->seen[J] = (int32_t)I + 1, s->cols[n++] = J;
        }
    hsp_sort_block_columns(s->cols, n);
    for (int64_t b = 0; b < n; b++) s->at[s->cols[b]] = (int32_t)b, s->bits[b] = 0;
    for (int64_t i = B * I; i < last; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            s->bits[s->at[A->colidx[k] / B]] |= (uint64_t)1 << (B * (i - B * I) + A->colidx[k] % B);
    return n;
}

/* Block row I's values from A into M, each at its block's start (in s)
 * plus the bits set before its own. */
static void place_values(const hsp_csr *A, int64_t I, const row_scratch *s, hsp_bitmap *M)
{
    int64_t last = A->nrows < B * (I + 1) ? A->nrows : B * (I + 1);
    size_t vs = hsp_value_size(A->precision);
    for (int64_t i = B * I; i < last; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int32_t b = s->at[A->colidx[k] / B];
            int bit = (int)(B * (i - B * I) + A->colidx[k] % B);
            int64_t place = s->start[b] + __builtin_popcountll(s->bits[b] & (((uint64_t)1 << bit) - 1));
            memcpy((char *)M->values + place * vs, (const char *)A->values + k * vs, vs);
        }
}

/* Room for `more` blocks past M's nblocks (*cap of them now). */
static hsp_status make_room(hsp_bitmap *M, int64_t more, int64_t *cap)
{
    if (M->nblocks + more <= *cap) return HSP_OK;
    int64_t want = 2 * (M->nblocks + more);
    uint64_t *key = realloc(M->key, (size_t)want * sizeof *key);
    if (key) M->key = key;
    uint64_t *bits = key ? realloc(M->bitmap, (size_t)want * sizeof *bits) : NULL;
    if (bits) M->bitmap = bits, *cap = want;
    return bits ? HSP_OK : hsp_fail(HSP_ERR_NOMEM, "no memory for %lld bitmap blocks", (long long)want);
}

/* hsp_bitmap_from_csr of A checked, into M made for it (no blocks yet). */
static hsp_status from_rows(const hsp_csr *A, hsp_bitmap *M, int64_t cap)
{
    int64_t nbcols = hsp_blocks(A->ncols), at = 0;
    row_scratch s = {calloc((size_t)nbcols + 1, sizeof(int32_t)), malloc(((size_t)nbcols + 1) * sizeof(int32_t)),
                     malloc(((size_t)nbcols + 1) * sizeof(int32_t)), malloc(((size_t)nbcols + 1) * sizeof(uint64_t)),
                     malloc(((size_t)nbcols + 1) * sizeof(int64_t))};
    hsp_status st = s.seen && s.at && s.cols && s.bits && s.start ? HSP_OK
                                                               : hsp_fail(HSP_ERR_NOMEM, "no memory to block a matrix");
    for (int64_t I = 0; st == HSP_OK && I < hsp_blocks(A->nrows); I++) {
        int64_t n = block_row(A, I, &s);
        if ((st = make_room(M, n, &cap)) != HSP_OK) break;
        for (int64_t b = 0; b < n; b++) {
            M->key[M->nblocks + b] = (uint64_t)I << 32 | (uint32_t)s.cols[b];
            M->bitmap[M->nblocks + b] = s.bits[b];
            s.start[b] = at, at += __builtin_popcountll(s.bits[b]);
        }
        M->nblocks += n;
        place_values(A, I, &s, M);
    }
    free(s.seen), free(s.at), free(s.cols), free(s.bits), free(s.start);
    return st;
}

hsp_status hsp_bitmap_from_csr(const hsp_csr *A, hsp_bitmap **out)
{
    if (!out) return hsp_fail(HSP_ERR_ARG, "hsp_bitmap_from_csr: out is NULL");
    *out = NULL;
    hsp_status st = A ? hsp_csr_check(A) : hsp_fail(HSP_ERR_ARG, "hsp_bitmap_from_csr: A is NULL");
    int64_t cap = hsp_blocks(A ? A->nrows : 0) + 1; /* grows as blocks are found */
    hsp_bitmap *M = NULL;
    if (st == HSP_OK) st = hsp_bitmap_new(A->nrows, A->ncols, cap, A->nnz, A->precision, &M);
    if (st == HSP_OK) M->nblocks = 0, st = from_rows(A, M, cap);
    if (st != HSP_OK) hsp_bitmap_free(M), M = NULL;
    *out = M;
    return st;
}

hsp_status hsp_bitmap_to_csr(const hsp_bitmap *M, hsp_csr **out)
{
    if (!out) return hsp_fail(HSP_ERR_ARG, "hsp_bitmap_to_csr: out is NULL");
    *out = NULL;
    hsp_status st = hsp_bitmap_check(M);
    hsp_csr *A = NULL;
    if (st == HSP_OK) st = hsp_csr_create(M->nrows, M->ncols, M->nnz, M->precision, &A);
    if (st != HSP_OK) return st;
    A->rowptr[M->nrows] = 0;
    for (int64_t b = 0; b < M->nblocks; b++) { /* entries per row (none past the last) */
        int64_t first = B * (int64_t)(M->key[b] >> 32);
        for (int64_t i = first; i < first + B && i < M->nrows; i++)
            A->rowptr[i + 1] += __builtin_popcountll((M->bitmap[b] >> (B * (i - first))) & 0xff);
    }
    for (int32_t i = 0; i < M->nrows; i++) A->rowptr[i + 1] += A->rowptr[i];
    size_t vs = hsp_value_size(M->precision);
    int64_t *fill = malloc(((size_t)M->nrows + 1) * sizeof *fill), v = 0;
    if (!fill) {
        hsp_csr_free(A);
        return hsp_fail(HSP_ERR_NOMEM, "no memory to unblock a matrix");
    }
    memcpy(fill, A->rowptr, ((size_t)M->nrows + 1) * sizeof *fill);
    for (int64_t b = 0; b < M->nblocks; b++) /* blocks in key order: each row's columns increase */
        for (uint64_t bits = M->bitmap[b]; bits; bits &= bits - 1, v++) {
            int bit = __builtin_ctzll(bits);
            int64_t i = B * (int64_t)(M->key[b] >> 32) + bit / B, k = fill[i]++;
            A->colidx[k] = (int32_t)(B * (M->key[b] & 0xffffffffu) + bit % B);
            memcpy((char *)A->values + k * vs, (const char *)M->values + v * vs, vs);
        }
    free(fill);
    *out = A;
    return HSP_OK;
}
