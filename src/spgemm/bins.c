/* bins.c: the bin layout derived from wavefront width and local memory. */
#include <stdint.h>
#include "spgemm/bins.h"
#include "core/internal.h"

/* Bytes of one entry of a row in local memory: a column index and a double. */
enum { ENTRY_BYTES = sizeof(int32_t) + sizeof(double) };

/* Append bin [lo, hi] of group g. */
static void add_bin(hsp_bins *bins, int64_t lo, int64_t hi, int g)
{
    bins->lo[bins->nbins] = lo;
    bins->hi[bins->nbins] = hi;
    bins->group[bins->nbins] = g;
    bins->nbins++;
}

hsp_status hsp_bins_layout(int wavefront, int64_t local_mem, int64_t medium_max, hsp_bins *bins)
{
    int w = wavefront;
    if (w < 2 || w > 64 || (w & (w - 1)))
        return hsp_fail(HSP_ERR_ARG, "wavefront %d is not a power of two in 2..64", w);
    int64_t top = 16 * (int64_t)w;
    while (top < medium_max) top *= 2;
    if (top > medium_max && medium_max > 16 * (int64_t)w) top /= 2;
    while (top > w && top * ENTRY_BYTES > local_mem) top /= 2;
    if (top < 2 * (int64_t)w)
        return hsp_fail(HSP_ERR_ARG,
                        "local memory of %lld bytes holds no row of %d entries (%d bytes each)",
                        (long long)local_mem, 2 * w, ENTRY_BYTES);
    bins->nbins = 0;
    bins->width = w;
    add_bin(bins, 0, 0, HSP_GROUP_EMPTY);
    add_bin(bins, 1, 1, HSP_GROUP_SINGLE);
    for (int u = 2; u <= w; u++) add_bin(bins, u, u, HSP_GROUP_SHORT);
    for (int64_t hi = 2 * (int64_t)w; hi <= top; hi *= 2)
        add_bin(bins, hi / 2 + 1, hi, HSP_GROUP_MEDIUM);
    add_bin(bins, top + 1, INT64_MAX, HSP_GROUP_LONG);
    return HSP_OK;
}

int64_t hsp_bins_group_max(const hsp_bins *bins, int group)
{
    int64_t max = 0;
    for (int b = 0; b < bins->nbins; b++)
        if (bins->group[b] == group) max = bins->hi[b];
    return max;
}
