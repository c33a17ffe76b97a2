/* gpu_spmm.c: C = alpha A B + beta C (hsp_spmm) on a GPU device, by
 * kernels/spmm.cl: A's arrays, and the spans of B's and C's entries, go to
 * the device (or are used in place where it reads host arrays; a prepared
 * A's and resident B's and C's are there already), one launch makes C
 * (where A has long rows, their pieces are work-groups of that launch, or
 * a launch before it), and C's span comes back unless C is
 * resident.  Where B and C are the host's and the back end can move data
 * beside its launches, C is made by blocks instead: each block's launch waits only for the part of B its rows
 * reach, and comes back while the next blocks run (FastSpMM's streams,
 * Ortega et al. 2014). */
#include <string.h>
#include "spmm/ellr.h"
#include "device/gpu.h"
#include "core/internal.h"
#include "spmm/gpu_spmm.h"

/* The arrays of one launch: A's (hsp_ellr_arrays' order), then B's and C's. */
enum { ARR_B = HSP_ELLR_ARRAYS, ARR_C, NARR };

/* A's arrays on the device in a[0..HSP_ELLR_ARRAYS) : those held where A
 * was prepared on this device, else copies of the host's in the job's
 * arrays (or the host's themselves where the device reads host arrays). */
static hsp_status place_rows(gpu *g, const struct hsp_ellr *A, void *held, const gpu_array **a)
{
    const void *host[HSP_ELLR_ARRAYS];
    size_t bytes[HSP_ELLR_ARRAYS];
    hsp_status s = HSP_OK;
    hsp_ellr_arrays(A, host, bytes);
    for (int k = 0; k < HSP_ELLR_ARRAYS && s == HSP_OK; k++) {
        s = held ? HSP_OK : gpu_upload(g, GA_SPMM_A + k, bytes[k] ? host[k] : NULL, bytes[k]);
        a[k] = held ? &((gpu_held *)held)->a[k] : &g->a[GA_SPMM_A + k];
    }
    return s;
}

/* Does M's span hold bytes between its rows (row-major) or columns that are
 * not M's?  A C of such a span goes to the device whatever beta, so that
 * what comes back leaves them as they were. */
static int has_gaps(const hsp_dense *M)
{
    return M->order == HSP_ROW_MAJOR ? M->ld > M->ncols && M->nrows > 1 : M->ld > M->nrows && M->ncols > 1;
}

/* Dense operand M's array on the device: held, else the job's array which
 * (the host's M copied there when send) where the device reads host arrays
 * is M's own. */
static hsp_status place_dense(gpu *g, int which, const hsp_dense *M, void *held, int send, const gpu_array **a)
{
    *a = held ? &((gpu_held *)held)->a[0] : &g->a[which];
    return held ? HSP_OK : gpu_upload(g, which, send || g->host_arrays ? M->values : NULL, hsp_dense_bytes(M));
}

/* A's entries that one work-item sums at most before a second shares each
 * entry of C (see lanes_for). */
enum { LANE_ENTRIES = 64, MAX_LANES = 32 };

/* The work-items an entry of C: one, doubled while A's longest row (known
 * where A was prepared; at most skip entries, longer rows going by pieces)
 * passes LANE_ENTRIES a work-item, at most MAX_LANES and the work-group's
 * size: a hub of thousands of entries (rmat) held up its work-items and
 * every other row's behind them.  For one column of CSR, doubled too while
 * the mean row passes HSP_ELLR_LANE_MEAN entries a work-item (twice as
 * fast there: doc/performance.md, "Figures behind the code"). */
static int32_t lanes_for(const struct hsp_ellr *A, size_t size, int32_t ncols, int64_t skip)
{
    int32_t lanes = 1;
    int64_t width = A->width < skip ? A->width : skip;
    while (lanes < MAX_LANES && (size_t)lanes < size && (int64_t)lanes * LANE_ENTRIES < width) lanes *= 2;
    while (ncols == 1 && A->rowptr && lanes < MAX_LANES && (int64_t)lanes * HSP_ELLR_LANE_MEAN * A->nrows < A->nnz)
        lanes *= 2;
    return lanes;
}

/* The work-groups of the launch, and their size: entries of C in order (by
 * pairs along rows), or, with lanes along rows, whole rows of lanes x ncols
 * items (lanes halved till a row fits the work-group). */
