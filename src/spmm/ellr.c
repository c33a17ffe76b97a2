/* ellr.c: hsp_ellr, a sparse matrix prepared for SpMM: checked once, its
 * rows copied into sliced ELLPACK-R (FastSpMM's ELLPACK-R: Ortega et al. 2014, by
 * slices of HSP_ELLR_SLICE rows, each padded to its own longest row), or into CSR
 * where that padding would cost more than HSP_ELLR_MAX_PADDING times the
 * entries or the context's device is the CPU threads, whose row kernels
 * read CSR faster (doc/library.md, "Sparse times dense"); on a GPU device
 * with a copy in CSR beside it for row-major B of several columns (of
 * ELLPACK-R; of CSR with long rows, its rows by length); on the CPU threads
 * with a copy of its rows by length where by_length_pays. */
#include <stdlib.h>
#include <string.h>
#include "device/context.h"
#include "spmm/ellr.h"
#include "spmm/spmm_device.h"
#include "spmm/spmm.h"
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
        if (step == 1) { /* CSR: the row in two runs */
            memcpy(col + at, A->colidx + first, (size_t)n * sizeof *col);
            memcpy(val + at * vs, (const char *)A->values + first * vs, (size_t)n * vs);
            continue;
        }
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
    if (csr) /* every slot written: on huge pages where large (hsp_alloc) */
        E->own[2] = hsp_alloc((slots ? slots : 1) * sizeof(int32_t)), E->own[3] = hsp_alloc((slots ? slots : 1) * vs);
    else /* the padding zero */
        E->own[2] = calloc(slots ? slots : 1, sizeof(int32_t)), E->own[3] = calloc(slots ? slots : 1, vs);
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

/* E's lengths, order and long rows' arrays moved into one array, its index
 * (own[9]; ellr.h), so that a GPU's launch takes one array for them where
 * it took five (each costs NVIDIA's OpenCL 0.2-0.4 us a launch:
 * bench/opencl-launch). */
