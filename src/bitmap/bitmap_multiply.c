/* bitmap_multiply.c: C = A*B of bitmap-blocked matrices on the CPU threads
 * (the block product of Zhang and Gruenwald 2018, by block rows of C).  Each thread takes block
 * rows of A; for each of their blocks (I, J) and each block (J, K) of B, the
 * pair's pattern product (a multiplication of a bit column by a byte for
 * each column of A's block that holds entries) and, in a second pass, its
 * values go to C's block (I, K), kept in a slot of the thread's until the
 * block row is done.  The first pass counts C's blocks and entries per
 * block row, so the second writes each block row at its place (for a
 * pattern product, options.pattern, without the values). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bitmap/bitmap.h"
#include "device/context.h"
#include "device/device.h"
#include "bitmap/bitmap_device.h"
#include "core/internal.h"
#include "core/pool.h"

enum { B = HSP_BITMAP_SIDE, PARTS_PER_THREAD = 8 };
#define BYTE_BITS 0x0101010101010101ull /* bit 0 of each byte: one bit per row of a block */

/* Where each block row starts among M's blocks (nbrows + 1), and each
 * block's first value (nblocks + 1). */
typedef struct {
    int64_t *row, *start;
} block_index;

static hsp_status index_of(const hsp_bitmap *M, block_index *x)
{
    int64_t nbrows = hsp_blocks(M->nrows);
    x->row = calloc((size_t)nbrows + 1, sizeof *x->row);
    x->start = malloc(((size_t)M->nblocks + 1) * sizeof *x->start);
    if (!x->row || !x->start) return hsp_fail(HSP_ERR_NOMEM, "no memory to index %lld blocks", (long long)M->nblocks);
    x->start[0] = 0;
    for (int64_t b = 0; b < M->nblocks; b++) {
        x->row[(M->key[b] >> 32) + 1]++;
        x->start[b + 1] = x->start[b] + __builtin_popcountll(M->bitmap[b]);
    }
    for (int64_t I = 0; I < nbrows; I++) x->row[I + 1] += x->row[I];
    return HSP_OK;
}

/* The pattern of the product of blocks a and b: entry (r, c) where a has
 * (r, t) and b has (t, c) for some t.  Column t of a, one bit a byte,
 * times row t of b (a byte) puts that row into the bytes of a's rows; only
 * the columns of a that hold entries are taken. */
static inline uint64_t pattern_product(uint64_t a, uint64_t b)
{
    uint64_t c = 0, cols = a | a >> 32; /* the columns of a that hold entries, in one byte */
    cols |= cols >> 16, cols |= cols >> 8;
    for (cols &= 0xff; cols; cols &= cols - 1) {
        int t = __builtin_ctzll(cols);
        c |= ((a >> t) & BYTE_BITS) * ((b >> (B * t)) & 0xff);
    }
    return c;
}

/* A thread's blocks of C's current block row: slot s holds block column
 * col[s], its pattern bits[s] and values tile[64 s ..] (zero but at bits[s]:
 * write_row clears what it writes); slot_of[K] is K's slot or -1. */
typedef struct {
    int32_t *slot_of, *col;
    uint64_t *bits;
    double *tile;
    int64_t nslots, cap;
    uint64_t *taken; /* a bit per block column: has a slot */
    int64_t words;   /* of taken */
    int64_t flops;   /* multiply-adds of the values pass */
    int failed;      /* a slot array could not grow */
} slots;

typedef struct {
    const hsp_bitmap *A, *B;
    hsp_bitmap *C;
    block_index a, b;
    int64_t *cut;           /* parts of A's block rows */
    int64_t *blocks, *nnz;  /* per block row I of C, at I + 1: counted; then where each starts, at I */
    slots *ws;              /* per thread */
    int pattern;            /* C's pattern only: no values pass, every value 1 */
} product_run;

/* w without slots (slot_of all -1 again). */
static void empty(slots *w)
{
    for (int64_t s = 0; s < w->nslots; s++) w->slot_of[w->col[s]] = -1, w->taken[w->col[s] / 64] = 0;
    w->nslots = 0;
}

/* w's block columns in order into w->col: read off the taken bits where
 * that is shorter than sorting them. */
static void order_columns(slots *w)
{
    int64_t n = w->nslots, log2n = 64 - __builtin_clzll((uint64_t)n | 1);
    if (n * log2n < w->words) {
        hsp_sort_block_columns(w->col, n);
        return;
    }
    n = 0;
    for (int64_t k = 0; k < w->words; k++)
        for (uint64_t bits = w->taken[k]; bits; bits &= bits - 1) w->col[n++] = (int32_t)(64 * k + __builtin_ctzll(bits));
}