static size_t groups_of(int32_t nrows, int32_t ncols, int along_rows, int32_t *lanes, size_t *size)
{
    while (along_rows && *lanes > 1 && (size_t)*lanes * (size_t)ncols > *size) *lanes /= 2;
    if (*lanes > 1 && along_rows) {
        size_t per = (size_t)*lanes * (size_t)ncols, rows = *size / per;
        *size = rows * per;
        return ((size_t)nrows + rows - 1) / rows;
    }
    int64_t items = (int64_t)nrows * (along_rows && *lanes == 1 ? (ncols + 1) / 2 : ncols) * *lanes;
    return (size_t)((items + (int64_t)*size - 1) / (int64_t)*size);
}

/* The device's counts of each long row's pieces done, for nlong rows: the
 * kernel leaves them 0; zeroed where the array is made (or grown), so that
 * a prepared A stays read-only. */
static hsp_status pieces_done(gpu *g, int dbl, int32_t nlong)
{
    gpu_array *x = &g->a[GA_SPMM_DONE];
    size_t bytes = (size_t)nlong * sizeof(int32_t);
    if (x->owned && bytes <= x->bytes) return HSP_OK;
    hsp_status s = gpu_reserve(g, GA_SPMM_DONE, bytes);
    int64_t n = (int64_t)(x->bytes / sizeof(int32_t));
    gpu_arg zero[] = {gpu_val(&n, sizeof n), gpu_array_arg(x)};
    if (s == HSP_OK && (s = gpu_launch_items(g, dbl, GK_ZERO_INTS, zero, 2, n)) != HSP_OK)
        gpu_release(g, GA_SPMM_DONE); /* not zeroed: made anew next time */
    return s;
}

/* Room for the sums of A's long rows' pieces of ncols columns (GA_SPMM_P),
 * and their counts. */
static hsp_status pieces_room(gpu *g, const struct hsp_ellr *A, int32_t ncols)
{
    int dbl = A->precision == HSP_DOUBLE;
    size_t vs = dbl ? sizeof(double) : sizeof(float);
    hsp_status s = gpu_reserve(g, GA_SPMM_P, (size_t)A->npieces * (size_t)ncols * vs);
    return s == HSP_OK ? pieces_done(g, dbl, A->nlong) : s;
}

/* The arguments of the kernels that make A's long rows' pieces
 * (HSP_SPMM_KERNEL_PIECES in spmm.cl: npieces of them, piece their length,
 * their arrays from pieces_at in A's index) into p. */
static void piece_args(gpu *g, const struct hsp_ellr *A, const int32_t *npieces, const int64_t *piece,
                       const int64_t *pieces_at, gpu_arg p[6])
{
    p[0] = gpu_val(npieces, sizeof *npieces), p[1] = gpu_val(piece, sizeof *piece);
    p[2] = gpu_val(&A->nlong, sizeof A->nlong), p[3] = gpu_val(pieces_at, sizeof *pieces_at);
    p[4] = gpu_array_arg(&g->a[GA_SPMM_DONE]), p[5] = gpu_array_arg(&g->a[GA_SPMM_P]);
}

/* The work-items a column of a piece, as spmm.cl's piece_lanes: at most
 * PIECE_LANES, cols of them at most the group's size.  32 (8 entries each
 * of a piece of 256) where 128 had left most of a piece's work-items idle
 * at L = 1: on an H200 the kernel 0.0147-0.0162 -> 0.0143-0.0149 ms on
 * rmat:16,8, 0.032-0.033 -> 0.028-0.029 on rmat:18,8 (doc/performance.md). */
enum { PIECE_LANES = 32 };
static int64_t piece_lanes(int64_t cols, int64_t size)
{
    int64_t lanes = 1;
    while (lanes < PIECE_LANES && lanes * 2 * cols <= size) lanes *= 2;
    return lanes;
}

/* The pieces a work-group of size takes for ncols columns where it takes
 * several (as spmm.cl's pieces_a_group): size / (lanes x cols). */
static int64_t pieces_a_group(int32_t ncols, size_t size)
{
    int64_t group = (int64_t)size, cols = ncols < group ? ncols : group;
    return group / (piece_lanes(cols, group) * cols);
}

