/* gpu_stages.h: the pipeline's host code for a GPU device (private): its
 * stages, bins, per-row launches and long rows. */
#ifndef HSP_GPU_STAGES_H
#define HSP_GPU_STAGES_H

#include "device/gpu.h"

struct hsp_job;

/* A long row's state, laid out as kernels/common.h's hsp_longrow. */
typedef struct {
    int64_t off, hcap, roff, len, next, need;
} gpu_longrow;

/* Rows [first, first + nrows) of array rows, of up to hi products. */
typedef struct {
    int64_t hi;
    int rows;
    int64_t first, nrows;
} gpu_fill;

/* The pipeline's state on a GPU device (g->job): the product in flight and
 * the host buffers kept for the next. */
typedef struct gpu_job {
    int started;             /* its rows, slots and C~ are on the device */
    int64_t pool_used, pool_cap; /* entries of the long-row pool */
    gpu_longrow *lrows;      /* host copy of the long rows' state */
    int32_t *relaunch;       /* rows to launch again */
    int32_t *longrows;       /* long rows ordered by kernel (methods auto, dense) */
    int long_dense;          /* long rows that ESC does not take go dense, not merge */
    int64_t dense_first, dense_rows; /* those rows: entries of GA_LONGROWS */
    int32_t dense_w, dense_bw, dense_span; /* their windows' columns, the count's bitmap's, a run of windows' */
    int64_t *counts;         /* row counts read back */
    gpu_fill fill[HSP_MAX_BINS]; /* launches of hash2 rows, counted, to fill in stage 4 */
    int nfill;
    int64_t filled;          /* their rows */
} gpu_job;

/* dev->spgemm freed, and g->job with its buffers but on a lost device (the
 * device's destroy). */
void gpu_spgemm_free(hsp_device *dev);

/* The row work of stages 2 and 4 on the device (gpu_bins.c), for a
 * job->resident.all_device: bins, C~ slots, the long rows (fetched to job->bin_rows
 * and job->ub) and the sample of rows of up to most products (job->sample_u
 * and sample_shared; none if most is 0); C's row pointers in GA_CRP from the
 * row counts, and nnz(C), or, where gpu_nnz_later (a resident C whose
 * arrays at its bound take at most GPU_NNZ_LATER_BYTES), the bound that sizes
 * C's arrays (gpu_nnz_read reads the true one once C is done: one wait for
 * the queue less). */
hsp_status gpu_bin_rows(gpu *g, struct hsp_job *job, int64_t most);
hsp_status gpu_row_pointers(gpu *g, struct hsp_job *job);
int gpu_nnz_later(const struct hsp_job *job);
hsp_status gpu_nnz_read(gpu *g, struct hsp_job *job);

/* Long rows (gpu_long.c): give each its first region of the pool (room for
 * all u products where u is at most esc_max, for ESC; none for the others
 * when they go dense, which write C itself); after the queue ran,
 * grow and relaunch the rows that stopped until all are done. */
hsp_status gpu_long_start(gpu *g, struct hsp_job *job, int64_t esc_max, int dense);
hsp_status gpu_long_finish(gpu *g, struct hsp_job *job);
/* Per-row kernels (gpu_rows.c).  Launch method m's kernel over rows
 * [first, first + nrows) of the array
 * `rows` (GA_ROWS, GA_LONGROWS or GA_RELAUNCH), rows of up to hi products
 * (hi < 0: any), long rows (results in the pool) when islong. */
hsp_status gpu_launch_rows(gpu *g, struct hsp_job *job, hsp_method m, int64_t hi, int islong, int rows,
                           int64_t first, int64_t nrows);
/* Method hash2's rows (counted by gpu_launch_rows: g->fill) into C itself,
 * once GA_CRP holds C's row pointers and GA_CCOL, GA_CVAL its room. */
hsp_status gpu_fill_rows(gpu *g, struct hsp_job *job);
/* What method m's launch for rows of up to hi products (not long) is made
 * for: the table or sort size of hash and ESC, RMerge's width, else hi.
 * Rows of two bins of one class can share a launch. */
int64_t gpu_launch_class(const struct hsp_job *job, hsp_method m, int64_t hi);

/* The row kernels' first arguments (ROW_ARGS of them, above) for rows
 * [*first, *first + *nrows) of array rows: results into C~, or with fill
 * into C (its row pointers as the rows' slots). */
void gpu_row_args(gpu *g, gpu_arg *a, int rows, const int64_t *first, const int64_t *nrows, int fill);

/* Long rows by the dense method (gpu_dense.c): can the job take n long rows
 * so; count rows [first, first + n) of GA_LONGROWS (stage 3, their counts
 * into the row counts); their entries into C (stage 4, C's arrays made). */
int gpu_dense_fits(gpu *g, struct hsp_job *job, int64_t n);
hsp_status gpu_dense_count(gpu *g, struct hsp_job *job, int64_t first, int64_t n);
hsp_status gpu_dense_sums(gpu *g, struct hsp_job *job);


/* Give dev, a GPU device (device/gpu.h) its back end made, its part of the
 * pipeline (dev->spgemm): the stages, its methods per group (which can run,
 * which are exact, the defaults) and, where it holds arrays of its own, the
 * values-only steps of resident plans (gpu_plan.c). */
hsp_status gpu_spgemm_open(hsp_device *dev);

/* The values-only steps of resident plans (gpu_plan.c): spgemm_device.h's
 * numeric, same_pattern and pattern. */
hsp_status gpu_numeric(hsp_device *dev, const hsp_csr *C, const hsp_csr *A, const hsp_csr *B, void *held_a,
                       void *held_b, void *held_c);
hsp_status gpu_same_pattern(hsp_device *dev, const hsp_csr *X, void *held_x, void *held_y, int32_t *row);
hsp_status gpu_pattern(hsp_device *dev, const hsp_csr *M, void *held, void **held_pattern);

#endif
