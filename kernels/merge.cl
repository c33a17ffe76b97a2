/* merge.cl: the merge method for long rows: one work-group per row merges
 * the row's products into its sorted result, a batch at a time.  A batch is
 * the next n2 products of the row (whole or partial B rows), sorted by the
 * bitonic network of esc.cl and compressed in place in local memory; it is
 * then merged into the result by merge path: every work-item takes an equal
 * share of the merged sequence, found by binary search, and equal columns of
 * the result and the batch are summed into one entry.  (Merging B row by B
 * row, as the paper does, costs a pass over the result per B row: rows of
 * many short B rows then take a pass per product or so.)
 *
 * The result lives in the row's pool buffer (two halves, ping-pong).  A row
 * whose next merge would not fit in half its buffer stops, recording the
 * product it stopped at in its hsp_longrow (checkpoint); the host grows the
 * buffer and launches the row again.  No barrier sits under a branch. */

/* How many result entries come among the first d of the merged sequence of
 * the result (r entries) and the batch (nb). */
long merge_split(__global const int *rc, long r, __local const int *bc, long nb, long d)
{
    long lo = max(0L, d - nb), hi = min(d, r);
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (rc[mid] <= bc[d - 1 - mid]) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Merge the result rc/rv (r entries) with the batch bc/bv (nb) into oc/ov;
 * returns the new result's length (in every work-item). */
long merge_path(__global const int *rc, __global const VT *rv, long r, __local const int *bc,
                __local const VT *bv, long nb, __global int *oc, __global VT *ov, __local int *lscan)
{
    long n = r + nb, per = (n + get_local_size(0) - 1) / get_local_size(0);
    long d0 = min(n, (long)get_local_id(0) * per), d1 = min(n, d0 + per);
    long i0 = merge_split(rc, r, bc, nb, d0), j0 = d0 - i0, i = i0, j = j0;
    int emit = 0, total;
    for (long d = d0; d < d1; d++) { /* count this share's entries */
        if (j >= nb || (i < r && rc[i] <= bc[j])) emit++, i++;
        else emit += !(i > 0 && rc[i - 1] == bc[j]), j++;
    }
    long o = group_scan(emit, lscan, &total);
    i = i0, j = j0;
    for (long d = d0; d < d1; d++) { /* write them */
        if (j >= nb || (i < r && rc[i] <= bc[j])) {
            VT v = rv[i];
            if (j < nb && bc[j] == rc[i]) v += bv[j];
            oc[o] = rc[i], ov[o++] = v, i++;
        } else {
            if (!(i > 0 && rc[i - 1] == bc[j])) oc[o] = bc[j], ov[o++] = bv[j];
            j++;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    return total;
}

/* The most batch entries one work-item compresses (the host keeps
 * n2 <= MERGE_PER * work-group size). */
#define MERGE_PER 16

/* Where the row's products stand: A entry p, product off of its B row. */
typedef struct {
    long p, off;
} cursor;

/* The cursor at product `skip` of the row whose A entries are p .. end - 1. */
cursor batch_seek(__global const long *brp, __global const int *acol, long p, long end, long skip)
{
    for (; p < end && skip >= brp[acol[p] + 1] - brp[acol[p]]; p++) skip -= brp[acol[p] + 1] - brp[acol[p]];
    return (cursor){p, skip};
}

/* Expand up to n2 products from cursor *at (A entries below end) into bc/bv,
 * padded to n2 with INT_MAX columns for the sort; returns how many, and
 * moves *at on. */
int batch_expand(__global const long *brp, __global const int *acol, __global const VT *aval,
                 __global const int *bcol, __global const VT *bval, long end, cursor *at, int n2,
                 __local int *bc, __local VT *bv)
{
    int lid = get_local_id(0), lsz = get_local_size(0), f = 0;
    while (f < n2 && at->p < end) {
        long b0 = brp[acol[at->p]], nb = brp[acol[at->p] + 1] - b0;
        int k = (int)min(nb - at->off, (long)(n2 - f));
        VT a = aval[at->p];
        for (int j = lid; j < k; j += lsz) bc[f + j] = bcol[b0 + at->off + j], bv[f + j] = a * bval[b0 + at->off + j];
        f += k, at->off += k;
        if (at->off == nb) at->p++, at->off = 0;
    }
    for (int j = f + lid; j < n2; j += lsz) bc[j] = INT_MAX, bv[j] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    return f;
}

/* Compress the sorted batch of m entries in place: each column once, its
 * products summed in sorted order; returns the number of columns. */
int batch_compress(int m, __local int *bc, __local VT *bv, __local int *lscan)
{
    int lid = get_local_id(0), lsz = get_local_size(0), per = (m + lsz - 1) / lsz;
    int x0 = min(m, lid * per), x1 = min(m, x0 + per), runs = 0, total, pc[MERGE_PER];
    VT pv[MERGE_PER];
    for (int x = x0; x < x1; x++) {
        if (x > 0 && bc[x - 1] == bc[x]) continue;
        VT sum = bv[x];
        for (int y = x + 1; y < m && bc[y] == bc[x]; y++) sum += bv[y];
        pc[runs] = bc[x], pv[runs++] = sum;
    }
    int out = group_scan(runs, lscan, &total); /* its barriers keep reads before writes */
    for (int t = 0; t < runs; t++) bc[out + t] = pc[t], bv[out + t] = pv[t];
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* Long rows, from their checkpoint on; bc/bv hold the batch's n2 entries (n2
 * a power of two). */
__kernel void hsp_merge(HSP_ROW_ARGS, __global int *pcol, __global VT *pval, __global hsp_longrow *lrows,
                        int n2, __local int *bc, __local VT *bv, __local int *lscan)
{
    int i = rows[first + get_group_id(0)];
    __global hsp_longrow *st = &lrows[slot[i]];
    long r = st->len, roff = st->roff, done = st->next, need = 0;
    cursor at = batch_seek(brp, acol, arp[i], arp[i + 1], done);
    while (at.p < arp[i + 1]) {
        cursor next = at;
        int filled = batch_expand(brp, acol, aval, bcol, bval, arp[i + 1], &next, n2, bc, bv);
        esc_sort(n2, n2, bc, bv, 0);
        long s = batch_compress(filled, bc, bv, lscan);
        if (r + s > st->hcap) { /* the same in every work-item */
            need = r + s;
            break;
        }
        long out = roff >= st->off && roff < st->off + st->hcap ? st->off + st->hcap : st->off;
        r = merge_path(pcol + roff, pval + roff, r, bc, bv, s, pcol + out, pval + out, lscan);
        roff = out, at = next, done += filled;
    }
    if (get_local_id(0)) return;
    st->roff = roff, st->len = r, st->next = done, st->need = need;
    if (!need) cnt[i] = r;
}
