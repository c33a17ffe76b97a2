/* spmm.cl: C = alpha A B + beta C (hsp_spmm) on a device.  A's rows as
 * src/spmm/ellr.h lays them out: entry q of row i at first + q step, with
 * first = rows[i / step] + i % step, and len[i] entries where lengths, else
 * rows[i + 1] - rows[i]; in CSR step is 1 and rows the row pointers, in
 * sliced ELLPACK-R step is the slice's rows, rows where each slice begins and
 * len each row's entries.  Rows of more than skip entries (long: CSR only)
 * are made by pieces, a work-group a piece of such a row: work-groups of
 * hsp_spmm_both beside those of the other rows along C's rows, or
 * hsp_spmm_pieces launched before.  B and C are dense, entry (i, j) at
 * i s0 + j s1.  A launch makes the block of C of nrows x ncols entries from
 * (row0, col0) on (the whole of C, or one block of a product whose
 * transfers overlap it).
 * hsp_spmm: a work-item an entry of C, or two neighbours in a row of C where
 * B and C are row-major (A's entry read once for both: FastSpMM's columns a
 * pass); hsp_spmm_lanes:
 * lanes work-items (a power of two that divides the work-group) an entry,
 * each summing every lanes-th entry of the row, their sums added in local
 * memory (lsum, a value a work-item), where a long row would hold up its
 * work-items (the same code, without barriers where lanes is 1).
 * The entries are taken along C's rows where B and C are row-major (the
 * work-items of a row read B's row of each entry of A together), down its
 * columns where they are column-major (those of a column read a slice's slots
 * of consecutive rows together). */

/* x / d, and x % d in *rem: in 32 bits where both fit them (a 64-bit
 * division takes several times as long on GPUs, and a work-item of a short
 * row does little else). */
long div_rem(long x, long d, long *rem)
{
    long q = x <= UINT_MAX && d <= UINT_MAX ? (long)((uint)x / (uint)d) : x / d;
    *rem = x - q * d;
    return q;
}

/* The arguments of both kernels but lanes and lsum (order, ordered: see
 * spmm_row_at). */
#define HSP_SPMM_ARGS                                                                                          \
    int nrows, int ncols, long row0, long col0, int along_rows, long step, __global const long *rows,          \
        __global const int *len, __global const int *col, __global const VT *val, __global const VT *b, long bs0, \
        long bs1, __global VT *c, long cs0, long cs1, VT alpha, VT beta, int lengths, long skip,               \
        __global const int *order, int ordered

/* This work-item's entry (*i, *j) of C, its lane, and how far apart an
 * entry's lanes are in the work-group (*unit), group the work-group's place
 * among those of C's rows; 0 past C's end.  With lanes
 * along C's rows, a work-group takes whole rows, lanes x ncols items a row
 * and C's columns fastest (the host makes the work-group a multiple of
 * that), so that the items of a lane read B's rows in whole strides;
 * otherwise (B column-major: one lane along rows goes by pairs, spmm_pair)
 * entries in order down C's columns, an entry's lanes together. */
int spmm_place(int nrows, int ncols, int along_rows, int lanes, long group, long *i, long *j, int *lane, int *unit)
{
    int lid = get_local_id(0);
    if (lanes > 1 && along_rows) {
        int per = lanes * ncols, r = lid / per, rem = lid - r * per;
        *lane = rem / ncols, *j = rem - *lane * ncols, *unit = ncols;
        *i = group * (long)(get_local_size(0) / per) + r;
        return *i < nrows;
    }
    long item = group * get_local_size(0) + lid, g = item >> (31 - clz(lanes)), r, q; /* lanes: a power of two */
    *lane = item & (lanes - 1), *unit = 1;
    q = div_rem(g, nrows, &r);
    *i = r, *j = q;
    return g < (long)nrows * ncols;
}

/* Where row i's entries begin (*first), and how many it has; -1 where
 * more than skip (a long row: a work-group of its own makes its C). */
long spmm_row(long i, long step, __global const long *rows, __global const int *len, int lengths, long skip,
              long *first)
{
    long at, slice = div_rem(i, step, &at), count = lengths ? (long)len[i] : rows[i + 1] - rows[i];
    *first = rows[slice] + at;
    return count > skip ? -1 : count;
}

