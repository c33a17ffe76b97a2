/* classical.c: the coarsening of classical (Ruge-Stueben) AMG on the host, as
 * hypre's BoomerAMG does it by default on one process: each row's strong
 * couplings (-sgn(a_ii) a_ij >= theta max_k -sgn(a_ii) a_ik), the C/F
 * splitting of Ruge and Stueben's first pass (a C point, then the points that
 * depend on it F), and extended+i interpolation (De Sterck, Falgout, Nolting
 * and Yang, 2008: an F point interpolates from its strong C neighbours and
 * theirs of its strong F neighbours), truncated to the HSP_CLASSICAL_P_MAX
 * largest weights of a row, rescaled to the row's sum.  The strength and the
 * interpolation run on the CPU threads by chunks of rows; the splitting on
 * one (it is sequential by nature, and linear in the strong couplings). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "amg/aggregate.h"
#include "amg/classical.h"
#include "amg/solve.h"
#include "core/internal.h"
#include "device/context.h"

enum { ROWS = 16384 };           /* rows of a chunk on the CPU threads */
enum { UNDECIDED = -2, FINE = -1 }; /* a point's state in cf[] beside its coarse number */

/* A pass over chunks of rows on the threads: strength, or interpolation. */
typedef struct {
    const hsp_csr *A;
    const int64_t *diag;  /* where each row's diagonal entry is */
    double theta;
    hsp_graph *S;         /* strength: counts into rowptr[i + 1] (col NULL), or columns into col */
    const int32_t *cf;    /* interpolation: each point's coarse number, or FINE */
    const int32_t *cpts;  /* re-setup: the fine point of each coarse number */
    int64_t **slot;       /* per thread: (row << 32 | place) of each point in the row's set */
    int32_t **set;        /* per thread: the fine points of the row's interpolatory set */
    double **w;           /* per thread: their weights */
    int32_t *count;       /* set-up: each row's entries in P (at most P_MAX, in pcol and pval) */
    int32_t *pcol;
    double *pval;
    hsp_csr *P;           /* re-setup: P's pattern, whose values are made anew */
} row_job;

static inline double value(const hsp_csr *A, int64_t k)
{
    return hsp_entry(A, k, A->precision == HSP_DOUBLE);
}

/* Row i's strong couplings: their count, and where col is not NULL, the columns into it. */
static int64_t strong_row(const void *arg, int32_t i, int32_t *col)
{
    const row_job *j = arg;
    const hsp_csr *A = j->A;
    double sign = value(A, j->diag[i]) > 0 ? -1 : 1, most = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colidx[k] != i && sign * value(A, k) > most) most = sign * value(A, k);
    int64_t m = 0;
    for (int64_t k = A->rowptr[i]; most > 0 && k < A->rowptr[i + 1]; k++)
        if (A->colidx[k] != i && sign * value(A, k) >= j->theta * most && value(A, k) != 0) {
            if (col) col[m] = A->colidx[k];
            m++;
        }
    return m;
}

/* S: the strong couplings of A's rows, on the threads. */
static hsp_status strength(hsp_context *ctx, row_job *j, hsp_graph *S)
{
    S->n = j->A->nrows, S->col = NULL, S->rowptr = calloc((size_t)S->n + 1, sizeof *S->rowptr);
    if (!S->rowptr) return hsp_fail(HSP_ERR_NOMEM, "no memory for the strong couplings of %d rows", S->n);
    j->S = S;
    return hsp_graph_fill(ctx, S, strong_row, j);
}

/* T = S^T: the points that depend strongly on each point. */
static hsp_status transposed(const hsp_graph *S, hsp_graph *T)
{
    T->n = S->n, T->rowptr = calloc((size_t)S->n + 2, sizeof *T->rowptr);
    T->col = malloc(((size_t)S->rowptr[S->n] + 1) * sizeof *T->col);
    if (!T->rowptr || !T->col) return hsp_fail(HSP_ERR_NOMEM, "no memory for the strong couplings' transpose");
    for (int64_t k = 0; k < S->rowptr[S->n]; k++) T->rowptr[S->col[k] + 2]++;
    for (int32_t i = 0; i < S->n; i++) T->rowptr[i + 2] += T->rowptr[i + 1];
    for (int32_t i = 0; i < S->n; i++)
        for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) T->col[T->rowptr[S->col[k] + 1]++] = i;
    return HSP_OK;
}