/* K's slot in w, made where missing (-1 when there is no memory). */
static int64_t slot(slots *w, int32_t K)
{
    if (w->slot_of[K] >= 0) return w->slot_of[K];
    if (w->nslots == w->cap) {
        int64_t cap = 2 * w->cap;
        int32_t *col = realloc(w->col, (size_t)cap * sizeof *col);
        if (col) w->col = col;
        uint64_t *bits = col ? realloc(w->bits, (size_t)cap * sizeof *bits) : NULL;
        if (bits) w->bits = bits;
        double *tile = bits ? realloc(w->tile, (size_t)cap * B * B * sizeof *tile) : NULL;
        if (!tile) return -1;
        memset(tile + w->cap * B * B, 0, (size_t)(cap - w->cap) * B * B * sizeof *tile);
        w->tile = tile, w->cap = cap;
    }
    int64_t s = w->nslots++;
    w->slot_of[K] = (int32_t)s, w->col[s] = K, w->bits[s] = 0;
    w->taken[K / 64] |= (uint64_t)1 << (K % 64);
    return s;
}

/* Adds the values of block a (values av from its start) times block b (bv)
 * into tile; returns the multiply-adds. */
#define BLOCK_PRODUCT(VT, name)                                                                      \
    static int64_t name(uint64_t a, const VT *av, uint64_t b, const VT *bv, double *tile)           \
    {                                                                                                \
        int64_t done = 0;                                                                            \
        for (; a; a &= a - 1, av++) {                                                                \
            int bit = __builtin_ctzll(a), r = bit / B, t = bit % B;                                  \
            uint64_t row = (b >> (B * t)) & 0xff;                                                    \
            const VT *bt = bv + __builtin_popcountll(b & (((uint64_t)1 << (B * t)) - 1));             \
            for (; row; row &= row - 1, bt++, done++) tile[B * r + __builtin_ctzll(row)] += (double)*av * *bt; \
        }                                                                                            \
        return done;                                                                                 \
    }
BLOCK_PRODUCT(float, block_product_f)
BLOCK_PRODUCT(double, block_product_d)

/* Block row I of C into w's slots: patterns, and values where `values`. */
static int64_t gather(product_run *r, slots *w, int64_t I, int values)
{
    const hsp_bitmap *A = r->A, *Bm = r->B;
    int64_t flops = 0;
    for (int64_t p = r->a.row[I]; p < r->a.row[I + 1]; p++) {
        int64_t J = (int64_t)(A->key[p] & 0xffffffffu);
        for (int64_t q = r->b.row[J]; q < r->b.row[J + 1]; q++) {
            uint64_t bits = pattern_product(A->bitmap[p], Bm->bitmap[q]);
            int64_t s = bits ? slot(w, (int32_t)(Bm->key[q] & 0xffffffffu)) : -2;
            if (s == -1) return w->failed = 1, flops;
            if (s < 0) continue;
            w->bits[s] |= bits;
            if (!values) continue;
            double *tile = w->tile + s * B * B;
            flops += A->precision == HSP_DOUBLE
                         ? block_product_d(A->bitmap[p], (const double *)A->values + r->a.start[p], Bm->bitmap[q],
                                           (const double *)Bm->values + r->b.start[q], tile)
                         : block_product_f(A->bitmap[p], (const float *)A->values + r->a.start[p], Bm->bitmap[q],
                                           (const float *)Bm->values + r->b.start[q], tile);
        }
    }
    return flops;
}

/* w's slots, as blocks of block row I of C from block r->blocks[I] and
 * value r->nnz[I] on, in order of their columns; then w emptied. */
static void write_row(product_run *r, slots *w, int64_t I)
{
    hsp_bitmap *C = r->C;
    int64_t b = r->blocks[I], v = r->nnz[I];
    order_columns(w); /* slot_of still finds each column's slot */
    for (int64_t k = 0; k < w->nslots; k++, b++) {
        int64_t s = w->slot_of[w->col[k]];
        double *tile = w->tile + s * B * B;
        C->key[b] = (uint64_t)I << 32 | (uint32_t)w->col[k], C->bitmap[b] = w->bits[s];
        for (uint64_t bits = w->bits[s]; bits; bits &= bits - 1, v++) {
            int bit = __builtin_ctzll(bits);
            double x = r->pattern ? 1 : tile[bit];
            if (C->precision == HSP_DOUBLE) ((double *)C->values)[v] = x;
            else ((float *)C->values)[v] = (float)x;
            tile[bit] = 0;
        }
    }
    empty(w);
}

