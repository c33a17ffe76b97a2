/* amg.cl: smoothed aggregation on a device with memory of its own, for a
 * resident hierarchy (src/amg/gpu_amg.c), a row or an entry a work-item.  A's
 * diagonal and the bound of rho(D^-1 A); the passes of the Lanczos steps
 * that estimate rho below it; strong connections; roots: a
 * maximal set of nodes at distance 3 or more from each other over the
 * strong connections, by rounds of hsp_mis_max (the largest key within
 * distance 1) and hsp_mis_update (within distance 2: a root, out, or
 * undecided; where strong connections are symmetric, hsp_mis_rounds: many
 * rounds a launch in the work-groups not settled), the keys in
 * the host's order within chunks of rows (hsp_mis_init), hashed for the
 * rounds past a cap (hsp_mis_rekey);
 * aggregates: a root and the nodes within distance 2 of it; the tentative
 * prolongator T; P = T - w D^-1 A T in place over A*T; and R = P^T by counts, a scan and a scatter (rows
 * unsorted: the host sorts them by a product with the identity).  For a
 * re-setup with new values: products and P^T of known patterns, values only,
 * and the check that a new A has the old one's pattern. */

/* A node's key: its state in the top two bits (0 out, 1 undecided, 2 root),
 * its priority in the other 62, distinct for each node: a root's beats
 * every undecided one. */
#define MIS_STATE(key) ((int)((key) >> 62))
#define MIS_NUMBER (((ulong)1 << 62) - 1)

/* Where column j is in col[lo..hi) (sorted), or -1. */
long find_col(__global const int *col, long lo, long hi, int j)
{
    long end = hi;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (col[mid] < j) lo = mid + 1;
        else hi = mid;
    }
    return lo < end && col[lo] == j ? lo : -1;
}

/* part[the work-group]: the largest (most) or the sum of the work-group's
 * x (a power-of-two size, l of its size); every item calls it. */
void group_reduce(VT x, int most, __local VT *l, __global VT *part)
{
    int t = get_local_id(0);
    l[t] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = get_local_size(0) / 2; d > 0; d /= 2) {
        if (t < d) l[t] = most ? fmax(l[t], l[t + d]) : l[t] + l[t + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) part[get_group_id(0)] = l[0];
}

/* where[i]: the entry of row i's diagonal; *bad: the first row without a
 * nonzero one (stays n when none); part[g]: the largest
 * sum_j |a_ij| / |a_ii| of the work-group's rows. */
__kernel void hsp_sa_diag(long n, __global const long *arp, __global const int *acol, __global const VT *aval,
                          __global long *where, __global int *bad, __global VT *part, __local VT *lmax)
{
    long i = get_global_id(0);
    VT r = 0;
    if (i < n) {
        long d = find_col(acol, arp[i], arp[i + 1], (int)i);
        if (d < 0 || aval[d] == 0) {
            atomic_min(bad, (int)i);
        } else {
            VT sum = 0;
            for (long k = arp[i]; k < arp[i + 1]; k++) sum += fabs(aval[k]);
            r = sum / fabs(aval[d]);
            where[i] = d;
        }
    }
    group_reduce(r, 1, lmax, part);
}

/* The Lanczos passes of src/amg/gpu_amg.c (device.h's HSP_LZ_*) on
 * S = |D|^-1/2 A |D|^-1/2, a row a work-item, each with its work-group's
 * part of the sum it gives, which hsp_lz_sum adds into the scalars (alpha,
 * |w|^2 per step) that the later passes read where they are.  Entry i of
 * the start vector: device.h's hsp_lanczos_start. */
VT lanczos_start(long i)
{
    uint h = (uint)i * 0x9e3779b1u;
    h ^= h >> 15, h *= 0x85ebca77u, h ^= h >> 13, h *= 0xc2b2ae35u, h ^= h >> 16;
    return ldexp((VT)h, -32) - (VT)0.5;
}

/* scale = |a_ii|^-1/2, w = the start vector, v = 0; part: |w|^2. */
__kernel void hsp_lz_start(long n, __global const long *arp, __global const int *acol, __global const VT *aval,
                           __global VT *scale, __global VT *w, __global VT *v, __global VT *part, __local VT *l)
{
    long i = get_global_id(0);
    VT x = 0;
    if (i < n) {
        scale[i] = 1 / sqrt(fabs(aval[find_col(acol, arp[i], arp[i + 1], (int)i)]));
        x = w[i] = lanczos_start(i);
        v[i] = 0;
    }
    group_reduce(x * x, 0, l, part);
}