/* The work-groups that npieces pieces take, per a group. */
static size_t piece_groups(int32_t npieces, int64_t per)
{
    return (size_t)((npieces + per - 1) / per);
}

/* The pieces of A's rows of more than skip entries: all of them, or where
 * A's rows are by length (longest first) those of its first long rows. */
static int32_t pieces_past(const struct hsp_ellr *A, int64_t skip)
{
    int32_t lo = 0, hi = A->nlong; /* the first long row of skip entries or fewer: lo */
    if (!A->order) return (int32_t)A->npieces;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (hsp_ellr_count(A, A->long_row[mid]) > skip) lo = mid + 1;
        else hi = mid;
    }
    return A->long_first[lo];
}

/* Rows of more entries than this go by pieces in a launch of ncols columns
 * of C: A's long rows, but where A's rows are by length (so that the rows
 * past any bound come first, and their pieces too) and C has WIDE_COLUMNS
 * columns or more, those of up to LANE_ENTRIES go with the short ones (on
 * an H200 rmat:16,8's kernel at L = 32 0.0349 ms -> 0.0323; at L = 8 slower,
 * 0.0185 -> 0.0211: doc/performance.md). */
enum { WIDE_COLUMNS = 32 };
static int64_t launch_skip(const struct hsp_ellr *A, int32_t ncols)
{
    int64_t most = A->order && ncols >= WIDE_COLUMNS ? LANE_ENTRIES : 0;
    return A->long_entries > most ? A->long_entries : most;
}

/* A's rows of more than skip entries (CSR) into C by a launch of their own:
 * their pieces (a work-group each, or several where C has a column or two),
 * whose sums (in GA_SPMM_P) the piece that finishes a row adds up. */
static hsp_status long_rows(gpu *g, const struct hsp_ellr *A, double alpha, double beta, const hsp_dense *B,
                            const hsp_dense *C, const gpu_array *const *a, int64_t skip)
{
    int dbl = A->precision == HSP_DOUBLE;
    size_t vs = dbl ? sizeof(double) : sizeof(float), size = gpu_group_size(g, dbl, GK_SPMM_PIECES, 256);
    int32_t ncols = C->ncols, npieces = pieces_past(A, skip);
    int64_t piece = HSP_ELLR_PIECE, bs[2], cs[2];
    float alpha_f = (float)alpha, beta_f = (float)beta;
    hsp_dense_steps(B, bs), hsp_dense_steps(C, cs);
    int32_t ordered = A->order != NULL;
    int64_t order_at = hsp_ellr_order_at(A), pieces_at = hsp_ellr_pieces_at(A);
    gpu_arg args[22] = {gpu_val(&ncols, sizeof ncols), gpu_array_arg(a[0]), gpu_array_arg(a[1]), gpu_array_arg(a[2]),
                        gpu_array_arg(a[ARR_B]), gpu_val(&bs[0], sizeof bs[0]), gpu_val(&bs[1], sizeof bs[1]),
                        gpu_array_arg(a[ARR_C]), gpu_val(&cs[0], sizeof cs[0]), gpu_val(&cs[1], sizeof cs[1]),
                        gpu_val(dbl ? (const void *)&alpha : &alpha_f, vs),
                        gpu_val(dbl ? (const void *)&beta : &beta_f, vs), gpu_array_arg(a[3]),
                        gpu_val(&order_at, sizeof order_at), gpu_val(&ordered, sizeof ordered)};
    piece_args(g, A, &npieces, &piece, &pieces_at, args + 15);
    args[21] = gpu_local(size * vs);
    size_t groups = piece_groups(npieces, pieces_a_group(ncols, size));
    return g->ops->launch(g, dbl, GK_SPMM_PIECES, args, 22, groups, size);
}

/* The work-items of a work-group of hsp_spmm_both: rmat:16,8 took 10-17%
 * longer with 256, rmat:14,8 at L = 32 30% longer with 64, on an H200
 * (doc/performance.md, "Figures behind the code"). */
enum { BOTH_GROUP = 128 };