/* Count C's blocks and entries of each block row of a part. */
static void count_part(void *arg, int tid, int64_t part)
{
    product_run *r = arg;
    slots *w = &r->ws[tid];
    for (int64_t I = r->cut[part]; I < r->cut[part + 1] && !w->failed; I++) {
        gather(r, w, I, 0);
        r->blocks[I + 1] = w->nslots, r->nnz[I + 1] = 0;
        for (int64_t s = 0; s < w->nslots; s++) r->nnz[I + 1] += __builtin_popcountll(w->bits[s]);
        empty(w);
    }
}

/* C's block rows of a part, at their places (values too unless a pattern). */
static void fill_part(void *arg, int tid, int64_t part)
{
    product_run *r = arg;
    slots *w = &r->ws[tid];
    for (int64_t I = r->cut[part]; I < r->cut[part + 1] && !w->failed; I++) {
        w->flops += gather(r, w, I, !r->pattern);
        write_row(r, w, I);
    }
}

/* The operands' checks: both valid, of one precision, A's columns B's rows. */
static hsp_status check_operands(const hsp_bitmap *A, const hsp_bitmap *B)
{
    hsp_status s = hsp_bitmap_check(A);
    if (s != HSP_OK) return hsp_fail(s, "hsp_bitmap_multiply: A: %s", hsp_errmsg());
    if ((s = hsp_bitmap_check(B)) != HSP_OK) return hsp_fail(s, "hsp_bitmap_multiply: B: %s", hsp_errmsg());
    if (A->ncols != B->nrows)
        return hsp_fail(HSP_ERR_SHAPE, "hsp_bitmap_multiply: A is %d x %d but B is %d x %d", A->nrows, A->ncols,
                        B->nrows, B->ncols);
    if (A->precision != B->precision) return hsp_fail(HSP_ERR_ARG, "hsp_bitmap_multiply: A and B differ in precision");
    return HSP_OK;
}

/* The pool's parts of A's block rows, of about equal block pairs, into r->cut. */
static hsp_status split_rows(product_run *r, int threads, int64_t *parts)
{
    int64_t nbrows = hsp_blocks(r->A->nrows);
    int64_t *pairs = malloc(((size_t)nbrows + 1) * sizeof *pairs);
    r->cut = malloc(((size_t)threads * PARTS_PER_THREAD + 1) * sizeof *r->cut);
    if (!pairs || !r->cut) {
        free(pairs);
        return hsp_fail(HSP_ERR_NOMEM, "no memory to split %lld block rows", (long long)nbrows);
    }
    pairs[0] = 0;
    for (int64_t I = 0; I < nbrows; I++) {
        pairs[I + 1] = pairs[I] + 1;
        for (int64_t p = r->a.row[I]; p < r->a.row[I + 1]; p++) {
            int64_t J = (int64_t)(r->A->key[p] & 0xffffffffu);
            pairs[I + 1] += r->b.row[J + 1] - r->b.row[J];
        }
    }
    *parts = hsp_split_weighted(pairs, nbrows, (int64_t)threads * PARTS_PER_THREAD, r->cut);
    free(pairs);
    return HSP_OK;
}

/* Each thread's slots, for C of ncols columns. */
static hsp_status slots_new(product_run *r, int threads, int32_t ncols)
{
    enum { FIRST_SLOTS = 64 };
    int64_t nbcols = hsp_blocks(ncols);
    r->ws = calloc((size_t)threads, sizeof *r->ws);
    for (int t = 0; r->ws && t < threads; t++) {
        slots *w = &r->ws[t];
        w->slot_of = malloc(((size_t)nbcols + 1) * sizeof *w->slot_of), w->cap = FIRST_SLOTS;
        w->words = nbcols / 64 + 1, w->taken = calloc((size_t)w->words, sizeof *w->taken);
        w->col = malloc(FIRST_SLOTS * sizeof *w->col), w->bits = malloc(FIRST_SLOTS * sizeof *w->bits);
        w->tile = calloc(FIRST_SLOTS * B * B, sizeof *w->tile);
        if (!w->slot_of || !w->col || !w->bits || !w->tile || !w->taken) return hsp_fail(HSP_ERR_NOMEM, "no memory for blocks of C");
        for (int64_t K = 0; K <= nbcols; K++) w->slot_of[K] = -1;
    }
    return r->ws ? HSP_OK : hsp_fail(HSP_ERR_NOMEM, "no memory for blocks of C");
}

