/* dense.cl: the dense method for long rows, split over work-groups by column
 * windows.  The columns of C are cut into windows of w columns (a power of
 * two whose values fit in local memory).  hsp_dense_count, one work-group a
 * row, marks the row's columns in a bitmap of bw columns at a time and counts
 * them per window: wend[k][v] is the number of the row's entries in windows
 * 0..v, and the row's count goes to cnt and its hsp_longrow (roff -1: not in
 * the pool).  hsp_dense, one work-group a (row, window), sums the products
 * that fall in its window in local memory and writes them, in column order,
 * straight into C at the row's place.
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

/* The first index in [lo, hi) of sorted cols whose column is >= c. */
long lower_bound(__global const int *cols, long lo, long hi, int c)
{
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

/* Long rows first .. first + nrows - 1 of rows, a work-group each: bw / 32
 * words of lbits, bw / w counts of lwin; wend has nwin = ceil(ncols / w)
 * entries a row. */
__kernel void hsp_dense_count(HSP_ROW_ARGS, __global hsp_longrow *lrows, int ncols, int w, int bw,
                              __global int *wend, __local uint *lbits, __local int *lwin, __local int *lscan,
                              __local long *llo)
{
    long k = get_group_id(0);
    int i = rows[first + k], lid = get_local_id(0), lsz = get_local_size(0), nwin = (ncols + w - 1) / w;
    int before = 0; /* the row's entries in the windows done */
    for (int c0 = 0; c0 < ncols; c0 += bw) {
        int c1 = min(ncols, c0 + bw), wins = (c1 - c0 + w - 1) / w;
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
            if (!lid) wend[k * nwin + c0 / w + v] = before;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid) return;
    cnt[i] = before;
    lrows[slot[i]].roff = -1, lrows[slot[i]].len = before, lrows[slot[i]].need = 0;
}

/* Window v of long row k (work-group k nwin + v), rows as hsp_dense_count's:
 * its entries into C, from crp[i] on, after those of the row's earlier
 * windows; lval and lbits hold the window's sums and columns. */
__kernel void hsp_dense(HSP_ROW_ARGS, int ncols, int w, __global const int *wend, __global const long *crp,
                        __global int *ccol, __global VT *cval, __local VT *lval, __local uint *lbits,
                        __local int *lscan, __local long *llo)
{
    int nwin = (ncols + w - 1) / w, v = get_group_id(0) % nwin, lid = get_local_id(0), lsz = get_local_size(0);
    long k = get_group_id(0) / nwin;
    int i = rows[first + k], end = wend[k * nwin + v], start = v ? wend[k * nwin + v - 1] : 0;
    if (start == end) return; /* the same in every work-item */
    int c0 = v * w, c1 = min(ncols, c0 + w);
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
}
#endif