/* The undecided points by their measure, lazily: a queue of entries (point, measure) per
 * measure, a point queued again when its measure grows; an entry whose point has since
 * grown or been decided is skipped when it comes up.  Entries: at most a point each, and a
 * strong coupling each (a growth). */
typedef struct {
    int32_t *head, *tail; /* of each measure: its first and last entry, or -1 */
    int32_t *point;       /* of each entry */
    int32_t *next;        /* of each entry: the entry queued after it on its queue, or -1 */
    int32_t *measure;     /* of each point while undecided; -1 once decided (read with its entry) */
    int32_t top;          /* no queue above it holds an entry */
    int32_t used;         /* entries */
} buckets;

static void bucket_push(buckets *b, int32_t i, int32_t measure)
{
    int32_t e = b->used++;
    b->measure[i] = measure, b->point[e] = i, b->next[e] = -1;
    if (b->tail[measure] >= 0) b->next[b->tail[measure]] = e;
    else b->head[measure] = e;
    b->tail[measure] = e;
    if (measure > b->top) b->top = measure;
}

/* The undecided point of the largest measure, the first queued there (-1 when none above 0). */
static int32_t bucket_take(buckets *b)
{
    while (b->top > 0) {
        int32_t e = b->head[b->top];
        if (e < 0) {
            b->top--;
            continue;
        }
        b->head[b->top] = b->next[e];
        if (b->next[e] < 0) b->tail[b->top] = -1;
        int32_t i = b->point[e];
        if (b->measure[i] == b->top) return i;
    }
    return -1;
}

/* Ruge and Stueben's first pass over S and its transpose T: the undecided point on which the
 * most depend becomes C (of equal counts, the first to reach its count: hypre's order, which
 * on aniso2d:1024 takes CG 16 iterations where the last takes 23), the undecided ones that
 * depend on it F, and the undecided points those depend on count once more.  The points left
 * (on which none depends) become F where they depend on a C point or on none, else C.
 * cf[i]: FINE, or C points numbered in order; *nc of them. */
static void split(const hsp_graph *S, const hsp_graph *T, buckets *b, int32_t *cf, int32_t *nc)
{
    int32_t n = S->n;
    b->top = 0, b->used = 0;
    for (int32_t i = 0; i < n; i++) cf[i] = UNDECIDED, bucket_push(b, i, (int32_t)(T->rowptr[i + 1] - T->rowptr[i]));
    int32_t *measure = b->measure; /* >= 0: undecided, in one array with the measures it is read with */
    for (int32_t i; (i = bucket_take(b)) >= 0;) {
        cf[i] = 0, measure[i] = -1;
        for (int64_t k = T->rowptr[i]; k < T->rowptr[i + 1]; k++) {
            int32_t f = T->col[k];
            if (measure[f] < 0) continue;
            cf[f] = FINE, measure[f] = -1;
            for (int64_t q = S->rowptr[f]; q < S->rowptr[f + 1]; q++)
                if (measure[S->col[q]] >= 0) bucket_push(b, S->col[q], measure[S->col[q]] + 1);
        }
    }
    for (int32_t i = 0; i < n; i++) {
        if (cf[i] != UNDECIDED) continue;
        int fine = S->rowptr[i] == S->rowptr[i + 1];
        for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1] && !fine; k++) fine = cf[S->col[k]] >= 0;
        cf[i] = fine ? FINE : 0;
    }
    *nc = 0;
    for (int32_t i = 0; i < n; i++)
        if (cf[i] >= 0) cf[i] = (*nc)++;
}

/* The splitting of S: queues for every measure a point can reach (twice its dependents: each
 * may become F once), then split's. */
