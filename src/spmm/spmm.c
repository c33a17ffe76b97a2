/* spmm.c: hsp_spmm and hsp_spmm_ellr, a sparse matrix (CSR, or prepared:
 * ellr.c) times a dense one on the context's CPU threads, or on its device
 * where that has an spmm (a GPU: gpu_spmm.c).  The operands are
 * checked first (a prepared A was, when prepared); the rows are split into parts
 * of about equal entries, taken by the threads as they come free, and each
 * row of C is made SPMM_WIDE columns at a time, so that A's row is read
 * once for that many columns of B (FastSpMM's passes: Ortega et al. 2014);
 * column-major B of several columns is first copied into a row-major
 * workspace of the context, where a row of B is one run of memory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device/context.h"
#include "spmm/ellr.h"
#include "spmm/spmm_device.h"
#include "core/internal.h"
#include "core/scratch.h"
#include "spmm/spmm.h"

enum { SPMM_WIDE = 32, SPMM_CHAINS = 4, SPMM_AHEAD = 8, PARTS_PER_THREAD = 8 };
/* A row of C costs about as much as this many entries of A (its sums
 * started and added up, its values stored), when the rows are split among
 * the threads: wiki-Vote, whose second half of entries lies on twice the
 * first half's rows, at L = 8 on 2 threads 0.062-0.063 ms split by entries
 * alone, 0.057, 0.053-0.054 and 0.057-0.058 ms at 2, 4 and 8 (MKL 0.049-0.050);
 * rmat:16,8 0.61-0.62 -> 0.56-0.58 ms at 4 (doc/performance.md). */
enum { SPMM_ROW_COST = 4 };
enum { SPMM_NEAR = 4096, SPMM_SAMPLE = 64 };       /* scattered_columns */
enum { SPMM_COPY_ROWS = 64, COPY_CHUNK = 4096 };   /* the copy of column-major B */
/* or by slabs (spmm_by_slabs) of rows of B within SLAB_BYTES: 8 MiB, where
 * 1 MiB (a core's L2) left a 3-D stencil's slabs too narrow for their rows
 * of B either side, so that all of B was copied (on an AMD EPYC, Zen 4,
 * 32 MiB of L3: poisson3d7:60 at L = 32 13.8-15.5 -> 11.3-13.0 ms; L = 8
 * and 16 and the 2-D stencils level: doc/performance.md) */
enum { SLAB_BLOCK = 256, SLAB_BYTES = 8 << 20 };

/* One product: its operands, the strides of B's and C's entries (row i,
 * column j at i * step[0] + j * step[1]), and its parts of rows. */
typedef struct {
    const struct hsp_ellr *A;
    const hsp_dense *B;
    hsp_dense *C;
    double alpha, beta;
    int64_t b_step[2], c_step[2];
    int64_t *cut;                /* part p: rows cut[p] .. cut[p + 1] - 1 */
    int ahead;                   /* fetch rows of B ahead (scattered_columns) */
    int stream;                  /* C's lines stored past the caches (streams_c) */
    int32_t phase;               /* column-major C: its rows that begin cache lines, mod a tile's
                                    rows (line_phase) */
    const struct spmm_kernels *k; /* the row kernels (kernels_for) */
} spmm_run;

/* A row's entries as the row kernels read them: n of them from col and
 * val (values of the product's precision), and reach, those that may be
 * read from there (the row's, and in CSR the rows after it). */
typedef struct {
    const int32_t *col;
    const void *val;
    int64_t n, reach;
} spmm_entries;

/* A compact row-major copy T of column-major B (its columns ld apart), made
 * on the pool by chunks of COPY_CHUNK rows by the kernels k. */
typedef struct spmm_kernels spmm_kernels;
typedef struct {
    const hsp_dense *B;
    hsp_dense *T;
    int64_t ld;
    const spmm_kernels *k;
} row_copy;

/* The row kernels of one precision and width of vector: C's rows first ..
 * last - 1, and the copy of column-major B's. */
struct spmm_kernels {
    void (*rows)(const spmm_run *r, int32_t first, int32_t last);
    void (*copy)(const row_copy *c, int32_t first, int32_t last);
};

/* The row kernels built for vectors of 512 bits (AVX-512), 256 (AVX2 and
 * FMA) and 128 (the x86-64 baseline; the only width elsewhere), each
 * product taking the widest the CPU runs (kernels_for): each width its own
 * vector type, since a vector wider than the target's registers lives in
 * memory (the 512-bit kernels built for AVX2 took 6.9 times the AVX-512
 * build's time, the baseline's 2.9 times).  Multiplies and adds fused
 * where the target has FMA (-ffp-contract=fast: 4-20% at L = 32; the last
 * bits then differ from a CPU without) (doc/performance.md, "Figures behind
 * the code"). */