static hsp_status pack_index(hsp_ellr *E)
{
    int64_t m = E->nrows, nl = E->nlong, part[5] = {E->len ? m : 0, E->order ? m : 0, nl, nl ? nl + 1 : 0, E->npieces};
    const int32_t *from[5] = {E->len, E->order, E->long_row, E->long_first, E->piece_row};
    const int32_t **to[5] = {&E->len, &E->order, &E->long_row, &E->long_first, &E->piece_row};
    static const int owner[5] = {1, 8, 5, 6, 4}; /* own[] of each */
    int64_t n = part[0] + part[1] + part[2] + part[3] + part[4];
    if (!n) return HSP_OK;
    int32_t *index = malloc((size_t)n * sizeof *index), *at = index;
    if (!index) return hsp_fail(HSP_ERR_NOMEM, "hsp_ellr_from_csr: no memory for its index");
    for (int k = 0; k < 5; k++) {
        if (part[k]) memcpy(at, from[k], (size_t)part[k] * sizeof *at);
        *to[k] = from[k] ? at : NULL;
        free(E->own[owner[k]]), E->own[owner[k]] = NULL;
        at += part[k];
    }
    E->own[9] = index, E->index = index, E->index_n = n;
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

/* Row i's entries, counted up to cap. */
static int64_t length_to(const hsp_csr *A, int32_t i, int64_t cap)
{
    int64_t n = A->rowptr[i + 1] - A->rowptr[i];
    return n < cap ? n : cap;
}

/* Rows first .. last - 1 of A by length, longest first, lengths counted up
 * to cap, into order[first .. last - 1]: a counting sort (rows of one
 * length in A's order), its counts in at (room for cap + 2). */
static void sort_rows(const hsp_csr *A, int32_t first, int32_t last, int64_t cap, int64_t *at, int32_t *order)
{
    int64_t most = 0;
    for (int32_t i = first; i < last; i++) {
        int64_t n = length_to(A, i, cap);
        most = n > most ? n : most;
    }
    memset(at, 0, ((size_t)most + 2) * sizeof *at); /* at[most - n]: where the next row of n entries goes */
    for (int32_t i = first; i < last; i++) at[most - length_to(A, i, cap) + 1]++;
    for (int64_t k = 1; k <= most; k++) at[k] += at[k - 1];
    for (int32_t i = first; i < last; i++) order[first + at[most - length_to(A, i, cap)]++] = i;
}

/* The order of A's rows by length, longest first, among runs of window
 * rows (a row's lengths counted up to window), into E's order.  A GPU's
 * copy of an A with long rows keeps all its rows so (window INT32_MAX), so
 * that a warp's rows walk about as far (in A's order rmat's rows of 0 to 32
 * entries side by side held each warp to its longest: on an H200
 * rmat:16,8's kernel at L = 8 0.0216 ms against 0.0184 so,
 * doc/performance.md), and the rows past any bound come first; the CPU
 * threads' by runs of BY_LENGTH_WINDOW rows (by_length_pays), so that the
 * rows of C a run makes stay near each other in cache. */
static hsp_status order_by_length(const hsp_csr *A, hsp_ellr *E, int32_t window)
{
    int64_t cap = 0;
    for (int32_t i = 0; i < A->nrows; i++) cap = length_to(A, i, window) > cap ? length_to(A, i, window) : cap;
    int32_t *order = malloc((size_t)(A->nrows > 0 ? A->nrows : 1) * sizeof *order);
    int64_t *at = malloc(((size_t)cap + 2) * sizeof *at);
    E->own[8] = order, E->order = order;
    if (!order || !at) return free(at), hsp_fail(HSP_ERR_NOMEM, "hsp_ellr_from_csr: no memory for its rows' order");
    for (int64_t first = 0; first < A->nrows; first += window)
        sort_rows(A, (int32_t)first, (int32_t)(A->nrows - first > window ? first + window : A->nrows), cap, at, order);
    free(at);
    return HSP_OK;
}

/* Rows of A in SHARE_RUNS runs of SHARE_ROWS rows spread over it, their
 * first SHARE_ENTRIES entries each, looked up in the SHARE_BEFORE rows
 * before theirs (by_length_pays). */
enum { SHARE_RUNS = 64, SHARE_ROWS = 16, SHARE_ENTRIES = 64, SHARE_BEFORE = 4 };

/* Does row k of A hold column j?  (A checked: a row's columns ascend.) */
static int row_holds(const hsp_csr *A, int32_t k, int32_t j)
{
    int64_t lo = A->rowptr[k], hi = A->rowptr[k + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->colidx[mid] < j) lo = mid + 1;
        else hi = mid;
    }
    return lo < A->rowptr[k + 1] && A->colidx[lo] == j;
}

/* Does one of the SHARE_BEFORE rows before row i of A hold column j? */
static int held_before(const hsp_csr *A, int32_t i, int32_t j)
{
    for (int32_t k = i - 1; k >= 0 && k >= i - SHARE_BEFORE; k--)
        if (row_holds(A, k, j)) return 1;
    return 0;
}

/* The share of the sampled entries of A (SHARE_RUNS) whose column one of
 * the SHARE_BEFORE rows before theirs holds too: how much of B's rows that
 * a row reads its neighbours have just read. */
static double neighbours_share(const hsp_csr *A)
{
    int64_t seen = 0, shared = 0;
    for (int s = 0; s < SHARE_RUNS; s++)
        for (int32_t i = (int32_t)((int64_t)A->nrows * s / SHARE_RUNS), n = 0; n < SHARE_ROWS && i < A->nrows; i++, n++)
            for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1] && p < A->rowptr[i] + SHARE_ENTRIES; p++, seen++)
                shared += held_before(A, i, A->colidx[p]);
    return seen ? (double)shared / (double)seen : 1;
}