/* w = S v (u = scale v); part: w.v. */
__kernel void hsp_lz_multiply(long n, __global const long *arp, __global const int *acol, __global const VT *aval,
                              __global const VT *scale, __global const VT *u, __global const VT *v, __global VT *w,
                              __global VT *part, __local VT *l)
{
    long i = get_global_id(0);
    VT x = 0;
    if (i < n) {
        VT sum = 0;
        for (long k = arp[i]; k < arp[i + 1]; k++) sum += aval[k] * u[acol[k]];
        w[i] = sum * scale[i];
        x = w[i] * v[i];
    }
    group_reduce(x, 0, l, part);
}

/* w -= alpha v + beta prev (alpha = scalars[alpha_at], beta =
 * sqrt(scalars[norm2_at])); part: |w|^2. */
__kernel void hsp_lz_orthogonalize(long n, __global const VT *scalars, long alpha_at, long norm2_at,
                                   __global const VT *v, __global const VT *prev, __global VT *w, __global VT *part,
                                   __local VT *l)
{
    long i = get_global_id(0);
    VT alpha = scalars[alpha_at], beta = sqrt(scalars[norm2_at]), x = 0;
    if (i < n) x = w[i] -= alpha * v[i] + beta * prev[i];
    group_reduce(x * x, 0, l, part);
}

/* prev = v, v = w / beta, u = scale v (beta = sqrt(scalars[norm2_at])). */
__kernel void hsp_lz_advance(long n, __global const VT *scalars, long norm2_at, __global const VT *scale,
                             __global const VT *w, __global VT *v, __global VT *prev, __global VT *u)
{
    long i = get_global_id(0);
    VT beta = sqrt(scalars[norm2_at]);
    if (i >= n) return;
    prev[i] = v[i], v[i] = w[i] / beta, u[i] = scale[i] * v[i];
}

/* scalars[at] = the sum of part[0..nparts), by one work-group. */
__kernel void hsp_lz_sum(long nparts, __global const VT *part, __global VT *scalars, long at, __local VT *l)
{
    VT x = 0;
    for (long k = get_local_id(0); k < nparts; k += get_local_size(0)) x += part[k];
    group_reduce(x, 0, l, scalars + at);
}

/* rmax[i]: the largest a_ik^2 of row i, k != i, below 1e-32 taken as 0 (the
 * scale of classical strength, as the CPU's). */
__kernel void hsp_sa_rowmax(long n, __global const long *arp, __global const int *acol, __global const VT *aval,
                            __global VT *rmax)
{
    long i = get_global_id(0);
    if (i >= n) return;
    VT m = 0;
    for (long k = arp[i]; k < arp[i + 1]; k++)
        if (acol[k] != i) m = fmax(m, aval[k] * aval[k]);
    rmax[i] = m < (VT)1e-32 ? 0 : m;
}

/* strong[k]: entry k (row i, column j != i) is strong, as the CPU's strength
 * of single rows: classical, a_ij != 0 and a_ij^2 >= theta^2 max(rmax[i],
 * rmax[j]); else (symmetric) a_ij^2 >= theta^2 |a_ii| |a_jj| and, unless
 * zeros (level 0's stored zeros count), a_ij != 0. */
__kernel void hsp_sa_strong(long n, __global const long *arp, __global const int *acol, __global const VT *aval,
                            __global const long *where, __global const VT *rmax, VT theta, int classical, int zeros,
                            __global uchar *strong)
{
    long i = get_global_id(0);
    if (i >= n) return;
    VT aii = aval[where[i]];
    for (long k = arp[i]; k < arp[i + 1]; k++) {
        int j = acol[k];
        VT a = aval[k];
        VT bound = classical ? theta * theta * fmax(rmax[i], rmax[j])
                             : theta * theta * fabs(aii) * fabs(aval[where[j]]);
        strong[k] = j != i && (zeros || a != 0) && a * a >= bound;
    }
}

