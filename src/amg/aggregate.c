/* aggregate.c: the CPU side of smoothed aggregation: strength of
 * connection between nodes (a row, or a block of rows), greedy aggregation
 * in three passes (Vanek, Mandel and Brezina) with PyAMG's rules (its
 * symmetric strength, its standard aggregation: the same aggregates for the
 * same matrix), and the tentative prolongator from the near-nullspace
 * candidates (PyAMG's fit_candidates).  Linear in nnz(A); the diagonal and
 * the strength of single rows on the CPU threads, by chunks of rows, the
 * rest serial. */
#include <math.h>
#include <stdlib.h>
#include "amg/aggregate.h"
#include "amg/solve.h"
#include "core/internal.h"
#include "device/context.h"

/* A node's state during aggregation, beside the aggregates 0, 1, ...; a root and its strong
 * neighbours in pass 1 before they are numbered. */
enum { AGG_FREE = -1, AGG_ISOLATED = -2, AGG_ROOT = -3, AGG_TAKEN = -4 };
enum { CHUNK = 16384 }; /* rows (nodes) of a chunk on the CPU threads */

/* A pass over chunks of A's rows (nodes) on the threads: the diagonal, its norms, the strength. */
typedef struct {
    const hsp_csr *A;
    int64_t *where;     /* hsp_diagonal's: each row's diagonal entry, found */
    const int64_t *diag; /* ... and read (the norms of single rows) */
    int32_t *bad;       /* of each chunk, its first row without a nonzero diagonal, or -1 */
    int32_t block;
    double *norm;       /* of each node, diagonal_norms' */
    double theta2;      /* theta^2 */
    int classical;      /* HSP_STRENGTH_CLASSICAL's measure, else the symmetric one */
    int zeros;
    hsp_graph *S;       /* the strong connections being made */
} node_job;

/* hsp_diagonal over chunk c's rows. */
static void diagonal_rows(void *arg, int tid, int64_t c)
{
    const node_job *j = arg;
    const hsp_csr *A = j->A;
    int32_t last, first = hsp_chunk_rows(c, CHUNK, A->nrows, &last);
    (void)tid;
    j->bad[c] = -1;
    for (int32_t i = first; i < last; i++) {
        int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1];
        while (lo < hi) { /* the first column >= i */
            int64_t mid = lo + (hi - lo) / 2;
            if (A->colidx[mid] < i) lo = mid + 1;
            else hi = mid;
        }
        if (lo == A->rowptr[i + 1] || A->colidx[lo] != i || hsp_csr_value(A, lo) == 0) {
            j->bad[c] = i;
            return;
        }
        j->where[i] = lo;
    }
}

hsp_status hsp_diagonal(hsp_context *ctx, const hsp_csr *A, int64_t *where)
{
    int64_t n = hsp_row_chunks(A->nrows, CHUNK);
    node_job j = {.A = A, .where = where, .bad = malloc(((size_t)n + 1) * sizeof *j.bad)};
    if (!j.bad) return hsp_fail(HSP_ERR_NOMEM, "no memory for the diagonal of %d rows", A->nrows);
    hsp_pool_chunks(ctx->pool, n, diagonal_rows, &j);
    int32_t bad = -1;
    for (int64_t c = 0; c < n && bad < 0; c++) bad = j.bad[c];
    free(j.bad);
    return bad < 0 ? HSP_OK : hsp_fail_diagonal(bad);
}

/* The larger of x and y (inlined, where fmax is a call into libm). */
static inline double larger(double x, double y)
{
    return x > y ? x : y;
}

/* A largest square of classical strength, 0 below 1e-32 (PyAMG drops a block of |entries|
 * below 1e-16). */
static inline double dropped_below_tiny(double max2)
{
    return max2 < 1e-32 ? 0 : max2;
}

/* The largest |a_ik| of a row's entries lo..hi (none: 0). */
static double max_abs(const hsp_csr *A, int64_t lo, int64_t hi)
{
    const double *dv = A->values;
    const float *fv = A->values;
    double m = 0;
    if (A->precision == HSP_DOUBLE)
        for (int64_t k = lo; k < hi; k++) m = larger(m, fabs(dv[k]));
    else
        for (int64_t k = lo; k < hi; k++) m = larger(m, fabs(fv[k]));
    return m;
}