#if defined(__x86_64__) && defined(__GNUC__)
#define SPMM_X86 1
#include <immintrin.h>
#define SPMM_BYTES 64
#define SPMM_TARGET __attribute__((target("avx512f,fma"), optimize("fp-contract=fast")))
#define SPMM_ISA(name) name##_512
#include "spmm/spmm_widths.h"
#define SPMM_BYTES 32
#define SPMM_TARGET __attribute__((target("avx2,fma"), optimize("fp-contract=fast")))
#define SPMM_ISA(name) name##_256
#include "spmm/spmm_widths.h"
#endif
#define SPMM_BYTES 16
#define SPMM_TARGET __attribute__((optimize("fp-contract=fast")))
#define SPMM_ISA(name) name##_128
#include "spmm/spmm_widths.h"

/* The kernels of precision p of the widest vectors the CPU runs, at most
 * HSPGEMM_CPU_VECTORS bits (512, 256 or 128: to compare or test the
 * narrower ones). */
static const spmm_kernels *kernels_for(hsp_precision p)
{
    const char *cap = getenv("HSPGEMM_CPU_VECTORS");
    int bits = cap ? atoi(cap) : 512, dbl = p == HSP_DOUBLE;
#ifdef SPMM_X86
    if (bits >= 512 && __builtin_cpu_supports("avx512f")) return dbl ? &kernels_d_512 : &kernels_f_512;
    if (bits >= 256 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return dbl ? &kernels_d_256 : &kernels_f_256;
#endif
    (void)bits;
    return dbl ? &kernels_d_128 : &kernels_f_128;
}

/* Check dense operand M (named name): its layout, and the shape and
 * precision the product needs. */
static hsp_status check_dense(const hsp_dense *M, const char *name, int32_t nrows, int32_t ncols,
                              hsp_precision precision)
{
    char who[24];
    snprintf(who, sizeof who, "hsp_spmm: %s", name);
    if (M && (M->nrows != nrows || M->ncols != ncols))
        return hsp_fail(HSP_ERR_SHAPE, "%s is %d x %d; the product needs %d x %d", who, M->nrows, M->ncols, nrows,
                        ncols);
    hsp_status s = hsp_dense_check(M, who);
    if (s == HSP_OK && M->precision != precision)
        s = hsp_fail(HSP_ERR_ARG, "%s is %s and A %s: give them one precision", who,
                     M->precision == HSP_DOUBLE ? "double" : "float", precision == HSP_DOUBLE ? "double" : "float");
    return s;
}

/* The bytes of M's array, [*lo, *hi) (empty where it has no entries). */
static void dense_span(const hsp_dense *M, uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)M->values;
    *hi = *lo + hsp_dense_bytes(M);
}

/* C's array may not share a byte with B's or with A's values (A NULL: a
 * prepared A's own): C is written while they are read. */
static hsp_status check_apart(const hsp_csr *A, const hsp_dense *B, const hsp_dense *C)
{
    uintptr_t c0, c1, b0, b1, a0 = A ? (uintptr_t)A->values : 0;
    uintptr_t a1 = A ? a0 + (uintptr_t)A->nnz * hsp_value_size(A->precision) : 0;
    dense_span(C, &c0, &c1), dense_span(B, &b0, &b1);
    if ((c0 < b1 && b0 < c1) || (c0 < a1 && a0 < c1))
        return hsp_fail(HSP_ERR_ARG, "hsp_spmm: C's array overlaps %s: give C an array of its own",
                        c0 < b1 && b0 < c1 ? "B's" : "A's values");
    return HSP_OK;
}

/* Are A's columns scattered: of the first SPMM_SAMPLE entries of
 * SPMM_SAMPLE rows spread over A, more than a quarter further from the
 * row's own place (scaled to B's rows) than a sixteenth of B's rows (at
 * least 64, at most SPMM_NEAR)?
 * The CPU's own prefetch follows the rows of B that near columns read
 * (stencils, bands: fetching them ahead as well cost poisson3d27:30 a
 * fifth); scattered ones (random, power-law rows) the row kernels fetch
 * ahead (doc/library.md, "Sparse times dense"). */