/* Every node with a strong connection undecided, every other out (in no
 * aggregate, as the host's isolated nodes), root[i] 0; the keys in the
 * host's order within chunks of chunk rows: node i is at place i % chunk of
 * chunk i / chunk, and the earlier place comes first, then the earlier
 * chunk.  The rounds then take each chunk's rows in order, as the host's
 * greedy pass takes all rows (one chunk: the host's roots), while the
 * chunks go at once. */
__kernel void hsp_mis_init(long n, long chunk, __global const long *arp, __global const uchar *strong,
                           __global ulong *key, __global long *root)
{
    long i = get_global_id(0);
    if (i >= n) return;
    long chunks = (n + chunk - 1) / chunk, place = i % chunk, c = i / chunk;
    int connected = 0;
    for (long k = arp[i]; k < arp[i + 1] && !connected; k++) connected = strong[k];
    key[i] = (ulong)connected << 62 | (ulong)((chunk - 1 - place) * chunks + chunks - 1 - c);
    root[i] = 0;
}

/* Each undecided node's priority hashed from its number (distinct: the
 * number in the low 32 bits), for rounds that a long chain of the chunks'
 * order would make too many. */
__kernel void hsp_mis_rekey(long n, __global ulong *key)
{
    long i = get_global_id(0);
    if (i >= n || MIS_STATE(key[i]) != 1) return;
    uint h = (uint)i * 0x9e3779b1u;
    h ^= h >> 15, h *= 0x85ebca77u, h ^= h >> 13;
    key[i] = (ulong)1 << 62 | (ulong)(h & 0x3fffffffu) << 32 | (ulong)i;
}

/* The largest of x over node i and its strong neighbours, read past any
 * cache that another work-group's writes in the same launch would not reach
 * (hsp_mis_rounds). */
ulong strong_max(long i, __global const long *arp, __global const int *acol, __global const uchar *strong,
                 volatile __global const ulong *x)
{
    ulong most = x[i];
    for (long k = arp[i]; k < arp[i + 1]; k++)
        if (strong[k]) most = max(most, x[acol[k]]);
    return most;
}

/* out[i]: the largest key of i and its strong neighbours. */
__kernel void hsp_mis_max(long n, __global const long *arp, __global const int *acol, __global const uchar *strong,
                          __global const ulong *in, __global ulong *out)
{
    long i = get_global_id(0);
    if (i < n) out[i] = strong_max(i, arp, acol, strong, in);
}

/* Decide undecided node i: a root if its key is the largest within
 * distance 2 (the largest of near over itself and its strong neighbours,
 * near holding hsp_mis_max's), out if a root is there; 1 if it was decided
 * (root[i] 1 for a new root), else 0. */
int mis_decide(long i, __global const long *arp, __global const int *acol, __global const uchar *strong,
               __global ulong *key, volatile __global const ulong *near, __global long *root)
{
    ulong k = key[i];
    if (MIS_STATE(k) != 1) return 0;
    ulong most = strong_max(i, arp, acol, strong, near);
    if (most == k) key[i] = (ulong)2 << 62 | (k & MIS_NUMBER), root[i] = 1;
    else if (MIS_STATE(most) == 2) key[i] = k & MIS_NUMBER;
    else return 0;
    return 1;
}

/* A round over every node: mis_decide; any node left undecided sets
 * *undecided to 1. */
__kernel void hsp_mis_update(long n, __global const long *arp, __global const int *acol, __global const uchar *strong,
                             __global ulong *key, __global const ulong *near, __global int *undecided,
                             __global long *root)
{
    long i = get_global_id(0);
    if (i < n && !mis_decide(i, arp, acol, strong, key, near, root) && MIS_STATE(key[i]) == 1) *undecided = 1;
}

/* Is node i or a strong neighbour undecided (by key)? */
int strong_open(long i, __global const long *arp, __global const int *acol, __global const uchar *strong,
                volatile __global const ulong *key)
{
    int open = MIS_STATE(key[i]) == 1;
    for (long k = arp[i]; k < arp[i + 1] && !open; k++) open = strong[k] && MIS_STATE(key[acol[k]]) == 1;
    return open;
}