static void run_free(product_run *r, int threads)
{
    for (int t = 0; r->ws && t < threads; t++)
        free(r->ws[t].slot_of), free(r->ws[t].col), free(r->ws[t].bits), free(r->ws[t].tile), free(r->ws[t].taken);
    free(r->ws), free(r->cut), free(r->blocks), free(r->nnz);
    free(r->a.row), free(r->a.start), free(r->b.row), free(r->b.start);
}

/* Where each block row of C starts (r->blocks, r->nnz from the counts);
 * then C made for them. */
static hsp_status make_c(product_run *r)
{
    int64_t nbrows = hsp_blocks(r->A->nrows);
    r->blocks[0] = r->nnz[0] = 0;
    for (int64_t I = 0; I < nbrows; I++) r->blocks[I + 1] += r->blocks[I], r->nnz[I + 1] += r->nnz[I];
    return hsp_bitmap_new(r->A->nrows, r->B->ncols, r->blocks[nbrows], r->nnz[nbrows], r->A->precision, &r->C);
}

/* Did a thread's slots fail to grow? */
static int any_failed(const product_run *r, int threads)
{
    int failed = 0;
    for (int t = 0; t < threads; t++) failed |= r->ws[t].failed;
    return failed;
}

/* hsp_bitmap_multiply of checked operands on ctx's pool. */
static hsp_status multiply(hsp_context *ctx, const hsp_bitmap *A, const hsp_bitmap *B, hsp_bitmap **C, int64_t *flops)
{
    int threads = hsp_pool_size(ctx->pool);
    int64_t parts = 0, nbrows = hsp_blocks(A->nrows);
    product_run r = {.A = A, .B = B, .pattern = ctx->options.pattern};
    r.blocks = calloc((size_t)nbrows + 1, sizeof *r.blocks), r.nnz = calloc((size_t)nbrows + 1, sizeof *r.nnz);
    hsp_status s = r.blocks && r.nnz ? HSP_OK : hsp_fail(HSP_ERR_NOMEM, "no memory for C's block rows");
    if (s == HSP_OK) s = index_of(A, &r.a);
    if (s == HSP_OK) s = index_of(B, &r.b);
    if (s == HSP_OK) s = split_rows(&r, threads, &parts);
    if (s == HSP_OK) s = slots_new(&r, threads, B->ncols);
    if (s == HSP_OK) hsp_pool_chunks(ctx->pool, parts, count_part, &r);
    if (s == HSP_OK && !any_failed(&r, threads)) s = make_c(&r);
    if (s == HSP_OK && !any_failed(&r, threads)) hsp_pool_chunks(ctx->pool, parts, fill_part, &r);
    if (s == HSP_OK && any_failed(&r, threads)) s = hsp_fail(HSP_ERR_NOMEM, "no memory for the blocks of a block row of C");
    for (int t = 0; s == HSP_OK && t < threads; t++) *flops += 2 * r.ws[t].flops;
    if (s == HSP_OK) *C = r.C;
    else hsp_bitmap_free(r.C);
    run_free(&r, threads);
    return s;
}

hsp_status hsp_bitmap_multiply(hsp_context *ctx, const hsp_bitmap *A, const hsp_bitmap *B, hsp_bitmap **C,
                               hsp_stats *stats)
{
    if (!ctx || !C) return hsp_fail(HSP_ERR_ARG, "hsp_bitmap_multiply: ctx or C is NULL");
    *C = NULL;
    hsp_status s = check_operands(A, B);
    if (s != HSP_OK) return s;
    double start = hsp_now_ms();
    int64_t flops = 0;
    hsp_context_lock(ctx);
    hsp_device *dev = ctx->device && ctx->device->bitmap ? ctx->device : NULL;
    s = dev ? dev->bitmap->multiply(dev, A, B, ctx->options.pattern, C, &flops) : multiply(ctx, A, B, C, &flops);
    hsp_context_unlock(ctx);
    if (stats && s == HSP_OK) {
        memset(stats, 0, sizeof *stats);
        stats->size = sizeof *stats;
        stats->ms_total = hsp_now_ms() - start, stats->flops = flops, stats->nnz_c = (*C)->nnz;
        stats->threads = hsp_pool_size(ctx->pool), stats->bitmap = 1, stats->blocks_c = (*C)->nblocks;
        snprintf(stats->device, sizeof stats->device, "%.140s, bitmap blocks", dev ? dev->description : "cpu");
    }
    return s;
}
