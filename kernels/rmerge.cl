/* rmerge.cl: RMerge (Gremse et al. 2015): a row of C computed by w
 * work-items (a power of two, 4 to 64) that merge the row's B rows, each
 * sorted, into the sorted row of C, summing equal columns as they go.  At
 * each step every work-item shows the next column of its B row; the least
 * of them, found by a tree over the w items in local memory, is the row's
 * next column, and its value the tree sum of the items that show it (a fixed
 * order: the same bits on every run); those items step on.  Several rows a
 * work-group, w items each.
 *
 * A row of A with more entries than w - 1 is merged w - 1 B rows at a time,
 * as the paper reduces general products to its limited one (the first round
 * takes the rows left over, the fewest, since every later round reads its
 * result again: 12 and 15 of poisson3d27's 27, not 15 and 12): item 0 brings
 * the result so far, which lies at the end of the row's region of C~ (u
 * entries, at least the row's products), and the new result is written from
 * the region's start; then moved to its end for the next round.  Writing
 * never passes what item 0 has yet to read: the result so far holds at most
 * the products of the rounds before, so its start lies at least this round's
 * products past the region's start. */

/* The steps of a row's items, and of the work-items that step together (the
 * domain: the work-group; on NVIDIA GPUs a warp of 32, whose lanes trade
 * registers by PTX shuffles, without barriers, and where the GPU has it
 * (HSP_WARP_REDUX) reduce integers by redux.sync).  row_min and row_sum: the
 * least and the sum of x over each row's w items (the sum as a tree that
 * pairs items s apart, s = w/2 .. 1, in both ways); mark_any and any_more: does
 * any item of the domain pass yes at this step (flag: two ints, zero at
 * first, by the step's parity; the items' sum step orders them);
 * domain_max: the largest x of the domain; domain_sync: the domain's items
 * see each other's writes to global memory.  Every item of the domain
 * calls each. */
