/* bins.h: the bin layout (which rows go to which bin and group) derived from
 * a device's wavefront width and local memory size. */
#ifndef HSP_BINS_H
#define HSP_BINS_H

#include "hspgemm.h"

/* Group numbers: 0 empty rows, 1 one product, 2 short (heap), 3 medium (ESC),
 * 4 long (merge, progressive). */
enum { HSP_GROUP_EMPTY, HSP_GROUP_SINGLE, HSP_GROUP_SHORT, HSP_GROUP_MEDIUM,
       HSP_GROUP_LONG };

/* Lay out the bins: {0}, {1}, {2}..{W} one bin each, then doubling ranges
 * (W, 2W], (2W, 4W], ... up to the largest power of two no greater than
 * medium_max (0: 16 W) whose rows of double entries (12 bytes) fit in
 * local_mem, then the rest.  With W = 32, 48 KiB and medium_max 0 this is the
 * paper's 38 bins.  Returns HSP_ERR_ARG for a wavefront outside 2..64 or not
 * a power of two, or too little local memory for a row of 2W entries. */
hsp_status hsp_bins_layout(int wavefront, int64_t local_mem, int64_t medium_max, hsp_bins *bins);
/* The bin of a row with upper bound u (inline: stage 1 asks it of every row). */
static inline int hsp_bins_find(const hsp_bins *bins, int64_t u)
{
    if (u <= bins->width) return (int)u; /* one bin per u */
    /* bin W + j holds (W 2^(j-1), W 2^j]; the last bin holds the rest */
    int b = bins->width + 64 - __builtin_clzll((uint64_t)(u - 1) / (uint64_t)bins->width);
    return b < bins->nbins - 1 ? b : bins->nbins - 1;
}
/* The largest upper bound of a group's rows (short: the wavefront; medium:
 * the largest row that gets u slots in C~). */
int64_t hsp_bins_group_max(const hsp_bins *bins, int group);

#endif