static int scattered_columns(const struct hsp_ellr *A)
{
    int64_t far = 0, seen = 0, near = A->ncols / 16 < 64 ? 64 : A->ncols / 16 > SPMM_NEAR ? SPMM_NEAR : A->ncols / 16;
    for (int k = 0; k < SPMM_SAMPLE && A->nrows; k++) {
        int32_t i = (int32_t)((int64_t)A->nrows * k / SPMM_SAMPLE);
        int64_t at = (int64_t)i * A->ncols / A->nrows;
        int64_t step = hsp_ellr_step(A), end = hsp_ellr_end(A, i), p = hsp_ellr_first(A, i);
        for (int q = 0; q < SPMM_SAMPLE && p < end; q++, p += step, seen++)
            far += A->col[p] - at > near || at - A->col[p] > near;
    }
    return far * 4 > seen;
}

/* Part p's rows of C. */
static void spmm_part(void *arg, int tid, int64_t p)
{
    spmm_run *r = arg;
    (void)tid;
    r->k->rows(r, (int32_t)r->cut[p], (int32_t)r->cut[p + 1]);
}

/* A product split between a device that reads host memory and the CPU
 * threads: the device makes C's first columns (from B's first ones), on the
 * pool's thread that takes chunk 0, which waits for it, while the other
 * chunks are the threads' parts of the last columns (cpu). */
typedef struct {
    spmm_run cpu;
    hsp_device *dev;
    const struct hsp_ellr *A; /* the form of A the device reads */
    hsp_dense B, C;           /* the device's columns */
    void *const *held;
    int blocks;
    hsp_status status;        /* the device's */
} split_run;

static void split_part(void *arg, int tid, int64_t p)
{
    split_run *r = arg;
    if (p) spmm_part(&r->cpu, tid, p - 1);
    else r->status = r->dev->spmm->multiply(r->dev, r->A, &r->B, r->cpu.alpha, r->cpu.beta, &r->C, r->held, &r->blocks);
}

static void copy_part(void *arg, int tid, int64_t p)
{
    const row_copy *c = arg;
    int32_t last, first = hsp_chunk_rows(p, COPY_CHUNK, c->B->nrows, &last);
    (void)tid;
    c->k->copy(c, first, last);
}

/* r's B, column-major of several columns, replaced by a row-major copy *T
 * in a buffer of ctx's first workspace, kept between calls (its pages are
 * not faulted in again) and on a cache line (a row of 8 doubles then one
 * line, not two: random:150000,8 at L = 8 3.2 ms against 4.3): a row of B
 * is then one run of memory for the row kernels, where each entry of A read
 * one value of each of L columns, L cache lines (doc/library.md: "Sparse
 * times dense"). */
static hsp_status copy_row_major(hsp_context *ctx, spmm_run *r, hsp_dense *T)
{
    const hsp_dense *B = r->B;
    hsp_scratch *keep = &ctx->scratch[0];
    size_t n = (size_t)B->nrows * (size_t)B->ncols;
    if (hsp_scratch_need(&keep->buf[1], &keep->buf_bytes[1], (n ? n : 1) * hsp_value_size(B->precision)) != HSP_OK)
        return hsp_fail(HSP_ERR_NOMEM, "hsp_spmm: no memory for a row-major copy of column-major B (%d x %d)",
                        B->nrows, B->ncols);
    *T = (hsp_dense){B->nrows, B->ncols, B->ncols, HSP_ROW_MAJOR, B->precision, keep->buf[1]};
    row_copy c = {B, T, r->b_step[1], r->k};
    hsp_pool_chunks(ctx->pool, hsp_row_chunks(B->nrows, COPY_CHUNK), copy_part, &c);
    r->B = T, r->b_step[0] = B->ncols, r->b_step[1] = 1;
    return HSP_OK;
}

int hsp_spmm_forced(const char *name)
{
    const char *v = getenv(name);
    return !v ? -1 : !strcmp(v, "always") ? 1 : !strcmp(v, "never") ? 0 : -1;
}

/* Is C stored past the caches (non-temporal stores of whole cache lines,
 * spmm_rows.h's store_c: no line read before it is written), C being more
 * than half the last-level cache, whose reads of B and A would evict it
 * before it is read again?  HSPGEMM_SPMM_STREAM=always or never answers
 * instead.  On this VM's AMD EPYC (Zen 4, 32 MiB of L3) at L = 32,
 * column-major: poisson2d5:400 6.1-8.1 -> 4.2-5.0 ms, poisson3d7:60
 * 14.1-15.6 -> 8.8-10.9; row-major: random:150000,8 11.8-12.2 -> 10.0-10.3;
 * on its Zen 3 (AVX2) poisson3d7:60 18.2-26.9 -> 12.2-12.6 (doc/performance.md). */