/* The largest a_ik^2 of row i, k != i (the entries before and after its diagonal entry at
 * diag), dropped below tiny: classical strength's scale of a single row. */
static double row_max2(const hsp_csr *A, int32_t i, int64_t diag)
{
    double m = larger(max_abs(A, A->rowptr[i], diag), max_abs(A, diag + 1, A->rowptr[i + 1]));
    return dropped_below_tiny(m * m);
}

/* Of each node of chunk c, into norm: symmetric, its diagonal block's Frobenius norm (block 1:
 * |a_ii|); classical, the largest square of an entry off its diagonal block, dropped below
 * tiny. */
static void diagonal_norms(void *arg, int tid, int64_t c)
{
    const node_job *j = arg;
    const hsp_csr *A = j->A;
    int32_t block = j->block, last, first = hsp_chunk_rows(c, CHUNK, A->nrows / block, &last);
    (void)tid;
    for (int32_t i = first; block == 1 && i < last; i++)
        j->norm[i] = j->classical ? row_max2(A, i, j->diag[i]) : fabs(hsp_csr_value(A, j->diag[i]));
    for (int32_t i = first; block > 1 && i < last; i++) {
        double sum = 0, max2 = 0;
        for (int32_t r = i * block; r < (i + 1) * block; r++)
            for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
                double a = hsp_entry(A, k, A->precision == HSP_DOUBLE);
                if (A->colidx[k] / block == i) sum += a * a;
                else max2 = larger(max2, a * a);
            }
        j->norm[i] = j->classical ? dropped_below_tiny(max2) : sqrt(sum);
    }
}

/* What |A_ij|^2 must reach for j to be strong for i, of the nodes' norms ni and nj:
 * symmetric, theta^2 |A_ii| |A_jj|; classical, theta^2 times the larger of the two nodes'
 * largest squares. */
static inline double strong_bound(int classical, double theta2, double ni, double nj)
{
    return classical ? theta2 * larger(ni, nj) : theta2 * ni * nj;
}

/* Row i's strong columns (block 1: A's columns ascending, each once): their count, and
 * where col is not NULL, the columns into it.  Squares, no roots, as PyAMG: a value on
 * the threshold is strong. */
static int64_t strong_row(const void *arg, int32_t i, int32_t *col)
{
    const node_job *j = arg;
    const hsp_csr *A = j->A;
    const double *dv = A->values;
    const float *fv = A->values;
    const double theta2 = j->theta2, ni = j->norm[i];
    const int classical = j->classical;
    int64_t m = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        int32_t c = A->colidx[k];
        double a = A->precision == HSP_DOUBLE ? dv[k] : fv[k], a2 = a * a;
        if (c != i && (j->zeros || a2 != 0) && a2 >= strong_bound(classical, theta2, ni, j->norm[c])) {
            if (col) col[m] = c;
            m++;
        }
    }
    return m;
}

/* A graph filled on the threads (hsp_graph_fill): its rows' rule. */
typedef struct {
    hsp_graph *S;
    hsp_graph_row row;
    const void *arg;
} fill_job;

/* Chunk c's rows: their counts into rowptr[i + 1] while S->col is NULL, then the columns from
 * rowptr[i]. */
static void fill_rows(void *arg, int tid, int64_t c)
{
    const fill_job *j = arg;
    hsp_graph *S = j->S;
    int32_t last, first = hsp_chunk_rows(c, CHUNK, S->n, &last);
    (void)tid;
    for (int32_t i = first; i < last; i++)
        if (S->col) j->row(j->arg, i, S->col + S->rowptr[i]);
        else S->rowptr[i + 1] = j->row(j->arg, i, NULL);
}

