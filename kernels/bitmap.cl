/* bitmap.cl: C = A B of bitmap-blocked matrices (Zhang and Gruenwald 2018) on a device
 * (src/bitmap/gpu_bitmap.c).  A block is a key (block row << 32 | block
 * column), a bitmap (bit 8 r + c: entry (r, c) of the 8 x 8) and its values
 * in bit order from start[b]; row[I] is block row I's first block.
 * One work-group a block row I of C at a time (the groups stride over the
 * block rows), with two arrays of its own, a bitmap (mark) and a value
 * offset (at) per block column of C.  For each block (I, K) of A in turn its
 * work-items take the blocks (K, J) of B's block row K, a J each, so that no
 * two items touch one block of C between barriers: no atomics, and each
 * entry of C summed in one order (K ascending, then the columns of A's
 * block), the CPU threads' order.  hsp_bm_count counts each block row's
 * blocks, entries and multiply-adds; hsp_bm_fill writes it at its place:
 * its block columns in order (each ranked against the others in local
 * memory where at most cap, else read off the marks in order), their
 * bitmaps and values.  hsp_bm_rows and hsp_bm_bits index an operand. */

#define BM_BYTE_BITS 0x0101010101010101UL /* bit 0 of each byte: a bit per row of a block */
#define BM_LOW 0xffffffffUL               /* a key's block column */

/* The index of x's lowest set bit (x not 0; OpenCL 1.2 has no ctz). */
int bm_low_bit(ulong x)
{
    return 63 - (int)clz(x & (~x + 1));
}

/* The pattern of block a times block b, its multiply-adds added to *madds:
 * column t of a (a bit a byte) times row t of b (a byte) puts that row into
 * the bytes of a's rows, for the columns of a that hold entries. */
ulong bm_pattern(ulong a, ulong b, long *madds)
{
    ulong c = 0, cols = a | a >> 32;
    cols |= cols >> 16;
    cols |= cols >> 8;
    for (cols &= 0xff; cols; cols &= cols - 1) {
        int t = bm_low_bit(cols);
        ulong col = (a >> t) & BM_BYTE_BITS, row = (b >> (8 * t)) & 0xff;
        c |= col * row;
        *madds += (long)(popcount(col) * popcount(row));
    }
    return c;
}

/* The operands' arrays, as every kernel of the product takes them. */
#define BM_OPERANDS                                                                                           \
    __global const long *arow, __global const ulong *akey, __global const ulong *abits,                        \
        __global const long *astart, __global const VT *aval, __global const long *brow,                      \
        __global const ulong *bkey, __global const ulong *bbits, __global const long *bstart, __global const VT *bval
#define BM_PASS arow, akey, abits, astart, aval, brow, bkey, bbits, bstart, bval

/* Block row I of C's pattern or'ed into mark (zero on entry); the block
 * columns met first (mark 0 before) counted in st[0] and listed in list up
 * to cap, their least in st[1] and greatest in st[2] (0, INT_MAX, -1 on
 * entry); returns this item's multiply-adds. */
