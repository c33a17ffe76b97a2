/* blocks.h: bitmap-blocked matrices' sizes and arrays (private). */
#ifndef HSP_BLOCKS_H
#define HSP_BLOCKS_H

#include "hspgemm.h"

enum { HSP_BITMAP_SIDE = 8 }; /* a block is 8 x 8: its bits fill a 64-bit word */

/* The blocks that cover n rows (or columns). */
static inline int64_t hsp_blocks(int64_t n)
{
    return (n + HSP_BITMAP_SIDE - 1) / HSP_BITMAP_SIDE;
}

/* An nrows x ncols matrix with room for nblocks blocks and nnz values, its
 * arrays left for the caller to fill. */
hsp_status hsp_bitmap_new(int32_t nrows, int32_t ncols, int64_t nblocks, int64_t nnz, hsp_precision precision,
                          hsp_bitmap **out);
#endif
