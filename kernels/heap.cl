/* heap.cl: the heap method for short rows (u <= the wavefront): one work-item
 * per row merges the row's B rows with a binary heap of cursors in private
 * memory.  One kernel per bin (hsp_heap_N for u = N), whose arrays are sized
 * by the compile-time constant N, as the paper does. */

/* Heap order: by column, ties by the cursor's A entry, so that the sums of a
 * column are always made in the same order. */
int heap_less(const int *hcol, const int *hsrc, int x, int y)
{
    return hcol[x] < hcol[y] || (hcol[x] == hcol[y] && hsrc[x] < hsrc[y]);
}

void heap_swap(int *hcol, int *hsrc, int x, int y)
{
    int c = hcol[x], s = hsrc[x];
    hcol[x] = hcol[y], hsrc[x] = hsrc[y];
    hcol[y] = c, hsrc[y] = s;
}

void heap_down(int *hcol, int *hsrc, int n, int x)
{
    for (int c = 2 * x + 1; c < n; x = c, c = 2 * x + 1) {
        if (c + 1 < n && heap_less(hcol, hsrc, c + 1, c)) c++;
        if (!heap_less(hcol, hsrc, c, x)) break;
        heap_swap(hcol, hsrc, c, x);
    }
}

void heap_up(int *hcol, int *hsrc, int x)
{
    for (; x > 0 && heap_less(hcol, hsrc, x, (x - 1) / 2); x = (x - 1) / 2)
        heap_swap(hcol, hsrc, x, (x - 1) / 2);
}

/* Row i into C~ at slot[i]: the cursors (B position pos, end, A value av) of
 * the row's non-empty B rows sit in private arrays of the kernel's size. */
void heap_row(HSP_ROW_ARGS, int *hcol, int *hsrc, long *pos, long *end, VT *av)
{
    long k = first + get_global_id(0);
    if (k >= first + nrows) return;
    int i = rows[k], n = 0;
    for (long p = arp[i]; p < arp[i + 1]; p++) {
        long b = acol[p];
        if (brp[b] == brp[b + 1]) continue;
        pos[n] = brp[b], end[n] = brp[b + 1], av[n] = aval[p];
        hcol[n] = bcol[pos[n]], hsrc[n] = n;
        heap_up(hcol, hsrc, n++);
    }
    long out = slot[i], len = 0;
    int last = -1;
    VT sum = 0;
    while (n > 0) {
        int t = hsrc[0], c = hcol[0];
        VT v = av[t] * bval[pos[t]];
        if (c == last) {
            sum += v;
        } else {
            if (last >= 0) tcol[out + len] = last, tval[out + len++] = sum;
            last = c, sum = v;
        }
        if (++pos[t] < end[t]) hcol[0] = bcol[pos[t]];
        else hcol[0] = hcol[--n], hsrc[0] = hsrc[n];
        heap_down(hcol, hsrc, n, 0);
    }
    if (last >= 0) tcol[out + len] = last, tval[out + len++] = sum;
    cnt[i] = len;
}

#define HEAP_KERNEL(N)                                                       \
    __kernel void hsp_heap_##N(HSP_ROW_ARGS)                                 \
    {                                                                        \
        int hcol[N], hsrc[N];                                                \
        long pos[N], end[N];                                                 \
        VT av[N];                                                            \
        heap_row(arp, acol, aval, brp, bcol, bval, rows, first, nrows, slot, \
                 tcol, tval, cnt, hcol, hsrc, pos, end, av);                 \
    }
#define HEAP_KERNELS_8(a, b, c, d, e, f, g, h) \
    HEAP_KERNEL(a) HEAP_KERNEL(b) HEAP_KERNEL(c) HEAP_KERNEL(d) \
    HEAP_KERNEL(e) HEAP_KERNEL(f) HEAP_KERNEL(g) HEAP_KERNEL(h)

/* Bins 2..64: wavefronts up to 64 (the layout's short group ends at W). */
HEAP_KERNELS_8(2, 3, 4, 5, 6, 7, 8, 9)
HEAP_KERNELS_8(10, 11, 12, 13, 14, 15, 16, 17)
HEAP_KERNELS_8(18, 19, 20, 21, 22, 23, 24, 25)
HEAP_KERNELS_8(26, 27, 28, 29, 30, 31, 32, 33)
HEAP_KERNELS_8(34, 35, 36, 37, 38, 39, 40, 41)
HEAP_KERNELS_8(42, 43, 44, 45, 46, 47, 48, 49)
HEAP_KERNELS_8(50, 51, 52, 53, 54, 55, 56, 57)
HEAP_KERNEL(58) HEAP_KERNEL(59) HEAP_KERNEL(60) HEAP_KERNEL(61)
HEAP_KERNEL(62) HEAP_KERNEL(63) HEAP_KERNEL(64)
