/* dense.cl: the dense method for long rows, split over work-groups by column
 * windows.  The columns of C are cut into windows of w columns (a power of
 * two whose values fit in local memory).  hsp_dense_count, one work-group a
 * row, marks the row's columns in a bitmap of bw columns at a time and counts
 * them per window: wend[k][v] is the number of the row's entries in windows
 * 0..v, and the row's count goes to cnt and its hsp_longrow (roff -1: not in
 * the pool); only the windows between the row's first and last columns are
 * scanned.  hsp_dense, a few work-groups a row taking its windows in turn,
 * sums the products that fall in a window in local memory and writes them,
 * in column order, straight into C at the row's place; hsp_dense_runs, for
 * rows of many windows, takes runs of sparse windows at once.
 *
 * The products of a row are taken a chunk of A entries at a time, one entry
 * a work-item: its B row's entries in the window's columns (a binary search),
 * then a scan of their counts, so that every work-item takes an equal share
 * of the chunk's products however long each B row is.
 *
 * Sums use local_add (common.h): the order in which a column's products are
 * added may vary from run to run, and a device without 64-bit atomics has no
 * dense kernels in double (the host then merges). */
#ifdef HSP_LOCAL_ADD

/* The first index in [lo, hi) of sorted cols whose column is >= c (hi if
 * none).  The range's two ends are read first, at once: a B row wholly on
 * one side of c, as most are where a window spans the row's columns, then
 * costs no bisection. */
