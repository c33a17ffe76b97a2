/* bitmap.h: the bitmap-blocked format inside the library (private). */
#ifndef HSP_BITMAP_H
#define HSP_BITMAP_H

#include "hspgemm.h"

enum { HSP_BITMAP_SIDE = 8 }; /* a block is 8 x 8: its bits fill a 64-bit word */

/* The blocks that cover n rows (or columns). */
static inline int64_t hsp_blocks(int64_t n)
{
    return (n + HSP_BITMAP_SIDE - 1) / HSP_BITMAP_SIDE;
}

/* Sort n block columns ascending. */
void hsp_sort_block_columns(int32_t *cols, int64_t n);
/* An nrows x ncols matrix with room for nblocks blocks and nnz values, its
 * arrays left for the caller to fill. */
hsp_status hsp_bitmap_new(int32_t nrows, int32_t ncols, int64_t nblocks, int64_t nnz, hsp_precision precision,
                          hsp_bitmap **out);
#endif
