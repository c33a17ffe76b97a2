/* transpose.c: A^T by a counting sort on the columns, which leaves each row
 * of the result sorted.  On a thread pool, each part of A's rows counts its
 * columns, the counts give each part its first place in every row of A^T,
 * and the parts place their entries at once; rows of A^T come out in the
 * same order as with one part.  The position each entry of A takes in A^T
 * can be kept, so that A^T's values follow new values of A without a second
 * sort (a plan's R = P^T).  Two transposes sort the rows of a matrix in
 * place (hsp_csr_sort). */
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "core/transpose.h"

enum { MAX_PARTS = 64 };

typedef struct {
    const hsp_csr *A;
    hsp_csr *T;
    int64_t *at;                /* per entry of A: its place in T */
    int64_t *next;              /* part p's next place in row j of T: next[p * ncols + j] */
    int64_t cut[MAX_PARTS + 1]; /* part p is rows cut[p] .. cut[p + 1] - 1 of A */
} transpose_run;

/* Count part p's entries in each column of A. */
static void count_part(void *arg, int tid, int64_t p)
{
    transpose_run *r = arg;
    const hsp_csr *A = r->A;
    int64_t *count = r->next + p * A->ncols;
    (void)tid;
    memset(count, 0, (size_t)A->ncols * sizeof *count);
    for (int64_t k = A->rowptr[r->cut[p]]; k < A->rowptr[r->cut[p + 1]]; k++) count[A->colidx[k]]++;
}

/* The counts into T's row pointers and each part's first places. */
static void count_offsets(transpose_run *r, int64_t nparts)
{
    int64_t ncols = r->A->ncols, place = 0;
    for (int64_t j = 0; j < ncols; j++) {
        r->T->rowptr[j] = place;
        for (int64_t p = 0; p < nparts; p++) {
            int64_t count = r->next[p * ncols + j];
            r->next[p * ncols + j] = place;
            place += count;
        }
    }
    r->T->rowptr[ncols] = place;
}

/* Place part p's entries: their row numbers in T, and where each went. */
static void place_part(void *arg, int tid, int64_t p)
{
    transpose_run *r = arg;
    const hsp_csr *A = r->A;
    int64_t *next = r->next + p * A->ncols;
    (void)tid;
    for (int64_t i = r->cut[p]; i < r->cut[p + 1]; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            r->at[k] = next[A->colidx[k]]++;
            r->T->colidx[r->at[k]] = (int32_t)i;
        }
}

/* Values k0 .. k1 - 1 of A to their places in AT. */
static void scatter_values(const hsp_csr *A, const int64_t *where, hsp_csr *AT, int64_t k0, int64_t k1)
{
    size_t vs = hsp_value_size(A->precision);
    const unsigned char *from = A->values;
    unsigned char *to = AT->values;
    for (int64_t k = k0; k < k1; k++) memcpy(to + (size_t)where[k] * vs, from + (size_t)k * vs, vs);
}

void hsp_transpose_values(const hsp_csr *A, const int64_t *where, hsp_csr *AT)
{
    scatter_values(A, where, AT, 0, A->nnz);
}

/* Part p's values into T. */
static void values_part(void *arg, int tid, int64_t p)
{
    transpose_run *r = arg;
    (void)tid;
    scatter_values(r->A, r->at, r->T, r->A->rowptr[r->cut[p]], r->A->rowptr[r->cut[p + 1]]);
}

/* Run fn over the parts, on pool or here. */
static void over_parts(hsp_pool *pool, int64_t nparts, hsp_chunk_fn fn, transpose_run *r)
{
    if (pool) hsp_pool_chunks(pool, nparts, fn, r);
    else
        for (int64_t p = 0; p < nparts; p++) fn(r, 0, p);
}

hsp_status hsp_transpose_keep(const hsp_csr *A, hsp_pool *pool, hsp_csr **AT, int64_t **where)
{
    transpose_run r = {A, NULL, NULL, NULL, {0}};
    int64_t want = pool ? hsp_pool_size(pool) : 1;
    int64_t nparts = hsp_split_weighted(A->rowptr, A->nrows, want < MAX_PARTS ? want : MAX_PARTS, r.cut);
    hsp_status s = hsp_csr_create(A->ncols, A->nrows, A->nnz, A->precision, &r.T);
    if (s == HSP_OK) r.next = malloc(((size_t)nparts * (size_t)A->ncols + 1) * sizeof *r.next);
    if (r.next) r.at = malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof *r.at);
    if (!r.at) {
        free(r.next);
        if (s == HSP_OK) hsp_csr_free(r.T);
        return s == HSP_OK ? hsp_fail(HSP_ERR_NOMEM, "no memory to transpose %lld entries", (long long)A->nnz) : s;
    }
    over_parts(pool, nparts, count_part, &r);
    count_offsets(&r, nparts);
    over_parts(pool, nparts, place_part, &r);
    over_parts(pool, nparts, values_part, &r);
    free(r.next);
    *AT = r.T;
    if (where) *where = r.at;
    else free(r.at);
    return HSP_OK;
}

hsp_status hsp_transpose(const hsp_csr *A, hsp_csr **AT)
{
    if (!A || !AT) return hsp_fail(HSP_ERR_ARG, "hsp_transpose: A or AT is NULL");
    *AT = NULL;
    hsp_status s = hsp_csr_check(A);
    return s == HSP_OK ? hsp_transpose_keep(A, NULL, AT, NULL) : s;
}

/* Two transposes, each a counting sort by column, leave A's rows sorted. */
hsp_status hsp_csr_sort(hsp_csr *A)
{
    hsp_csr *T = NULL, *S = NULL;
    hsp_status s = hsp_csr_check_unordered(A, 1);
    if (s == HSP_OK) s = hsp_transpose_keep(A, NULL, &T, NULL);
    if (s == HSP_OK) s = hsp_transpose_keep(T, NULL, &S, NULL);
    if (s == HSP_OK) {
        memcpy(A->colidx, S->colidx, (size_t)A->nnz * sizeof *A->colidx);
        memcpy(A->values, S->values, (size_t)A->nnz * hsp_value_size(A->precision));
    }
    hsp_csr_free(T), hsp_csr_free(S);
    return s;
}