static int streams_c(const hsp_context *ctx, const hsp_dense *C)
{
    int says = hsp_spmm_forced("HSPGEMM_SPMM_STREAM");
    double bytes = (double)C->nrows * C->ncols * (double)hsp_value_size(C->precision);
    return says >= 0 ? says : bytes > ctx->cache_bytes / 2;
}

/* The first row of column-major C, mod a tile's HSP_ELLR_SLICE rows, whose
 * values begin a cache line in each column where C is stored past the
 * caches, so that tiles from there fill lines (0 where they cannot: A in
 * ELLPACK-R, whose tiles are its slices, or C's columns not lines apart). */
static int32_t line_phase(const spmm_run *r)
{
    uintptr_t at = (uintptr_t)r->C->values, line = 64, vs = hsp_value_size(r->C->precision);
    if (!r->stream || r->c_step[1] == 1 || !r->A->rowptr || at % vs || (uintptr_t)r->c_step[1] * vs % line) return 0;
    return (int32_t)((line - at % line) % line / vs % HSP_ELLR_SLICE);
}

/* Would the copy of all of column-major B, beside B, C and A, pass a
 * third of the last-level cache (32 MiB where the system does not say)?
 * HSPGEMM_SPMM_SLABS=always or never answers instead.
 * This VM's (a 260 MiB L3 shared with other machines) kept poisson2d5:300
 * at L = 32 (75 MB) and lost poisson2d5:400 (133 MB): the product and the
 * copy each alone 3 and 2 ms, both 8 ms, by slabs 4.5 ms; by slabs where
 * the copy stays in cache, poisson3d7:60 at L = 8 took 2.4 ms against 1.9
 * (the rows of B either side of a slab copied twice). */
static int copy_spills(const hsp_context *ctx, const spmm_run *r)
{
    int says = hsp_spmm_forced("HSPGEMM_SPMM_SLABS");
    if (says >= 0) return says;
    const struct hsp_ellr *A = r->A;
    double vs = (double)hsp_value_size(r->B->precision), L = r->B->ncols;
    double bytes = (2.0 * A->ncols + A->nrows) * L * vs + (double)A->nnz * (4 + vs) + 8.0 * A->nrows;
    return bytes > ctx->cache_bytes / 3;
}

/* A product of column-major B by slabs of C's rows, each thread copying
 * the rows of B that a slab's entries read (lo .. hi) into a row-major
 * buffer of its own and making the slab's rows from it while it is in
 * cache.  The slabs are runs of SLAB_BLOCK rows, as many as keep
 * their rows of B within SLAB_BYTES and leave PARTS_PER_THREAD slabs a
 * thread. */
typedef struct {
    const spmm_run *r;
    int64_t n;                 /* blocks, then slabs */
    int32_t *first, *lo, *hi;  /* each one's first row of C and rows of B (hi < lo: none) */
    hsp_scratch *scratch;      /* the threads' own: buf[1] holds a slab's rows of B */
} slab_run;

/* The rows of B that block b's entries read: from each row's first and
 * last column (a row's columns ascend in a checked CSR). */
static void block_range(void *arg, int tid, int64_t b)
{
    slab_run *sr = arg;
    const struct hsp_ellr *A = sr->r->A;
    int32_t last, first = hsp_chunk_rows(b, SLAB_BLOCK, A->nrows, &last), lo = INT32_MAX, hi = -1;
    (void)tid;
    for (int32_t i = first; i < last; i++)
        if (A->rowptr[i + 1] > A->rowptr[i]) {
            lo = A->col[A->rowptr[i]] < lo ? A->col[A->rowptr[i]] : lo;
            hi = A->col[A->rowptr[i + 1] - 1] > hi ? A->col[A->rowptr[i + 1] - 1] : hi;
        }
    sr->first[b] = first, sr->lo[b] = hi < 0 ? INT32_MAX : lo, sr->hi[b] = hi;
}

/* The blocks joined into slabs in place, each of rows of B within most
 * rows and of C within rows (the last slab's end: first[n] = nrows). */
