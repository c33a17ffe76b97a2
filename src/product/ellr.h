/* ellr.h: a matrix's rows as the SpMM kernels read them (hsp_ellr's
 * insides): entry q of row i at first + q step, where in CSR first is
 * rowptr[i] and step 1, in ELLPACK-R first is i and step nrows. */
#ifndef HSP_ELLR_H
#define HSP_ELLR_H

#include "hspgemm.h"

struct hsp_ellr {
    int32_t nrows, ncols, width;
    int64_t nnz;
    hsp_precision precision;
    const int64_t *rowptr; /* CSR: the row pointers; ELLPACK-R: NULL */
    const int32_t *len;    /* ELLPACK-R: each row's entries; CSR: NULL */
    const int32_t *col;    /* CSR: nnz entries; ELLPACK-R: nrows x width slots */
    const void *val;
    void *own[4];          /* the arrays it allocated (NULL for a view of a caller's CSR) */
};

/* Where row i's entries begin, and how many it has. */
static inline int64_t hsp_ellr_first(const struct hsp_ellr *a, int32_t i)
{
    return a->rowptr ? a->rowptr[i] : i;
}
static inline int64_t hsp_ellr_count(const struct hsp_ellr *a, int32_t i)
{
    return a->rowptr ? a->rowptr[i + 1] - a->rowptr[i] : a->len[i];
}
/* The distance between entries of a row. */
static inline int64_t hsp_ellr_step(const struct hsp_ellr *a)
{
    return a->rowptr ? 1 : a->nrows;
}

/* A view of CSR A (its arrays, not copied). */
struct hsp_ellr hsp_ellr_view(const hsp_csr *A);

#endif
