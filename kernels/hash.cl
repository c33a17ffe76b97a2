/* hash.cl: the hash methods for short and medium rows.  Each product goes
 * into its row's hash table of columns in local memory (open addressing,
 * linear probing), its value added by local_add.  hsp_hash_rows takes rows of
 * up to 256 products, several a work-group as in hsp_esc_rows: row r of the
 * group owns entries [r n2, (r + 1) n2) of the local arrays (a power of two
 * at least its u, two a work-item) and the n2 / 2 work-items over them; each
 * column found then takes its place in the row by counting the row's smaller
 * columns.  hsp_hash takes larger medium rows, one a work-group, and sorts
 * the columns found with ESC's bitonic network (fewer than its u in general).
 * Fewer barriers than ESC, but a column's products are added in an order
 * that may vary from run to run; without local_add (double without 64-bit
 * atomics) the host takes ESC.
 *
 * Method hash2 runs them in two phases (as nsparse and OpSparse do): the
 * count kernels, hsp_hash_rows_count and hsp_hash_count, hash only the
 * columns of each row and write its count; once C's row pointers are known,
 * hsp_hash_rows and hsp_hash fill the rows in C itself (their slot being C's
 * row pointers), so that the rows take no copy from C~. */
#ifdef HSP_LOCAL_ADD

/* Add v to column c of the table keys/vals of mask + 1 slots (bits = log2 of
 * that; empty slots hold -1), which has room for c; with vals NULL (a count)
 * only c's key, and *count + 1 where c is new. */
void hash_add(__local int *keys, __local VT *vals, __local int *count, int mask, int bits, int c, VT v)
{
    int h = (int)(((uint)c * 0x9E3779B1u) >> (32 - bits)) & mask, seen;
    for (;;) {
        seen = atomic_cmpxchg((volatile __local int *)&keys[h], -1, c);
        if (seen == -1 || seen == c) break;
        h = (h + 1) & mask;
    }
    if (vals) local_add(&vals[h], v);
    else if (seen == -1) atomic_inc(count);
}

/* Stage row i's A entries (B row start, length, value) into lb0, lnb and
 * la (not with la NULL), entry j by work-item lane j, where the row has at
 * most items of them; returns how many it has (0 when i < 0).  The caller's
 * barrier follows. */
long hash_stage(__global const long *arp, __global const int *acol, __global const VT *aval,
                __global const long *brp, int i, int lane, int items, __local long *lb0, __local int *lnb,
                __local VT *la)
{
    long p0 = i >= 0 ? arp[i] : 0, na = i >= 0 ? arp[i + 1] - p0 : 0;
    if (na <= items && lane < na) {
        long b = acol[p0 + lane];
        lb0[lane] = brp[b], lnb[lane] = (int)(brp[b + 1] - brp[b]);
        if (la) la[lane] = aval[p0 + lane];
    }
    return na;
}

/* Add row i's products t = lane, lane + items, ... to the table keys/vals of
 * n2 slots (with vals NULL: count its columns into *count; no value is
 * read): from its na A entries staged by hash_stage, or walked in global
 * memory where it has more A entries than work-items. */
void hash_row(__global const long *arp, __global const int *acol, __global const VT *aval,
              __global const long *brp, __global const int *bcol, __global const VT *bval, int i, long na,
              int lane, int items, __local const long *lb0, __local const int *lnb, __local const VT *la,
              __local int *keys, __local VT *vals, __local int *count, int n2)
{
    int j = 0, base = 0, bits = 31 - clz(n2);
    if (na > items) {
        row_walk w = walk_start(arp, acol, brp, i);
        long q;
        for (int t = lane; (q = walk_to(&w, acol, brp, t)) >= 0; t += items)
            hash_add(keys, vals, count, n2 - 1, bits, bcol[q], vals ? aval[w.p] * bval[q] : 0);
        return;
    }
    for (int t = lane;; t += items) {
        while (j < na && t >= base + lnb[j]) base += lnb[j++];
        if (j >= na) return;
        long q = lb0[j] + t - base;
        hash_add(keys, vals, count, n2 - 1, bits, bcol[q], vals ? la[j] * bval[q] : 0);
    }
}

/* lb0, lnb and la: each row's A entries, one a work-item (hash_stage). */
__kernel void hsp_hash_rows(HSP_ROW_ARGS, int n2, __local int *lcol, __local VT *lval, __local int *lcount,
                            __local long *lb0, __local int *lnb, __local VT *la)
{
    int lid = get_local_id(0), lsz = get_local_size(0), items = n2 / 2, r = lid / items, lane = lid % items;
    int at = r * n2, first_item = r * items, c[2];
    long k = first + get_group_id(0) * (2 * lsz / n2) + r;
    int i = k < first + nrows ? rows[k] : -1;
    for (int e = 0; e < 2; e++) lcol[2 * lid + e] = -1, lval[2 * lid + e] = 0;
    if (!lane) lcount[r] = 0;
    long na = hash_stage(arp, acol, aval, brp, i, lane, items, lb0 + first_item, lnb + first_item, la + first_item);
    barrier(CLK_LOCAL_MEM_FENCE);
    hash_row(arp, acol, aval, brp, bcol, bval, i, na, lane, items, lb0 + first_item, lnb + first_item,
             la + first_item, lcol + at, lval + at, 0, n2);
    barrier(CLK_LOCAL_MEM_FENCE);
    VT v[2];
    for (int e = 0; e < 2; e++) c[e] = lcol[2 * lid + e], v[e] = lval[2 * lid + e];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = 0; e < 2; e++) /* the row's columns, packed at its start in any order */
        if (c[e] >= 0) lcol[at + atomic_inc(&lcount[r])] = c[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    int d = lcount[r], rank[2] = {0, 0};
    if (i < 0) return;
    for (int j = 0; j < d; j++) {
        int key = lcol[at + j];
        rank[0] += key < c[0], rank[1] += key < c[1];
    }
    for (int e = 0; e < 2; e++)
        if (c[e] >= 0) tcol[slot[i] + rank[e]] = c[e], tval[slot[i] + rank[e]] = v[e];
    if (!lane) cnt[i] = d;
}

