/* esc.cl: expand, sort, compress for medium rows, and for long rows whose
 * products fit in local memory: one work-group per row (hsp_esc), or several
 * rows of up to 256 products a work-group (hsp_esc_rows).
 * The row's u products are expanded into local memory (padded to n2, a power
 * of two, with INT_MAX keys), sorted with a bitonic network and compressed:
 * each column's products summed in sorted order.  Where B's columns allow
 * (keyed, gpu_rows.c), a product's key is its column and its place in the
 * row (column 2^bits + place, n2 = 2^bits) and its value stays at its place
 * while the keys sort: a step moves 4 bytes an entry, not 4 + 8 in double;
 * else the key is the column and the value moves with it.  hsp_esc's keyed
 * rows of few A entries merge their entries' B rows, each sorted already,
 * in place of the sort (esc_merge): the same order of keys. */

/* A walk over the products of a row in order: product t is entry b0 + t -
 * base of B, in A entry p's B row of nb entries (p = end past the row). */
typedef struct {
    long p, end, base, b0, nb;
} row_walk;

/* The walk of A entries p to end (base products before them), at its first
 * product. */
row_walk walk_from(__global const int *acol, __global const long *brp, long p, long end, long base)
{
    row_walk w = {p, end, base, 0, 0};
    if (w.p < w.end) w.b0 = brp[acol[w.p]], w.nb = brp[acol[w.p] + 1] - w.b0;
    return w;
}

/* The walk of row i (an empty one when i < 0), at its first product. */
row_walk walk_start(__global const long *arp, __global const int *acol, __global const long *brp, int i)
{
    return walk_from(acol, brp, i >= 0 ? arp[i] : 0, i >= 0 ? arp[i + 1] : 0, 0);
}

/* The B entry of product t (t never less than the last asked for), or -1
 * past the row's products. */
long walk_to(row_walk *w, __global const int *acol, __global const long *brp, long t)
{
    while (w->p < w->end && t >= w->base + w->nb) {
        w->base += w->nb;
        if (++w->p < w->end) w->b0 = brp[acol[w->p]], w->nb = brp[acol[w->p] + 1] - w->b0;
    }
    return w->p < w->end ? w->b0 + t - w->base : -1;
}

/* Expand the products of row i (none when i < 0) into lkey/lval and pad
 * them to n2, product t by work-item t % lanes (lane): keyed, key
 * column 2^bits + t (n2 = 2^bits), else the column; then a barrier, which
 * the whole work-group reaches. */
