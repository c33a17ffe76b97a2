/* merge.cl: the merge method for long rows (and, on request, medium ones):
 * one work-group per row merges the row's B rows, one after the other, into
 * the sorted result so far.  Each merge is a merge path: every work-item
 * takes an equal share of the merged sequence, found by binary search, and
 * equal columns of the result and the B row are summed into one entry.
 *
 * The result lives in local memory while it fits (two buffers of lcap
 * entries, ping-pong), then in the row's pool buffer (two halves, ping-pong).
 * A long row whose next merge would not fit in half its buffer stops: its
 * result is dumped to the pool, its place recorded in its hsp_longrow
 * (checkpoint), and the host grows the buffer and launches the row again. */

/* MERGE_FUNCS(NAME, RS, OS) defines NAME, merging a result in address space
 * RS with a B row (global, scaled by a) into a result in address space OS. */
#define MERGE_FUNCS(NAME, RS, OS)                                                      \
    /* How many result entries come among the first d of the merged sequence. */       \
    long NAME##_split(RS const int *rc, long r, __global const int *bc, long nb, long d) \
    {                                                                                  \
        long lo = max(0L, d - nb), hi = min(d, r);                                     \
        while (lo < hi) {                                                              \
            long mid = (lo + hi) / 2;                                                  \
            if (rc[mid] <= bc[d - 1 - mid]) lo = mid + 1;                              \
            else hi = mid;                                                             \
        }                                                                              \
        return lo;                                                                     \
    }                                                                                  \
    /* Merge; returns the length of the new result (in every work-item). */          \
    long NAME(RS const int *rc, RS const VT *rv, long r, __global const int *bc,        \
              __global const VT *bv, VT a, long nb, OS int *oc, OS VT *ov,              \
              __local int *lscan)                                                       \
    {                                                                                  \
        long n = r + nb, per = (n + get_local_size(0) - 1) / get_local_size(0);        \
        long d0 = min(n, (long)get_local_id(0) * per), d1 = min(n, d0 + per);          \
        long i0 = NAME##_split(rc, r, bc, nb, d0), j0 = d0 - i0, i = i0, j = j0;       \
        int emit = 0, total;                                                           \
        for (long d = d0; d < d1; d++) {                                               \
            if (j >= nb || (i < r && rc[i] <= bc[j])) emit++, i++;                     \
            else emit += !(i > 0 && rc[i - 1] == bc[j]), j++;                          \
        }                                                                              \
        long o = group_scan(emit, lscan, &total);                                      \
        i = i0, j = j0;                                                                \
        for (long d = d0; d < d1; d++) {                                               \
            if (j >= nb || (i < r && rc[i] <= bc[j])) {                                \
                VT v = rv[i];                                                          \
                if (j < nb && bc[j] == rc[i]) v += a * bv[j];                          \
                oc[o] = rc[i], ov[o++] = v, i++;                                       \
            } else {                                                                   \
                if (!(i > 0 && rc[i - 1] == bc[j])) oc[o] = bc[j], ov[o++] = a * bv[j]; \
                j++;                                                                   \
            }                                                                          \
        }                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);                           \
        return total;                                                                  \
    }

MERGE_FUNCS(merge_ll, __local, __local)
MERGE_FUNCS(merge_lg, __local, __global)
MERGE_FUNCS(merge_gg, __global, __global)

/* Copy n entries between local memory and global memory, by the work-group. */
void copy_to_global(__local const int *c, __local const VT *v, long n, __global int *oc,
                    __global VT *ov)
{
    for (long x = get_local_id(0); x < n; x += get_local_size(0)) oc[x] = c[x], ov[x] = v[x];
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

void copy_to_local(__global const int *c, __global const VT *v, long n, __local int *oc,
                   __local VT *ov)
{
    for (long x = get_local_id(0); x < n; x += get_local_size(0)) oc[x] = c[x], ov[x] = v[x];
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

/* Leave a long row: its result (in local memory when roff < 0) goes to the
 * pool and its state to st; need > 0 asks the host for a larger buffer. */
void merge_leave(__global hsp_longrow *st, __local const int *lc, __local const VT *lv,
                 long r, long roff, long next, long need, __global int *pcol, __global VT *pval)
{
    if (roff < 0) copy_to_global(lc, lv, r, pcol + st->off, pval + st->off), roff = st->off;
    if (get_local_id(0) == 0) st->roff = roff, st->len = r, st->next = next, st->need = need;
}

__kernel void hsp_merge(HSP_ROW_ARGS, int islong, __global int *pcol, __global VT *pval,
                        __global hsp_longrow *lrows, long lcap, __local int *lc0,
                        __local VT *lv0, __local int *lc1, __local VT *lv1, __local int *lscan)
{
    int i = rows[first + get_group_id(0)], cur = 0;
    long p = arp[i], r = 0, roff = -1; /* roff < 0: the result is in local memory */
    __global hsp_longrow *st = islong ? &lrows[slot[i]] : 0;
    if (islong) {
        p += st->next, r = st->len, roff = st->roff;
        if (r <= lcap) copy_to_local(pcol + roff, pval + roff, r, lc0, lv0), roff = -1;
    }
    for (; p < arp[i + 1]; p++) {
        long b0 = brp[acol[p]], nb = brp[acol[p] + 1] - b0;
        __local int *lc = cur ? lc1 : lc0, *oc = cur ? lc0 : lc1;
        __local VT *lv = cur ? lv1 : lv0, *ov = cur ? lv0 : lv1;
        if (nb == 0) continue;
        if (islong && r + nb > st->hcap) {
            merge_leave(st, lc, lv, r, roff, p - arp[i], r + nb, pcol, pval);
            return;
        }
        if (roff < 0 && r + nb <= lcap) {
            r = merge_ll(lc, lv, r, bcol + b0, bval + b0, aval[p], nb, oc, ov, lscan);
            cur ^= 1;
            continue;
        }
        long out = roff >= st->off && roff < st->off + st->hcap ? st->off + st->hcap : st->off;
        if (roff < 0) r = merge_lg(lc, lv, r, bcol + b0, bval + b0, aval[p], nb, pcol + out, pval + out, lscan);
        else r = merge_gg(pcol + roff, pval + roff, r, bcol + b0, bval + b0, aval[p], nb, pcol + out, pval + out, lscan);
        roff = out;
    }
    __local int *lc = cur ? lc1 : lc0;
    __local VT *lv = cur ? lv1 : lv0;
    if (islong) merge_leave(st, lc, lv, r, roff, arp[i + 1] - arp[i], 0, pcol, pval);
    else copy_to_global(lc, lv, r, tcol + slot[i], tval + slot[i]);
    if (get_local_id(0) == 0) cnt[i] = r;
}