/* C's row of A's row i: order[i] where ordered (A a copy of rows by length,
 * longest first, so that a warp's rows walk about as far: ellr.c), else i. */
long spmm_row_at(long i, __global const int *order, int ordered)
{
    return ordered ? (long)order[i] : i;
}

/* alpha sum + beta *cij into *cij (C unread where beta is 0). */
void spmm_write(__global VT *cij, VT alpha, VT sum, VT beta)
{
    *cij = beta == 0 ? alpha * sum : alpha * sum + beta * *cij;
}

/* sum added up over the lanes of its entry in the work-group (entries
 * unit items apart, lane the item's: lid = lane unit + the entry's place):
 * lane 0's item returns the entry's sum (the others 0).  Every work-item
 * of the group calls it (its barriers). */
VT lanes_sum(VT sum, int lane, int lanes, int unit, __local VT *lsum)
{
    int lid = get_local_id(0);
    lsum[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int apart = lanes / 2; apart > 0; apart /= 2) {
        if (lane < apart) lsum[lid] += lsum[lid + apart * unit];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    sum = lane == 0 ? lsum[lid] : 0;
    barrier(CLK_LOCAL_MEM_FENCE); /* lsum is the next call's */
    return sum;
}

/* The entries of a row whose loads spmm_walk issues together: two, the
 * fastest of one, two, four and eight on an H200 (hsp_spmm at L = 32 4-10%
 * faster than one; four and eight slower than one: doc/performance.md). */
#define SPMM_AHEAD 2

/* Entries p, p + stride, ... before end of a row: their sums with B's
 * entries at bj + column bs0 into *s0, and with those second past them
 * into *s1 (second 0: the same sums).  SPMM_AHEAD entries a pass, their
 * loads issued before their sums, so that the chains (A's column, then B's
 * entry) of the pass overlap where one entry at a time waited for each in
 * turn; the sums stay in the entries' order. */
void spmm_walk(long p, long end, long stride, __global const int *col, __global const VT *val,
               __global const VT *bj, long bs0, long second, VT *s0, VT *s1)
{
    VT t0 = 0, t1 = 0;
    for (; p + (SPMM_AHEAD - 1) * stride < end; p += SPMM_AHEAD * stride) {
        __global const VT *bk[SPMM_AHEAD];
        VT a[SPMM_AHEAD];
#pragma unroll
        for (int u = 0; u < SPMM_AHEAD; u++) bk[u] = bj + col[p + u * stride] * bs0, a[u] = val[p + u * stride];
#pragma unroll
        for (int u = 0; u < SPMM_AHEAD; u++) t0 += a[u] * bk[u][0], t1 += a[u] * bk[u][second];
    }
    for (; p < end; p += stride) {
        __global const VT *bp = bj + col[p] * bs0;
        t0 += val[p] * bp[0], t1 += val[p] * bp[second];
    }
    *s0 = t0, *s1 = t1;
}

/* The sum of entries p, p + stride, ... before end of a row with B's
 * entries at bj + column bs0 (one column: spmm_walk's first sum). */
VT spmm_entries_sum(long p, long end, long stride, __global const int *col, __global const VT *val,
                    __global const VT *bj, long bs0)
{
    VT sum, same;
    spmm_walk(p, end, stride, col, val, bj, bs0, 0, &sum, &same);
    return sum;
}

/* This work-item's share of its entry of C (none of a long row's), group
 * as in spmm_place. */
void spmm_item(HSP_SPMM_ARGS, int lanes, long group, __local VT *lsum)
{
    long i, j;
    int lane, unit;
    int live = spmm_place(nrows, ncols, along_rows, lanes, group, &i, &j, &lane, &unit);
    VT sum = 0;
    i += row0, j += col0;
    if (live) {
        long first, count = spmm_row(i, step, rows, len, lengths, skip, &first);
        live = count >= 0;
        sum = spmm_entries_sum(first + lane * step, first + count * step, lanes * step, col, val, b + j * bs1, bs0);
    }
    if (lanes > 1) sum = lanes_sum(sum, lane, lanes, unit, lsum); /* lanes: the same for every work-item */
    if (live && lane == 0) spmm_write(c + spmm_row_at(i, order, ordered) * cs0 + j * cs1, alpha, sum, beta);
}

/* Row-major B and C: entries (i, j) and (i, j + 1) of C, j = 2 k for this
 * work-item's k-th pair of row i, item the work-item's place among those
 * of pairs (the last pair of an odd row one entry):
 * each entry of A read once for both (faster than one entry or four a
 * work-item on an H100: doc/performance.md, "Figures behind the code"). */
void spmm_pair(HSP_SPMM_ARGS, long item)
{
    long pairs = (ncols + 1) / 2, k, i = div_rem(item, pairs, &k), j = 2 * k, first;
    if (i >= nrows) return;
    long second = j + 1 < ncols ? bs1 : 0;
    i += row0, j += col0;
    long count = spmm_row(i, step, rows, len, lengths, skip, &first);
    if (count < 0) return;
    __global const VT *bj = b + j * bs1;
    VT s0, s1;
    spmm_walk(first, first + count * step, step, col, val, bj, bs0, second, &s0, &s1);
    __global VT *cij = c + spmm_row_at(i, order, ordered) * cs0 + j * cs1;
    spmm_write(cij, alpha, s0, beta);
    if (second) spmm_write(cij + cs1, alpha, s1, beta);
}

/* The npieces pieces of long rows: piece g (of piece entries each) is of
 * long row piece_row[g], which is A's row long_row[r] and has pieces
 * long_first[r] .. long_first[r + 1] - 1; part holds a piece's sums, count
 * how many of a row's pieces are done (0 between launches). */
#define HSP_SPMM_PIECES                                                                                        \
    int npieces, long piece, __global const int *piece_row, __global const int *long_row,                     \
        __global const int *long_first, volatile __global int *count, __global VT *part

/* The kernels' arguments: A's lengths and order are in one array, its index
 * (src/spmm/ellr.h: lengths from 0 where lengths, order from order_at where
 * ordered, then the nlong long rows' long_row, long_first and piece_row
 * from pieces_at), so that a launch takes fewer arrays (NVIDIA's OpenCL spends
 * 0.2-0.4 us on each: bench/opencl-launch); SPMM_VIEWS and PIECES_VIEWS
 * name their parts as HSP_SPMM_ARGS and HSP_SPMM_PIECES do. */
#define HSP_SPMM_KERNEL_ARGS                                                                                   \
    int nrows, int ncols, long row0, long col0, int along_rows, long step, __global const long *rows,          \
        __global const int *col, __global const VT *val, __global const VT *b, long bs0, long bs1, __global VT *c, \
        long cs0, long cs1, VT alpha, VT beta, int lengths, long skip, __global const int *index, long order_at,  \
        int ordered
#define HSP_SPMM_KERNEL_PIECES                                                                                 \
    int npieces, long piece, int nlong, long pieces_at, volatile __global int *count, __global VT *part
#define SPMM_VIEWS __global const int *len = index, *order = index + order_at
#define PIECES_VIEWS                                                                                           \
    __global const int *long_row = index + pieces_at, *long_first = long_row + nlong,                         \
                       *piece_row = long_first + nlong + 1

/* Column j's share of the sums of a long row's n pieces from the first in
 * part: every lanes-th piece from the lane-th (written by other
 * work-groups: read past the cache). */
VT spmm_parts_sum(__global VT *part, int first, int n, int lane, int lanes, int ncols, long j)
{
    VT sum = 0;
    for (int q = first + lane; q < first + n; q += lanes) sum += ((volatile __global VT *)part)[q * (long)ncols + j];
    return sum;
}

/* The work-items a column of a long row's piece: a power of two, at most
 * PIECE_LANES (a work-group of 128 takes four pieces at L = 1, where 128
 * work-items a piece left 2879 work-groups to rmat:16,8's pieces), cols of
 * them at most the group's size. */
#define PIECE_LANES 32
int piece_lanes(int cols, int size)
{
    int lanes = 1;
    while (lanes < PIECE_LANES && lanes * 2 * cols <= size) lanes *= 2;
    return lanes;
}

/* The pieces a work-group of spmm_pieces takes for ncols columns. */
int pieces_a_group(int ncols)
{
    int size = get_local_size(0), cols = ncols < size ? ncols : size;
    return size / (piece_lanes(cols, size) * cols);
}

/* The pieces of A's long rows in work-group group, per of them (1, or
 * pieces_a_group: unit = cols x lanes work-items a piece): each piece's
 * sums of every column of C, in passes of cols columns, lanes work-items a
 * column, each every lanes-th entry, added up in local memory; a row of
 * one piece writes its C, the others' pieces their sums to part, and the
 * piece that finishes a row adds them up the same way (its work-items each
 * every lanes-th piece, where one work-item a column walked all of a hub's
 * pieces) into C (hsp_spmm leaves long rows alone; C's row as
 * spmm_row_at).  Every work-item meets the barriers, those of no piece
 * too.  With per 1 a piece's values are the group's (the compiler keeps
 * them once a group). */
void spmm_pieces(int group, int per, int ncols, __global const long *rows, __global const int *col,
                 __global const VT *val, __global const VT *b, long bs0, long bs1, __global VT *c, long cs0, long cs1,
                 VT alpha, VT beta, __global const int *order, int ordered, HSP_SPMM_PIECES, __local VT *lsum)
{
    int lid = get_local_id(0), size = get_local_size(0), cols = ncols < size ? ncols : size;
    int lanes = piece_lanes(cols, size), unit = lanes * cols, sub = per > 1 ? lid / unit : 0, g = group * per + sub;
    int lane = sub < per ? (lid - sub * unit) / cols : lanes, at = lid - sub * unit - lane * cols;
    int mine = lane < lanes && g < npieces, head = sub < per && lid == sub * unit; /* the piece's first */
    int r = piece_row[min(g, npieces - 1)], first = long_first[r], n = long_first[r + 1] - first;
    long i = long_row[r], p0 = rows[i] + (g - first) * piece, p1 = min(p0 + piece, rows[i + 1]);
    __global VT *ci = c + spmm_row_at(i, order, ordered) * cs0;
    for (long j0 = 0, j = at; j0 < ncols; j0 += cols, j += cols) {
        VT sum = mine && j < ncols ? spmm_entries_sum(p0 + lane, p1, lanes, col, val, b + j * bs1, bs0) : 0;
        sum = lanes_sum(sum, lane, lanes, cols, lsum);
        if (mine && lane == 0 && j < ncols && n == 1) spmm_write(ci + j * cs1, alpha, sum, beta);
        else if (mine && lane == 0 && j < ncols) part[g * (long)ncols + j] = sum;
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE); /* the sums reach memory before the count */
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (head) lsum[sub] = g < npieces && n > 1 && atomic_inc(&count[r]) == n - 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    int last = mine && lsum[sub] != 0, any = 0; /* the row's last piece; any: the group's */
    for (int q = 0; q < per; q++) any |= lsum[q] != 0;
    barrier(CLK_LOCAL_MEM_FENCE); /* lsum is lanes_sum's */
    if (!any) return;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    for (long j0 = 0, j = at; j0 < ncols; j0 += cols, j += cols) {
        VT sum = last && j < ncols ? spmm_parts_sum(part, first, n, lane, lanes, ncols, j) : 0;
        sum = lanes_sum(sum, lane, lanes, cols, lsum);
        if (last && lane == 0 && j < ncols) spmm_write(ci + j * cs1, alpha, sum, beta);
    }
    if (head && last) count[r] = 0;
}

/* The pieces alone, a launch before hsp_spmm's: where the device's compiler
 * fails on hsp_spmm_both (Intel's CPU runtime crashed there), or the rows
 * go down C's columns. */
__kernel void hsp_spmm_pieces(int ncols, __global const long *rows, __global const int *col, __global const VT *val,
                              __global const VT *b, long bs0, long bs1, __global VT *c, long cs0, long cs1, VT alpha,
                              VT beta, __global const int *index, long order_at, int ordered, HSP_SPMM_KERNEL_PIECES,
                              __local VT *lsum)
{
    __global const int *order = index + order_at;
    PIECES_VIEWS;
    spmm_pieces(get_group_id(0), pieces_a_group(ncols), ncols, rows, col, val, b, bs0, bs1, c, cs0, cs1, alpha, beta,
                order, ordered, npieces, piece, piece_row, long_row, long_first, count, part, lsum);
}

/* The npieces pieces of the long rows, per a work-group, and the other
 * rows along C's rows (pairs where lanes is 1, else hsp_spmm_lanes' items)
 * in one launch (a launch less: the two took turns on a GPU, each short):
 * the rows' work-groups first where rows_first, else the pieces' (so that
 * the part whose work-items walk the longer starts at once and the other
 * fills in beside it).  A work-group's branch is the same for its
 * work-items: the barriers are met by all.  Inlined in both kernels (the
 * AMDGPU compiler called it from one, with 232 bytes of scratch). */
__attribute__((always_inline)) void spmm_both(HSP_SPMM_ARGS, HSP_SPMM_PIECES, int lanes, int rows_first,
                                              __local VT *lsum, int per)
{
    int g = get_group_id(0), pieces_g = (npieces + per - 1) / per, row_groups = get_num_groups(0) - pieces_g;
    int piece_g = rows_first ? g - row_groups : g, row_g = rows_first ? g : g - pieces_g;
    if (piece_g >= 0 && piece_g < pieces_g)
        spmm_pieces(piece_g, per, ncols, rows, col, val, b, bs0, bs1, c, cs0, cs1, alpha, beta, order, ordered,
                    npieces, piece, piece_row, long_row, long_first, count, part, lsum);
    else if (lanes == 1)
        spmm_pair(nrows, ncols, row0, col0, along_rows, step, rows, len, col, val, b, bs0, bs1, c, cs0, cs1, alpha,
                  beta, lengths, skip, order, ordered, row_g * (long)get_local_size(0) + get_local_id(0));
    else
        spmm_item(nrows, ncols, row0, col0, along_rows, step, rows, len, col, val, b, bs0, bs1, c, cs0, cs1, alpha,
                  beta, lengths, skip, order, ordered, lanes, row_g, lsum);
}

/* spmm_both with a piece a work-group: its values held once a group. */
__kernel void hsp_spmm_both(HSP_SPMM_KERNEL_ARGS, HSP_SPMM_KERNEL_PIECES, int lanes, int rows_first,
                              __local VT *lsum)
{
    SPMM_VIEWS;
    PIECES_VIEWS;
    spmm_both(nrows, ncols, row0, col0, along_rows, step, rows, len, col, val, b, bs0, bs1, c, cs0, cs1, alpha, beta,
              lengths, skip, order, ordered, npieces, piece, piece_row, long_row, long_first, count, part, lanes,
              rows_first, lsum, 1);
}

/* spmm_both with several pieces a work-group (pieces_a_group), where C has
 * a column or two: rmat:16,8's 2879 pieces took a work-group of 128 each
 * at L = 1, most of its work-items idle (most are rows of 33 to 256
 * entries).  A kernel of its own: its pieces' values, each work-item's,
 * took registers that hsp_spmm_both's rows missed at L = 8 (rmat:16,8's
 * kernel 15% slower on an H200). */
__kernel void hsp_spmm_both_narrow(HSP_SPMM_KERNEL_ARGS, HSP_SPMM_KERNEL_PIECES, int lanes, int rows_first,
                                     __local VT *lsum)
{
    SPMM_VIEWS;
    PIECES_VIEWS;
    spmm_both(nrows, ncols, row0, col0, along_rows, step, rows, len, col, val, b, bs0, bs1, c, cs0, cs1, alpha, beta,
              lengths, skip, order, ordered, npieces, piece, piece_row, long_row, long_first, count, part, lanes,
              rows_first, lsum, pieces_a_group(ncols));
}

__kernel void hsp_spmm(HSP_SPMM_KERNEL_ARGS)
{
    SPMM_VIEWS;
    if (along_rows)
        spmm_pair(nrows, ncols, row0, col0, along_rows, step, rows, len, col, val, b, bs0, bs1, c, cs0, cs1, alpha,
                  beta, lengths, skip, order, ordered, get_global_id(0));
    else
        spmm_item(nrows, ncols, row0, col0, along_rows, step, rows, len, col, val, b, bs0, bs1, c, cs0, cs1, alpha,
                  beta, lengths, skip, order, ordered, 1, get_group_id(0), 0);
}

__kernel void hsp_spmm_lanes(HSP_SPMM_KERNEL_ARGS, int lanes, __local VT *lsum)
{
    SPMM_VIEWS;
    spmm_item(nrows, ncols, row0, col0, along_rows, step, rows, len, col, val, b, bs0, bs1, c, cs0, cs1, alpha, beta,
              lengths, skip, order, ordered, lanes, get_group_id(0), lsum);
}