hsp_status hsp_graph_fill(hsp_context *ctx, hsp_graph *S, hsp_graph_row row, const void *arg)
{
    fill_job j = {S, row, arg};
    S->col = NULL;
    hsp_pool_chunks(ctx->pool, hsp_row_chunks(S->n, CHUNK), fill_rows, &j);
    for (int32_t i = 0; i < S->n; i++) S->rowptr[i + 1] += S->rowptr[i];
    S->col = malloc(((size_t)S->rowptr[S->n] + 1) * sizeof *S->col);
    if (!S->col) return hsp_fail(HSP_ERR_NOMEM, "no memory for the strong connections of %d rows", S->n);
    hsp_pool_chunks(ctx->pool, hsp_row_chunks(S->n, CHUNK), fill_rows, &j);
    return HSP_OK;
}

/* The blocks of node i's rows: their node columns in touched[0 .. return)
 * (ascending), the squares of their entries summed in norm2[] (classical:
 * the largest square, dropped below tiny), the nodes seen marked with i in
 * mark[]. */
static int32_t node_row(const hsp_csr *A, int32_t block, int classical, int32_t i, int32_t *mark, double *norm2,
                        int32_t *touched)
{
    int32_t m = 0;
    for (int32_t r = i * block; r < (i + 1) * block; r++)
        for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
            int32_t j = A->colidx[k] / block;
            double a = hsp_entry(A, k, A->precision == HSP_DOUBLE);
            if (mark[j] != i) {
                int32_t at = m++;
                for (; at > 0 && touched[at - 1] > j; at--) touched[at] = touched[at - 1]; /* few, nearly sorted */
                touched[at] = j, mark[j] = i, norm2[j] = 0;
            }
            norm2[j] = classical ? larger(norm2[j], a * a) : norm2[j] + a * a;
        }
    for (int32_t t = 0; classical && t < m; t++) norm2[touched[t]] = dropped_below_tiny(norm2[touched[t]]);
    return m;
}

/* hsp_strength of blocks of rows, on one thread. */
static hsp_status strength_blocks(const node_job *j)
{
    const hsp_csr *A = j->A;
    hsp_graph *S = j->S;
    int32_t n = S->n, block = j->block, *mark = malloc(((size_t)n + 1) * sizeof *mark);
    int32_t *touched = malloc(((size_t)n + 1) * sizeof *touched);
    double *norm2 = malloc(((size_t)n + 1) * sizeof *norm2);
    hsp_status s = HSP_OK;
    S->col = malloc(((size_t)A->nnz + 1) * sizeof *S->col);
    if (!mark || !touched || !norm2 || !S->col) {
        s = hsp_fail(HSP_ERR_NOMEM, "no memory for the strong connections of %d rows", A->nrows);
        n = 0;
    }
    for (int32_t i = 0; i < n; i++) mark[i] = -1;
    for (int32_t i = 0; i < n; i++) { /* squares, no root, as PyAMG: a value on the threshold is strong */
        int32_t m = node_row(A, block, j->classical, i, mark, norm2, touched);
        int64_t at = S->rowptr[i];
        for (int32_t t = 0; t < m; t++) {
            int32_t c = touched[t];
            if (c != i && (j->zeros || norm2[c] != 0) &&
                norm2[c] >= strong_bound(j->classical, j->theta2, j->norm[i], j->norm[c]))
                S->col[at++] = c;
        }
        S->rowptr[i + 1] = at;
    }
    free(mark), free(touched), free(norm2);
    return s;
}

hsp_status hsp_strength(hsp_context *ctx, const hsp_csr *A, const int64_t *diag, const hsp_amg_options *o,
                        int32_t block, int zeros, hsp_graph *S)
{
    int32_t n = A->nrows / block;
    int classical = o->strength == HSP_STRENGTH_CLASSICAL;
    node_job j = {.A = A, .diag = diag, .block = block, .norm = malloc(((size_t)n + 1) * sizeof *j.norm),
                  .theta2 = o->theta * o->theta, .classical = classical, .zeros = zeros && !classical, .S = S};
    hsp_status s = HSP_OK;
    S->n = n, S->rowptr = malloc(((size_t)n + 1) * sizeof *S->rowptr), S->col = NULL;
    if (!j.norm || !S->rowptr) {
        s = hsp_fail(HSP_ERR_NOMEM, "no memory for the strong connections of %d rows", A->nrows);
    } else {
        S->rowptr[0] = 0;
        hsp_pool_chunks(ctx->pool, hsp_row_chunks(n, CHUNK), diagonal_norms, &j);
        s = block == 1 ? hsp_graph_fill(ctx, S, strong_row, &j) : strength_blocks(&j);
    }
    free(j.norm);
    if (s != HSP_OK) hsp_graph_free(S);
    return s;
}

