/* ellr.c: hsp_ellr, a sparse matrix prepared for SpMM: checked once, its
 * rows copied into sliced ELLPACK-R (FastSpMM's ELLPACK-R: Ortega et al. 2014, by
 * slices of HSP_ELLR_SLICE rows, each padded to its own longest row), or into CSR
 * where that padding would cost more than HSP_ELLR_MAX_PADDING times the
 * entries or the context's device is the CPU threads, whose row kernels
 * read CSR faster (doc/library.md, "Sparse times dense"); on a GPU device
 * with a copy in CSR beside it for row-major B of several columns (of
 * ELLPACK-R; of CSR with long rows, its rows by length). */
#include <stdlib.h>
#include <string.h>
#include "device/context.h"
#include "spmm/ellr.h"
#include "spmm/spmm_device.h"
#include "core/internal.h"
#include "core/pool.h"

enum { SLICE = HSP_ELLR_SLICE, PARTS_PER_THREAD = 8 };

/* A copy job: A's rows into E's arrays, by parts of rows (E's row i is A's
 * row E->order[i] where E has an order, else row i). */
typedef struct {
    const hsp_csr *A;
    hsp_ellr *E;
    const int64_t *cut;
} ellr_fill;

/* Part p's rows of A into E's slots (hsp_ellr_first, hsp_ellr_step). */
static void fill_part(void *arg, int tid, int64_t p)
{
    const ellr_fill *f = arg;
    const hsp_csr *A = f->A;
    hsp_ellr *E = f->E;
    size_t vs = hsp_value_size(A->precision);
    int32_t *col = E->own[2], *len = E->own[1];
    char *val = E->own[3];
    int64_t step = hsp_ellr_step(E);
    (void)tid;
    for (int32_t i = (int32_t)f->cut[p]; i < f->cut[p + 1]; i++) {
        int32_t from = E->order ? E->order[i] : i;
        int64_t first = A->rowptr[from], n = A->rowptr[from + 1] - first, at = hsp_ellr_first(E, i);
        if (len) len[i] = (int32_t)n;
        for (int64_t q = 0; q < n; q++) {
            col[at + q * step] = A->colidx[first + q];
            memcpy(val + (at + q * step) * vs, (const char *)A->values + (first + q) * vs, vs);
        }
    }
}

/* Where each slice of A's rows begins in the slots (slice[nslices]: the
 * slots in all, each slice SLICE rows high and as wide as its longest row),
 * and the longest row in *width. */
static void slice_starts(const hsp_csr *A, int64_t *slice, int32_t *width)
{
    int64_t at = 0;
    *width = 0;
    for (int32_t s = 0; s * (int64_t)SLICE < A->nrows; s++) {
        int64_t w = 0;
        for (int64_t i = s * (int64_t)SLICE; i < A->nrows && i < (s + 1) * (int64_t)SLICE; i++)
            if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
        slice[s] = at, at += w * SLICE;
        if (w > *width) *width = (int32_t)w;
    }
    slice[(A->nrows + SLICE - 1) / SLICE] = at;
}

/* E's row pointers in CSR: A's, or where E has an order those of A's rows
 * in that order. */
static void csr_rows(hsp_ellr *E, const hsp_csr *A, int64_t *rowptr)
{
    if (!E->order) {
        memcpy(rowptr, A->rowptr, ((size_t)A->nrows + 1) * sizeof *rowptr);
        return;
    }
    rowptr[0] = 0;
    for (int32_t i = 0; i < A->nrows; i++)
        rowptr[i + 1] = rowptr[i] + A->rowptr[E->order[i] + 1] - A->rowptr[E->order[i]];
}

/* E's arrays for A: sliced ELLPACK-R, or CSR where its padding is too much
 * or csr_only (ELLPACK-R's padding slots, never read, hold column 0 and
 * value 0). */