/* Do the other rows' work-groups of hsp_spmm_both go before the long rows'
 * pieces'?  Where a row's work-item (lanes an entry, rows of up to skip
 * entries) walks more entries than a piece's (the group's size, cols
 * columns a pass, lanes a column as in spmm_pieces): the part that takes
 * the longer starts at once.  rmat:16,8 on an H200: at L = 8 0.030-0.031
 * ms against 0.036-0.037 with the pieces first, at L = 32 0.059-0.062
 * against 0.051 (doc/performance.md). */
static int32_t rows_first(int64_t skip, int32_t lanes, int32_t ncols, size_t size)
{
    int64_t group = (int64_t)size, cols = ncols < group ? ncols : group;
    return HSP_ELLR_PIECE / piece_lanes(cols, group) < skip / lanes;
}

/* The launch of hsp_spmm or hsp_spmm_lanes (its arguments args, nrows x
 * ncols entries of C along rows, rows of up to skip entries, lanes
 * work-items an entry: 1 takes pairs) with A's long rows' pieces as
 * work-groups of the same launch (hsp_spmm_both; hsp_spmm_both_narrow
 * where a work-group takes several pieces): one launch, where two took
 * rmat:16,8 5-22% longer at L = 1 and 32 on an H200 (doc/performance.md). */
static hsp_status with_pieces(gpu *g, const struct hsp_ellr *A, const gpu_arg *args,
                              int32_t nrows, int32_t ncols, int64_t skip, int32_t lanes)
{
    int dbl = A->precision == HSP_DOUBLE;
    int kernel = pieces_a_group(ncols, BOTH_GROUP) > 1 ? GK_SPMM_BOTH_NARROW : GK_SPMM_BOTH;
    size_t vs = dbl ? sizeof(double) : sizeof(float), size = gpu_group_size(g, dbl, kernel, BOTH_GROUP);
    int32_t npieces = pieces_past(A, skip);
    int64_t piece = HSP_ELLR_PIECE;
    size_t groups = groups_of(nrows, ncols, 1, &lanes, &size);
    int64_t per = kernel == GK_SPMM_BOTH ? 1 : pieces_a_group(ncols, size);
    int32_t first = rows_first(skip, lanes, ncols, size);
    int64_t pieces_at = hsp_ellr_pieces_at(A);
    gpu_arg both[31];
    memcpy(both, args, 22 * sizeof *args);
    piece_args(g, A, &npieces, &piece, &pieces_at, both + 22);
    both[28] = gpu_val(&lanes, sizeof lanes), both[29] = gpu_val(&first, sizeof first);
    both[30] = gpu_local(size * vs);
    return g->ops->launch(g, dbl, kernel, both, 31, piece_groups(npieces, per) + groups, size);
}

/* A block of C: rows [row0, row0 + nrows) and columns [col0, col0 + ncols). */
typedef struct {
    int64_t row0, col0;
    int32_t nrows, ncols;
} spmm_block;

/* One launch over block k of C's entries, along its rows where B is
 * row-major; a: A's arrays (hsp_ellr_arrays' order), then B's and C's
 * (a[ARR_B], a[ARR_C]); rows of more than skip entries (A's long rows,
 * where skip is not INT64_MAX: k is the whole of C) made by their pieces,
 * in the same launch where a work-item takes a pair along C's rows and the
 * device compiles that (not g->pieces_apart), else in a launch before. */