/* Rounds where the strong connections are symmetric: iters rounds (max1,
 * then decisions) a launch in each work-group not yet settled, the
 * work-groups reading what the others write as they go, so that a decision
 * can cross many work-groups in one launch.  A round's reads may be older
 * than another work-group's latest writes: that is safe, as a node's key
 * changes once (undecided to root or out) and every max1 holds at least the
 * undecided keys of its nodes, so a node that stale data misleads only
 * waits.  A work-group whose nodes and their neighbours are all decided at
 * the end is settled (settled[g] = 1: its keys final, and its max1 made once
 * more after that was seen); one with
 * a node undecided sets *undecided.  Every max1 must hold a value computed
 * after the keys were set (hsp_mis_max first).
 * Launch `launch` (from 0) skips a work-group whose neighbourhood saw no
 * decision in the two launches before (changed[h]: the last launch with a
 * decision in work-group h): from `reach` work-groups before it (as far as
 * a decision travels in a launch) to `reach` / (iters + 1) after (as far as
 * one reaches); its nodes could not be decided, nor its max1 change, so the
 * rounds that follow are the same.  reach < 0: none skipped. */
__kernel void hsp_mis_rounds(long n, __global const long *arp, __global const int *acol, __global const uchar *strong,
                             __global ulong *key, __global ulong *max1, __global long *root, int iters,
                             __global int *settled, __global int *undecided, __local int *flag, int launch,
                             __global int *changed, int reach)
{
    long i = get_global_id(0), g = get_group_id(0), groups = get_num_groups(0);
    if (get_local_id(0) == 0)
        flag[0] = settled[g], flag[1] = 0, flag[2] = 0, flag[3] = 0, flag[4] = reach < 0 || launch < 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long h = g - reach + get_local_id(0); !flag[0] && !flag[4] && h <= g + reach / (iters + 1);
         h += get_local_size(0))
        if (h >= 0 && h < groups && changed[h] >= launch - 2) flag[4] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    int run = !flag[0] && flag[4], node = run && i < n; /* every item meets every barrier */
    for (int t = 0; t < iters; t++) {
        if (node) max1[i] = strong_max(i, arp, acol, strong, key);
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (node && mis_decide(i, arp, acol, strong, key, max1, root)) flag[3] = 1;
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
    if (node && strong_open(i, arp, acol, strong, key)) flag[1] = 1;
    if (node) max1[i] = strong_max(i, arp, acol, strong, key); /* final where none was open just before */
    if (node && MIS_STATE(key[i]) == 1) flag[2] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && run && !flag[1]) settled[g] = 1;
    if (get_local_id(0) == 0 && (flag[2] || (!flag[0] && !run))) *undecided = 1; /* unsettled: one near undecided */
    if (get_local_id(0) == 0 && flag[3]) changed[g] = launch;
}

/* out[0] = 1 where a strong entry (i, j) has no strong (j, i); out[1]: the
 * largest |i - j| of a strong entry (i, j), the rows a decision may reach. */
__kernel void hsp_mis_symmetric(long n, __global const long *arp, __global const int *acol,
                                __global const uchar *strong, __global int *out)
{
    long i = get_global_id(0);
    if (i >= n) return;
    int span = 0;
    for (long k = arp[i]; k < arp[i + 1]; k++) {
        if (!strong[k]) continue;
        span = max(span, (int)abs_diff(acol[k], (int)i));
        long t = find_col(acol, arp[acol[k]], arp[acol[k] + 1], (int)i);
        if (t < 0 || !strong[t]) out[0] = 1;
    }
    if (span > ((volatile __global int *)out)[1]) atomic_max(&out[1], span);
}

/* near[i]: the aggregate of root i, or of the root of largest key among i's
 * strong neighbours, or -1 (first[i]: the roots before i). */
__kernel void hsp_agg_near(long n, __global const long *arp, __global const int *acol, __global const uchar *strong,
                           __global const ulong *key, __global const long *first, __global int *near)
{
    long i = get_global_id(0);
    if (i >= n) return;
    long best = MIS_STATE(key[i]) == 2 ? i : -1;
    for (long k = arp[i]; k < arp[i + 1] && MIS_STATE(key[i]) != 2; k++) {
        int j = acol[k];
        if (strong[k] && MIS_STATE(key[j]) == 2 && (best < 0 || key[j] > key[best])) best = j;
    }
    near[i] = best < 0 ? -1 : (int)first[best];
}

/* agg[i]: near[i], else the near aggregate of i's strong neighbour of
 * largest key that has one, else -1 for a node of no strong connection;
 * member[i]: 1 if i is in an aggregate, else 0; *bad: the first node with a
 * strong connection left without (none is, as the roots are maximal). */