/* The most table slots a work-item reads back in hsp_hash (the host keeps
 * n2 <= HASH_PER x the work-group's size). */
#define HASH_PER 8

/* Medium rows of up to n2 products, one a work-group: the row's table of n2
 * slots; its columns then packed at the start, sorted by esc.cl's bitonic
 * network over the next power of two, and written out. */
__kernel void hsp_hash(HSP_ROW_ARGS, int n2, __local int *lcol, __local VT *lval, __local int *lcount,
                       __local long *lb0, __local int *lnb, __local VT *la)
{
    int lid = get_local_id(0), lsz = get_local_size(0), per = n2 / lsz, i = rows[first + get_group_id(0)];
    int c[HASH_PER], d, p2 = 1;
    VT v[HASH_PER];
    for (int x = lid; x < n2; x += lsz) lcol[x] = -1, lval[x] = 0;
    if (!lid) *lcount = 0;
    long na = hash_stage(arp, acol, aval, brp, i, lid, lsz, lb0, lnb, la);
    barrier(CLK_LOCAL_MEM_FENCE);
    hash_row(arp, acol, aval, brp, bcol, bval, i, na, lid, lsz, lb0, lnb, la, lcol, lval, 0, n2);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = 0; e < HASH_PER; e++)
        if (e < per) c[e] = lcol[lid * per + e], v[e] = lval[lid * per + e];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = 0; e < HASH_PER; e++)
        if (e < per && c[e] >= 0) {
            int at = atomic_inc(lcount);
            lcol[at] = c[e], lval[at] = v[e];
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    d = *lcount;
    while (p2 < d) p2 <<= 1;
    for (int x = d + lid; x < p2; x += lsz) lcol[x] = INT_MAX;
    barrier(CLK_LOCAL_MEM_FENCE);
    esc_sort(p2, p2, lcol, lval, 0);
    for (int x = lid; x < d; x += lsz) tcol[slot[i] + x] = lcol[x], tval[slot[i] + x] = lval[x];
    if (!lid) cnt[i] = d;
}

/* The count kernels' arguments: A's and B's patterns, the rows to count
 * (as in HSP_ROW_ARGS), each row's C~ offset (set to -1: the row is filled
 * in place) and its count. */
#define HSP_COUNT_ARGS                                                                                          \
    __global const long *arp, __global const int *acol, __global const long *brp, __global const int *bcol, \
    __global const int *rows, long first, long nrows, __global long *slot, __global long *cnt

/* hsp_hash_rows' count phase: its rows, its tables (lcol, a row's n2
 * entries), its staging (lb0, lnb); lcount: each row's count. */
__kernel void hsp_hash_rows_count(HSP_COUNT_ARGS, int n2, __local int *lcol, __local int *lcount,
                                  __local long *lb0, __local int *lnb)
{
    int lid = get_local_id(0), lsz = get_local_size(0), items = n2 / 2, r = lid / items, lane = lid % items;
    long k = first + get_group_id(0) * (2 * lsz / n2) + r;
    int i = k < first + nrows ? rows[k] : -1, first_item = r * items;
    for (int e = 0; e < 2; e++) lcol[2 * lid + e] = -1;
    if (!lane) lcount[r] = 0;
    long na = hash_stage(arp, acol, 0, brp, i, lane, items, lb0 + first_item, lnb + first_item, 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    hash_row(arp, acol, 0, brp, bcol, 0, i, na, lane, items, lb0 + first_item, lnb + first_item, 0, lcol + r * n2,
             0, lcount + r, n2);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i >= 0 && !lane) cnt[i] = lcount[r], slot[i] = -1;
}

/* hsp_hash's count phase: a row a work-group, its table of n2 entries. */
__kernel void hsp_hash_count(HSP_COUNT_ARGS, int n2, __local int *lcol, __local int *lcount, __local long *lb0,
                             __local int *lnb)
{
    int lid = get_local_id(0), lsz = get_local_size(0), i = rows[first + get_group_id(0)];
    for (int x = lid; x < n2; x += lsz) lcol[x] = -1;
    if (!lid) *lcount = 0;
    long na = hash_stage(arp, acol, 0, brp, i, lid, lsz, lb0, lnb, 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    hash_row(arp, acol, 0, brp, bcol, 0, i, na, lid, lsz, lb0, lnb, 0, lcol, 0, lcount, n2);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!lid) cnt[i] = *lcount, slot[i] = -1;
}
#endif