static void join_blocks(slab_run *sr, int64_t most, int64_t rows)
{
    int64_t k = 0;
    for (int64_t b = 0; b < sr->n; k++) {
        int32_t first = sr->first[b], lo = sr->lo[b], hi = sr->hi[b];
        for (b++; b < sr->n && sr->first[b] - first < rows; b++) {
            int32_t l = sr->lo[b] < lo ? sr->lo[b] : lo, h = sr->hi[b] > hi ? sr->hi[b] : hi;
            if (h >= l && (int64_t)h - l + 1 > most) break;
            lo = l, hi = h;
        }
        sr->first[k] = first, sr->lo[k] = lo, sr->hi[k] = hi;
    }
    sr->n = k, sr->first[k] = sr->r->A->nrows;
}

/* Slab s: its rows of B copied row-major into the thread's buffer, then its
 * rows of C.  T, the view that the copy and the row kernels take for B, has
 * its row i at the buffer's row i - lo (its values pointer lo rows before
 * the buffer: only rows lo .. hi are read or written), so that neither
 * kernel changes. */
static void slab_part(void *arg, int tid, int64_t s)
{
    slab_run *sr = arg;
    spmm_run r = *sr->r;
    int32_t L = r.B->ncols, lo = sr->hi[s] >= sr->lo[s] ? sr->lo[s] : 0;
    size_t vs = hsp_value_size(r.B->precision);
    hsp_dense T = {r.B->nrows, L, L, HSP_ROW_MAJOR, r.B->precision,
                   (char *)sr->scratch[tid].buf[1] - (size_t)lo * (size_t)L * vs};
    row_copy c = {r.B, &T, r.b_step[1], r.k};
    if (sr->hi[s] >= lo) r.k->copy(&c, lo, sr->hi[s] + 1);
    r.B = &T, r.b_step[0] = L, r.b_step[1] = 1;
    r.k->rows(&r, sr->first[s], sr->first[s + 1]);
}

/* Do the slabs' rows of B fit SLAB_BYTES, and each thread's buffer? */
static int slabs_fit(hsp_context *ctx, slab_run *sr, size_t row_bytes)
{
    int64_t widest = 1;
    for (int64_t s = 0; s < sr->n; s++) {
        if ((size_t)(sr->hi[s] >= sr->lo[s] ? sr->hi[s] - sr->lo[s] + 1 : 0) * row_bytes > SLAB_BYTES) return 0;
        widest = sr->hi[s] - sr->lo[s] + 1 > widest ? sr->hi[s] - sr->lo[s] + 1 : widest;
    }
    for (int t = 0; t < hsp_pool_size(ctx->pool); t++)
        if (hsp_scratch_need(&ctx->scratch[t].buf[1], &ctx->scratch[t].buf_bytes[1], (size_t)widest * row_bytes))
            return 0; /* no buffers: the copy of all of B will say */
    return 1;
}

/* r's product by slabs where each slab's rows of B fit SLAB_BYTES (*done
 * set; near columns: stencils, bands), else nothing done: a copy T of all
 * of B, written and then read through the last-level cache, took
 * poisson2d5:400 at L = 32 from 3 + 2 ms (the product, the copy, each
 * alone) to 8 ms (doc/library.md, "Sparse times dense"). */
static hsp_status spmm_by_slabs(hsp_context *ctx, spmm_run *r, int *done)
{
    int64_t n = hsp_row_chunks(r->A->nrows, SLAB_BLOCK), threads = hsp_pool_size(ctx->pool);
    size_t row_bytes = (size_t)r->B->ncols * hsp_value_size(r->B->precision), each = (size_t)(n + 1) * sizeof(int32_t);
    slab_run sr = {r, n, malloc(each), malloc(each), malloc(each), ctx->scratch};
    *done = 0;
    if (!sr.first || !sr.lo || !sr.hi) {
        free(sr.first), free(sr.lo), free(sr.hi);
        return hsp_fail(HSP_ERR_NOMEM, "hsp_spmm: no memory for its slabs");
    }
    hsp_pool_chunks(ctx->pool, n, block_range, &sr);
    join_blocks(&sr, (int64_t)(SLAB_BYTES / row_bytes), r->A->nrows / (threads * PARTS_PER_THREAD));
    if ((*done = slabs_fit(ctx, &sr, row_bytes))) hsp_pool_chunks_kept(ctx->pool, sr.n, slab_part, &sr);
    free(sr.first), free(sr.lo), free(sr.hi);
    return HSP_OK;
}

/* The product computed by parts on the pool, of about equal weight (and
 * beside them split's device part, where split is not NULL: then r is
 * split->cpu); column-major B of several columns read from a row-major
 * copy, of all of it or by slabs (spmm_by_slabs). */
