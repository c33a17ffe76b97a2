/* rap_aggregate.c: C = R*A*P in one pass over A where P aggregates (at most
 * one entry in each row: the strength graph's Galerkin product in PETSc's
 * MIS coarsener, unsmoothed aggregation) and R is P^T or has at most one
 * entry in each column.  Row I of C sums, over the entries r of R's row I
 * (fine rows i), r times A's row i with each column j moved to P's column
 * of row j and scaled by P's value there.  No A*P is formed: the two
 * products' way holds one about as large as A beside C, and reads it again.
 * The rows of C are counted, then filled, on the context's threads, each
 * with its dense accumulator and marks; each entry sums in one fixed order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device/context.h"
#include "core/internal.h"
#include "spgemm/rap.h"
#include "spgemm/rows.h"
#include "core/scratch.h"
#include "core/transpose.h"

enum { PARTS_PER_THREAD = 8 };

typedef struct {
    hsp_context *ctx;
    const hsp_csr *R, *A, *P;
    hsp_csr *C;
    int64_t *rowptr;     /* C's row pointers, counted before C is made */
    int64_t reads;       /* entries of A the pass reads (split) */
    int64_t cut[64 * PARTS_PER_THREAD + 1]; /* part p is rows cut[p] .. cut[p + 1] - 1 of C */
    hsp_status status[64]; /* per thread: its workspaces made */
} fused_run;

/* Value k of M as a double. */
static inline double value(const hsp_csr *M, int64_t k)
{
    return M->precision == HSP_DOUBLE ? ((const double *)M->values)[k] : ((const float *)M->values)[k];
}

/* Does each row of M hold at most one entry? */
static int one_a_row(const hsp_csr *M)
{
    for (int32_t i = 0; i < M->nrows; i++)
        if (M->rowptr[i + 1] - M->rowptr[i] > 1) return 0;
    return 1;
}

/* Does each column of M hold at most one entry? */
static int one_a_column(const hsp_csr *M)
{
    unsigned char *seen = M->nnz <= M->ncols ? calloc((size_t)M->ncols + 1, 1) : NULL;
    int64_t k = 0;
    if (!seen) return 0;
    for (; k < M->nnz && !seen[M->colidx[k]]; k++) seen[M->colidx[k]] = 1;
    free(seen);
    return k == M->nnz;
}

int hsp_rap_aggregate_fits(const hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P)
{
    int on_cpu = !ctx->engine->cpu || A->nnz + P->nnz + (R ? R->nnz : P->nnz) <= ctx->options.small_nnz;
    int64_t threads = hsp_pool_size(ctx->pool); /* accumulators no larger than A*P would be */
    return on_cpu && threads <= 64 && threads * P->ncols <= A->nnz + P->nrows && one_a_row(P) &&
           (!R || one_a_column(R));
}

/* Make thread tid's marks and accumulator cover C's columns. */
static void prepare(void *arg, int tid)
{
    fused_run *r = arg;
    hsp_scratch *s = &r->ctx->scratch[tid];
    r->status[tid] = hsp_scratch_marks(s, r->P->ncols);
    if (r->status[tid] == HSP_OK) r->status[tid] = hsp_scratch_dense(s, r->P->ncols);
}

/* The distinct columns of row I of C; with col, also their sums in acc
 * (unordered, n of them). */
static int64_t row_sums(const fused_run *r, hsp_scratch *s, int32_t I, int32_t *col)
{
    const hsp_csr *R = r->R, *A = r->A, *P = r->P;
    uint32_t *mark = s->mark, tag = hsp_scratch_tag(s);
    double *acc = s->acc;
    int64_t n = 0;
    for (int64_t k = R->rowptr[I]; k < R->rowptr[I + 1]; k++) {
        int32_t i = R->colidx[k];
        double ri = col ? value(R, k) : 0;
        for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            int64_t at = P->rowptr[A->colidx[q]];
            if (at == P->rowptr[A->colidx[q] + 1]) continue; /* row j of P is empty */
            int32_t J = P->colidx[at];
            double v = col ? ri * value(A, q) * value(P, at) : 0;
            if (mark[J] != tag) {
                mark[J] = tag;
                if (col) col[n] = J, acc[J] = v;
                n++;
            } else if (col) acc[J] += v;
        }
    }
    return n;
}

/* Count part p's rows of C into rowptr[I + 1]. */
static void count_part(void *arg, int tid, int64_t p)
{
    fused_run *r = arg;
    for (int64_t I = r->cut[p]; I < r->cut[p + 1]; I++)
        r->rowptr[I + 1] = row_sums(r, &r->ctx->scratch[tid], (int32_t)I, NULL);
}