static hsp_status alloc_arrays(hsp_ellr *E, const hsp_csr *A, int csr_only)
{
    size_t vs = hsp_value_size(A->precision), m = (size_t)A->nrows, nslices = (m + SLICE - 1) / SLICE;
    int64_t *slice = malloc((nslices + 1) * sizeof *slice);
    if (!slice) return hsp_fail(HSP_ERR_NOMEM, "hsp_ellr_from_csr: no memory for its slices");
    slice_starts(A, slice, &E->width);
    int csr = csr_only || (double)slice[nslices] > HSP_ELLR_MAX_PADDING * (double)A->nnz;
    size_t slots = csr ? (size_t)A->nnz : (size_t)slice[nslices];
    if (csr) free(slice), slice = NULL, E->own[0] = malloc((m + 1) * sizeof(int64_t));
    else E->own[0] = slice, E->own[1] = malloc((m ? m : 1) * sizeof(int32_t));
    E->own[2] = calloc(slots ? slots : 1, sizeof(int32_t));
    E->own[3] = calloc(slots ? slots : 1, vs);
    if (!E->own[0] || (!csr && !E->own[1]) || !E->own[2] || !E->own[3])
        return hsp_fail(HSP_ERR_NOMEM, "hsp_ellr_from_csr: no memory for %zu slots", slots);
    if (csr) csr_rows(E, A, E->own[0]);
    E->rowptr = csr ? E->own[0] : NULL, E->slice = slice;
    E->len = E->own[1], E->col = E->own[2], E->val = E->own[3];
    return HSP_OK;
}

/* A (checked) into E, its rows copied by parts on the pool. */
static hsp_status build(hsp_pool *pool, const hsp_csr *A, int csr_only, hsp_ellr *E)
{
    hsp_status s = alloc_arrays(E, A, csr_only);
    int64_t want = (int64_t)hsp_pool_size(pool) * PARTS_PER_THREAD, *cut = malloc((size_t)(want + 1) * sizeof *cut);
    if (s == HSP_OK && !cut) s = hsp_fail(HSP_ERR_NOMEM, "hsp_ellr_from_csr: no memory for its parts");
    if (s == HSP_OK) {
        ellr_fill f = {A, E, cut};
        const int64_t *rows = E->rowptr ? E->rowptr : A->rowptr; /* E's rows' entries, in its order */
        hsp_pool_chunks(pool, hsp_split_weighted(rows, A->nrows, want, cut), fill_part, &f);
    }
    free(cut);
    return s;
}

/* The entries past which a row of E is long: HSP_ELLR_LONG (HSP_ELLR_LONG_FEW
 * for few rows), or 4 times the mean row (rows of about one length are not
 * cut). */
static int64_t long_row_entries(const hsp_ellr *E)
{
    int64_t four_means = E->nrows ? 4 * E->nnz / E->nrows : 0;
    int64_t least = E->nrows < HSP_ELLR_FEW_ROWS ? HSP_ELLR_LONG_FEW : HSP_ELLR_LONG;
    return four_means > least ? four_means : least;
}

/* E's long rows (E in CSR), and their pieces of HSP_ELLR_PIECE entries (the
 * last of a row may be shorter). */
static hsp_status cut_long_rows(hsp_ellr *E)
{
    int64_t npieces = 0, most = long_row_entries(E);
    int32_t nlong = 0;
    for (int32_t i = 0; i < E->nrows; i++) {
        int64_t n = hsp_ellr_count(E, i);
        if (n > most) nlong++, npieces += (n + HSP_ELLR_PIECE - 1) / HSP_ELLR_PIECE;
    }
    if (!nlong || npieces > INT32_MAX) return HSP_OK; /* the kernels count pieces in 32 bits */
    int32_t *piece_row = malloc((size_t)npieces * sizeof *piece_row), *row = malloc((size_t)nlong * sizeof *row);
    int32_t *first = malloc((size_t)(nlong + 1) * sizeof *first);
    E->own[4] = piece_row, E->own[5] = row, E->own[6] = first;
    if (!piece_row || !row || !first)
        return hsp_fail(HSP_ERR_NOMEM, "hsp_ellr_from_csr: no memory for its long rows");
    int64_t q = 0;
    int32_t r = 0;
    for (int32_t i = 0; i < E->nrows; i++) {
        int64_t n = hsp_ellr_count(E, i);
        if (n <= most) continue;
        row[r] = i, first[r] = (int32_t)q;
        for (int64_t k = 0; k < n; k += HSP_ELLR_PIECE) piece_row[q++] = r;
        r++;
    }
    first[r] = (int32_t)q;
    E->long_entries = most, E->nlong = nlong, E->npieces = npieces, E->piece_row = piece_row;
    E->long_row = row;
    E->long_first = first;
    return HSP_OK;
}