__kernel void hsp_agg_far(long n, __global const long *arp, __global const int *acol, __global const uchar *strong,
                          __global const ulong *key, __global const int *near, __global int *agg, __global int *bad,
                          __global long *member)
{
    long i = get_global_id(0);
    if (i >= n) return;
    long best = -1;
    int connected = 0;
    for (long k = arp[i]; k < arp[i + 1] && near[i] < 0; k++) {
        int j = acol[k];
        connected |= strong[k];
        if (strong[k] && near[j] >= 0 && (best < 0 || key[j] > key[best])) best = j;
    }
    agg[i] = near[i] >= 0 ? near[i] : best >= 0 ? near[best] : -1;
    member[i] = agg[i] >= 0;
    if (agg[i] < 0 && connected) atomic_min(bad, (int)i);
}

/* x[0..n) = 0. */
__kernel void hsp_zero_ints(long n, __global int *x)
{
    long i = get_global_id(0);
    if (i < n) x[i] = 0;
}

/* count[v] += the times v occurs in x[0..n). */
__kernel void hsp_count_ints(long n, __global const int *x, __global int *count)
{
    long i = get_global_id(0);
    if (i < n) atomic_inc(&count[x[i]]);
}

/* weight[a] += the weight of each node i of aggregate a = agg[i] (w[i] where
 * weighted, else 1; a node of no aggregate, -1, counts nowhere). */
__kernel void hsp_agg_weights(long n, __global const int *agg, int weighted, __global const int *w,
                              __global int *weight)
{
    long i = get_global_id(0);
    if (i < n && agg[i] >= 0) atomic_add(&weight[agg[i]], weighted ? w[i] : 1);
}

/* wide[i] = x[i], and x[i] = 0, for i < n. */
__kernel void hsp_widen(long n, __global int *x, __global long *wide)
{
    long i = get_global_id(0);
    if (i >= n) return;
    wide[i] = x[i];
    x[i] = 0;
}

/* T: row i's entry, sqrt(w[i] / weight[agg[i]]) (w[i] 1 unless weighted),
 * in column agg[i], at trp[i] (trp made from the members); none for a row of
 * no aggregate.  With a node's weight the nodes of level 0 in it, this is
 * PyAMG's T of the constant vector: its candidate on a coarse level is the
 * norm of the one before on the aggregate, the root of the weight. */
__kernel void hsp_sa_tentative(long n, __global const int *agg, int weighted, __global const int *w,
                               __global const int *weight, __global const long *trp, __global int *tcol,
                               __global VT *tval)
{
    long i = get_global_id(0);
    if (i >= n || agg[i] < 0) return;
    tcol[trp[i]] = agg[i];
    tval[trp[i]] = sqrt((VT)(weighted ? w[i] : 1) / (VT)weight[agg[i]]);
}

/* P = T - (w / a_ii) (A*T) row by row, over A*T in prp, pcol, pval (which
 * holds T's pattern, as a_ii is not zero; a row of T has one entry a candidate, or none). */
__kernel void hsp_sa_smooth(long n, __global const long *arp, __global const int *acol, __global const VT *aval,
                            VT w, __global const long *prp, __global const int *pcol, __global VT *pval,
                            __global const long *trp, __global const int *tcol, __global const VT *tval)
{
    long i = get_global_id(0);
    if (i >= n) return;
    VT scale = -w / aval[find_col(acol, arp[i], arp[i + 1], (int)i)];
    for (long k = prp[i]; k < prp[i + 1]; k++) pval[k] *= scale;
    for (long k = trp[i]; k < trp[i + 1]; k++) pval[find_col(pcol, prp[i], prp[i + 1], tcol[k])] += tval[k];
}

/* Row i's entries into their columns' rows of R = P^T, in any order: next[c]
 * counts those placed in row c (from 0). */
__kernel void hsp_tr_scatter(long n, __global const long *prp, __global const int *pcol, __global const VT *pval,
                             __global const long *rrp, __global int *next, __global int *rcol, __global VT *rval)
{
    long i = get_global_id(0);
    if (i >= n) return;
    for (long k = prp[i]; k < prp[i + 1]; k++) {
        int c = pcol[k];
        long at = rrp[c] + atomic_inc(&next[c]);
        rcol[at] = (int)i, rval[at] = pval[k];
    }
}