/* Fill part p's rows of C, their columns in order. */
static void fill_part(void *arg, int tid, int64_t p)
{
    fused_run *r = arg;
    hsp_scratch *s = &r->ctx->scratch[tid];
    hsp_csr *C = r->C;
    for (int64_t I = r->cut[p]; I < r->cut[p + 1]; I++) {
        int32_t *col = C->colidx + C->rowptr[I];
        int64_t n = row_sums(r, s, (int32_t)I, col);
        const double *acc = s->acc;
        hsp_sort_columns(col, n);
        for (int64_t t = 0; t < n; t++) {
            if (C->precision == HSP_DOUBLE) ((double *)C->values)[C->rowptr[I] + t] = acc[col[t]];
            else ((float *)C->values)[C->rowptr[I] + t] = (float)acc[col[t]];
        }
    }
}

/* Split C's rows into parts of about equal work (entries of A read): the
 * prefix of work is built in rowptr, which the counting pass overwrites. */
static int64_t split(fused_run *r)
{
    const hsp_csr *R = r->R, *A = r->A;
    r->rowptr[0] = 0;
    for (int32_t I = 0; I < R->nrows; I++) {
        int64_t work = 1;
        for (int64_t k = R->rowptr[I]; k < R->rowptr[I + 1]; k++)
            work += A->rowptr[R->colidx[k] + 1] - A->rowptr[R->colidx[k]];
        r->rowptr[I + 1] = r->rowptr[I] + work;
    }
    r->reads = r->rowptr[R->nrows] - R->nrows;
    return hsp_split_weighted(r->rowptr, R->nrows, (int64_t)hsp_pool_size(r->ctx->pool) * PARTS_PER_THREAD, r->cut);
}

/* The first failure of the threads' preparations, or HSP_OK (raised here:
 * a message is its thread's). */
static hsp_status prepared(const fused_run *r)
{
    for (int t = 0; t < hsp_pool_size(r->ctx->pool); t++)
        if (r->status[t] != HSP_OK)
            return hsp_fail(r->status[t], "no memory for thread %d's workspaces of %d columns (a Galerkin product)",
                            t, r->P->ncols);
    return HSP_OK;
}

/* The product on R (given, or P^T), into *C. */
static hsp_status fused(fused_run *r, hsp_csr **C)
{
    int64_t nparts = split(r);
    hsp_pool_run(r->ctx->pool, prepare, r);
    hsp_status s = prepared(r);
    if (s != HSP_OK) return s;
    hsp_pool_chunks(r->ctx->pool, nparts, count_part, r);
    for (int32_t I = 0; I < r->R->nrows; I++) r->rowptr[I + 1] += r->rowptr[I];
    s = hsp_csr_create(r->R->nrows, r->P->ncols, r->rowptr[r->R->nrows], r->A->precision, C);
    if (s != HSP_OK) return s;
    memcpy((*C)->rowptr, r->rowptr, ((size_t)r->R->nrows + 1) * sizeof *r->rowptr);
    r->C = *C;
    hsp_pool_chunks(r->ctx->pool, nparts, fill_part, r);
    return HSP_OK;
}

/* Figures of the one pass in stats[0]; stats[1] stays zero. */
static void fused_stats(const hsp_context *ctx, const fused_run *r, double start, hsp_stats stats[2])
{
    memset(stats, 0, 2 * sizeof *stats);
    stats[0].size = stats[1].size = sizeof *stats;
    stats->ms_total = hsp_now_ms() - start;
    stats->nnz_c = r->C->nnz;
    stats->flops = 4 * r->reads;
    stats->threads = hsp_pool_size(ctx->pool);
    stats->passes = 2;
    snprintf(stats->device, sizeof stats->device, "%s", (ctx->engine->cpu ? ctx->engine->cpu : ctx->device)->description);
}

hsp_status hsp_rap_aggregate(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_csr **C,
                             hsp_stats stats[2])
{
    double start = hsp_now_ms();
    fused_run *r = calloc(1, sizeof *r);
    hsp_csr *rt = NULL;
    hsp_status s = r ? HSP_OK : hsp_fail(HSP_ERR_NOMEM, "no memory for a Galerkin product");
    if (s == HSP_OK && !R) s = hsp_transpose_keep(P, ctx->pool, &rt, NULL);
    if (s == HSP_OK) {
        *r = (fused_run){.ctx = ctx, .R = R ? R : rt, .A = A, .P = P};
        r->rowptr = malloc(((size_t)r->R->nrows + 1) * sizeof *r->rowptr);
        s = r->rowptr ? fused(r, C) : hsp_fail(HSP_ERR_NOMEM, "no memory for the row pointers of a Galerkin product");
    }
    if (s == HSP_OK && stats) fused_stats(ctx, r, start, stats);
    if (r) free(r->rowptr);
    free(r);
    hsp_csr_free(rt);
    return s;
}
