/* blocks.c: a bitmap-blocked matrix's arrays (hspgemm.h's hsp_bitmap):
 * made, freed, counted.  Here, below the devices, so that a device's
 * block product can make its C; src/bitmap builds and reads them. */
#include <stdlib.h>
#include "bitmap/blocks.h"
#include "core/internal.h"

int64_t hsp_bitmap_bytes(const hsp_bitmap *M)
{
    if (!M) {
        hsp_fail(HSP_ERR_ARG, "hsp_bitmap_bytes: M is NULL");
        return 0;
    }
    return M->nblocks * (int64_t)(2 * sizeof(uint64_t)) + M->nnz * (int64_t)hsp_value_size(M->precision);
}

void hsp_bitmap_free(hsp_bitmap *M)
{
    if (!M) return;
    free(M->key), free(M->bitmap), hsp_free_large(M->values);
    free(M);
}

hsp_status hsp_bitmap_new(int32_t nrows, int32_t ncols, int64_t nblocks, int64_t nnz, hsp_precision precision,
                          hsp_bitmap **out)
{
    hsp_bitmap *M = calloc(1, sizeof *M);
    *out = NULL;
    if (M) {
        M->nrows = nrows, M->ncols = ncols, M->nblocks = nblocks, M->nnz = nnz, M->precision = precision;
        M->key = malloc((size_t)(nblocks ? nblocks : 1) * sizeof *M->key);
        M->bitmap = malloc((size_t)(nblocks ? nblocks : 1) * sizeof *M->bitmap);
        M->values = hsp_alloc((size_t)(nnz ? nnz : 1) * hsp_value_size(precision));
    }
    if (!M || !M->key || !M->bitmap || !M->values) {
        hsp_bitmap_free(M);
        return hsp_fail(HSP_ERR_NOMEM, "no memory for a bitmap-blocked matrix of %lld blocks", (long long)nblocks);
    }
    *out = M;
    return HSP_OK;
}