/* Do the CPU threads keep a copy of A's rows by length (order_by_length)
 * for C of a few columns (spmm.c's cpu_form)?  Where the rows'
 * lengths vary (a standard deviation past BY_LENGTH_SPREAD times the mean)
 * and a row shares less than BY_LENGTH_SHARED of its columns with the rows
 * before it, so that reading the rows by length costs no reuse of B's rows
 * in cache: each row's walk then ends where the branch predictor expects.
 * On this VM's Xeon (AVX-512), L = 8, 2 threads, ms, A as given / its rows
 * sorted by length in a file: wiki-Vote 0.068 / 0.052, rmat:14,8 0.113 /
 * 0.077, hep-th 0.035 / 0.022; memplus (whose rows share 48%: 0.076 /
 * 0.084) and bcsstk33 (88%: 0.217 / 0.241) were slower so; the copy as
 * kept: wiki-Vote 0.065 / 0.050, rmat:14,8 0.109 / 0.090
 * (doc/performance.md).  HSPGEMM_SPMM_BY_LENGTH=always
 * or never decides instead. */
enum { BY_LENGTH_WINDOW = 512 };
#define BY_LENGTH_SPREAD 0.3
#define BY_LENGTH_SHARED 0.3
static int by_length_pays(const hsp_csr *A)
{
    int says = hsp_spmm_forced("HSPGEMM_SPMM_BY_LENGTH");
    if (says >= 0) return says;
    if (A->nrows < 2 || !A->nnz) return 0;
    double mean = (double)A->nnz / A->nrows, squares = 0;
    for (int32_t i = 0; i < A->nrows; i++) {
        double d = (double)(A->rowptr[i + 1] - A->rowptr[i]) - mean;
        squares += d * d;
    }
    return squares / A->nrows > BY_LENGTH_SPREAD * BY_LENGTH_SPREAD * mean * mean &&
           neighbours_share(A) < BY_LENGTH_SHARED;
}

/* A (checked) prepared on the locked context into a new *out, in CSR where
 * csr_only, its rows by length among runs of window rows where window is
 * not 0 (order_by_length). */
static hsp_status prepare(hsp_context *ctx, const hsp_csr *A, int csr_only, int32_t window, hsp_ellr **out)
{
    hsp_ellr *E = calloc(1, sizeof *E);
    if (!E) return hsp_fail(HSP_ERR_NOMEM, "hsp_ellr_from_csr: no memory");
    *E = hsp_ellr_view(A);
    hsp_status s = window ? order_by_length(A, E, window) : HSP_OK;
    if (s == HSP_OK) s = build(ctx->pool, A, csr_only || window, E);
    if (s == HSP_OK && E->rowptr && ctx->device->spmm) s = cut_long_rows(E);
    if (s == HSP_OK && ctx->device->spmm && ctx->device->hold) s = find_reach(E); /* blocks need it */
    if (s == HSP_OK) s = pack_index(E);
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
        s = prepare(ctx, A, 1, (*out)->rowptr ? INT32_MAX : 0, &(*out)->csr);
    else if (s == HSP_OK && !ctx->device->spmm && by_length_pays(A)) {
        s = prepare(ctx, A, 1, BY_LENGTH_WINDOW, &(*out)->csr); /* the CPU threads' copy by length */
        if (s == HSP_ERR_NOMEM) s = HSP_OK;                       /* it only saves time: A without it */
    }
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
    if (E->csr) info->copy_bytes = info->csr_bytes + (E->csr->order ? m * (int64_t)sizeof(int32_t) : 0);
}

void hsp_ellr_free(hsp_ellr *E)
{
    if (!E) return;
    hsp_context_drop(E->ctx, E->held); /* nothing where none is held */
    hsp_ellr_free(E->csr);
    for (size_t k = 0; k < sizeof E->own / sizeof *E->own; k++) free(E->own[k]);
    free(E);
}