static hsp_status launch(gpu *g, const struct hsp_ellr *A, const hsp_dense *B, double alpha, double beta,
                         const hsp_dense *C, const gpu_array *const *a, int64_t skip, spmm_block k)
{
    int dbl = A->precision == HSP_DOUBLE;
    size_t vs = dbl ? sizeof(double) : sizeof(float), size = gpu_group_size(g, dbl, GK_SPMM_LANES, 256);
    int32_t nrows = k.nrows, ncols = k.ncols, along_rows = B->order == HSP_ROW_MAJOR;
    if (!nrows || !ncols) return HSP_OK; /* before groups_of, which divides by a row's work-items */
    int32_t lanes = lanes_for(A, size, ncols, skip), lengths = A->len != NULL, ordered = A->order != NULL;
    int64_t step = hsp_ellr_step(A), order_at = hsp_ellr_order_at(A), bs[2], cs[2];
    size_t groups = groups_of(nrows, ncols, along_rows, &lanes, &size);
    float alpha_f = (float)alpha, beta_f = (float)beta;
    hsp_dense_steps(B, bs), hsp_dense_steps(C, cs);
    gpu_arg args[] = {gpu_val(&nrows, sizeof nrows), gpu_val(&ncols, sizeof ncols), gpu_val(&k.row0, sizeof k.row0),
                      gpu_val(&k.col0, sizeof k.col0), gpu_val(&along_rows, sizeof along_rows),
                      gpu_val(&step, sizeof step), gpu_array_arg(a[0]), gpu_array_arg(a[1]), gpu_array_arg(a[2]),
                      gpu_array_arg(a[ARR_B]), gpu_val(&bs[0], sizeof bs[0]), gpu_val(&bs[1], sizeof bs[1]),
                      gpu_array_arg(a[ARR_C]), gpu_val(&cs[0], sizeof cs[0]), gpu_val(&cs[1], sizeof cs[1]),
                      gpu_val(dbl ? (const void *)&alpha : &alpha_f, vs), gpu_val(dbl ? (const void *)&beta : &beta_f, vs),
                      gpu_val(&lengths, sizeof lengths), gpu_val(&skip, sizeof skip), gpu_array_arg(a[3]),
                      gpu_val(&order_at, sizeof order_at), gpu_val(&ordered, sizeof ordered),
                      gpu_val(&lanes, sizeof lanes), gpu_local(size * vs)};
    if (skip != INT64_MAX && along_rows && !g->pieces_apart)
        return with_pieces(g, A, args, nrows, ncols, skip, lanes);
    hsp_status s = skip != INT64_MAX ? long_rows(g, A, alpha, beta, B, C, a, skip) : HSP_OK;
    if (s != HSP_OK) return s;
    return lanes > 1 ? g->ops->launch(g, dbl, GK_SPMM_LANES, args, 24, groups, size)
                     : g->ops->launch(g, dbl, GK_SPMM, args, 22, groups, size);
}

/* The whole of C as one block. */
static spmm_block whole(const hsp_dense *C)
{
    return (spmm_block){0, 0, C->nrows, C->ncols};
}

/* The blocks C is made in: asked (0: one), at most C's rows (row-major) or
 * columns; 1 where the transfers cannot go beside the launches (or A has
 * long rows, whose sums come after all its rows, or its rows are in an
 * order of their own, not C's). */
static int count_blocks(const gpu *g, const struct hsp_ellr *A, const hsp_dense *C, void *const held[3], int asked)
{
    if (!g->beside || held[1] || held[2] || A->nlong || A->order || asked < 2) return 1;
    int32_t most = C->order == HSP_ROW_MAJOR ? C->nrows : C->ncols;
    return asked < most ? asked : most;
}

/* Block k of n of C: its rows (row-major) or columns cut evenly. */
static spmm_block block_of(const hsp_dense *C, int k, int n)
{
    int64_t outer = C->order == HSP_ROW_MAJOR ? C->nrows : C->ncols;
    int64_t lo = outer * k / n, hi = outer * (k + 1) / n;
    return C->order == HSP_ROW_MAJOR ? (spmm_block){lo, 0, (int32_t)(hi - lo), C->ncols}
                                     : (spmm_block){0, lo, C->nrows, (int32_t)(hi - lo)};
}

/* The byte of M's array where entry (i, j) begins. */
static size_t byte_of(const hsp_dense *M, int64_t i, int64_t j)
{
    int64_t step[2];
    hsp_dense_steps(M, step);
    return (size_t)(i * step[0] + j * step[1]) * hsp_value_size(M->precision);
}

/* The bytes of B block k's launch reads: B's span up to the last column of
 * the block and the last row of B its rows of A reach (every row of B where
 * A's reach is not known). */
static size_t b_needed(const struct hsp_ellr *A, const hsp_dense *B, spmm_block k)
{
    int64_t rows = A->reach ? A->reach[(k.row0 + k.nrows - 1) / HSP_ELLR_REACH] : B->nrows;
    return rows ? byte_of(B, rows - 1, k.col0 + k.ncols - 1) + hsp_value_size(B->precision) : 0;
}

/* The span of block k in C's array, from *lo (bytes). */
static size_t c_span(const hsp_dense *C, spmm_block k, size_t *lo)
{
    *lo = byte_of(C, k.row0, k.col0);
    return byte_of(C, k.row0 + k.nrows - 1, k.col0 + k.ncols - 1) + hsp_value_size(C->precision) - *lo;
}