void esc_expand(__global const long *arp, __global const int *acol, __global const VT *aval,
                __global const long *brp, __global const int *bcol, __global const VT *bval,
                int i, int n2, int lane, int lanes, int keyed, __local int *lkey, __local VT *lval)
{
    row_walk w = walk_start(arp, acol, brp, i);
    int t = lane, bits = keyed ? 31 - clz(n2) : 0;
    for (long q; (q = walk_to(&w, acol, brp, t)) >= 0; t += lanes)
        lkey[t] = bcol[q] << bits | (keyed ? t : 0), lval[t] = aval[w.p] * bval[q];
    for (; t < n2; t += lanes) lkey[t] = INT_MAX, lval[t] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Order entries x < y of the network's step (ascending when up); values
 * move with their keys unless keyed. */
void esc_exchange(__local int *lkey, __local VT *lval, int x, int y, int up, int keyed)
{
    int a = lkey[x], b = lkey[y];
    if ((a > b) != up) return;
    lkey[x] = b, lkey[y] = a;
    if (keyed) return;
    VT v = lval[x];
    lval[x] = lval[y], lval[y] = v;
}

/* Steps j = 4, 2, 1 (those below k) of stage k of the network over eight
 * aligned keys from x0 held in registers (segments of seg). */
void esc_sort8_stage(int key[8], int x0, int k, int seg)
{
#pragma unroll
    for (int j = 4; j > 0; j >>= 1) {
#pragma unroll
        for (int e = 0; e < 8; e++) {
            int up = k == seg || ((x0 + e) & k) == 0;
            if ((e & j) || j >= k || (key[e] > key[e + j]) != up) continue;
            int c = key[e];
            key[e] = key[e + j], key[e + j] = c;
        }
    }
}

/* The steps below 8 of stages k0 .. k1 of the network over the eight
 * aligned keys from x0, in registers: one load and store of each key where
 * three steps (six for stages 2 to 8) took them each. */
void esc_sort8(__local int *lkey, int x0, int k0, int k1, int seg)
{
    int key[8];
#pragma unroll
    for (int e = 0; e < 8; e++) key[e] = lkey[x0 + e];
    for (int k = k0; k <= k1; k <<= 1) esc_sort8_stage(key, x0, k, seg);
#pragma unroll
    for (int e = 0; e < 8; e++) lkey[x0 + e] = key[e];
}

/* Sort each aligned segment of seg entries of the n entries by key: a
 * bitonic network (its last stage ascending everywhere), n / 2
 * compare-exchanges a step shared by the work-group; values move with their
 * keys unless keyed.  Keyed segments of 8 entries or more take each stage's
 * steps below 8 in registers (esc_sort8; stages 2, 4 and 8 in one pass),
 * eight keys a work-item: one barrier for those steps.  With their values
 * too they were slower (H200: random:400000,6's product 0.62-0.64 -> 0.66
 * ms, rmat:15,4's hsp_esc 0.46 -> 0.61 ms a product, doc/performance.md).
 * Each step is one loop over pairs or blocks of eight, never a choice of
 * loops between barriers, which PoCL 5.0's compiler aborts on. */
void esc_sort(int n, int seg, __local int *lkey, __local VT *lval, int keyed)
{
    int lid = get_local_id(0), lsz = get_local_size(0), by8 = keyed && seg >= 8;
    for (int k = by8 ? 8 : 2; k <= seg; k <<= 1) {
        for (int j = k >> 1; j > 0; j = by8 && j == 4 ? 0 : j >> 1) {
            int in_regs = by8 && j == 4;
            for (int p = lid; p < (in_regs ? n / 8 : n / 2); p += lsz) {
                int x = 2 * j * (p / j) + p % j;
                if (in_regs) esc_sort8(lkey, 8 * p, k == 8 ? 2 : k, k, seg);
                else esc_exchange(lkey, lval, x, x + j, k == seg || (x & k) == 0, keyed);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
}

/* The column of sorted entry x (keyed by bits: column 2^bits + place; else
 * the column; padding: past every column), and its value: keyed, at its
 * place in its segment of seg entries. */
int esc_col(__local const int *lkey, int x, int bits)
{
    return lkey[x] >> bits;
}
VT esc_val(__local const int *lkey, __local const VT *lval, int x, int seg, int bits)
{
    return bits ? lval[x - x % seg + (lkey[x] & (seg - 1))] : lval[x];
}

/* Does a run of equal columns start at x, in segments of seg entries? */
int esc_starts(__local const int *lkey, int x, int seg, int bits)
{
    return lkey[x] != INT_MAX && (x % seg == 0 || esc_col(lkey, x - 1, bits) != esc_col(lkey, x, bits));
}

/* The sum of the values of the run that starts at x and ends by end. */
VT esc_run_sum(__local const int *lkey, __local const VT *lval, int x, int end, int seg, int bits)
{
    VT sum = esc_val(lkey, lval, x, seg, bits);
    for (int y = x + 1; y < end && esc_col(lkey, y, bits) == esc_col(lkey, x, bits); y++)
        sum += esc_val(lkey, lval, y, seg, bits);
    return sum;
}

/* A keyed row of no more A entries than its work-group has work-items
 * merges its entries' B rows, each in column order already, in place of
 * the bitonic sort (esc_merge), where each work-item holds at most
 * ESC_MERGE_PER of the row's places.  On the H200, rmat:15,4's hsp_esc took
 * 0.112 ms a launch sorting, 0.074 merging (doc/performance.md); merging
 * only rows of up to 8, 32 or 64 entries gave products within the rounds'
 * noise of this. */
#define ESC_MERGE_PER 8

/* lends[e]: the end of A entry e's places in row i (esc_expand lays each
 * entry's B row after those of the entries before it), for the row's first
 * k entries (k at most the work-group's size; 0: none): the inclusive sums of
 * their B rows' lengths, each work-item adding those up to its own (at most
 * k reads, no barrier between).  Three barriers, which the whole work-group
 * reaches. */
void esc_place_ends(__global const long *arp, __global const int *acol, __global const long *brp, int i, int k,
                    __local int *lends)
{
    int lid = get_local_id(0), end = 0;
    if (lid < k) lends[lid] = (int)(brp[acol[arp[i] + lid] + 1] - brp[acol[arp[i] + lid]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = 0; e <= lid && e < k; e++) end += lends[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < k) lends[lid] = end;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The first place of A entry e (e = k: past the row's places). */
int esc_place0(__local const int *lends, int e)
{
    return e ? lends[e - 1] : 0;
}

/* The place the key at x moves to in merge round r, where each group of
 * 2^(r+1) entries merges the sorted places of its two halves: x's place in
 * its half plus the other half's keys below it (where columns tie, the left
 * half's keys are the smaller: their places are). */
int esc_merge_place(__local const int *lkey, __local const int *lends, int k, int r, int x)
{
    int key = lkey[x], lo = 0, hi = k - 1;
    while (lo < hi) { /* the entry whose places hold x */
        int mid = (lo + hi) / 2;
        if (lends[mid] > x) hi = mid;
        else lo = mid + 1;
    }
    int g0 = lo >> (r + 1) << (r + 1), m = esc_place0(lends, min(k, g0 + (1 << r)));
    int a = x < m ? m : esc_place0(lends, g0), b = x < m ? esc_place0(lends, min(k, g0 + (2 << r))) : m;
    while (a < b) {
        int mid = (a + b) / 2;
        if (lkey[mid] < key) a = mid + 1;
        else b = mid;
    }
    return x - m + a;
}

/* Sort the keys of a row of k entries (lends: esc_place_ends'), each
 * entry's B row sorted in its places already, by rounds of merges: round r
 * merges the halves of each group of 2^(r+1) entries, ceil(log2 k) rounds of
 * two barriers each (the bitonic network takes 45 for 2048 keys, with its
 * steps below 8 in registers); none where rounds is 0.  Each work-item
 * holds ESC_MERGE_PER keys and their new places between the barriers. */
void esc_merge(__local int *lkey, __local const int *lends, int k, int rounds)
{
    int lid = get_local_id(0), lsz = get_local_size(0), u = rounds ? lends[k - 1] : 0, key[ESC_MERGE_PER],
        to[ESC_MERGE_PER];
    for (int r = 0; r < rounds; r++) {
#pragma unroll
        for (int e = 0; e < ESC_MERGE_PER; e++) {
            int x = lid + e * lsz;
            to[e] = x < u ? esc_merge_place(lkey, lends, k, r, x) : -1;
            key[e] = x < u ? lkey[x] : 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int e = 0; e < ESC_MERGE_PER; e++)
            if (to[e] >= 0) lkey[to[e]] = key[e];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Rows of up to n2 products: one work-group each, keyed or not.  Long rows
 * (islong) write their result at the start of their pool region and record
 * it in lrows. */
__kernel void hsp_esc(HSP_ROW_ARGS, int n2, __local int *lkey, __local VT *lval, __local int *lscan, int islong,
                      __global int *pcol, __global VT *pval, __global hsp_longrow *lrows, int keyed)
{
    long k = first + get_group_id(0);
    int i = rows[k], lid = get_local_id(0), lsz = get_local_size(0), bits = keyed ? 31 - clz(n2) : 0;
    long entries = arp[i + 1] - arp[i]; /* merged: the row's entries where it merges, else 0 */
    int merged = keyed && entries <= lsz && n2 <= ESC_MERGE_PER * lsz ? (int)entries : 0;
    esc_expand(arp, acol, aval, brp, bcol, bval, i, n2, lid, lsz, keyed, lkey, lval);
    esc_place_ends(arp, acol, brp, i, merged, lscan);
    esc_merge(lkey, lscan, merged, merged > 1 ? 32 - clz(merged - 1) : 0);
    esc_sort(n2, merged ? 1 : n2, lkey, lval, keyed); /* a row merged or of one entry is sorted */
    int per = (n2 + lsz - 1) / lsz, x0 = min(n2, lid * per), x1 = min(n2, x0 + per), runs = 0, total;
    for (int x = x0; x < x1; x++) runs += esc_starts(lkey, x, n2, bits);
    long base = islong ? lrows[slot[i]].off : slot[i];
    __global int *oc = (islong ? pcol : tcol) + base;
    __global VT *ov = (islong ? pval : tval) + base;
    int out = group_scan(runs, lscan, &total);
    for (int x = x0; x < x1; x++)
        if (esc_starts(lkey, x, n2, bits))
            oc[out] = esc_col(lkey, x, bits), ov[out++] = esc_run_sum(lkey, lval, x, n2, n2, bits);
    if (lid) return;
    cnt[i] = total;
    if (islong) {
        __global hsp_longrow *st = &lrows[slot[i]];
        st->roff = st->off, st->len = total, st->next = arp[i + 1] - arp[i], st->need = 0;
    }
}

/* ESC's rows of up to 64 products sorted in registers, where work-items
 * trade them within a warp: under NVIDIA's compiler by shuffles and
 * ballots; with HSP_WARP_EMULATE (a test's build on a CPU platform) the
 * same trades through local memory (xi: an int a work-item) with
 * work-group barriers, so that the logic is tested without a GPU.
 * esc_trade: x of work-item lid ^ s; esc_up: x of work-item lid - d (its
 * own below d);
 * esc_heads: the heads h0 + h1 of the row's work-items before this one,
 * and in *total the row's; esc_sync: the work-items see each other's
 * writes to local memory. */
#if defined(__NV_CL_C_VERSION)
#define HSP_ESC_WARP 1
#define ESC_TRADERS 32 /* the work-items that trade with each other: a warp */
int esc_trade(int x, int s, __local int *xi)
{
    return shuffle_xor(x, s);
}
int esc_up(int x, int d, __local int *xi)
{
    return shuffle_up(x, d);
}
int esc_heads(int h0, int h1, int lane, int items, __local int *xi, int *total)
{
    uint m0 = ballot(h0), m1 = ballot(h1), wl = get_local_id(0) % 32;
    uint row = (items == 32 ? ~0u : (1u << items) - 1) << (wl - lane), below = row & ((1u << wl) - 1);
    *total = popcount(m0 & row) + popcount(m1 & row);
    return popcount(m0 & below) + popcount(m1 & below);
}
void esc_sync(void)
{
    warp_sync();
}
#elif defined(HSP_WARP_EMULATE)
#define HSP_ESC_WARP 1
#define ESC_TRADERS ((int)get_local_size(0))
/* x of work-item from of the work-group, through buf (an int a work-item). */
int local_from(int x, int from, __local int *buf)
{
    buf[get_local_id(0)] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    int y = buf[from];
    barrier(CLK_LOCAL_MEM_FENCE);
    return y;
}
int esc_trade(int x, int s, __local int *xi)
{
    return local_from(x, (int)get_local_id(0) ^ s, xi);
}
int esc_up(int x, int d, __local int *xi)
{
    int lid = get_local_id(0);
    return local_from(x, lid >= d ? lid - d : lid, xi);
}
int esc_heads(int h0, int h1, int lane, int items, __local int *xi, int *total)
{
    int lid = get_local_id(0), before = 0;
    xi[lid] = h0 + h1;
    barrier(CLK_LOCAL_MEM_FENCE);
    *total = 0;
    for (int l = lid - lane; l < lid - lane + items; l++) before += l < lid ? xi[l] : 0, *total += xi[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    return before;
}
void esc_sync(void)
{
    barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

#ifdef HSP_ESC_WARP
/* One compare-exchange step of the sorting network over keys held two a
 * work-item (key x = 2 lane + e in key[e]): each key against the one that
 * work-item lane ^ m holds in place e ^ swap, the work-item whose lane has
 * bit low clear keeping the smaller; m = 0: its own two keys. */
void esc_warp_step(int key[2], int lane, int m, int swap, int low, __local int *xi)
{
    if (!m) {
        int small = min(key[0], key[1]);
        key[1] = max(key[0], key[1]), key[0] = small;
        return;
    }
    int p0 = esc_trade(key[swap], m, xi), p1 = esc_trade(key[1 - swap], m, xi), keep_small = !(lane & low);
    key[0] = keep_small ? min(key[0], p0) : max(key[0], p0);
    key[1] = keep_small ? min(key[1], p1) : max(key[1], p1);
}

/* Sort a row's n2 <= 64 keys (esc_warp_step's layout) whose aligned runs of
 * k0 / 2 are sorted already: stage k merges the sorted halves of each run
 * of k, each key first against its mirror in the run (x ^ (k - 1)), then
 * against x ^ j for j = k / 4 .. 1, always ascending.  The loops unroll
 * under NVIDIA's compiler (which folds each step's constants); k0 and n2
 * are the same for all the work-items that trade together. */
void esc_warp_sort(int key[2], int lane, int n2, int k0, __local int *xi)
{
#ifdef HSP_WARP_EMULATE
#pragma nounroll /* PoCL's compiler takes many minutes over an unrolled network's barriers */
#else
#pragma unroll
#endif
    for (int k = 2; k <= 64; k <<= 1) {
        if (k < k0 || k > n2) continue;
        esc_warp_step(key, lane, k / 2 - 1, 1, k / 4, xi);
#pragma unroll
        for (int j = k / 4; j > 0; j >>= 1) esc_warp_step(key, lane, j / 2, 0, j / 2, xi);
    }
}

/* The products of the row's first items A entries, from p0 (end past the
 * row), by its work-items together: lane l's entry's B row length (*nb),
 * summed over the lanes up to l (a scan by trades: the same steps for every
 * row) into ends[l], so that product t < ends[items - 1] (returned) is of
 * the first entry whose end passes it; an esc_sync after. */
int esc_entry_ends(__global const int *acol, __global const long *brp, long p0, long end, int lane, int items,
                   __local int *ends, __local int *xi, int *nb)
{
    long p = p0 + lane;
    int sum = *nb = p < end ? (int)(brp[acol[p] + 1] - brp[acol[p]]) : 0;
    for (int d = 1; d < items; d <<= 1) {
        int below = esc_up(sum, d, xi);
        sum += lane >= d ? below : 0;
    }
    ends[lane] = sum;
    esc_sync();
    return ends[items - 1];
}

/* The B entry of the row's product t, and its A entry in *pa: by ends
 * (esc_entry_ends) where t is of the first items entries from p0 (t <
 * covered), else by the walk rest over the entries past them (t never
 * less than the last it was asked for). */
long esc_product(__global const int *acol, __global const long *brp, long p0, int items, __local const int *ends,
                 int covered, int t, row_walk *rest, long *pa)
{
    if (t >= covered) {
        long q = walk_to(rest, acol, brp, t);
        *pa = rest->p;
        return q;
    }
    int lo = 0, hi = items - 1; /* the first entry whose end passes t */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ends[mid] > t) hi = mid;
        else lo = mid + 1;
    }
    *pa = p0 + lo;
    return brp[acol[*pa]] + t - (lo ? ends[lo - 1] : 0);
}

/* The run of places each A entry of the row gets (its B row sorted in
 * them, INT_MAX after): the longest B row of its entries (nb: the
 * work-item's, esc_entry_ends) to a power of two, where the row has at most
 * items entries and their runs fit its n2 places; else 1 (its products in
 * order, one a place). */
int esc_run_width(int nb, long entries, int items, int n2, __local int *xi)
{
    for (int d = items / 2; d > 0; d >>= 1) nb = max(nb, esc_trade(nb, d, xi));
    int w = nb <= 1 ? 1 : 1 << (32 - clz(nb - 1));
    return entries <= items && entries * w <= n2 ? w : 1;
}

/* The least w of the rows that trade together (ESC_TRADERS work-items,
 * rows of items), whose sorts share their steps. */
int esc_traders_min(int w, int items, __local int *xi)
{
    for (int d = items; d < ESC_TRADERS; d <<= 1) w = min(w, esc_trade(w, d, xi));
    return w;
}

/* The B entry at place x of a row whose A entries (from p0) hold runs of w
 * places (esc_run_width, w > 1): entry x / w's B row's (x mod w)th, or -1
 * past its B row; its A entry in *pa.  ends: esc_entry_ends'. */
long esc_run_product(__global const int *acol, __global const long *brp, long p0, __local const int *ends, int w,
                     int x, long *pa)
{
    int entry = x >> (31 - clz(w)), at = x & (w - 1), before = entry ? ends[entry - 1] : 0;
    *pa = p0 + entry;
    return at < ends[entry] - before ? brp[acol[*pa]] + at : -1;
}

/* hsp_esc_rows for rows of n2 <= 64 products, each within a warp (lane: the
 * work-item's place in its row): places x = 2 lane and 2 lane + 1 (the
 * sort's order of keys), each holding a product or none.  A row whose
 * entries' B rows fit runs of w places each (esc_run_width) puts entry r's
 * B row, sorted, at places r w on; any other its products in order (w = 1),
 * each found from the ends of the row's first entries' products
 * (esc_entry_ends; a work-item's walk over the entries before its product,
 * a chain of loads an entry, took random:400000,6's launch 0.619 ms against
 * 0.579 on an H200).  Each product is keyed by its column and place (column
 * 2^bits + x, n2 = 2^bits: B's columns fewer than 2^25, gpu_rows.c), its
 * value left in the row's segment of lval; the keys sorted two a work-item
 * in registers (esc_warp_sort, from runs of the least w of the rows that
 * trade together: a value a trade, not a column and a value; ties in the
 * order of places), each value fetched by its key's place, then the runs'
 * heads counted (esc_heads) and each run summed from the row's segment of
 * lcol/lval (its n2 entries) in sorted order.  xi: the trades' scratch where
 * they go through local memory. */
void esc_rows_warp(HSP_ROW_ARGS, int i, int n2, int lane, __local int *lcol, __local VT *lval, __local int *xi)
{
    int items = n2 / 2, bits = 31 - clz(n2), key[2], c[2], h[2], total, nb;
    VT v[2];
    long p0 = i >= 0 ? arp[i] : 0, end = i >= 0 ? arp[i + 1] : 0, pa;
    int covered = esc_entry_ends(acol, brp, p0, end, lane, items, lcol, xi, &nb); /* lcol: free till the sort's end */
    int w = esc_run_width(nb, end - p0, items, n2, xi), k0 = 2 * esc_traders_min(w, items, xi);
    row_walk rest = walk_from(acol, brp, p0 + items, end, covered);
    for (int e = 0; e < 2; e++) {
        int x = 2 * lane + e;
        long q = w > 1 ? esc_run_product(acol, brp, p0, lcol, w, x, &pa)
                       : esc_product(acol, brp, p0, items, lcol, covered, x, &rest, &pa);
        key[e] = q >= 0 ? bcol[q] << bits | x : INT_MAX;
        lval[x] = q >= 0 ? aval[pa] * bval[q] : 0;
    }
    esc_warp_sort(key, lane, n2, k0, xi);
    esc_sync(); /* every product's value in lval */
    for (int e = 0; e < 2; e++)
        c[e] = key[e] == INT_MAX ? INT_MAX : key[e] >> bits, v[e] = key[e] == INT_MAX ? 0 : lval[key[e] & (n2 - 1)];
    int before = esc_up(c[1], 1, xi);
    h[0] = c[0] != INT_MAX && (lane == 0 || before != c[0]), h[1] = c[1] != INT_MAX && c[1] != c[0];
    int out = esc_heads(h[0], h[1], lane, items, xi, &total);
    esc_sync(); /* every value fetched before lval is written over */
    for (int e = 0; e < 2; e++) lcol[2 * lane + e] = c[e], lval[2 * lane + e] = v[e];
    esc_sync();
    if (i < 0) return;
    for (int e = 0; e < 2; e++)
        if (h[e]) tcol[slot[i] + out] = c[e], tval[slot[i] + out++] = esc_run_sum(lcol, lval, 2 * lane + e, n2, n2, 0);
    if (!lane) cnt[i] = total;
}
#endif

/* Short and medium rows of up to n2 <= 2 x the work-group's size products,
 * several a work-group, keyed or not: row r of the group owns entries
 * [r n2, (r + 1) n2) of the local arrays (two per work-item) and the n2 / 2
 * work-items over them (items).  The bitonic network sorts each row's
 * segment on its own; a scan over the work-group, less its value at the
 * row's first work-item, places each run. */
__kernel void hsp_esc_rows(HSP_ROW_ARGS, int n2, __local int *lkey, __local VT *lval, __local int *lscan, int keyed)
{
    int lid = get_local_id(0), lsz = get_local_size(0), items = n2 / 2, r = lid / items, at = r * n2;
    long k = first + get_group_id(0) * (2 * lsz / n2) + r;
    int i = k < first + nrows ? rows[k] : -1, bits = keyed ? 31 - clz(n2) : 0;
#ifdef HSP_ESC_WARP
    if (n2 <= 64) {
        esc_rows_warp(arp, acol, aval, brp, bcol, bval, rows, first, nrows, slot, tcol, tval, cnt, i, n2, lid % items,
                      lkey + at, lval + at, lscan);
        return;
    }
#endif
    esc_expand(arp, acol, aval, brp, bcol, bval, i, n2, lid % items, items, keyed, lkey + at, lval + at);
    esc_sort(2 * lsz, n2, lkey, lval, keyed);
    int x0 = 2 * lid, runs = 0, total;
    for (int x = x0; x < x0 + 2; x++) runs += esc_starts(lkey, x, n2, bits);
    int out = group_scan(runs, lscan, &total), first_item = r * items; /* lscan: inclusive sums */
    int before = first_item ? lscan[first_item - 1] : 0;
    if (i < 0) return;
    out -= before;
    for (int x = x0; x < x0 + 2; x++)
        if (esc_starts(lkey, x, n2, bits))
            tcol[slot[i] + out] = esc_col(lkey, x, bits),
            tval[slot[i] + out++] = esc_run_sum(lkey, lval, x, at + n2, n2, bits);
    if (lid == first_item) cnt[i] = lscan[first_item + items - 1] - before;
}