static hsp_status split_points(const hsp_graph *S, int32_t *cf, int32_t *nc)
{
    hsp_graph T = {0, NULL, NULL};
    buckets b = {0};
    int64_t most = 0, entries = (int64_t)S->n + S->rowptr[S->n] + 1;
    hsp_status e = transposed(S, &T);
    for (int32_t i = 0; e == HSP_OK && i < S->n; i++) {
        int64_t m = 2 * (T.rowptr[i + 1] - T.rowptr[i]);
        most = m > most ? m : most;
    }
    if (e == HSP_OK && entries > INT32_MAX)
        e = hsp_fail(HSP_ERR_OVERFLOW, "%d points of %lld strong couplings: too many to split", S->n,
                     (long long)S->rowptr[S->n]);
    if (e == HSP_OK && !((b.head = malloc(((size_t)most + 1) * sizeof *b.head))
                         && (b.tail = malloc(((size_t)most + 1) * sizeof *b.tail))
                         && (b.point = hsp_alloc((size_t)entries * sizeof *b.point))
                         && (b.next = hsp_alloc((size_t)entries * sizeof *b.next))
                         && (b.measure = malloc(((size_t)S->n + 1) * sizeof *b.measure))))
        e = hsp_fail(HSP_ERR_NOMEM, "no memory to split %d points", S->n);
    if (e == HSP_OK) {
        for (int64_t m = 0; m <= most; m++) b.head[m] = b.tail[m] = -1;
        split(S, &T, &b, cf, nc);
    }
    hsp_graph_free(&T);
    free(b.head), free(b.tail), hsp_free_large(b.point), hsp_free_large(b.next), free(b.measure);
    return e;
}

/* Whether point p is in row i's interpolatory set (slot: the thread's marks). */
static inline int in_set(const int64_t *slot, int32_t p, int32_t i)
{
    return (slot[p] >> 32) == i;
}

/* F point i's coupling a to its strong F neighbour f, spread over f's couplings of the sign
 * opposite to a_ff's to row i's set (into w) and to i (returned, for the diagonal); all of a
 * returned where f has none of them. */
static double distribute(const row_job *j, const int64_t *slot, double *w, int32_t i, int32_t f, double a)
{
    const hsp_csr *A = j->A;
    double sign = value(A, j->diag[f]) > 0 ? -1 : 1, sum = 0, to_diagonal = 0;
    for (int64_t q = A->rowptr[f]; q < A->rowptr[f + 1]; q++) {
        int32_t l = A->colidx[q];
        if (sign * value(A, q) > 0 && (l == i || in_set(slot, l, i))) sum += value(A, q);
    }
    if (sum == 0) return a;
    for (int64_t q = A->rowptr[f]; q < A->rowptr[f + 1]; q++) {
        int32_t l = A->colidx[q];
        double b = value(A, q) * (a / sum);
        if (!(sign * value(A, q) > 0)) continue;
        if (l == i) to_diagonal += b;
        else if (in_set(slot, l, i)) w[slot[l] & 0xffffffff] += b;
    }
    return to_diagonal;
}

/* Point p into row i's set (once), its weight 0. */
static inline void set_add(int64_t *slot, int32_t *set, double *w, int32_t *m, int32_t i, int32_t p)
{
    if (in_set(slot, p, i)) return;
    slot[p] = (int64_t)i << 32 | *m, set[*m] = p, w[(*m)++] = 0;
}

/* F point i's interpolatory set (its strong C neighbours, and those of its strong F
 * neighbours) into the thread's set, with extended+i's weights in w; returns its size.
 * A coupling to a point outside the set and no strong F neighbour goes to the diagonal. */
static int32_t ext_i_row(const row_job *j, int tid, int32_t i)
{
    const hsp_csr *A = j->A;
    const hsp_graph *S = j->S;
    int64_t *slot = j->slot[tid];
    int32_t *set = j->set[tid], m = 0;
    double *w = j->w[tid], diagonal = value(A, j->diag[i]);
    for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) {
        int32_t c = S->col[k];
        if (j->cf[c] >= 0) set_add(slot, set, w, &m, i, c);
        for (int64_t q = S->rowptr[c]; j->cf[c] < 0 && q < S->rowptr[c + 1]; q++)
            if (j->cf[S->col[q]] >= 0) set_add(slot, set, w, &m, i, S->col[q]);
    }
    int64_t s = S->rowptr[i];
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        int32_t c = A->colidx[k];
        while (s < S->rowptr[i + 1] && S->col[s] < c) s++;
        if (c == i) continue;
        if (in_set(slot, c, i)) w[slot[c] & 0xffffffff] += value(A, k);
        else if (s < S->rowptr[i + 1] && S->col[s] == c && j->cf[c] < 0)
            diagonal += distribute(j, slot, w, i, c, value(A, k));
        else diagonal += value(A, k);
    }
    for (int32_t p = 0; p < m; p++) w[p] = diagonal != 0 && isfinite(diagonal) ? -w[p] / diagonal : 0;
    return m;
}