/* Block b of C brought back from the device. */
static hsp_status get_block(gpu *g, hsp_dense *C, spmm_block b)
{
    size_t lo, bytes = c_span(C, b, &lo);
    return gpu_get(g, GA_SPMM_C, lo, (char *)C->values + lo, bytes);
}

/* C by n blocks, B and C the host's: block k's part of B and C (where
 * read) put beside the launches, its launch, then block k - 1 brought back,
 * so that the transfers of one block overlap the others' work. */
static hsp_status by_blocks(gpu *g, const struct hsp_ellr *A, const hsp_dense *B, double alpha, double beta,
                            hsp_dense *C, const gpu_array **a, int n)
{
    hsp_status s = gpu_reserve(g, GA_SPMM_B, hsp_dense_bytes(B));
    if (s == HSP_OK) s = gpu_reserve(g, GA_SPMM_C, hsp_dense_bytes(C));
    a[ARR_B] = &g->a[GA_SPMM_B], a[ARR_C] = &g->a[GA_SPMM_C];
    size_t sent = 0, lo, bytes;
    for (int k = 0; k < n && s == HSP_OK; k++) {
        spmm_block b = block_of(C, k, n);
        size_t need = b_needed(A, B, b);
        if (need > sent) s = gpu_put(g, GA_SPMM_B, sent, (const char *)B->values + sent, need - sent), sent = need;
        if (s == HSP_OK && (beta != 0 || has_gaps(C)))
            bytes = c_span(C, b, &lo), s = gpu_put(g, GA_SPMM_C, lo, (const char *)C->values + lo, bytes);
        if (s == HSP_OK) s = launch(g, A, B, alpha, beta, C, a, INT64_MAX, b);
        if (s == HSP_OK && k > 0) s = get_block(g, C, block_of(C, k - 1, n));
    }
    return s == HSP_OK ? get_block(g, C, block_of(C, n - 1, n)) : s;
}

static hsp_status gpu_spmm(hsp_device *dev, const struct hsp_ellr *A, const hsp_dense *B, double alpha, double beta,
                           hsp_dense *C, void *const held[3], int *blocks)
{
    gpu *g = dev->state;
    const gpu_array *a[NARR];
    if (A->precision == HSP_DOUBLE && !g->fp64)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "device %s has no double precision (%s): use float or another device",
                        dev->description, g->no_fp64);
    /* every call ends with its work done; where host arrays are mapped, the
     * last call's may be gone (a wait on the empty queue costs microseconds
     * only: doc/performance.md, "Figures behind the code") */
    hsp_status s = g->ops->unmap_host ? g->ops->finish(g) : HSP_OK;
    if (g->ops->unmap_host) g->ops->unmap_host(g, NULL);
    if (s == HSP_OK) s = place_rows(g, A, held[0], a);
    int n = count_blocks(g, A, C, held, *blocks);
    *blocks = n > 1 ? n : g->host_arrays || (held[1] && held[2]) ? 0 : 1; /* by blocks; whole; nothing moved */
    if (s == HSP_OK && n > 1) return gpu_noted(dev, by_blocks(g, A, B, alpha, beta, C, a, n));
    if (s == HSP_OK) s = place_dense(g, GA_SPMM_B, B, held[1], 1, &a[ARR_B]);
    if (s == HSP_OK) s = place_dense(g, GA_SPMM_C, C, held[2], beta != 0 || has_gaps(C), &a[ARR_C]);
    if (s == HSP_OK && A->nlong && C->ncols) s = pieces_room(g, A, C->ncols);
    if (s == HSP_OK) s = launch(g, A, B, alpha, beta, C, a, A->nlong ? launch_skip(A, C->ncols) : INT64_MAX, whole(C));
    if (s == HSP_OK && !held[2]) s = gpu_download(g, GA_SPMM_C, C->values, hsp_dense_bytes(C));
    if (s == HSP_OK && held[2]) s = g->ops->finish(g); /* C is done when the call returns */
    return gpu_noted(dev, s);
}

const hsp_spmm_device gpu_spmm_device = {gpu_spmm};