/* The n x n identity. */
__kernel void hsp_identity(long n, __global long *rp, __global int *col, __global VT *val)
{
    long i = get_global_id(0);
    if (i >= n) return;
    if (i == 0) rp[0] = 0;
    rp[i + 1] = i + 1, col[i] = (int)i, val[i] = 1;
}

/* Values only, for a re-setup: C's values = A*B over C's pattern (rows
 * sorted), a row of C a work-item, each product added at its column's place. */
__kernel void hsp_numeric(long m, __global const long *arp, __global const int *acol, __global const VT *aval,
                          __global const long *brp, __global const int *bcol, __global const VT *bval,
                          __global const long *crp, __global const int *ccol, __global VT *cval)
{
    long i = get_global_id(0);
    if (i >= m) return;
    for (long k = crp[i]; k < crp[i + 1]; k++) cval[k] = 0;
    for (long a = arp[i]; a < arp[i + 1]; a++) {
        int j = acol[a];
        for (long b = brp[j]; b < brp[j + 1]; b++)
            cval[find_col(ccol, crp[i], crp[i + 1], bcol[b])] += aval[a] * bval[b];
    }
}

/* Values only: R = P^T of R's pattern, each entry of P's row i to its place
 * in row c of R. */
__kernel void hsp_tr_values(long n, __global const long *prp, __global const int *pcol, __global const VT *pval,
                            __global const long *rrp, __global const int *rcol, __global VT *rval)
{
    long i = get_global_id(0);
    if (i >= n) return;
    for (long k = prp[i]; k < prp[i + 1]; k++) {
        int c = pcol[k];
        rval[find_col(rcol, rrp[c], rrp[c + 1], (int)i)] = pval[k];
    }
}

/* *bad: the first row where the patterns of X and Y (n rows, as many
 * entries) differ (stays n when none does). */
__kernel void hsp_same_pattern(long n, __global const long *xrp, __global const int *xcol, __global const long *yrp,
                               __global const int *ycol, __global int *bad)
{
    long i = get_global_id(0);
    if (i >= n) return;
    int same = xrp[i] == yrp[i] && xrp[i + 1] == yrp[i + 1];
    for (long k = xrp[i]; k < xrp[i + 1] && same; k++) same = xcol[k] == ycol[k];
    if (!same) atomic_min(bad, (int)i);
}

#ifdef HSP_LOCAL_ADD
/* Where column j is in col[0..len) (sorted, holding j). */
int local_find(__local const int *col, int len, int j)
{
    int lo = 0, hi = len - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (col[mid] < j) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Values only as hsp_numeric, a row of C a team of work-items (a work-group
 * holds get_local_size(0) / team rows): the row's columns in local memory,
 * lcap at a time, and each item taking A's entries in turn, adding their
 * products at their places by compare-and-swap.  The work-group walks the
 * chunks of its longest row, so that every item meets every barrier. */
__kernel void hsp_numeric_rows(long m, int team, __global const long *arp, __global const int *acol,
                               __global const VT *aval, __global const long *brp, __global const int *bcol,
                               __global const VT *bval, __global const long *crp, __global const int *ccol,
                               __global VT *cval, int lcap, __local int *lcol, __local VT *lval)
{
    int rows = get_local_size(0) / team, r = get_local_id(0) / team, t = get_local_id(0) % team;
    long first = get_group_id(0) * rows, i = first + r, most = 0;
    for (int k = 0; k < rows && first + k < m; k++) most = max(most, crp[first + k + 1] - crp[first + k]);
    __local int *col = lcol + r * lcap;
    __local VT *val = lval + r * lcap;
    for (long lo = 0; lo < most; lo += lcap) {
        long c0 = i < m ? crp[i] + lo : 0;
        int len = i < m ? (int)clamp(crp[i + 1] - c0, 0L, (long)lcap) : 0;
        for (int k = t; k < len; k += team) col[k] = ccol[c0 + k], val[k] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (long a = arp[i] + t; len > 0 && a < arp[i + 1]; a += team) {
            int j = acol[a];
            for (long b = brp[j]; b < brp[j + 1]; b++) {
                int c = bcol[b];
                if (c >= col[0] && c <= col[len - 1]) local_add(&val[local_find(col, len, c)], aval[a] * bval[b]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = t; k < len; k += team) cval[c0 + k] = val[k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
#endif
