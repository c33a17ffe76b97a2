/* sample.c: how often the products of a row meet, estimated on a sample of
 * rows, so that a device can give rows whose products rarely meet to a
 * method that sorts them (ESC) rather than one that merges or hashes them.
 * kernels/bins.cl samples the same rows on a device. */
#include "spgemm/job.h"

/* The columns that rows x and y of B (sorted) have in common. */
static int64_t common_columns(const hsp_csr *B, int32_t x, int32_t y)
{
    int64_t p = B->rowptr[x], p_end = B->rowptr[x + 1], q = B->rowptr[y], q_end = B->rowptr[y + 1], n = 0;
    while (p < p_end && q < q_end) {
        int32_t cp = B->colidx[p], cq = B->colidx[q];
        n += cp == cq, p += cp <= cq, q += cq <= cp;
    }
    return n;
}

void hsp_sample_shared(const hsp_job *job, int64_t most, int64_t *u, int64_t *shared)
{
    const hsp_csr *A = job->A, *B = job->B;
    *u = *shared = 0;
    for (int64_t i = 0; i < A->nrows; i += i % 32 == 31 ? 2048 - 31 : 1) { /* rows 0-31, 2048-2079, ... */
        if (job->ub[i] < 1 || job->ub[i] > most) continue;
        *u += job->ub[i];
        for (int64_t p = A->rowptr[i]; p + 1 < A->rowptr[i + 1]; p++)
            *shared += common_columns(B, A->colidx[p], A->colidx[p + 1]);
    }
}
