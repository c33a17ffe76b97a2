/* rows_impl.h: the per-row methods, written once and compiled per value type:
 * the including file defines VT (float or double) and RF(name), which gives
 * each function its precision's suffix.
 *
 * Every method computes row i of C = A*B into an output (o) with sorted
 * columns (dense and hash: in any order where job->unsorted), duplicates
 * summed.  Short and medium rows write into their u slots of C~, which
 * always suffice; long rows write into a growable buffer, which grows
 * (realloc or copy) the moment it is full. */
#include <string.h>
#include "spgemm/rows.h"

/* The operands of a job, typed. */
typedef struct {
    const int64_t *arp, *brp;
    const int32_t *acol, *bcol;
    const VT *aval, *bval;
    int32_t ncols;
} RF(operands);

/* Where a row's entries go; buf is NULL for rows that cannot overflow. */
typedef struct {
    int32_t *col;
    VT *val;
    int64_t cap;
    hsp_growbuf *buf;
} RF(out);

/* An entry of a row being sorted or merged. */
typedef struct {
    int32_t col;
    VT val;
} RF(pair);

/* A cursor of the heap method: the next entry of one row of B. */
typedef struct {
    int32_t col;
    int64_t pos, end;
    VT a;
} RF(cursor);

/* Make room for need entries in o, keeping its first used ones. */
static inline hsp_status RF(room)(hsp_job *job, RF(out) *o, int64_t need, int64_t used)
{
    if (need <= o->cap) return HSP_OK;
    hsp_status s = hsp_job_grow(job, o->buf, need, used);
    o->col = o->buf->col, o->val = o->buf->val, o->cap = o->buf->cap;
    return s;
}