void hsp_graph_free(hsp_graph *S)
{
    free(S->rowptr), free(S->col);
    S->rowptr = NULL, S->col = NULL;
}

/* Parallel aggregation's priority of node i (the device's hsp_mis_rekey): a hash of i in bits
 * 32-61, i below, so that every node's is distinct. */
static uint64_t hashed_key(int32_t i)
{
    uint32_t h = (uint32_t)i * 0x9e3779b1u;
    h ^= h >> 15, h *= 0x85ebca77u, h ^= h >> 13;
    return (uint64_t)(h & 0x3fffffffu) << 32 | (uint32_t)i;
}

/* The n nodes by descending hashed_key into order: a stable counting sort of the ascending nodes
 * by the hash's lower 15 bits, then by its upper 15, read backwards. */
static hsp_status hashed_order(int32_t n, int32_t *order)
{
    enum { BITS = 15, BUCKETS = 1 << BITS };
    int32_t *tmp = malloc(((size_t)n + 1) * sizeof *tmp);
    int64_t *count = malloc((BUCKETS + 1) * sizeof *count);
    if (!tmp || !count) return free(tmp), free(count), hsp_fail(HSP_ERR_NOMEM, "no memory to order %d nodes", n);
    for (int32_t i = 0; i < n; i++) tmp[i] = i;
    for (int pass = 0; pass < 2; pass++) {
        const int32_t *in = pass ? order : tmp;
        int32_t *out = pass ? tmp : order;
        int shift = 32 + BITS * pass;
        for (int b = 0; b <= BUCKETS; b++) count[b] = 0;
        for (int32_t i = 0; i < n; i++) count[(hashed_key(in[i]) >> shift & (BUCKETS - 1)) + 1]++;
        for (int b = 0; b < BUCKETS; b++) count[b + 1] += count[b];
        for (int32_t i = 0; i < n; i++) out[count[hashed_key(in[i]) >> shift & (BUCKETS - 1)]++] = in[i];
    }
    for (int32_t i = 0; i < n; i++) order[i] = tmp[n - 1 - i];
    free(tmp), free(count);
    return HSP_OK;
}

/* Pass 1: visiting the nodes in order (NULL: their own), a free node with strong neighbours, none
 * of them taken, becomes a root and they are taken; a node with no strong neighbour is isolated.
 * The roots are then numbered in the nodes' order, each an aggregate with its neighbours.  In
 * descending hashed_key this gives the one maximal distance-2 independent set that the device's
 * rounds of "the largest key within distance 2" reach, whatever their schedule. */
static void pass_roots(const hsp_graph *S, const int32_t *order, int32_t *agg, int32_t *n)
{
    for (int32_t at = 0; at < S->n; at++) {
        int32_t i = order ? order[at] : at;
        int taken = agg[i] != AGG_FREE;
        for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1] && !taken; k++) taken = agg[S->col[k]] != AGG_FREE;
        if (S->rowptr[i] == S->rowptr[i + 1]) {
            agg[i] = AGG_ISOLATED;
        } else if (!taken) {
            agg[i] = AGG_ROOT;
            for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) agg[S->col[k]] = AGG_TAKEN;
        }
    }
    for (int32_t i = 0; i < S->n; i++)
        if (agg[i] == AGG_TAKEN) agg[i] = AGG_FREE;
    for (int32_t i = 0; i < S->n; i++) {
        if (agg[i] != AGG_ROOT) continue;
        agg[i] = *n;
        for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) agg[S->col[k]] = *n;
        ++*n;
    }
}

/* Pass 2: a free node joins the aggregate of pass 1 of a strong neighbour that has one (first[]
 * holds the aggregates after pass 1): the first in S's order, or in parallel aggregation the one
 * of largest hashed_key (the device's choice). */