/* E's reach (ellr.h): a row's columns ascend, so its last is its largest. */
static hsp_status find_reach(hsp_ellr *E)
{
    int64_t groups = ((int64_t)E->nrows + HSP_ELLR_REACH - 1) / HSP_ELLR_REACH;
    int32_t *reach = malloc((size_t)(groups ? groups : 1) * sizeof *reach), most = 0;
    if (!(E->own[7] = reach)) return hsp_fail(HSP_ERR_NOMEM, "hsp_ellr_from_csr: no memory for its reach");
    for (int32_t i = 0; i < E->nrows; i++) {
        int32_t last = hsp_ellr_count(E, i) ? E->col[hsp_ellr_end(E, i) - hsp_ellr_step(E)] : -1;
        if (last >= most) most = last + 1;
        if (i % HSP_ELLR_REACH == HSP_ELLR_REACH - 1 || i == E->nrows - 1) reach[i / HSP_ELLR_REACH] = most;
    }
    E->reach = reach;
    return HSP_OK;
}

/* E's arrays copied to ctx's device where it has memory of its own (the
 * context locked). */
static hsp_status hold(hsp_context *ctx, hsp_ellr *E)
{
    hsp_device *dev = ctx->device;
    const void *host[HSP_ELLR_ARRAYS];
    size_t bytes[HSP_ELLR_ARRAYS];
    E->ctx = ctx;
    if (!dev->hold) return HSP_OK;
    hsp_ellr_arrays(E, host, bytes);
    return dev->hold(dev, HSP_ELLR_ARRAYS, host, bytes, &E->held);
}

/* The check's error s, its message prefixed with the call's name. */
static hsp_status failed_check(hsp_status s)
{
    return hsp_fail(s, "hsp_ellr_from_csr: A: %s", hsp_errmsg());
}

/* The order of A's rows by length, longest first (a counting sort: rows
 * of one length in A's order), into E's order: a GPU's copy of an A with
 * long rows keeps its rows so, so that a warp's rows walk about as far (in
 * A's order rmat's rows of 0 to 32 entries side by side held each warp to
 * its longest: on an H200 rmat:16,8's kernel at L = 8 0.0216 ms against
 * 0.0184 so, doc/performance.md), and the rows past any bound come first. */
static hsp_status order_by_length(const hsp_csr *A, hsp_ellr *E)
{
    int64_t most = 0;
    for (int32_t i = 0; i < A->nrows; i++)
        most = A->rowptr[i + 1] - A->rowptr[i] > most ? A->rowptr[i + 1] - A->rowptr[i] : most;
    int32_t *order = malloc((size_t)(A->nrows > 0 ? A->nrows : 1) * sizeof *order);
    int64_t *at = calloc((size_t)most + 2, sizeof *at); /* at[most - n]: where the next row of n entries goes */
    E->own[8] = order, E->order = order;
    if (!order || !at) return free(at), hsp_fail(HSP_ERR_NOMEM, "hsp_ellr_from_csr: no memory for its rows' order");
    for (int32_t i = 0; i < A->nrows; i++) at[most - (A->rowptr[i + 1] - A->rowptr[i]) + 1]++;
    for (int64_t k = 1; k <= most; k++) at[k] += at[k - 1];
    for (int32_t i = 0; i < A->nrows; i++) order[at[most - (A->rowptr[i + 1] - A->rowptr[i])]++] = i;
    free(at);
    return HSP_OK;
}

