/* gpu_kernels.c: the kernels of kernels/ by gpu.h's numbers, for the back
 * ends to find them by name. */
#include <stdio.h>
#include "device/gpu.h"

const char *gpu_kernel_name(int kernel, char *buf)
{
    static const char *names[] = {"hsp_bound",     "hsp_esc",       "hsp_merge",    "hsp_arrange",
                                  "hsp_bin_count", "hsp_bin_place", "hsp_row_sums", "hsp_row_scan",
                                  "hsp_esc_rows", "hsp_dense_count", "hsp_dense",
                                  "hsp_hash_rows", "hsp_hash", "hsp_sa_diag", "hsp_sa_strong",
                                  "hsp_mis_init", "hsp_mis_rekey", "hsp_mis_max", "hsp_mis_update",
                                  "hsp_mis_rounds", "hsp_mis_symmetric", "hsp_agg_near",
                                  "hsp_agg_far", "hsp_zero_ints", "hsp_count_ints", "hsp_agg_weights", "hsp_widen",
                                  "hsp_sa_tentative", "hsp_sa_smooth", "hsp_tr_scatter", "hsp_identity", "hsp_numeric",
                                  "hsp_tr_values", "hsp_same_pattern", "hsp_numeric_rows", "hsp_rmerge",
                                  "hsp_hash_rows_count", "hsp_hash_count", "hsp_part_scan", "hsp_bin_scan",
                                  "hsp_arrange_rows", "hsp_spmm", "hsp_spmm_lanes",
                                  "hsp_spmm_gather", "hsp_lz_start", "hsp_lz_multiply", "hsp_lz_orthogonalize",
                                  "hsp_lz_advance", "hsp_lz_sum", "hsp_bm_rows", "hsp_bm_bits", "hsp_bm_count",
                                  "hsp_bm_fill"};
    if (kernel < GK_HEAP) return names[kernel];
    snprintf(buf, 24, "hsp_heap_%d", kernel - GK_HEAP);
    return buf;
}