static void pass_join(const hsp_graph *S, const int32_t *first, int parallel, int32_t *agg)
{
    for (int32_t i = 0; i < S->n; i++) {
        if (agg[i] != AGG_FREE) continue;
        int32_t best = -1;
        for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1] && (parallel || best < 0); k++)
            if (first[S->col[k]] >= 0 && (best < 0 || hashed_key(S->col[k]) > hashed_key(best))) best = S->col[k];
        if (best >= 0) agg[i] = first[best];
    }
}

/* Pass 3: a node still free starts an aggregate with its free strong
 * neighbours; isolated nodes are left out of every aggregate. */
static void pass_rest(const hsp_graph *S, int32_t *agg, int32_t *n)
{
    for (int32_t i = 0; i < S->n; i++) {
        if (agg[i] != AGG_FREE) continue;
        agg[i] = *n;
        for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
            if (agg[S->col[k]] == AGG_FREE) agg[S->col[k]] = *n;
        ++*n;
    }
    for (int32_t i = 0; i < S->n; i++)
        if (agg[i] == AGG_ISOLATED) agg[i] = HSP_AGG_NONE;
}

hsp_status hsp_aggregate(const hsp_graph *S, int parallel, int32_t *agg, int32_t *naggregates)
{
    int32_t *first = malloc(((size_t)S->n + 1) * sizeof *first), *order = NULL;
    if (!first) return hsp_fail(HSP_ERR_NOMEM, "no memory to aggregate %d nodes", S->n);
    if (parallel && (!(order = malloc(((size_t)S->n + 1) * sizeof *order)) || hashed_order(S->n, order) != HSP_OK)) {
        free(first), free(order);
        return hsp_fail(HSP_ERR_NOMEM, "no memory to aggregate %d nodes", S->n);
    }
    *naggregates = 0;
    for (int32_t i = 0; i < S->n; i++) agg[i] = AGG_FREE;
    pass_roots(S, order, agg, naggregates);
    free(order);
    for (int32_t i = 0; i < S->n; i++) first[i] = agg[i];
    pass_join(S, first, parallel, agg);
    pass_rest(S, agg, naggregates);
    if (*naggregates == 0) *naggregates = 1; /* no strong connection at all: one empty aggregate, as PyAMG */
    free(first);
    return HSP_OK;
}

/* Candidate j of row r: B's, or 1 (the constant vector) where B is NULL. */
static double candidate(const double *B, int32_t k, int64_t r, int32_t j)
{
    return B ? B[r * k + j] : 1;
}

/* Q (m rows of k, row by row) orthonormalized in place, column by column
 * (modified Gram-Schmidt, as PyAMG's fit_candidates), R (k x k, zeroed
 * first) its factor: a column whose norm after falls to 1e-10 of its norm
 * before is zeroed, R's diagonal there 0. */
static void orthonormalize(double *Q, int32_t m, int32_t k, double *R)
{
    for (int32_t i = 0; i < k * k; i++) R[i] = 0;
    for (int32_t j = 0; j < k; j++) {
        double before = 0, after = 0;
        for (int32_t r = 0; r < m; r++) before += Q[r * k + j] * Q[r * k + j];
        for (int32_t i = 0; i < j; i++) {
            double dot = 0;
            for (int32_t r = 0; r < m; r++) dot += Q[r * k + j] * Q[r * k + i];
            for (int32_t r = 0; r < m; r++) Q[r * k + j] -= dot * Q[r * k + i];
            R[i * k + j] = dot;
        }
        for (int32_t r = 0; r < m; r++) after += Q[r * k + j] * Q[r * k + j];
        after = sqrt(after);
        double scale = after > 1e-10 * sqrt(before) ? 1 / after : 0;
        R[j * k + j] = scale ? after : 0;
        for (int32_t r = 0; r < m; r++) Q[r * k + j] *= scale;
    }
}

/* The nodes of each aggregate, in order: those of a at node[start[a] ..
 * start[a + 1]); *most: the rows of the largest. */