/* A (checked) prepared on the locked context into a new *out, in CSR where
 * csr_only, its rows by length (order_by_length) where by_length. */
static hsp_status prepare(hsp_context *ctx, const hsp_csr *A, int csr_only, int by_length, hsp_ellr **out)
{
    hsp_ellr *E = calloc(1, sizeof *E);
    if (!E) return hsp_fail(HSP_ERR_NOMEM, "hsp_ellr_from_csr: no memory");
    *E = hsp_ellr_view(A);
    hsp_status s = by_length ? order_by_length(A, E) : HSP_OK;
    if (s == HSP_OK) s = build(ctx->pool, A, csr_only || by_length, E);
    if (s == HSP_OK && E->rowptr && ctx->device->spmm) s = cut_long_rows(E);
    if (s == HSP_OK && ctx->device->spmm && ctx->device->hold) s = find_reach(E); /* blocks need it */
    if (s == HSP_OK) s = hold(ctx, E);
    if (s != HSP_OK) hsp_ellr_free(E), E = NULL;
    *out = E;
    return s;
}

hsp_status hsp_ellr_from_csr(hsp_context *ctx, const hsp_csr *A, hsp_ellr **out)
{
    if (!out) return hsp_fail(HSP_ERR_ARG, "hsp_ellr_from_csr: out is NULL");
    *out = NULL;
    if (!ctx || !A) return hsp_fail(HSP_ERR_ARG, "hsp_ellr_from_csr: %s is NULL", ctx ? "A" : "ctx");
    hsp_status s = hsp_csr_check_header(A);
    if (s != HSP_OK) return failed_check(s);
    hsp_context_lock(ctx);
    s = hsp_csr_check_rows_pooled(ctx->pool, A);
    s = s == HSP_OK ? prepare(ctx, A, !ctx->device->spmm, 0, out) : failed_check(s); /* the CPU threads read CSR */
    /* a GPU's copy in CSR for row-major B of several columns: of ELLPACK-R, or of CSR with long rows by length */
    if (s == HSP_OK && ctx->device->spmm && (!(*out)->rowptr || (*out)->nlong))
        s = prepare(ctx, A, 1, (*out)->rowptr != NULL, &(*out)->csr);
    hsp_context_unlock(ctx);
    if (s != HSP_OK) hsp_ellr_free(*out), *out = NULL;
    return s;
}

void hsp_ellr_describe(const hsp_ellr *E, hsp_ellr_info *info)
{
    if (!E || !info) {
        if (info) *info = (hsp_ellr_info){0};
        hsp_fail(HSP_ERR_ARG, "hsp_ellr_describe: %s is NULL", E ? "info" : "E");
        return;
    }
    size_t vs = hsp_value_size(E->precision);
    int64_t m = E->nrows, nslices = E->rowptr ? 0 : hsp_ellr_nslices(E), slots = E->rowptr ? 0 : E->slice[nslices];
    *info = (hsp_ellr_info){E->nrows, E->ncols, E->width, E->rowptr ? 0 : SLICE, E->nnz, slots, "ellr", 0, 0, 0};
    info->csr_bytes = (m + 1) * (int64_t)sizeof(int64_t) + E->nnz * (int64_t)(sizeof(int32_t) + vs);
    info->bytes = (nslices + 1) * (int64_t)sizeof(int64_t) + m * (int64_t)sizeof(int32_t) +
                  slots * (int64_t)(sizeof(int32_t) + vs);
    if (E->rowptr) strcpy(info->format, "csr"), info->bytes = info->csr_bytes;
    if (E->csr) info->gpu_csr_bytes = info->csr_bytes + (E->csr->order ? m * (int64_t)sizeof(int32_t) : 0);
}

void hsp_ellr_free(hsp_ellr *E)
{
    if (!E) return;
    hsp_context_drop(E->ctx, E->held); /* nothing where none is held */
    hsp_ellr_free(E->csr);
    for (size_t k = 0; k < sizeof E->own / sizeof *E->own; k++) free(E->own[k]);
    free(E);
}
