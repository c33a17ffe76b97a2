/* t_bins.c: the bin layout and the bin lookup (src/spgemm/bins.c) for several
 * wavefronts and local memory sizes: the bins tile 0..INT64_MAX in order,
 * and every upper bound u = 0..10^5 is found in the bin whose range holds
 * it (a lookup one bin off at powers of two would fail here). */
#include <stddef.h>
#include <stdint.h>
#include "spgemm/bins.h"
#include "tap.h"

enum { U_MAX = 100000 };

/* Do the bins tile 0..INT64_MAX in order, with the groups in order? */
static int tiles(const hsp_bins *b)
{
    if (b->nbins < 3 || b->lo[0] != 0 || b->hi[b->nbins - 1] != INT64_MAX) return 0;
    for (int k = 0; k + 1 < b->nbins; k++)
        if (b->hi[k] < b->lo[k] || b->lo[k + 1] != b->hi[k] + 1 || b->group[k + 1] < b->group[k]) return 0;
    return b->group[0] == HSP_GROUP_EMPTY && b->group[1] == HSP_GROUP_SINGLE && b->group[2] == HSP_GROUP_SHORT;
}

/* The first u in 0..U_MAX found outside its bin's range, or -1. */
static int64_t misplaced(const hsp_bins *b)
{
    for (int64_t u = 0; u <= U_MAX; u++) {
        int k = hsp_bins_find(b, u);
        if (k < 0 || k >= b->nbins || u < b->lo[k] || u > b->hi[k]) return u;
    }
    return -1;
}

int main(void)
{
    static const struct {
        int wavefront;
        int64_t local_mem, medium_max;
    } layout[] = {{32, 48 << 10, 0}, {64, 64 << 10, 0}, {16, 32 << 10, 0}, {8, 8 << 10, 0},
                  {2, 1 << 10, 0},   {32, 48 << 10, 1000}, {64, 1 << 20, 0}, {4, 64 << 10, 300}};
    for (size_t k = 0; k < sizeof layout / sizeof layout[0]; k++) {
        hsp_bins b;
        hsp_status s = hsp_bins_layout(layout[k].wavefront, layout[k].local_mem, layout[k].medium_max, &b);
        tap_ok(s == HSP_OK && tiles(&b), "W %d, %lld bytes, medium_max %lld: %d bins tile 0..INT64_MAX",
               layout[k].wavefront, (long long)layout[k].local_mem, (long long)layout[k].medium_max, b.nbins);
        int64_t u = s == HSP_OK ? misplaced(&b) : 0;
        tap_ok(u < 0, "W %d, %lld bytes: every u in 0..%d is found in its bin (first wrong: %lld)",
               layout[k].wavefront, (long long)layout[k].local_mem, U_MAX, (long long)u);
    }
    hsp_bins b;
    tap_ok(hsp_bins_layout(32, 48 << 10, 0, &b) == HSP_OK && b.nbins == 38, "W 32, 48 KiB: the paper's 38 bins");
    tap_ok(hsp_bins_layout(3, 48 << 10, 0, &b) == HSP_ERR_ARG, "a wavefront of 3 is refused");
    tap_ok(hsp_bins_layout(32, 64, 0, &b) == HSP_ERR_ARG, "local memory for less than 2W entries is refused");
    return tap_done();
}
