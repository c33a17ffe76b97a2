/* ellr.h: a matrix's rows as the SpMM kernels read them (hsp_ellr's
 * insides): entry q of row i at first + q step, where in CSR first is
 * rowptr[i] and step 1; in sliced ELLPACK-R (slices of HSP_ELLR_SLICE rows,
 * each padded to its longest row and stored slot by slot) first is
 * slice[i / HSP_ELLR_SLICE] + i % HSP_ELLR_SLICE and step HSP_ELLR_SLICE. */
#ifndef HSP_ELLR_H
#define HSP_ELLR_H

#include "core/internal.h"

/* The rows of a slice: 8, so that on CPU threads a slice's slots of one
 * entry fill a cache line or two, where ELLPACK-R's one slice of all rows
 * spreads a row over as many streams as its entries (hspgemm spmm
 * --cols=8, 2 threads, ms, runs of this VM: poisson2d5:400 1.27-1.31
 * against 1.01-1.25 in CSR and 1.15-1.32 in one slice; random:100000,8
 * 1.42-1.51 / 1.30-1.51 / 2.29-2.35; poisson3d27:30 0.45-0.46 / 0.43-0.48 /
 * 0.70-0.71). */
#define HSP_ELLR_SLICE 8

/* In CSR prepared on a GPU device, rows of more than HSP_ELLR_LONG entries
 * (HSP_ELLR_LONG_FEW where the matrix has fewer than HSP_ELLR_FEW_ROWS
 * rows) and 4 times the mean row are long: cut into pieces of
 * HSP_ELLR_PIECE entries, a work-group each, whose sums the group that
 * finishes a row's last piece adds up (kernels/spmm.cl): one work-item's
 * walk down a row of thousands of entries (rmat's hubs) held up the whole
 * product.  Where the rows are too few to fill a GPU, the longest walk sets
 * the time, and rows past 32 are better cut: on an H200, rmat:16,8's kernel
 * at L = 1 0.015 ms against 0.022 past 64, rmat:14,8's at L = 8 0.013
 * against 0.017; rmat:18,8 (2^18 rows) was 10-28% slower so.  These limits
 * were the fastest of those tried (doc/performance.md, "Figures behind the
 * code"). */
#define HSP_ELLR_PIECE 256
#define HSP_ELLR_LONG 64
#define HSP_ELLR_LONG_FEW 32
#define HSP_ELLR_FEW_ROWS (1 << 17)

/* On a GPU, C of one column from CSR takes a work-item a row where A's
 * mean row holds at most HSP_ELLR_LANE_MEAN entries, and more (lanes,
 * doubled while the mean passes HSP_ELLR_LANE_MEAN a work-item) where it
 * holds more: gpu_spmm.c's lanes_for. */
#define HSP_ELLR_LANE_MEAN 8

/* The rows of a group of hsp_ellr's reach. */
#define HSP_ELLR_REACH 1024

struct hsp_ellr {
    int32_t nrows, ncols, width;
    int64_t nnz;
    hsp_precision precision;
    const int64_t *rowptr; /* CSR: the row pointers; ELLPACK-R: NULL */
    const int64_t *slice;  /* ELLPACK-R: where each slice's slots begin (one more at the end) */
    const int32_t *len;    /* ELLPACK-R: each row's entries; CSR: NULL */
    const int32_t *col;    /* CSR: nnz entries; ELLPACK-R: slice[nslices] slots */
    const void *val;
    int64_t long_entries;  /* CSR: rows of more entries are long (ellr.c)... */
    int32_t nlong;         /* ... and there are nlong of them */
    int64_t npieces;       /* their pieces, in row order */
    const int32_t *piece_row; /* the long row (0 .. nlong - 1) of each piece */
    const int32_t *long_row, *long_first; /* each long row, and its first piece (one more at the end) */
    const int32_t *order;  /* a copy in CSR of rows by length (csr below): row i of it is
                              row order[i] of A and of C; else NULL */
    const int32_t *index;  /* len, order and the long rows' long_row, long_first and piece_row
                              in one array, in that order (ellr.c's pack_index), NULL where
                              there are none; index_n entries */
    int64_t index_n;
    const int32_t *reach;  /* prepared on a GPU device with memory of its own: reach[g], one
                              past the largest column of rows 0 to the last of group g of
                              HSP_ELLR_REACH rows (the rows of B a block of C's rows reads);
                              else NULL */
    void *own[10];         /* the arrays it allocated (NULL for a view of a caller's CSR) */
    hsp_context *ctx;      /* the context that prepared it (NULL for a view) */
    void *held;            /* where ctx's device has memory of its own: its copy of the
                              arrays there (hsp_ellr_arrays' order), else NULL */
    struct hsp_ellr *csr;  /* prepared on a GPU device, a copy in CSR which that device
                              reads faster with row-major B of several columns (spmm.c):
                              beside ELLPACK-R, its rows as A's; beside CSR with long rows,
                              its rows by length, longest first (order; ellr.c); on the CPU
                              threads, its rows by length where that pays (ellr.c's
                              by_length_pays), for C of a few columns; else NULL */
};