#ifdef __NV_CL_C_VERSION
int row_min(int x, __local int *buf, int lane, int w)
{
#ifdef HSP_WARP_REDUX /* one instruction where the row has 16 items; slower than shuffles at 8 */
    if (w == 16) {
        uint mask = 0xffffu << (get_local_id(0) & 16); /* the row's half of the warp */
        asm volatile("redux.sync.min.s32 %0, %0, %1;" : "+r"(x) : "r"(mask));
        return x;
    }
#endif
    for (int s = w / 2; s > 0; s >>= 1) x = min(x, shuffle_xor(x, s));
    return x;
}
VT row_sum(VT x, __local VT *buf, int lane, int w)
{
    for (int s = w / 2; s > 0; s >>= 1) x += shuffle_xor_vt(x, s);
    return x;
}
void mark_any(int yes, __local int *flag, int step) {}
int any_more(int yes, __local int *flag, int step)
{
    int r;
    asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.any.pred p, p, 0xffffffff; selp.s32 %0, 1, 0, p; }"
                 : "=r"(r) : "r"(yes));
    return r;
}
int domain_max(int x, __local int *most)
{
    for (int s = 16; s > 0; s >>= 1) x = max(x, shuffle_xor(x, s));
    return x;
}
void domain_sync(void)
{
    warp_sync();
}
#else
int row_min(int x, __local int *buf, int lane, int w)
{
    int lid = get_local_id(0);
    buf[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = w / 2; s > 0; s >>= 1) {
        if (lane < s) buf[lid] = min(buf[lid], buf[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return buf[lid - lane];
}
VT row_sum(VT x, __local VT *buf, int lane, int w)
{
    int lid = get_local_id(0);
    buf[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = w / 2; s > 0; s >>= 1) {
        if (lane < s) buf[lid] += buf[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return buf[lid - lane];
}
void mark_any(int yes, __local int *flag, int step)
{
    if (yes) flag[step & 1] = 1;
    if (get_local_id(0) == 0) flag[(step + 1) & 1] = 0;
}
int any_more(int yes, __local int *flag, int step)
{
    return flag[step & 1];
}
int domain_max(int x, __local int *most)
{
    if (get_local_id(0) == 0) *most = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_max(most, x);
    barrier(CLK_LOCAL_MEM_FENCE);
    int all = *most;
    barrier(CLK_LOCAL_MEM_FENCE);
    return all;
}
void domain_sync(void)
{
    barrier(CLK_GLOBAL_MEM_FENCE);
}
#endif

/* One round of a row (live: the row has this round): items 1..w-1 merge the
 * B rows of its A entries from.. (up to w - 1 of them, before to; acol and
 * aval: the row's A entries), item 0 the result so far (have entries at
 * rcol + u - have; none in the first round), into rcol[0..), rval[0..);
 * returns the entries written.  Every item of the group steps until every
 * row's round is done: flag (two ints, zero at the first call) says whether
 * any row wrote at a step, by the step's parity. */
int rmerge_round(__global const int *acol, __global const VT *aval, __global const long *brp,
                 __global const int *bcol, __global const VT *bval, int live, int from, int to, __global int *rcol,
                 __global VT *rval, int u, int have, int lane, int w, __local int *lmin, __local VT *lsum,
                 __local int *flag)
{
    int a = from + lane - 1, left = 0; /* left: the entries the item has yet to show, from col and val on */
    VT scale = 1;
    __global const int *col = rcol + u - have;
    __global const VT *val = rval + u - have;
    if (live && lane == 0) {
        left = have;
    } else if (live && lane > 0 && a < to) {
        int b = acol[a];
        long q = brp[b];
        col = bcol + q, val = bval + q, left = (int)(brp[b + 1] - q), scale = aval[a];
    }
    int n = 0, head = left > 0 ? *col : INT_MAX; /* the item's next entry, read as soon as it steps on */
    VT next = left > 0 ? scale * *val : 0;
    for (int step = 0;; step++) {
        int m = row_min(head, lmin, lane, w), more = m != INT_MAX, steps = head == m && more;
        mark_any(more, flag, step);
        VT sum = row_sum(steps ? next : 0, lsum, lane, w);
        if (lane == 0 && more) rcol[n] = m, rval[n] = sum;
        n += more;
        if (steps) col++, val++, left--, head = left > 0 ? *col : INT_MAX, next = left > 0 ? scale * *val : 0;
        if (!any_more(more, flag, step)) return n;
    }
}

/* Move a row's entries [0, n) to [u - n, u), the last first, w items at a
 * time: each block read before any is written. */
void rmerge_to_end(__global int *rcol, __global VT *rval, int u, int n, int blocks, int lane, int w)
{
    for (int k = 0; k < blocks; k++) {
        int x = n - 1 - k * w - lane, c = 0;
        VT v = 0;
        if (x >= 0) c = rcol[x], v = rval[x];
        domain_sync();
        if (x >= 0) rcol[u - n + x] = c, rval[u - n + x] = v;
        domain_sync();
    }
}

/* Rows of up to w - 1 A entries in one round, longer ones in several; ub:
 * each row's u (the size of its region of C~; medium rows only, so an int
 * holds it); lmin and lsum: an int and a VT a work-item; lflag: three ints. */
__kernel void hsp_rmerge(HSP_ROW_ARGS, __global const long *ub, int w, __local int *lmin, __local VT *lsum,
                         __local int *lflag)
{
    int lid = get_local_id(0), lane = lid % w;
    long k = first + get_group_id(0) * (get_local_size(0) / w) + lid / w;
    int i = k < first + nrows ? rows[k] : -1;
    long p0 = i >= 0 ? arp[i] : 0, out = i >= 0 ? slot[i] : 0;
    int na = i >= 0 ? (int)(arp[i + 1] - p0) : 0, u = i >= 0 ? (int)ub[i] : 0;
    int rounds = (na + w - 2) / (w - 1), n = 0;
    __global int *rcol = tcol + out;
    __global VT *rval = tval + out;
    if (lid == 0) lflag[0] = lflag[1] = 0;
    int all = domain_max(rounds, lflag + 2);
    for (int c = 0; c < all; c++) {
        int mine = c < rounds, more = c + 1 < rounds; /* the row has round c, and one after it */
        int to = na - (rounds - 1 - c) * (w - 1), from = max(0, to - (w - 1));
        int got = rmerge_round(acol + p0, aval + p0, brp, bcol, bval, i >= 0 && mine, from, to, rcol, rval, u, n,
                               lane, w, lmin, lsum, lflag);
        n = mine ? got : n;
        if (c + 1 < all) /* the rows with another round move their result to the region's end */
            rmerge_to_end(rcol, rval, u, more ? n : 0, domain_max(more ? (n + w - 1) / w : 0, lflag + 2), lane, w);
    }
    if (lane == 0 && i >= 0) cnt[i] = n;
}