/* Sort pairs by column (quicksort, insertion sort for short runs). */
static void RF(sort_pairs)(RF(pair) *a, int64_t n)
{
    while (n > 24) {
        int32_t pivot = a[n / 2].col;
        int64_t i = 0, j = n - 1;
        for (;;) {
            while (a[i].col < pivot) i++;
            while (a[j].col > pivot) j--;
            if (i >= j) break;
            RF(pair) t = a[i];
            a[i++] = a[j], a[j--] = t;
        }
        if (j + 1 < n - j - 1) {
            RF(sort_pairs)(a, j + 1);
            a += j + 1, n -= j + 1;
        } else {
            RF(sort_pairs)(a + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    for (int64_t i = 1; i < n; i++) {
        RF(pair) x = a[i];
        int64_t j = i;
        for (; j > 0 && a[j - 1].col > x.col; j--) a[j] = a[j - 1];
        a[j] = x;
    }
}

/* ---- heap: a k-way merge of the row's B rows ------------------------------- */

/* Restore the heap below position k. */
static inline void RF(sift_down)(RF(cursor) *h, int64_t n, int64_t k)
{
    RF(cursor) x = h[k];
    for (;;) {
        int64_t c = 2 * k + 1;
        if (c >= n) break;
        if (c + 1 < n && h[c + 1].col < h[c].col) c++;
        if (h[c].col >= x.col) break;
        h[k] = h[c];
        k = c;
    }
    h[k] = x;
}

static hsp_status RF(row_heap)(hsp_job *job, const RF(operands) *op, hsp_scratch *s, int32_t i,
                               RF(out) *o, int64_t *len_out)
{
    int64_t n = 0, len = 0, na = op->arp[i + 1] - op->arp[i];
    hsp_status st = hsp_scratch_need(&s->buf[0], &s->buf_bytes[0], (size_t)na * sizeof(RF(cursor)));
    if (st != HSP_OK) return st;
    RF(cursor) *h = s->buf[0];
    for (int64_t p = op->arp[i]; p < op->arp[i + 1]; p++) {
        int32_t k = op->acol[p];
        if (op->brp[k] < op->brp[k + 1])
            h[n++] = (RF(cursor)){op->bcol[op->brp[k]], op->brp[k], op->brp[k + 1], op->aval[p]};
    }
    for (int64_t k = n / 2 - 1; k >= 0; k--) RF(sift_down)(h, n, k);
    while (n > 0) {
        int32_t c = h[0].col;
        VT v = h[0].a * op->bval[h[0].pos];
        if (len > 0 && o->col[len - 1] == c) {
            o->val[len - 1] += v;
        } else {
            if ((st = RF(room)(job, o, len + 1, len)) != HSP_OK) return st;
            o->col[len] = c, o->val[len++] = v;
        }
        if (++h[0].pos < h[0].end) h[0].col = op->bcol[h[0].pos];
        else h[0] = h[--n];
        RF(sift_down)(h, n, 0);
    }
    *len_out = len;
    return HSP_OK;
}

/* ---- ESC: expand, sort, compress --------------------------------------------- */

static hsp_status RF(row_esc)(hsp_job *job, const RF(operands) *op, hsp_scratch *s, int32_t i,
                              RF(out) *o, int64_t *len_out)
{
    int64_t n = job->ub[i], t = 0, len = 0;
    hsp_status st = hsp_scratch_need(&s->buf[0], &s->buf_bytes[0], (size_t)n * sizeof(RF(pair)));
    if (st != HSP_OK) return st;
    RF(pair) *e = s->buf[0];
    for (int64_t p = op->arp[i]; p < op->arp[i + 1]; p++) {
        int32_t k = op->acol[p];
        for (int64_t q = op->brp[k]; q < op->brp[k + 1]; q++)
            e[t++] = (RF(pair)){op->bcol[q], op->aval[p] * op->bval[q]};
    }
    RF(sort_pairs)(e, n);
    for (t = 0; t < n; t++) {
        if (len > 0 && o->col[len - 1] == e[t].col) {
            o->val[len - 1] += e[t].val;
            continue;
        }
        if ((st = RF(room)(job, o, len + 1, len)) != HSP_OK) return st;
        o->col[len] = e[t].col, o->val[len++] = e[t].val;
    }
    *len_out = len;
    return HSP_OK;
}

/* ---- merge: each B row merged into the sorted result so far ---------------- */

/* Merge x (xn entries) with a times a row of B (bn entries) into y; return
 * the merged length. */
static int64_t RF(merge_step)(const int32_t *restrict xc, const VT *restrict xv, int64_t xn,
                              const int32_t *restrict bc, const VT *restrict bv, int64_t bn, VT a,
                              int32_t *restrict yc, VT *restrict yv)
{
    int64_t x = 0, q = 0, n = 0;
    while (x < xn && q < bn) {
        int32_t cx = xc[x], cq = bc[q];
        if (cx < cq) yc[n] = cx, yv[n++] = xv[x++];
        else if (cq < cx) yc[n] = cq, yv[n++] = a * bv[q++];
        else yc[n] = cx, yv[n++] = xv[x++] + a * bv[q++];
    }
    for (; x < xn; x++) yc[n] = xc[x], yv[n++] = xv[x];
    for (; q < bn; q++) yc[n] = bc[q], yv[n++] = a * bv[q];
    return n;
}

static hsp_status RF(row_merge)(hsp_job *job, const RF(operands) *op, hsp_scratch *s, int32_t i,
                                RF(out) *o, int64_t *len_out)
{
    int64_t len = 0, u = job->ub[i], nb = 0;
    hsp_status st = hsp_scratch_need(&s->buf[0], &s->buf_bytes[0], (size_t)u * sizeof(int32_t));
    if (st == HSP_OK)
        st = hsp_scratch_need(&s->buf[1], &s->buf_bytes[1], (size_t)u * sizeof(VT));
    if (st != HSP_OK) return st;
    for (int64_t p = op->arp[i]; p < op->arp[i + 1]; p++)
        nb += op->brp[op->acol[p] + 1] > op->brp[op->acol[p]];
    /* Rows that cannot grow merge back and forth between o and the scratch,
     * starting where the last merge ends in o; a long row keeps its result
     * in its buffer between merges, which grows when the result outgrows it. */
    int in_o = o->buf || nb % 2 == 0;
    int32_t *col[2] = {s->buf[0], o->col};
    VT *val[2] = {s->buf[1], o->val};
    for (int64_t p = op->arp[i]; p < op->arp[i + 1] && st == HSP_OK; p++) {
        int32_t k = op->acol[p];
        int64_t b0 = op->brp[k], r = op->brp[k + 1] - b0;
        if (r == 0) continue;
        int to = o->buf ? 0 : !in_o;
        int64_t n = RF(merge_step)(col[in_o], val[in_o], len, op->bcol + b0, op->bval + b0, r,
                                   op->aval[p], col[to], val[to]);
        if (o->buf) { /* copy back into the growing buffer */
            if ((st = RF(room)(job, o, n, len)) != HSP_OK) break;
            col[1] = o->col, val[1] = o->val;
            memcpy(o->col, col[0], (size_t)n * sizeof(int32_t));
            memcpy(o->val, val[0], (size_t)n * sizeof(VT));
        }
        in_o = o->buf ? 1 : to;
        len = n;
    }
    *len_out = len;
    return st;
}

/* ---- hash: open addressing on the columns, then sort ------------------------- */

static hsp_status RF(row_hash)(hsp_job *job, const RF(operands) *op, hsp_scratch *s, int32_t i,
                               RF(out) *o, int64_t *len_out)
{
    int64_t u = job->ub[i], len = 0;
    hsp_status st = hsp_scratch_hash(s, u < op->ncols ? u : op->ncols);
    if (st != HSP_OK) return st;
    int32_t *key = s->hkey;
    VT *sum = s->hval;
    uint32_t mask = (uint32_t)s->hcap - 1;
    for (int64_t p = op->arp[i]; p < op->arp[i + 1]; p++) {
        int32_t k = op->acol[p];
        VT a = op->aval[p];
        for (int64_t q = op->brp[k]; q < op->brp[k + 1]; q++) {
            int32_t c = op->bcol[q];
            uint32_t h = ((uint32_t)c * 2654435761u) & mask;
            while (key[h] != c && key[h] != -1) h = (h + 1) & mask;
            if (key[h] == c) {
                sum[h] += a * op->bval[q];
                continue;
            }
            if ((st = RF(room)(job, o, len + 1, len)) != HSP_OK) return st;
            key[h] = c, sum[h] = a * op->bval[q];
            o->col[len++] = c;
        }
    }
    if (!job->unsorted) hsp_sort_columns(o->col, len);
    for (int64_t t = 0; t < len; t++) { /* read the sums; mark the slots */
        uint32_t h = ((uint32_t)o->col[t] * 2654435761u) & mask;
        while (key[h] != o->col[t]) h = (h + 1) & mask;
        o->val[t] = sum[h];
        key[h] = -2 - key[h]; /* still full, no longer a match */
    }
    for (int64_t t = 0; t < len; t++) { /* empty the slots */
        uint32_t h = ((uint32_t)o->col[t] * 2654435761u) & mask;
        while (key[h] != -2 - o->col[t]) h = (h + 1) & mask;
        key[h] = -1;
    }
    *len_out = len;
    return HSP_OK;
}

/* The least and greatest column of row i of C (lo > hi when it is empty): the
 * ends of the row's B rows, which are sorted. */
static void RF(col_range)(const RF(operands) *op, int32_t i, int32_t *lo, int32_t *hi)
{
    *lo = INT32_MAX, *hi = -1;
    for (int64_t p = op->arp[i]; p < op->arp[i + 1]; p++) {
        int32_t k = op->acol[p];
        if (op->brp[k] == op->brp[k + 1]) continue;
        *lo = op->bcol[op->brp[k]] < *lo ? op->bcol[op->brp[k]] : *lo;
        *hi = op->bcol[op->brp[k + 1] - 1] > *hi ? op->bcol[op->brp[k + 1] - 1] : *hi;
    }
}

/* ---- dense: an accumulator over all columns, then a sort or a bitmap scan --- */

enum { SHORT_SORT = 32 }; /* rows of up to this many entries are put in order by insertion */

/* Emit the columns whose bits are set, in order, with their sums from acc,
 * clearing the bits: the words of bits from word w0 to word w1, or, with
 * top (a bit per word of bits), only the words whose top bit is set. */
static void RF(scan_bits)(uint64_t *restrict bits, uint64_t *restrict top, int32_t w0, int32_t w1,
                          const VT *restrict acc, int32_t *restrict col, VT *restrict val)
{
    int64_t t = 0;
    for (int32_t tw = w0 >> 6; top && tw <= w1 >> 6; tw++) {
        for (uint64_t y = top[tw]; y; y &= y - 1) {
            int32_t w = tw * 64 + __builtin_ctzll(y);
            for (uint64_t x = bits[w]; x; x &= x - 1) {
                int32_t c = w * 64 + __builtin_ctzll(x);
                col[t] = c, val[t++] = acc[c];
            }
            bits[w] = 0;
        }
        top[tw] = 0;
    }
    for (int32_t w = w0; !top && w <= w1; w++) {
        for (uint64_t x = bits[w]; x; x &= x - 1) {
            int32_t c = w * 64 + __builtin_ctzll(x);
            col[t] = c, val[t++] = acc[c];
        }
        bits[w] = 0;
    }
}

/* Put the row's len columns in order (unless unsorted), with their sums
 * from acc: by insertion when there are few; else from a bitmap of them,
 * scanned word by word when they fill enough of their span, through a
 * second level of bits (a bit per word) when they fill enough of that; else
 * by a sort. */
static void RF(order)(const RF(operands) *op, int32_t i, int32_t *restrict col, VT *restrict val, int64_t len,
                      const VT *restrict acc, uint64_t *restrict bits, uint64_t *restrict top, int unsorted)
{
    if (unsorted) {
        for (int64_t t = 0; t < len; t++) val[t] = acc[col[t]];
        return;
    }
    int32_t lo = INT32_MAX, hi = -1;
    if (len > SHORT_SORT) RF(col_range)(op, i, &lo, &hi);
    int words = len > SHORT_SORT && (hi >> 6) - (lo >> 6) < 2 * len;
    if (len > SHORT_SORT && (words || (hi >> 12) - (lo >> 12) < 2 * len)) {
        for (int64_t t = 0; t < len; t++) {
            bits[col[t] >> 6] |= (uint64_t)1 << (col[t] & 63);
            if (!words) top[col[t] >> 12] |= (uint64_t)1 << ((col[t] >> 6) & 63);
        }
        RF(scan_bits)(bits, words ? NULL : top, lo >> 6, hi >> 6, acc, col, val);
        return;
    }
    if (len > SHORT_SORT) {
        hsp_sort_columns(col, len);
    } else {
        for (int64_t t = 1; t < len; t++) {
            int32_t x = col[t];
            int64_t j = t;
            for (; j > 0 && col[j - 1] > x; j--) col[j] = col[j - 1];
            col[j] = x;
        }
    }
    for (int64_t t = 0; t < len; t++) val[t] = acc[col[t]];
}

/* growable is a constant where this is inlined: rows that cannot outgrow
 * their place (short and medium) get a loop without the room check.  A
 * column is new to the row while its mark is not the row's tag.  The
 * accumulator and the marks cover B's columns (hsp_rows_run). */
static inline __attribute__((always_inline)) hsp_status RF(dense)(hsp_job *job, const RF(operands) *op, hsp_scratch *s, int32_t i,
                                   RF(out) *o, int64_t *len_out, const int growable)
{
    hsp_status st = HSP_OK;
    VT *restrict acc = s->acc;
    uint32_t *restrict mark = s->mark, tag = hsp_scratch_tag(s);
    const int64_t *restrict brp = op->brp;
    const int32_t *restrict bcol = op->bcol;
    const VT *restrict bval = op->bval;
    int32_t *restrict col = o->col;
    int64_t len = 0, cap = o->cap, end = op->arp[i + 1];
    for (int64_t p = op->arp[i]; p < end && st == HSP_OK; p++) {
        int32_t k = op->acol[p];
        int64_t qend = brp[k + 1];
        VT a = op->aval[p];
        for (int64_t q = brp[k]; q < qend; q++) {
            int32_t c = bcol[q];
            if (__builtin_expect(mark[c] == tag, 1)) { /* most products add to a column seen before */
                acc[c] += a * bval[q];
                continue;
            }
            if (growable && len == cap) {
                if ((st = RF(room)(job, o, len + 1, len)) != HSP_OK) break;
                col = o->col, cap = o->cap;
            }
            mark[c] = tag;
            acc[c] = a * bval[q];
            col[len++] = c;
        }
    }
    if (st == HSP_OK) RF(order)(op, i, col, o->val, len, acc, s->bits, s->top, job->unsorted);
    *len_out = len;
    return st;
}

static hsp_status RF(row_dense)(hsp_job *job, const RF(operands) *op, hsp_scratch *s, int32_t i,
                                RF(out) *o, int64_t *len_out)
{
    return o->buf ? RF(dense)(job, op, s, i, o, len_out, 1) : RF(dense)(job, op, s, i, o, len_out, 0);
}

/* ---- rows of a chunk ---------------------------------------------------------------- */

static RF(operands) RF(operands_of)(const hsp_job *job)
{
    return (RF(operands)){job->A->rowptr, job->B->rowptr, job->A->colidx, job->B->colidx,
                          job->A->values, job->B->values, job->B->ncols};
}

/* The one product of row i (whose u is 1) into col and val. */
static void RF(single)(const RF(operands) *op, int32_t i, int32_t *col, VT *val)
{
    for (int64_t p = op->arp[i]; p < op->arp[i + 1]; p++) {
        int64_t q = op->brp[op->acol[p]];
        if (q == op->brp[op->acol[p] + 1]) continue;
        *col = op->bcol[q], *val = op->aval[p] * op->bval[q];
        return;
    }
}

void RF(hsp_rows_single)(hsp_job *job, int64_t first, int64_t last)
{
    RF(operands) op = RF(operands_of)(job);
    for (int64_t k = first; k < last; k++) {
        int32_t i = job->bin_rows[k];
        int64_t slot = job->slot[i];
        RF(single)(&op, i, job->tmp_col + slot, (VT *)job->tmp_val + slot);
        job->C->rowptr[i + 1] = 1;
    }
}

/* Row i by method m (a switch, so that the compiler can inline the
 * methods); auto merges a row whose product falls in a narrow band of
 * columns (span < 4 u) and accumulates any other densely. */
static inline hsp_status RF(row)(hsp_method m, hsp_job *job, const RF(operands) *op,
                                 hsp_scratch *s, int32_t i, RF(out) *o, int64_t *len)
{
    if (m == HSP_METHOD_AUTO) {
        int32_t lo, hi;
        RF(col_range)(op, i, &lo, &hi);
        m = (int64_t)hi - lo < 4 * job->ub[i] ? HSP_METHOD_MERGE : HSP_METHOD_DENSE;
    }
    switch (m) {
    case HSP_METHOD_HEAP: return RF(row_heap)(job, op, s, i, o, len);
    case HSP_METHOD_ESC: return RF(row_esc)(job, op, s, i, o, len);
    case HSP_METHOD_MERGE: return RF(row_merge)(job, op, s, i, o, len);
    case HSP_METHOD_HASH: return RF(row_hash)(job, op, s, i, o, len);
    default: return RF(row_dense)(job, op, s, i, o, len);
    }
}

/* A long row into its buffer, which starts at grow_start entries; staged
 * (mode stage) or kept (count) when done. */
static hsp_status RF(long_row)(hsp_job *job, const RF(operands) *op, hsp_scratch *s, int32_t i,
                               hsp_growbuf *buf, hsp_rows_mode mode, int64_t *len)
{
    hsp_status st = hsp_job_grow_start(job, s, buf);
    if (st != HSP_OK) return st;
    RF(out) o = {buf->col, buf->val, buf->cap, buf};
    if (job->method[2] == HSP_METHOD_DENSE) st = RF(dense)(job, op, s, i, &o, len, 1);
    else st = RF(row)(job->method[2], job, op, s, i, &o, len);
    if (st != HSP_OK) return st;
    return mode == HSP_ROWS_STAGE ? hsp_job_stage_long(job, s, buf, *len) : hsp_job_finish_long(job, s, buf, *len);
}

hsp_status RF(hsp_rows_run)(hsp_job *job, hsp_scratch *s, hsp_rows_mode mode, int32_t first, int32_t last,
                           hsp_growbuf *buf)
{
    RF(operands) op = RF(operands_of)(job);
    int64_t *rowptr = job->C->rowptr;
    hsp_status st = op.ncols > s->acc_len ? hsp_scratch_dense(s, op.ncols) : HSP_OK;
    if (st == HSP_OK) st = hsp_scratch_marks(s, op.ncols);
    for (int32_t i = first; i < last && st == HSP_OK; i++) {
        int64_t u = job->ub[i], len = u, at = mode == HSP_ROWS_FILL ? rowptr[i] : 0;
        int staged = mode == HSP_ROWS_STAGE && u <= job->medium_max;
        RF(out) o = {NULL, NULL, u, NULL}; /* C's arrays exist in mode fill alone */
        if (mode == HSP_ROWS_FILL) o.col = job->C->colidx + at, o.val = (VT *)job->C->values + at, len = rowptr[i + 1] - at;
        void *top = NULL;
        if (staged && (st = hsp_region_room(&s->region, u, sizeof(VT), &o.col, &top)) != HSP_OK) break;
        if (staged) o.val = top;
        if (u > job->medium_max && mode == HSP_ROWS_FILL) hsp_job_take_long(job, buf++, o.col, o.val, len);
        else if (u > job->medium_max) st = RF(long_row)(job, &op, s, i, buf++, mode, &len);
        else if (mode == HSP_ROWS_COUNT) len = u > 1 ? hsp_row_count(job->A, job->B, s, i) : u;
        else if (u > 1 && job->method[u > job->short_max] == HSP_METHOD_DENSE) st = RF(dense)(job, &op, s, i, &o, &len, 0);
        else if (u > 1) st = RF(row)(job->method[u > job->short_max], job, &op, s, i, &o, &len);
        else if (u == 1) RF(single)(&op, i, o.col, o.val);
        if (mode != HSP_ROWS_FILL) rowptr[i + 1] = len;
        if (staged) hsp_region_push(&s->region, len, sizeof(VT));
    }
    return st;
}
