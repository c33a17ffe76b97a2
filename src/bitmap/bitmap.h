/* bitmap.h: the bitmap-blocked format inside the library (private). */
#ifndef HSP_BITMAP_H
#define HSP_BITMAP_H

#include "bitmap/blocks.h"

/* Sort n block columns ascending. */
void hsp_sort_block_columns(int32_t *cols, int64_t n);
#endif