long lower_bound(__global const int *cols, long lo, long hi, int c)
{
    if (lo >= hi) return lo;
    int first = cols[lo], last = cols[hi - 1];
    if (first >= c) return lo;
    if (last < c) return hi;
    lo++, hi--; /* cols[lo - 1] < c <= cols[hi] */
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (cols[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Work-item lid's A entry p of a chunk (none when p >= end): its B entries
 * with columns in [c0, c1) start at llo[lid]; after the call lscan holds the
 * inclusive sums of the items' counts, and the chunk's total is returned. */
int chunk_spans(__global const int *acol, __global const long *brp, __global const int *bcol, long p, long end,
                int c0, int c1, __local int *lscan, __local long *llo)
{
    long lo = 0, hi = 0;
    if (p < end) {
        long b = acol[p];
        lo = lower_bound(bcol, brp[b], brp[b + 1], c0);
        hi = lower_bound(bcol, lo, brp[b + 1], c1);
    }
    llo[get_local_id(0)] = lo;
    int total;
    group_scan((int)(hi - lo), lscan, &total);
    return total;
}

/* Product t of the chunk: the work-item j whose span holds it (binary search
 * over the inclusive sums), and the B entry *q. */
int chunk_product(int t, __local const int *lscan, __local const long *llo, long *q)
{
    int lo = 0, hi = get_local_size(0) - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (lscan[mid] > t) hi = mid;
        else lo = mid + 1;
    }
    *q = llo[lo] + t - (lo ? lscan[lo - 1] : 0);
    return lo;
}

/* Windows [*v0, *v1) hold row i's columns (the first and last columns of
 * its B rows); an empty row has none (both nwin).  lspan: two ints. */
void row_windows(__global const long *arp, __global const int *acol, __global const long *brp,
                 __global const int *bcol, int i, int w, int nwin, __local int *lspan, int *v0, int *v1)
{
    int lid = get_local_id(0);
    if (!lid) lspan[0] = INT_MAX, lspan[1] = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long p = arp[i] + lid; p < arp[i + 1]; p += get_local_size(0)) {
        long b = acol[p];
        if (brp[b] < brp[b + 1]) atomic_min(&lspan[0], bcol[brp[b]]), atomic_max(&lspan[1], bcol[brp[b + 1] - 1]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    *v0 = lspan[1] < 0 ? nwin : lspan[0] / w, *v1 = lspan[1] < 0 ? nwin : lspan[1] / w + 1;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Long rows first .. first + nrows - 1 of rows, a work-group each: bw / 32
 * words of lbits, bw / w counts of lwin; wend has nwin = ceil(ncols / w)
 * entries a row.  Only the windows between the row's first and last columns
 * are counted. */
__kernel void hsp_dense_count(HSP_ROW_ARGS, __global hsp_longrow *lrows, int ncols, int w, int bw,
                              __global int *wend, __local uint *lbits, __local int *lwin, __local int *lscan,
                              __local long *llo)
{
    long k = get_group_id(0);
    int i = rows[first + k], lid = get_local_id(0), lsz = get_local_size(0), nwin = (ncols + w - 1) / w, v0, v1;
    int before = 0; /* the row's entries in the windows done */
    __global int *ends = wend + k * nwin;
    row_windows(arp, acol, brp, bcol, i, w, nwin, lscan, &v0, &v1);
    for (int v = lid; v < v0; v += lsz) ends[v] = 0;
    for (int c0 = v0 * w; c0 < v1 * w; c0 += bw) {
        int c1 = min(min(ncols, c0 + bw), v1 * w), wins = (c1 - c0 + w - 1) / w;
        for (int x = lid; x < (c1 - c0 + 31) / 32; x += lsz) lbits[x] = 0;
        for (int x = lid; x < wins; x += lsz) lwin[x] = 0;
        for (long p0 = arp[i]; p0 < arp[i + 1]; p0 += lsz) {
            int total = chunk_spans(acol, brp, bcol, p0 + lid, arp[i + 1], c0, c1, lscan, llo);
            for (int t = lid; t < total; t += lsz) {
                long q;
                chunk_product(t, lscan, llo, &q);
                int c = bcol[q] - c0;
                atomic_or(&lbits[c >> 5], 1u << (c & 31));
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (int x = lid; x < (c1 - c0 + 31) / 32; x += lsz)
            if (lbits[x]) atomic_add(&lwin[x * 32 / w], popcount(lbits[x]));
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int v = 0; v < wins; v++) {
            before += lwin[v];
            if (!lid) ends[c0 / w + v] = before;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int v = v1 + lid; v < nwin; v += lsz) ends[v] = before;
    if (lid) return;
    cnt[i] = before;
    lrows[slot[i]].roff = -1, lrows[slot[i]].len = before, lrows[slot[i]].need = 0;
}

/* Work-group k n + s (n work-groups a row: the grid over nrows) takes long
 * row k's windows s, s + n, s + 2n, ... (rows as hsp_dense_count's) that
 * hold entries: each window's entries into C, from crp[i] on, after those of
 * the row's earlier windows; lval and lbits hold a window's sums and columns. */
__kernel void hsp_dense(HSP_ROW_ARGS, int ncols, int w, __global const int *wend, __global const long *crp,
                        __global int *ccol, __global VT *cval, __local VT *lval, __local uint *lbits,
                        __local int *lscan, __local long *llo)
{
    int nwin = (ncols + w - 1) / w, n = get_num_groups(0) / nrows, lid = get_local_id(0), lsz = get_local_size(0);
    long k = get_group_id(0) / n;
    int i = rows[first + k];
    __global const int *ends = wend + k * nwin;
    for (int v = get_group_id(0) % n; v < nwin; v += n) {
        int start = v ? ends[v - 1] : 0, c0 = v * w, c1 = min(ncols, c0 + w);
        if (start == ends[v]) continue; /* the same in every work-item */
        for (int x = lid; x < w; x += lsz) lval[x] = 0;
        for (int x = lid; x < w / 32; x += lsz) lbits[x] = 0;
        for (long p0 = arp[i]; p0 < arp[i + 1]; p0 += lsz) {
            int total = chunk_spans(acol, brp, bcol, p0 + lid, arp[i + 1], c0, c1, lscan, llo);
            for (int t = lid; t < total; t += lsz) {
                long q;
                int j = chunk_product(t, lscan, llo, &q), c = bcol[q] - c0;
                atomic_or(&lbits[c >> 5], 1u << (c & 31));
                local_add(&lval[c], aval[p0 + j] * bval[q]);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        int per = w / lsz, x0 = lid * per, found = 0, total; /* each item: per columns in order */
        for (int x = x0; x < x0 + per; x++) found += (lbits[x >> 5] >> (x & 31)) & 1;
        long out = crp[i] + start + group_scan(found, lscan, &total);
        for (int x = x0; x < x0 + per; x++)
            if ((lbits[x >> 5] >> (x & 31)) & 1) ccol[out] = c0 + x, cval[out++] = lval[x];
        barrier(CLK_LOCAL_MEM_FENCE); /* before the next window clears lval and lbits */
    }
}

/* The fine windows [v, end) that one span of row k's sums takes: as many
 * after v as fit span columns while their entries fit the w values (one
 * window always does: it has at most w columns). */
int span_end(__global const int *ends, int v, int nwin, int w, int span)
{
    int start = v ? ends[v - 1] : 0, e = v + 1;
    while (e < nwin && (e + 1 - v) * w <= span && ends[e] - start <= w) e++;
    return e;
}

/* One walk over the products of A entries [from, end) (row i's, or none)
 * that fall in columns [c0, c1), a chunk of entries at a time: each marks its
 * column in lbits; with by_column, adds into lval at its column, with by_rank
 * into lval at its rank among the marked columns (lpre: the marks before each
 * word).  Callers pass an empty range rather than skip the call: a barrier
 * under a branch breaks PoCL's work-group functions. */
void span_walk(__global const int *acol, __global const VT *aval, __global const long *brp,
               __global const int *bcol, __global const VT *bval, long from, long end, int c0, int c1,
               int by_column, int by_rank, __local VT *lval, __local uint *lbits, __local const int *lpre,
               __local int *lscan, __local long *llo)
{
    int lid = get_local_id(0), lsz = get_local_size(0);
    for (long p0 = from; p0 < end; p0 += lsz) {
        int total = chunk_spans(acol, brp, bcol, p0 + lid, end, c0, c1, lscan, llo);
        for (int t = lid; t < total; t += lsz) {
            long q;
            int j = chunk_product(t, lscan, llo, &q), c = bcol[q] - c0;
            uint bit = 1u << (c & 31);
            if (by_rank) local_add(&lval[lpre[c >> 5] + popcount(lbits[c >> 5] & (bit - 1))], aval[p0 + j] * bval[q]);
            else atomic_or(&lbits[c >> 5], bit);
            if (by_column) local_add(&lval[c], aval[p0 + j] * bval[q]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* lpre[x]: the marks of lbits' words before word x, of words in all. */
void span_ranks(__local const uint *lbits, int words, __local int *lpre, __local int *lscan)
{
    int lsz = get_local_size(0), per = (words + lsz - 1) / lsz, x0 = get_local_id(0) * per;
    int x1 = min(words, x0 + per), found = 0, total;
    for (int x = x0; x < x1; x++) found += popcount(lbits[x]);
    int before = group_scan(found, lscan, &total);
    for (int x = x0; x < x1; x++) lpre[x] = before, before += popcount(lbits[x]);
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* hsp_dense for rows of many windows: work-group k n + s takes long row k's
 * spans s, s + n, s + 2n, ... that hold entries, each into C after the row's
 * earlier spans.  A span is one window of w columns, whose sums lval holds
 * by column, or a run of windows of up to span columns whose entries fit w
 * values, held by their rank among the run's columns (sparse rows: one walk
 * of the row's A entries a run, not one a window); lbits marks the span's
 * columns, lpre counts the marks before each word. */
__kernel void hsp_dense_runs(HSP_ROW_ARGS, int ncols, int w, int span, __global const int *wend,
                             __global const long *crp, __global int *ccol, __global VT *cval, __local VT *lval,
                             __local uint *lbits, __local int *lpre, __local int *lscan, __local long *llo)
{
    int nwin = (ncols + w - 1) / w, n = get_num_groups(0) / nrows, lid = get_local_id(0), lsz = get_local_size(0);
    long k = get_group_id(0) / n;
    int i = rows[first + k], s = 0;
    __global const int *ends = wend + k * nwin;
    for (int v = 0, e; v < nwin; v = e, s++) {
        e = span_end(ends, v, nwin, w, span);
        int start = v ? ends[v - 1] : 0, c0 = v * w, c1 = min(ncols, e * w), words = (c1 - c0 + 31) / 32;
        int one = e == v + 1;
        if (s % n != get_group_id(0) % n || start == ends[e - 1]) continue; /* the same in every work-item */
        for (int x = lid; x < (one ? c1 - c0 : ends[e - 1] - start); x += lsz) lval[x] = 0;
        for (int x = lid; x < words; x += lsz) lbits[x] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        span_walk(acol, aval, brp, bcol, bval, arp[i], arp[i + 1], c0, c1, one, 0, lval, lbits, lpre, lscan, llo);
        span_ranks(lbits, words, lpre, lscan);
        span_walk(acol, aval, brp, bcol, bval, one ? arp[i + 1] : arp[i], arp[i + 1], c0, c1, 0, 1, lval, lbits, lpre,
                  lscan, llo);
        long out = crp[i] + start;
        for (int y = lid; y < 2 * words; y += lsz) { /* pieces of 16 columns */
            int r = lpre[y / 2] + (y % 2 ? popcount(lbits[y / 2] & 0xffffu) : 0);
            for (uint b = (lbits[y / 2] >> (y % 2 * 16)) & 0xffffu; b; b &= b - 1, r++) {
                int c = y * 16 + 31 - clz(b & -b);
                ccol[out + r] = c0 + c, cval[out + r] = lval[one ? c : r];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* before the next span clears lval and lbits */
    }
}
#endif
