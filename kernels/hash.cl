/* hash.cl: the hash method for short and medium rows of up to 256 products,
 * several rows a work-group as in hsp_esc_rows: row r of the group owns
 * entries [r n2, (r + 1) n2) of the local arrays (a power of two at least
 * its u, two a work-item) and the n2 / 2 work-items over them.  Each product
 * goes into the row's hash table of columns (open addressing, linear
 * probing), its value added by local_add; then each column found gets its
 * place in the row by counting the row's smaller columns.  Fewer barriers
 * than ESC's sort, but a column's products are added in an order that may
 * vary from run to run; without local_add (double without 64-bit atomics)
 * the host takes ESC. */
#ifdef HSP_LOCAL_ADD

/* Add v to column c of the table keys/vals of mask + 1 slots (bits = log2 of
 * that; empty slots hold -1), which has room for c. */
void hash_add(__local int *keys, __local VT *vals, int mask, int bits, int c, VT v)
{
    int h = (int)(((uint)c * 0x9E3779B1u) >> (32 - bits)) & mask;
    for (;;) {
        int seen = atomic_cmpxchg((volatile __local int *)&keys[h], -1, c);
        if (seen == -1 || seen == c) break;
        h = (h + 1) & mask;
    }
    local_add(&vals[h], v);
}

/* Add row i's products t = lane, lane + items, ... to its table, from its k
 * A entries staged in local memory: B row starts lb0, lengths lnb, values la. */
void hash_staged(__global const int *bcol, __global const VT *bval, int k, __local const long *lb0,
                 __local const int *lnb, __local const VT *la, int lane, int items, __local int *keys,
                 __local VT *vals, int n2)
{
    int j = 0, base = 0, bits = 31 - clz(n2);
    for (int t = lane;; t += items) {
        while (j < k && t >= base + lnb[j]) base += lnb[j++];
        if (j >= k) return;
        long q = lb0[j] + t - base;
        hash_add(keys, vals, n2 - 1, bits, bcol[q], la[j] * bval[q]);
    }
}

/* lb0, lnb and la: a row's A entries (B row start, length, value), one a
 * work-item, where the row has no more A entries than work-items (else its
 * products are walked in global memory). */
__kernel void hsp_hash_rows(HSP_ROW_ARGS, int n2, __local int *lcol, __local VT *lval, __local int *lcount,
                            __local long *lb0, __local int *lnb, __local VT *la)
{
    int lid = get_local_id(0), lsz = get_local_size(0), items = n2 / 2, r = lid / items, lane = lid % items;
    int at = r * n2, first_item = r * items, c[2];
    long k = first + get_group_id(0) * (2 * lsz / n2) + r;
    int i = k < first + nrows ? rows[k] : -1;
    long p0 = i >= 0 ? arp[i] : 0, na = i >= 0 ? arp[i + 1] - p0 : 0;
    for (int e = 0; e < 2; e++) lcol[2 * lid + e] = -1, lval[2 * lid + e] = 0;
    if (!lane) lcount[r] = 0;
    if (na <= items && lane < na) {
        long b = acol[p0 + lane];
        lb0[lid] = brp[b], lnb[lid] = (int)(brp[b + 1] - brp[b]), la[lid] = aval[p0 + lane];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (na <= items) {
        hash_staged(bcol, bval, (int)na, lb0 + first_item, lnb + first_item, la + first_item, lane, items,
                    lcol + at, lval + at, n2);
    } else {
        row_walk w = walk_start(arp, acol, brp, i);
        long q;
        for (int t = lane; (q = walk_to(&w, acol, brp, t)) >= 0; t += items)
            hash_add(lcol + at, lval + at, n2 - 1, 31 - clz(n2), bcol[q], aval[w.p] * bval[q]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    VT v[2];
    for (int e = 0; e < 2; e++) c[e] = lcol[2 * lid + e], v[e] = lval[2 * lid + e];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = 0; e < 2; e++) /* the row's columns, packed at its start in any order */
        if (c[e] >= 0) lcol[at + atomic_inc(&lcount[r])] = c[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    int d = lcount[r];
    if (i < 0) return;
    for (int e = 0; e < 2; e++) {
        if (c[e] < 0) continue;
        int rank = 0;
        for (int j = 0; j < d; j++) rank += lcol[at + j] < c[e];
        tcol[slot[i] + rank] = c[e], tval[slot[i] + rank] = v[e];
    }
    if (!lane) cnt[i] = d;
}
#endif
