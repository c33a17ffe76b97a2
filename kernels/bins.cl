/* bins.cl: the row work of stages 2 and 4 on a device with memory of its
 * own, so that a resident product moves no array of a row each: a work-group
 * takes SPAN_ROWS rows a work-item (rows first + k n + t, k = 0..7, for n
 * items), and small per-work-group figures turn into offsets on the device.
 * Stage 2: hsp_bin_count counts each work-group's rows per bin and sums their
 * u per bin group (and samples how often products meet); hsp_bin_scan sums
 * those figures into offsets and totals (the host reads only the totals);
 * hsp_bin_place puts the rows in their bins (any order within a bin) and
 * gives the rows up to medium_max their C~ slots, in row order.  Stage 4: hsp_row_sums sums each work-group's row counts,
 * hsp_part_scan turns those sums into each work-group's first row pointer (one
 * work-group, so that no sum crosses to the host) and hsp_row_scan writes C's
 * row pointers from them. */
#define SPAN_ROWS 8

/* The bin of a row of upper bound u: the first whose hi is at least u. */
int bin_of(long u, int nbins, __global const long *hi)
{
    int lo = 0, top = nbins - 1;
    while (lo < top) {
        int mid = (lo + top) / 2;
        if (u <= hi[mid]) top = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* Row k of this work-item's SPAN_ROWS, or -1 past the last row. */
long span_row(long m, int k)
{
    long i = get_group_id(0) * SPAN_ROWS * (long)get_local_size(0) + k * (long)get_local_size(0) + get_local_id(0);
    return i < m ? i : -1;
}

/* The sum of each item's x over the work-group, in sum (one long a item). */
long group_sum(long x, __local long *sum)
{
    long total;
    group_scan_long(x, sum, &total);
    return total;
}

/* Is row i one of the sample (src/spgemm/sample.c: runs of 32 rows, the
 * first of every 2048)? */
int sampled(long i)
{
    return (i >> 5) % 64 == 0;
}

/* The columns that the B rows of consecutive entries of row i of A have in
 * common (each pair's rows merged; sorted rows assumed, a sample only). */
long shared_columns(long i, __global const long *arp, __global const int *acol, __global const long *brp,
                    __global const int *bcol)
{
    long shared = 0;
    for (long p = arp[i]; p + 1 < arp[i + 1]; p++) {
        long x = brp[acol[p]], x_end = brp[acol[p] + 1], y = brp[acol[p + 1]], y_end = brp[acol[p + 1] + 1];
        while (x < x_end && y < y_end) {
            int cx = bcol[x], cy = bcol[y];
            shared += cx == cy, x += cx <= cy, y += cy <= cx;
        }
    }
    return shared;
}

/* The work-groups' figures, in one array (the host reads them at once):
 * part[g nbins + b], the work-group's rows in bin b; then, from
 * part[groups nbins] on, [g 5 + c]: the sum of their u over the bins of
 * group c (5 groups); then, from part[groups (nbins + 5)] on, [g 2] and
 * [g 2 + 1]: over the sampled rows of 1 to most products, their u and their
 * shared columns. */
__kernel void hsp_bin_count(long m, __global const long *ub, int nbins, __global const long *hi,
                            __global const int *group, __global long *part, __local int *lcount, __local long *lsum,
                            long most, __global const long *arp, __global const int *acol,
                            __global const long *brp, __global const int *bcol)
{
    int t = get_local_id(0), n = get_local_size(0);
    long g = get_group_id(0);
    __global long *part_u = part + get_num_groups(0) * (long)nbins, *part_s = part_u + get_num_groups(0) * 5L;
    long sample_u = 0, shared = 0;
    for (int b = t; b < nbins; b += n) lcount[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    long u0 = 0, u1 = 0, u2 = 0, u3 = 0, u4 = 0; /* per group: no private array (scratch on AMD GPUs) */
    for (int k = 0; k < SPAN_ROWS; k++) {
        long i = span_row(m, k);
        if (i < 0) break;
        long u = ub[i];
        int b = bin_of(u, nbins, hi), c = group[b];
        atomic_inc(&lcount[b]);
        u0 += c == 0 ? u : 0, u1 += c == 1 ? u : 0, u2 += c == 2 ? u : 0, u3 += c == 3 ? u : 0;
        u4 += c == 4 ? u : 0;
        if (u > 0 && u <= most && sampled(i)) sample_u += u, shared += shared_columns(i, arp, acol, brp, bcol);
    }
    long s0 = group_sum(u0, lsum), s1 = group_sum(u1, lsum), s2 = group_sum(u2, lsum), s3 = group_sum(u3, lsum);
    long s4 = group_sum(u4, lsum), s5 = most ? group_sum(sample_u, lsum) : 0, s6 = most ? group_sum(shared, lsum) : 0;
    if (t == 0) {
        part_u[g * 5] = s0, part_u[g * 5 + 1] = s1, part_u[g * 5 + 2] = s2;
        part_u[g * 5 + 3] = s3, part_u[g * 5 + 4] = s4, part_s[g * 2] = s5, part_s[g * 2 + 1] = s6;
    }
    for (int b = t; b < nbins; b += n) part[g * nbins + b] = lcount[b];
}

/* Work-group g's figure in column b of hsp_bin_scan: its rows of bin b, or
 * (b = nbins) its u over the bin groups up to medium, its share of C~. */
long scan_figure(__global const long *part, long ngroups, int nbins, int medium, int b, long g)
{
    if (b < nbins) return part[g * nbins + b];
    long u = 0;
    for (int c = 0; c <= medium; c++) u += part[ngroups * nbins + g * 5 + c];
    return u;
}

/* Stage 2's offsets from the ngroups work-groups' figures of hsp_bin_count,
 * nbins + 1 work-groups: work-group b < nbins writes where each work-group's
 * rows of bin b begin among the bin's rows (base[g nbins + b]) and the bin's
 * rows (sums[b]); work-group nbins each work-group's first C~ slot
 * (slot_base[g]) and, from sums[nbins] on, the sum of u of each bin group as
 * two sums, of its figures' high and of their low 32 bits (so that the host
 * can tell whether it fits 64 bits), then the sample's two sums. */
__kernel void hsp_bin_scan(long ngroups, int nbins, int medium, __global const long *part, __global int *base,
                           __global long *slot_base, __global long *sums, __local long *lscan)
{
    int b = get_group_id(0), t = get_local_id(0), n = get_local_size(0);
    __global const long *part_u = part + ngroups * nbins, *part_s = part_u + ngroups * 5;
    long at = 0, total;
    for (long first = 0; first < ngroups; first += n) {
        long g = first + t, x = g < ngroups ? scan_figure(part, ngroups, nbins, medium, b, g) : 0;
        long before = group_scan_long(x, lscan, &total);
        if (g < ngroups && b < nbins) base[g * nbins + b] = (int)(at + before);
        if (g < ngroups && b == nbins) slot_base[g] = at + before;
        at += total;
    }
    if (b < nbins) {
        if (t == 0) sums[b] = at;
        return;
    }
    for (int k = 0; k < 2 * 5 + 2; k++) { /* group k / 2's high (k even) or low halves; then the sample */
        long x = 0;
        for (long g = t; g < ngroups; g += n) {
            long f = k < 10 ? part_u[g * 5 + k / 2] : part_s[g * 2 + k - 10];
            x += k >= 10 ? f : k % 2 ? f & 0xffffffffL : f >> 32;
        }
        long sum = group_sum(x, lscan);
        if (t == 0) sums[nbins + k] = sum;
    }
}

/* Rows into bins: a work-group's rows of bin b from the bin's start (the
 * rows of the bins before it, sums of hsp_bin_scan) plus base[g][b] on, C~
 * slots from slot_base[g] on; a long row's slot is its place k in the long
 * bin (which begins at long_start), and long_row[k] and long_u[k] get the
 * row and its u; rows without products get count 0. */
__kernel void hsp_bin_place(long m, __global const long *ub, int nbins, __global const long *hi, long medium_max,
                            __global const long *sums, __global const int *base, __global const long *slot_base,
                            long long_start, __global int *rows, __global long *slot, __global long *cnt,
                            __global int *long_row, __global long *long_u, __local int *lnext, __local long *lscan)
{
    int t = get_local_id(0), n = get_local_size(0);
    long g = get_group_id(0), at = slot_base[g];
    for (int b = t; b < nbins; b += n) {
        long start = 0;
        for (int e = 0; e < b; e++) start += sums[e];
        lnext[b] = (int)(start + base[g * nbins + b]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < SPAN_ROWS; k++) {
        long i = span_row(m, k), u = i >= 0 ? ub[i] : 0, total;
        long before = group_scan_long(i >= 0 && u <= medium_max ? u : 0, lscan, &total);
        if (i >= 0) {
            int pos = atomic_inc(&lnext[bin_of(u, nbins, hi)]);
            rows[pos] = (int)i;
            if (u <= medium_max) {
                slot[i] = at + before;
            } else {
                slot[i] = pos - long_start;
                long_row[pos - long_start] = (int)i, long_u[pos - long_start] = u;
            }
            if (u == 0) cnt[i] = 0;
        }
        at += total;
    }
}

/* part[g]: the sum of the work-group's row counts. */
__kernel void hsp_row_sums(long m, __global const long *cnt, __global long *part, __local long *lsum)
{
    long x = 0;
    for (int k = 0; k < SPAN_ROWS; k++) {
        long i = span_row(m, k);
        if (i >= 0) x += cnt[i];
    }
    long total = group_sum(x, lsum);
    if (get_local_id(0) == 0) part[get_group_id(0)] = total;
}

/* part[0..n) into their exclusive prefix sums, in place, and part[n] into
 * their total: one work-group, a stretch of its size at a time. */
__kernel void hsp_part_scan(long n, __global long *part, __local long *lscan)
{
    long at = 0, total;
    for (long first = 0; first < n; first += get_local_size(0)) {
        long j = first + get_local_id(0), x = j < n ? part[j] : 0;
        long before = group_scan_long(x, lscan, &total);
        if (j < n) part[j] = at + before;
        at += total;
    }
    if (get_local_id(0) == 0) part[n] = at;
}

/* crp[i + 1] = base[g] + the counts of the work-group's rows up to i; crp[0] = 0. */
__kernel void hsp_row_scan(long m, __global const long *cnt, __global const long *base, __global long *crp,
                           __local long *lscan)
{
    long at = base[get_group_id(0)], total;
    if (get_global_id(0) == 0) crp[0] = 0;
    for (int k = 0; k < SPAN_ROWS; k++) {
        long i = span_row(m, k);
        long before = group_scan_long(i >= 0 ? cnt[i] : 0, lscan, &total);
        if (i >= 0) crp[i + 1] = at + before + cnt[i];
        at += total;
    }
}