static hsp_status spmm_on_pool(hsp_context *ctx, spmm_run *r, split_run *split)
{
    hsp_pool *pool = ctx->pool;
    int64_t want = (int64_t)hsp_pool_size(pool) * PARTS_PER_THREAD, m = r->A->nrows;
    hsp_dense T = {0};
    int copy = r->b_step[1] != 1 && r->B->ncols > 1;
    if (copy && !split && !r->ahead && r->A->rowptr && copy_spills(ctx, r)) { /* not ahead: A's columns are near */
        int done = 0;
        hsp_status s = spmm_by_slabs(ctx, r, &done);
        if (s != HSP_OK || done) return s;
    }
    if (!(r->cut = malloc((size_t)(want + 1) * sizeof *r->cut)))
        return hsp_fail(HSP_ERR_NOMEM, "hsp_spmm: no memory for its parts");
    hsp_status s = copy ? copy_row_major(ctx, r, &T) : HSP_OK;
    if (s != HSP_OK) return free(r->cut), s;
    /* by entries and rows in CSR; ELLPACK-R (no row pointers) by rows, whose lengths are alike */
    int64_t parts = hsp_split_rows(r->A->rowptr, SPMM_ROW_COST, m, want, r->cut);
    for (int64_t p = 1; r->c_step[1] != 1 && p < parts; p++) { /* column-major C: parts of whole tiles */
        int64_t at = r->cut[p] - (r->cut[p] - r->phase + HSP_ELLR_SLICE) % HSP_ELLR_SLICE;
        r->cut[p] = at > 0 ? at : 0;
    }
    if (split) hsp_pool_chunks(pool, parts + 1, split_part, split);
    else hsp_pool_chunks_kept(pool, parts, spmm_part, r);
    free(r->cut);
    return HSP_OK;
}

/* Columns [j0, j0 + n) of M: a view of its array. */
static hsp_dense columns_of(const hsp_dense *M, int32_t j0, int32_t n)
{
    int64_t step[2];
    hsp_dense V = *M;
    hsp_dense_steps(M, step);
    V.ncols = n, V.values = (char *)M->values + (size_t)(j0 * step[1]) * hsp_value_size(M->precision);
    return V;
}

/* The columns of L that the CPU threads make beside ctx's device: its
 * share of them where the device reads host memory (no hold), else none. */
static int32_t cpu_columns(const hsp_context *ctx, int32_t L)
{
    return ctx->device->hold ? 0 : (int32_t)(ctx->options.spmm_cpu_share * L + 0.5);
}

/* r's product on ctx: on its device (A_dev, the form of A it reads; held:
 * what it holds), on the CPU threads (no device, or cpu_cols all of B's), or
 * split: the device B's first columns and the threads the last cpu_cols,
 * at once; *blocks as the device's spmm gives them (0 where it made none). */
static hsp_status split_product(hsp_context *ctx, spmm_run *r, const struct hsp_ellr *A_dev, void *const held[3],
                                int32_t cpu_cols, int *blocks)
{
    hsp_device *dev = ctx->device;
    int32_t dev_cols = r->B->ncols - cpu_cols;
    if (dev->spmm && !cpu_cols) return dev->spmm->multiply(dev, A_dev, r->B, r->alpha, r->beta, r->C, held, blocks);
    *blocks = 0;
    if (!dev->spmm || !dev_cols) return spmm_on_pool(ctx, r, NULL);
    split_run sr = {*r, dev, A_dev, columns_of(r->B, 0, dev_cols), columns_of(r->C, 0, dev_cols), held, 0, HSP_OK};
    hsp_dense B = columns_of(r->B, dev_cols, cpu_cols), C = columns_of(r->C, dev_cols, cpu_cols);
    sr.cpu.B = &B, sr.cpu.C = &C;
    hsp_status s = spmm_on_pool(ctx, &sr.cpu, &sr);
    return s != HSP_OK ? s : sr.status;
}

/* The columns of row-major B from which a GPU device reads the copy of
 * A's rows by length (beside CSR with long rows): on an H200, rmat:16,8's
 * and rmat:18,8's kernels at L = 2 1-4% slower with it, at L = 4 13-17%
 * faster (rmat:14,8 13% slower, rmat:15,16 9%), at L = 8 faster but for
 * rmat:14,8, about level (doc/performance.md). */
enum { BY_LENGTH_COLUMNS = 4 };

