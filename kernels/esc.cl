/* esc.cl: expand, sort, compress for short and medium rows, and for long
 * rows whose products fit in local memory.
 * A row's u products are expanded into a segment of local memory (padded to
 * n2, a power of two, with INT_MAX columns), sorted by column with a bitonic
 * network and compressed: each column's products summed in sorted order.
 * A work-group takes nr = size / (n2 / 2) rows when they are short (n2 / 2
 * work-items and one segment each), else one row. */

/* Expand the products of row i into segment lcol/lval with L work-items
 * (lane 0 .. L - 1), and pad it to n2; i < 0 pads all of it. */
void esc_expand(__global const long *arp, __global const int *acol, __global const VT *aval,
                __global const long *brp, __global const int *bcol, __global const VT *bval,
                int i, int n2, int lane, int L, __local int *lcol, __local VT *lval)
{
    int at = 0;
    for (long p = i >= 0 ? arp[i] : 0; i >= 0 && p < arp[i + 1]; p++) {
        long b = acol[p], b0 = brp[b];
        int nb = (int)(brp[b + 1] - b0);
        VT a = aval[p];
        for (int j = lane; j < nb; j += L) lcol[at + j] = bcol[b0 + j], lval[at + j] = a * bval[b0 + j];
        at += nb;
    }
    for (int j = at + lane; j < n2; j += L) lcol[j] = INT_MAX, lval[j] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Sort each of the segs segments of n2 entries by column: a bitonic
 * network, segs * n2 / 2 compare-exchanges a step shared by the work-group. */
void esc_sort(int n2, int segs, __local int *lcol, __local VT *lval)
{
    int lid = get_local_id(0), lsz = get_local_size(0), hn = n2 / 2;
    for (int k = 2; k <= n2; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int p = lid; p < segs * hn; p += lsz) {
                int q = p % hn, x = 2 * j * (q / j) + q % j, y = x + j, base = (p / hn) * n2;
                int up = (x & k) == 0;
                if ((lcol[base + x] > lcol[base + y]) == up) {
                    int c = lcol[base + x];
                    VT v = lval[base + x];
                    lcol[base + x] = lcol[base + y], lval[base + x] = lval[base + y];
                    lcol[base + y] = c, lval[base + y] = v;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
}

/* Does a run of equal columns start at x of a segment? */
int esc_starts(__local const int *lcol, int x)
{
    return lcol[x] != INT_MAX && (x == 0 || lcol[x - 1] != lcol[x]);
}

/* Rows of up to n2 products, nr a work-group.  Long rows (islong) write
 * their result at the start of their pool region and record it in lrows. */
__kernel void hsp_esc(HSP_ROW_ARGS, int n2, __local int *lcol, __local VT *lval, __local int *lscan,
                      int islong, __global int *pcol, __global VT *pval, __global hsp_longrow *lrows)
{
    int lid = get_local_id(0), lsz = get_local_size(0), L = min(lsz, max(n2 / 2, 1)), nr = lsz / L;
    int r = lid / L, lane = lid % L, seg = r * n2;
    long k = first + get_group_id(0) * (long)nr + r;
    int i = k < first + nrows ? rows[k] : -1;
    esc_expand(arp, acol, aval, brp, bcol, bval, i, n2, lane, L, lcol + seg, lval + seg);
    esc_sort(n2, nr, lcol, lval);
    int per = (n2 + L - 1) / L, x0 = min(n2, lane * per), x1 = min(n2, x0 + per), runs = 0, total;
    for (int x = x0; x < x1; x++) runs += esc_starts(lcol + seg, x);
    int out = group_scan(runs, lscan, &total); /* over the group; a row's part starts at its lane 0 */
    lscan[lid] = out;
    barrier(CLK_LOCAL_MEM_FENCE);
    int start = lscan[r * L], end = r + 1 < nr ? lscan[(r + 1) * L] : total;
    if (i < 0) return;
    long base = islong ? lrows[slot[i]].off : slot[i];
    __global int *oc = (islong ? pcol : tcol) + base;
    __global VT *ov = (islong ? pval : tval) + base;
    out -= start;
    for (int x = x0; x < x1; x++) {
        if (!esc_starts(lcol + seg, x)) continue;
        VT sum = lval[seg + x];
        for (int y = x + 1; y < n2 && lcol[seg + y] == lcol[seg + x]; y++) sum += lval[seg + y];
        oc[out] = lcol[seg + x], ov[out++] = sum;
    }
    if (lane) return;
    cnt[i] = end - start;
    if (islong) {
        __global hsp_longrow *st = &lrows[slot[i]];
        st->roff = st->off, st->len = end - start, st->next = arp[i + 1] - arp[i], st->need = 0;
    }
}