/* The sum of w[0..m). */
static double sum_of(const double *w, int32_t m)
{
    double sum = 0;
    for (int32_t p = 0; p < m; p++) sum += w[p];
    return sum;
}

/* Row i of P at set-up: a C point's 1; an F point's P_MAX largest nonzero weights (|w|),
 * scaled to the sum of all, their coarse columns ascending; into P_MAX slots of pcol, pval. */
static void first_row(const row_job *j, int tid, int32_t i)
{
    int32_t *col = j->pcol + (int64_t)i * HSP_CLASSICAL_P_MAX, kept = 0;
    double *val = j->pval + (int64_t)i * HSP_CLASSICAL_P_MAX;
    if (j->cf[i] >= 0) {
        j->count[i] = 1, col[0] = j->cf[i], val[0] = 1;
        return;
    }
    int32_t *set = j->set[tid], m = ext_i_row(j, tid, i);
    double *w = j->w[tid], all = sum_of(w, m);
    for (; kept < HSP_CLASSICAL_P_MAX && kept < m; kept++) { /* the largest |w| to the front */
        int32_t top = kept;
        for (int32_t p = kept + 1; p < m; p++) top = fabs(w[p]) > fabs(w[top]) ? p : top;
        if (w[top] == 0) break;
        double t = w[top];
        int32_t q = set[top];
        w[top] = w[kept], set[top] = set[kept], w[kept] = t, set[kept] = q;
    }
    double part = sum_of(w, kept), scale = part != 0 ? all / part : 1;
    for (int32_t p = 0; p < kept; p++) { /* by coarse column: few */
        int32_t at = p;
        for (; at > 0 && col[at - 1] > j->cf[set[p]]; at--) col[at] = col[at - 1], val[at] = val[at - 1];
        col[at] = j->cf[set[p]], val[at] = w[p] * scale;
    }
    j->count[i] = kept;
}

/* Row i of P at a re-setup: its weights anew over its pattern, scaled as first_row's. */
static void next_row(const row_job *j, int tid, int32_t i)
{
    hsp_csr *P = j->P;
    if (j->cf[i] >= 0) return; /* its 1 stays */
    int32_t m = ext_i_row(j, tid, i);
    const int64_t *slot = j->slot[tid];
    const double *w = j->w[tid];
    double all = sum_of(w, m), part = 0;
    for (int64_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) {
        int32_t p = j->cpts[P->colidx[k]];
        part += in_set(slot, p, i) ? w[slot[p] & 0xffffffff] : 0;
    }
    double scale = part != 0 ? all / part : 1;
    for (int64_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) {
        int32_t p = j->cpts[P->colidx[k]];
        hsp_csr_set_value(P, k, in_set(slot, p, i) ? w[slot[p] & 0xffffffff] * scale : 0);
    }
}

static void interpolate_rows(void *arg, int tid, int64_t c)
{
    const row_job *j = arg;
    int32_t last, first = hsp_chunk_rows(c, ROWS, j->A->nrows, &last);
    for (int32_t i = first; i < last; i++)
        if (j->P) next_row(j, tid, i);
        else first_row(j, tid, i);
}

/* Each thread's marks (none set: -1) and room for an interpolatory set of S: a point's strong
 * couplings and theirs, at most m (m + 1) of the m most a point has. */
static hsp_status scratch_new(hsp_context *ctx, row_job *j)
{
    const hsp_graph *S = j->S;
    int threads = hsp_pool_size(ctx->pool);
    int64_t m = 0;
    for (int32_t i = 0; i < S->n; i++) m = S->rowptr[i + 1] - S->rowptr[i] > m ? S->rowptr[i + 1] - S->rowptr[i] : m;
    size_t most = (size_t)(m * (m + 1) + 1), marks = ((size_t)S->n + 1) * sizeof **j->slot;
    j->slot = calloc((size_t)threads, sizeof *j->slot), j->set = calloc((size_t)threads, sizeof *j->set);
    j->w = calloc((size_t)threads, sizeof *j->w);
    int ok = j->slot && j->set && j->w;
    for (int t = 0; ok && t < threads; t++) {
        ok = (j->slot[t] = hsp_alloc(marks)) && (j->set[t] = malloc(most * sizeof **j->set))
             && (j->w[t] = malloc(most * sizeof **j->w));
        if (ok) memset(j->slot[t], 0xff, marks);
    }
    return ok ? HSP_OK : hsp_fail(HSP_ERR_NOMEM, "no memory to interpolate %d points", S->n);
}