/* Where row i's entries begin, and how many it has. */
static inline int64_t hsp_ellr_first(const struct hsp_ellr *a, int32_t i)
{
    return a->rowptr ? a->rowptr[i] : a->slice[i / HSP_ELLR_SLICE] + i % HSP_ELLR_SLICE;
}
static inline int64_t hsp_ellr_count(const struct hsp_ellr *a, int32_t i)
{
    return a->rowptr ? a->rowptr[i + 1] - a->rowptr[i] : a->len[i];
}
/* The distance between entries of a row. */
static inline int64_t hsp_ellr_step(const struct hsp_ellr *a)
{
    return a->rowptr ? 1 : HSP_ELLR_SLICE;
}
/* The slices of ELLPACK-R's rows. */
static inline int64_t hsp_ellr_nslices(const struct hsp_ellr *a)
{
    return ((int64_t)a->nrows + HSP_ELLR_SLICE - 1) / HSP_ELLR_SLICE;
}
/* One step past row i's last entry. */
static inline int64_t hsp_ellr_end(const struct hsp_ellr *a, int32_t i)
{
    return hsp_ellr_first(a, i) + hsp_ellr_count(a, i) * hsp_ellr_step(a);
}

/* The arrays of a, as a device holds them (rows or slices; columns;
 * values; the index: lengths, order and long rows' arrays), and their
 * bytes.  Four, where each array a launch takes costs NVIDIA's OpenCL
 * 0.2-0.4 us more (bench/opencl-launch, doc/benchmark.md). */
enum { HSP_ELLR_ARRAYS = 4 };
static inline void hsp_ellr_arrays(const struct hsp_ellr *a, const void *host[HSP_ELLR_ARRAYS],
                                   size_t bytes[HSP_ELLR_ARRAYS])
{
    int ellr = !a->rowptr;
    int64_t nslices = hsp_ellr_nslices(a), slots = ellr ? a->slice[nslices] : a->nnz;
    host[0] = ellr ? (const void *)a->slice : a->rowptr, host[1] = a->col, host[2] = a->val, host[3] = a->index;
    bytes[0] = (size_t)(ellr ? nslices + 1 : (int64_t)a->nrows + 1) * sizeof(int64_t);
    bytes[1] = (size_t)slots * sizeof(int32_t), bytes[2] = (size_t)slots * hsp_value_size(a->precision);
    bytes[3] = (size_t)a->index_n * sizeof(int32_t);
}

/* Where order, and the long rows' arrays (long_row first), begin in a's
 * index. */
static inline int64_t hsp_ellr_order_at(const struct hsp_ellr *a)
{
    return a->len ? a->nrows : 0;
}
static inline int64_t hsp_ellr_pieces_at(const struct hsp_ellr *a)
{
    return hsp_ellr_order_at(a) + (a->order ? a->nrows : 0);
}

/* A view of CSR A (its arrays, not copied). */
static inline struct hsp_ellr hsp_ellr_view(const hsp_csr *A)
{
    return (struct hsp_ellr){.nrows = A->nrows, .ncols = A->ncols, .nnz = A->nnz, .precision = A->precision,
                             .rowptr = A->rowptr, .col = A->colidx, .val = A->values};
}

#endif