/* The rows a compute unit of the GPU below which one column of C is read
 * from the copy in CSR of A prepared in ELLPACK-R, not from ELLPACK-R (a
 * work-item a row), where the mean row passes ROW_LANES_MEAN entries, so
 * that the copy takes four work-items a row or more (gpu_spmm.c's
 * lanes_for): where the rows leave most of the GPU idle, each work-item's
 * walk down its row sets the time.  On an H200 (132 units), kernel ms
 * ELLPACK-R / the copy at L = 1: poisson3d27:30 (27,000 rows, 4 work-items
 * a row) 0.0118-0.0126 / 0.0096-0.0114, band:20000,16 (8) 0.0134-0.0142 /
 * 0.0100-0.0110; two a row gained nothing (random:20000,16 0.0115 /
 * 0.0124), and with more rows the copy was slower (band:100000,16 0.0200 /
 * 0.0248; doc/performance.md).  HSPGEMM_SPMM_ROW_LANES=always or never
 * decides instead. */
enum { FEW_ROWS_A_UNIT = 256, ROW_LANES_MEAN = 2 * HSP_ELLR_LANE_MEAN };
static int one_column_by_lanes(const hsp_device *dev, const struct hsp_ellr *A)
{
    int says = hsp_spmm_forced("HSPGEMM_SPMM_ROW_LANES");
    if (says >= 0) return says;
    return A->nnz > ROW_LANES_MEAN * (int64_t)A->nrows && A->nrows < FEW_ROWS_A_UNIT * (int64_t)dev->compute_units;
}

/* Are two columns of C read from ELLPACK-R, not from A's copy in CSR?
 * Where A's mean row passes HSP_ELLR_LANE_MEAN entries.  A work-item then
 * takes a row's pair, a row a work-item as at one column, and the rows of
 * a warp read their entries side by side in ELLPACK-R's slices, where CSR
 * holds each row's entries a row's length from the next row's.  On an
 * H200, whole ms at L = 2, the copy / ELLPACK-R: poisson3d27:60 0.073-0.077 / 0.051-0.053, random:100000,16
 * 0.032-0.035 / 0.029-0.030, band:1000000,6 0.090-0.091 / 0.085-0.088;
 * poisson2d5:1024 (5 entries a row) 0.048-0.052 / 0.055-0.056; at 3 and 4
 * columns ELLPACK-R slower (band:1000000,6 0.106-0.113 / 0.123-0.125:
 * doc/performance.md). */
static int two_columns_in_ellr(const struct hsp_ellr *A, const hsp_dense *B)
{
    return B->ncols == 2 && A->nnz > HSP_ELLR_LANE_MEAN * (int64_t)A->nrows;
}

/* The form of prepared A that a GPU device reads for B: beside ELLPACK-R,
 * A's copy in CSR for row-major B of two columns or more (but two where
 * two_columns_in_ellr), or for one column where one_column_by_lanes; beside
 * CSR, its copy by length for row-major B of BY_LENGTH_COLUMNS or more;
 * where each reads faster (doc/library.md); else A. */
static const struct hsp_ellr *device_form(const hsp_device *dev, const struct hsp_ellr *A, const hsp_dense *B)
{
    if (!A->csr) return A;
    int row_major = B->order == HSP_ROW_MAJOR;
    if (A->csr->order) return row_major && B->ncols >= BY_LENGTH_COLUMNS ? A->csr : A;
    if (B->ncols == 1) return one_column_by_lanes(dev, A) ? A->csr : A;
    return row_major && B->ncols >= 2 && !two_columns_in_ellr(A, B) ? A->csr : A;
}

/* The most columns of C for which the CPU threads read prepared A's copy
 * of rows by length (ellr.c's by_length_pays), C row-major (one column in
 * either order); past them the rows of B that neighbouring rows share
 * count more than the walks' ends.  On this VM's Xeon (AVX-512), 2
 * threads, ms, A as given / its rows sorted by length in a file: wiki-Vote
 * at L = 1 0.047 / 0.036, at 4 0.079 / 0.053, at 16 0.093 / 0.081, at 32
 * 0.132 / 0.142; Pd at 32 0.044 / 0.070 (doc/performance.md). */
enum { BY_LENGTH_MOST_COLUMNS = 16 };

/* The form of prepared A that the CPU threads read for C: its copy by
 * length where it has one and C's columns are few; else A. */
static const struct hsp_ellr *cpu_form(const struct hsp_ellr *A, const hsp_dense *C)
{
    int few = C->ncols == 1 || (C->order == HSP_ROW_MAJOR && C->ncols <= BY_LENGTH_MOST_COLUMNS);
    return A->csr && A->csr->order && few ? A->csr : A;
}