long bm_marks(long I, BM_OPERANDS, __global ulong *mark, __local int *list, int cap, volatile __local int *st)
{
    long madds = 0;
    for (long p = arow[I]; p < arow[I + 1]; p++) {
        long K = (long)(akey[p] & BM_LOW);
        ulong a = abits[p];
        for (long q = brow[K] + get_local_id(0); q < brow[K + 1]; q += get_local_size(0)) {
            ulong bits = bm_pattern(a, bbits[q], &madds);
            int J = (int)(bkey[q] & BM_LOW);
            if (!bits) continue;
            ulong was = mark[J];
            mark[J] = was | bits;
            if (was) continue;
            int at = atomic_inc(&st[0]);
            if (at < cap) list[at] = J;
            atomic_min(&st[1], J);
            atomic_max(&st[2], J);
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    return madds;
}

/* The values of block row I of C added up at cval (zero there on entry):
 * block J's from at[J] on, its bitmap mark[J]; none for a pattern (the
 * loop then empty, not skipped: its barriers are met by every item). */
void bm_values(long I, BM_OPERANDS, __global const ulong *mark, __global const long *at, __global VT *cval,
               int pattern)
{
    for (long p = arow[I]; p < (pattern ? arow[I] : arow[I + 1]); p++) {
        long K = (long)(akey[p] & BM_LOW);
        ulong a = abits[p];
        __global const VT *av = aval + astart[p];
        for (long q = brow[K] + get_local_id(0); q < brow[K + 1]; q += get_local_size(0)) {
            int J = (int)(bkey[q] & BM_LOW), e = 0;
            ulong b = bbits[q], c = mark[J];
            __global const VT *bv = bval + bstart[q];
            for (ulong left = a; left; left &= left - 1, e++) {
                int bit = bm_low_bit(left), r = bit >> 3, t = bit & 7;
                ulong row = (b >> (8 * t)) & 0xff;
                long first = popcount(b & ((1UL << (8 * t)) - 1));
                for (; row; row &= row - 1, first++) {
                    int cbit = 8 * r + bm_low_bit(row);
                    cval[at[J] + popcount(c & ((1UL << cbit) - 1))] += av[e] * bv[first];
                }
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}

/* This group's arrays of one per block column of C. */
#define BM_OWN(x) ((x) + get_group_id(0) * nbcols)

/* Blocks, entries and multiply-adds of each block row of C. */
__kernel void hsp_bm_count(long nbrows, long nbcols, BM_OPERANDS, __global ulong *marks, __global long *blocks,
                           __global long *nnz, __global long *madds, int cap, __local int *list, __local long *scan)
{
    __local int st[3];
    __global ulong *mark = BM_OWN(marks);
    int lid = get_local_id(0), size = get_local_size(0);
    for (long I = get_group_id(0); I < nbrows; I += get_num_groups(0)) {
        if (lid == 0) st[0] = 0, st[1] = INT_MAX, st[2] = -1;
        barrier(CLK_LOCAL_MEM_FENCE);
        long m = bm_marks(I, BM_PASS, mark, list, cap, st), e = 0, total;
        int n = st[0], listed = n <= cap, lo = listed ? 0 : st[1], hi = listed ? n - 1 : st[2];
        /* The listed block columns, or the range of them: one loop, as PoCL 5 fails on a choice
         * of two loops inside a loop holding barriers (tests/t_kernels.c). */
        for (int k = lo + lid; k <= hi; k += size) {
            int J = listed ? list[k] : k;
            e += popcount(mark[J]);
            mark[J] = 0;
        }
        group_scan_long(e, scan, &total);
        if (lid == 0) nnz[I] = total, blocks[I] = n;
        group_scan_long(m, scan, &total);
        if (lid == 0) madds[I] = total;
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }
}

/* Block row I's n block columns in order into ckey from cb on: each listed
 * one ranked against the others, or (more than cap) the marked ones from
 * st[1] to st[2] read off in order. */
void bm_order(long I, int n, int cap, __local const int *list, volatile __local const int *st,
              __global const ulong *mark, __global ulong *ckey, long cb, __local long *scan)
{
    int lid = get_local_id(0), size = get_local_size(0), listed = n <= cap;
    for (int k = lid; listed && k < n; k += size) {
        int x = list[k], rank = 0;
        for (int y = 0; y < n; y++) rank += list[y] < x;
        ckey[cb + rank] = (ulong)I << 32 | (uint)x;
    }
    long done = 0, total;
    for (int J0 = st[1]; !listed && J0 <= st[2]; J0 += size) {
        int J = J0 + lid, yes = J <= st[2] && mark[J] != 0;
        long at = group_scan_long(yes, scan, &total);
        if (yes) ckey[cb + done + at] = (ulong)I << 32 | (uint)J;
        done += total;
    }
}

/* Each block row of C at its place (blocks from cblock[I], values from
 * cvalue[I]): keys, bitmaps, and values (1 for a pattern). */
__kernel void hsp_bm_fill(long nbrows, long nbcols, BM_OPERANDS, __global ulong *marks, __global long *ats,
                          __global const long *cblock, __global const long *cvalue, __global ulong *ckey,
                          __global ulong *cbits, __global VT *cval, int pattern, int cap, __local int *list,
                          __local long *scan)
{
    __local int st[3];
    __global ulong *mark = BM_OWN(marks);
    __global long *at = BM_OWN(ats);
    int lid = get_local_id(0), size = get_local_size(0);
    for (long I = get_group_id(0); I < nbrows; I += get_num_groups(0)) {
        if (lid == 0) st[0] = 0, st[1] = INT_MAX, st[2] = -1;
        barrier(CLK_LOCAL_MEM_FENCE);
        bm_marks(I, BM_PASS, mark, list, cap, st);
        int n = st[0];
        long cb = cblock[I], done = cvalue[I], total;
        bm_order(I, n, cap, list, st, mark, ckey, cb, scan);
        barrier(CLK_GLOBAL_MEM_FENCE);
        for (int k0 = 0; k0 < n; k0 += size) {
            int k = k0 + lid, J = k < n ? (int)(ckey[cb + k] & BM_LOW) : 0;
            ulong bits = k < n ? mark[J] : 0;
            long first = done + group_scan_long(popcount(bits), scan, &total);
            if (k < n) cbits[cb + k] = bits, at[J] = first;
            for (long e = 0; e < (long)popcount(bits); e++) cval[first + e] = pattern ? 1 : 0;
            done += total;
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        bm_values(I, BM_PASS, mark, at, cval, pattern);
        for (int k = lid; k < n; k += size) mark[ckey[cb + k] & BM_LOW] = 0;
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }
}

/* row[I] for I <= nbrows: the first of the n keys (ascending) in block row I or past it. */
__kernel void hsp_bm_rows(long nbrows, long n, __global const ulong *key, __global long *row)
{
    long I = get_global_id(0), lo = 0, hi = n;
    if (I > nbrows) return;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (key[mid] >> 32 < (ulong)I) lo = mid + 1;
        else hi = mid;
    }
    row[I] = lo;
}

/* count[b] = the entries of block b of n. */
__kernel void hsp_bm_bits(long n, __global const ulong *bits, __global long *count)
{
    long b = get_global_id(0);
    if (b < n) count[b] = popcount(bits[b]);
}
