/* transpose.c: A^T by a counting sort on the columns, which leaves each row
 * of the result sorted.  The position each entry of A takes in A^T can be
 * kept, so that A^T's values follow new values of A without a second sort
 * (a plan's R = P^T). */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "transpose.h"

/* A^T's row pointers from A's column counts. */
static void count_columns(const hsp_csr *A, int64_t *rowptr)
{
    memset(rowptr, 0, ((size_t)A->ncols + 1) * sizeof *rowptr);
    for (int64_t k = 0; k < A->nnz; k++) rowptr[A->colidx[k] + 1]++;
    for (int32_t j = 0; j < A->ncols; j++) rowptr[j + 1] += rowptr[j];
}

void hsp_transpose_values(const hsp_csr *A, const int64_t *where, hsp_csr *AT)
{
    size_t vs = hsp_value_size(A->precision);
    const unsigned char *from = A->values;
    unsigned char *to = AT->values;
    for (int64_t k = 0; k < A->nnz; k++) memcpy(to + (size_t)where[k] * vs, from + (size_t)k * vs, vs);
}

hsp_status hsp_transpose_keep(const hsp_csr *A, hsp_csr **AT, int64_t **where)
{
    hsp_csr *T;
    hsp_status s = hsp_csr_create(A->ncols, A->nrows, A->nnz, A->precision, &T);
    int64_t *next = s == HSP_OK ? malloc(((size_t)A->ncols + 1) * sizeof *next) : NULL;
    int64_t *at = next ? malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof *at) : NULL;
    if (!at) {
        free(next);
        if (s == HSP_OK) hsp_csr_free(T);
        return s == HSP_OK ? hsp_fail(HSP_ERR_NOMEM, "no memory to transpose %lld entries", (long long)A->nnz) : s;
    }
    count_columns(A, T->rowptr);
    memcpy(next, T->rowptr, ((size_t)A->ncols + 1) * sizeof *next);
    for (int32_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            at[k] = next[A->colidx[k]]++;
            T->colidx[at[k]] = i;
        }
    hsp_transpose_values(A, at, T);
    free(next);
    *AT = T;
    if (where) *where = at;
    else free(at);
    return HSP_OK;
}

hsp_status hsp_transpose(const hsp_csr *A, hsp_csr **AT)
{
    if (!A || !AT) return hsp_fail(HSP_ERR_ARG, "hsp_transpose: A or AT is NULL");
    *AT = NULL;
    hsp_status s = hsp_csr_check(A);
    return s == HSP_OK ? hsp_transpose_keep(A, AT, NULL) : s;
}