hsp_status hsp_spmm_run(hsp_context *ctx, double alpha, const struct hsp_ellr *A, const hsp_csr *csr,
                        const hsp_dense *B, double beta, hsp_dense *C, void *const held_bc[2],
                        hsp_spmm_stats *stats)
{
    double t0 = hsp_now_ms();
    hsp_status s = check_dense(B, "B", A->ncols, B ? B->ncols : 0, A->precision);
    if (s == HSP_OK) s = check_dense(C, "C", A->nrows, B->ncols, A->precision);
    if (s == HSP_OK && !held_bc[1]) s = check_apart(csr, B, C); /* a held C is apart */
    if (s != HSP_OK) return s;
    spmm_run r = {A, B, C, alpha, beta, {0, 0}, {0, 0}, NULL, 0, 0, 0, kernels_for(A->precision)};
    hsp_dense_steps(B, r.b_step), hsp_dense_steps(C, r.c_step);
    hsp_device *dev = ctx->device;
    if (dev->spmm) A = device_form(dev, A, B);
    void *held[3] = {A->ctx == ctx ? A->held : NULL, held_bc[0], held_bc[1]};
    int blocks = ctx->options.spmm_blocks;
    int32_t cpu_cols = dev->spmm ? cpu_columns(ctx, B->ncols) : B->ncols;
    hsp_context_lock(ctx);
    if (csr && (s = hsp_csr_check_rows_pooled(ctx->pool, csr)) != HSP_OK) /* a prepared A was checked */
        s = hsp_fail(s, "hsp_spmm: A: %s", hsp_errmsg());
    else {
        r.ahead = cpu_cols && scattered_columns(r.A); /* A is valid now; for the CPU threads' rows only */
        if (!dev->spmm) r.A = cpu_form(r.A, C);     /* a GPU's copies are the GPU's */
        r.stream = cpu_cols && streams_c(ctx, C), r.phase = line_phase(&r);
        s = split_product(ctx, &r, A, held, cpu_cols, &blocks);
    }
    if (s == HSP_OK && stats) {
        *stats = (hsp_spmm_stats){0};
        if (hsp_mul_overflows(2 * A->nnz, B->ncols, &stats->flops)) stats->flops = INT64_MAX;
        int on_dev = dev->spmm && !(cpu_cols && cpu_cols == B->ncols); /* the device made some of C */
        stats->threads = cpu_cols ? hsp_pool_size(ctx->pool) : 0;
        stats->blocks = on_dev ? blocks : 0, stats->cpu_cols = cpu_cols;
        snprintf(stats->format, sizeof stats->format, "%s", (on_dev ? A : r.A)->rowptr ? "csr" : "ellr");
        if (!on_dev) snprintf(stats->device, sizeof stats->device, "cpu"); /* hsp_stats.device's name for them */
        else if (cpu_cols) snprintf(stats->device, sizeof stats->device, "%.100s and cpu", dev->description);
        else snprintf(stats->device, sizeof stats->device, "%s", dev->description);
        stats->ms = hsp_now_ms() - t0;
    }
    hsp_context_unlock(ctx);
    return s;
}

hsp_status hsp_spmm(hsp_context *ctx, double alpha, const hsp_csr *A, const hsp_dense *B, double beta,
                    hsp_dense *C, hsp_spmm_stats *stats)
{
    if (!ctx) return hsp_fail(HSP_ERR_ARG, "hsp_spmm: ctx is NULL");
    if (!A) return hsp_fail(HSP_ERR_ARG, "hsp_spmm: A is NULL");
    hsp_status s = hsp_csr_check_header(A);
    if (s != HSP_OK) return hsp_fail(s, "hsp_spmm: A: %s", hsp_errmsg());
    struct hsp_ellr view = hsp_ellr_view(A);
    return hsp_spmm_run(ctx, alpha, &view, A, B, beta, C, (void *[2]){NULL, NULL}, stats);
}

hsp_status hsp_spmm_ellr(hsp_context *ctx, double alpha, const hsp_ellr *A, const hsp_dense *B, double beta,
                         hsp_dense *C, hsp_spmm_stats *stats)
{
    if (!ctx) return hsp_fail(HSP_ERR_ARG, "hsp_spmm_ellr: ctx is NULL");
    if (!A) return hsp_fail(HSP_ERR_ARG, "hsp_spmm_ellr: A is NULL");
    return hsp_spmm_run(ctx, alpha, A, NULL, B, beta, C, (void *[2]){NULL, NULL}, stats);
}