static hsp_status members(const int32_t *agg, int32_t nnodes, int32_t naggs, int32_t block, int64_t **start,
                          int32_t **node, int64_t *most)
{
    *start = calloc((size_t)naggs + 2, sizeof **start), *node = malloc(((size_t)nnodes + 1) * sizeof **node);
    if (!*start || !*node) return hsp_fail(HSP_ERR_NOMEM, "no memory for %d aggregates", naggs);
    for (int32_t i = 0; i < nnodes; i++)
        if (agg[i] != HSP_AGG_NONE) (*start)[agg[i] + 2]++;
    *most = 0;
    for (int32_t a = 0; a < naggs; a++) {
        *most = (*start)[a + 2] * block > *most ? (*start)[a + 2] * block : *most;
        (*start)[a + 2] += (*start)[a + 1];
    }
    for (int32_t i = 0; i < nnodes; i++) /* counting sort: start[a + 1] moves to a's end */
        if (agg[i] != HSP_AGG_NONE) (*node)[(*start)[agg[i] + 1]++] = i;
    return HSP_OK;
}

/* Row r of the aggregate whose nodes begin at node[first]. */
static int64_t row_of(const int32_t *node, int64_t first, int32_t block, int32_t r)
{
    return (int64_t)node[first + r / block] * block + r % block;
}

/* T's pattern: k entries, columns agg * k .. agg * k + k - 1, in each row of
 * a node in an aggregate. */
static void tentative_pattern(const int32_t *agg, int32_t nnodes, int32_t block, int32_t k, hsp_csr *T)
{
    int64_t at = 0;
    for (int32_t r = 0; r < nnodes * block; r++) {
        int32_t a = agg[r / block];
        for (int32_t j = 0; a != HSP_AGG_NONE && j < k; j++) T->colidx[at++] = a * k + j;
        T->rowptr[r + 1] = at;
    }
}

hsp_status hsp_tentative(const int32_t *agg, int32_t nnodes, int32_t block, int32_t naggregates, const double *B,
                         int32_t k, hsp_precision precision, hsp_csr **T, double **Bc)
{
    int64_t in = 0, *start = NULL, most = 0;
    int32_t *node = NULL;
    for (int32_t i = 0; i < nnodes; i++) in += agg[i] != HSP_AGG_NONE;
    *T = NULL, *Bc = NULL;
    if ((int64_t)naggregates * k > INT32_MAX)
        return hsp_fail(HSP_ERR_OVERFLOW, "%d aggregates of %d candidates: more columns of P than an int32_t holds",
                        naggregates, k);
    *Bc = calloc((size_t)naggregates * k * k + 1, sizeof **Bc);
    hsp_status s = *Bc ? members(agg, nnodes, naggregates, block, &start, &node, &most)
                       : hsp_fail(HSP_ERR_NOMEM, "no memory for %d aggregates", naggregates);
    double *Q = s == HSP_OK ? malloc(((size_t)most * k + 1) * sizeof *Q) : NULL;
    double R[HSP_AMG_MAX_NULLSPACE * HSP_AMG_MAX_NULLSPACE];
    if (s == HSP_OK && !Q) s = hsp_fail(HSP_ERR_NOMEM, "no memory for an aggregate of %lld rows", (long long)most);
    if (s == HSP_OK) s = hsp_csr_create(nnodes * block, naggregates * k, in * block * k, precision, T);
    if (s == HSP_OK) tentative_pattern(agg, nnodes, block, k, *T);
    for (int32_t a = 0; s == HSP_OK && a < naggregates; a++) { /* rows of the aggregate's nodes in order */
        int32_t m = (int32_t)(start[a + 1] - start[a]) * block;
        for (int32_t r = 0; r < m; r++)
            for (int32_t j = 0; j < k; j++) Q[r * k + j] = candidate(B, k, row_of(node, start[a], block, r), j);
        orthonormalize(Q, m, k, R);
        for (int32_t r = 0; r < m; r++)
            for (int32_t j = 0; j < k; j++)
                hsp_csr_set_value(*T, (*T)->rowptr[row_of(node, start[a], block, r)] + j, Q[r * k + j]);
        for (int32_t i = 0; i < k * k; i++) (*Bc)[(int64_t)a * k * k + i] = R[i];
    }
    free(start), free(node), free(Q);
    if (s != HSP_OK) hsp_csr_free(*T), free(*Bc), *T = NULL, *Bc = NULL;
    return s;
}