static void scratch_free(hsp_context *ctx, row_job *j)
{
    for (int t = 0; t < hsp_pool_size(ctx->pool); t++) {
        if (j->slot) hsp_free_large(j->slot[t]);
        if (j->set) free(j->set[t]);
        if (j->w) free(j->w[t]);
    }
    free(j->slot), free(j->set), free(j->w);
}

/* P of the splitting cf (nc C points): its rows into slots on the threads, then gathered. */
static hsp_status interpolation(hsp_context *ctx, row_job *j, int32_t nc, hsp_csr **P)
{
    int32_t n = j->A->nrows;
    size_t slots = (size_t)n * HSP_CLASSICAL_P_MAX + 1;
    j->count = malloc(((size_t)n + 1) * sizeof *j->count), j->pcol = hsp_alloc(slots * sizeof *j->pcol);
    j->pval = hsp_alloc(slots * sizeof *j->pval);
    hsp_status e = j->count && j->pcol && j->pval ? scratch_new(ctx, j)
                                                   : hsp_fail(HSP_ERR_NOMEM, "no memory to interpolate %d points", n);
    if (e == HSP_OK) hsp_pool_chunks(ctx->pool, hsp_row_chunks(n, ROWS), interpolate_rows, j);
    int64_t nnz = 0;
    for (int32_t i = 0; e == HSP_OK && i < n; i++) nnz += j->count[i];
    if (e == HSP_OK) e = hsp_csr_create(n, nc, nnz, j->A->precision, P);
    for (int32_t i = 0; e == HSP_OK && i < n; i++) {
        int64_t at = (*P)->rowptr[i], from = (int64_t)i * HSP_CLASSICAL_P_MAX;
        (*P)->rowptr[i + 1] = at + j->count[i];
        for (int32_t p = 0; p < j->count[i]; p++) (*P)->colidx[at + p] = j->pcol[from + p];
        if ((*P)->precision == HSP_DOUBLE)
            memcpy((double *)(*P)->values + at, j->pval + from, j->count[i] * sizeof(double));
        for (int32_t p = 0; (*P)->precision == HSP_FLOAT && p < j->count[i]; p++)
            ((float *)(*P)->values)[at + p] = (float)j->pval[from + p];
    }
    scratch_free(ctx, j);
    free(j->count), hsp_free_large(j->pcol), hsp_free_large(j->pval);
    return e;
}

hsp_status hsp_classical_level(hsp_context *ctx, const hsp_csr *A, const int64_t *diag, double theta, int32_t *cf,
                               int32_t *nc, hsp_csr **P)
{
    hsp_graph S = {0, NULL, NULL};
    row_job j = {.A = A, .diag = diag, .theta = theta, .cf = cf};
    *nc = 0, *P = NULL;
    hsp_status e = strength(ctx, &j, &S);
    if (e == HSP_OK) e = split_points(&S, cf, nc);
    if (e == HSP_OK && *nc > 0 && *nc < A->nrows) e = interpolation(ctx, &j, *nc, P);
    else *nc = 0; /* nothing to gain */
    hsp_graph_free(&S);
    return e;
}

hsp_status hsp_classical_values(hsp_context *ctx, const hsp_csr *A, const int64_t *diag, double theta,
                                const int32_t *cf, hsp_csr *P)
{
    hsp_graph S = {0, NULL, NULL};
    int32_t *cpts = malloc(((size_t)P->ncols + 1) * sizeof *cpts);
    row_job j = {.A = A, .diag = diag, .theta = theta, .cf = cf, .cpts = cpts, .P = P};
    hsp_status e = cpts ? strength(ctx, &j, &S) : hsp_fail(HSP_ERR_NOMEM, "no memory for %d C points", P->ncols);
    for (int32_t i = 0; e == HSP_OK && i < A->nrows; i++)
        if (cf[i] >= 0) cpts[cf[i]] = i;
    if (e == HSP_OK) e = scratch_new(ctx, &j);
    if (e == HSP_OK) hsp_pool_chunks(ctx->pool, hsp_row_chunks(A->nrows, ROWS), interpolate_rows, &j);
    scratch_free(ctx, &j);
    hsp_graph_free(&S);
    free(cpts);
    return e;
}
