/* gpu_bitmap.c: C = A B of bitmap-blocked matrices (hsp_bitmap_multiply) on
 * a GPU device, by kernels/bitmap.cl: the operands go to the device and are
 * indexed there (each block row's first block, each block's first value:
 * a search and a scan), a pass counts each block row of C (its blocks,
 * entries and multiply-adds), scans make their places, a second pass writes
 * them, and C comes back.  Every step runs on the device; the host reads
 * three totals. */
#include <stdlib.h>
#include "bitmap/blocks.h"
#include "device/gpu.h"
#include "core/internal.h"
#include "bitmap/gpu_bitmap.h"

/* Work-items of a block row (the paper's 64), block columns of one ordered
 * in local memory, and the most bytes the work-groups' own arrays (16 a
 * block column of C each) may take: fewer groups where C is wide. */
enum { BM_GROUP = 64, BM_LISTED = 512, BM_MOST_GROUPS = 4096 };
#define BM_OWN_BYTES ((int64_t)1 << 30)

/* An operand's arrays on the device: keys, bitmaps, values, each block
 * row's first block, each block's first value, and its entries (scanned). */
enum { M_KEY, M_BITS, M_VAL, M_ROW, M_START, M_COUNT, M_ARRAYS };

/* C's: per block row its blocks, entries and multiply-adds (counted, then
 * scanned into where each starts), its keys, bitmaps and values, and the
 * groups' own arrays. */
enum { C_BLOCKS, C_NNZ, C_MADDS, C_BLOCK_AT, C_VALUE_AT, C_MADDS_AT, C_KEY, C_BITS, C_VAL, C_MARK, C_AT, C_ARRAYS };

/* Arrays x[0..n) of the bytes given, host's data copied in where given. */
static hsp_status arrays_with(gpu *g, gpu_array *x, const size_t *bytes, const void *const *host, int n)
{
    hsp_status s = gpu_arrays_new(g, x, bytes, n);
    for (int k = 0; k < n && s == HSP_OK; k++)
        if (host[k] && bytes[k]) s = gpu_array_write(g, &x[k], host[k], bytes[k]);
    return s;
}

/* M on the device in x, indexed. */
static hsp_status place(gpu *g, int dbl, const hsp_bitmap *M, gpu_array *x)
{
    int64_t nbrows = hsp_blocks(M->nrows), nb = M->nblocks;
    size_t bytes[M_ARRAYS] = {(size_t)nb * 8, (size_t)nb * 8, (size_t)M->nnz * hsp_value_size(M->precision),
                              (size_t)(nbrows + 1) * 8, (size_t)(nb + 1) * 8, (size_t)nb * 8};
    const void *host[M_ARRAYS] = {M->key, M->bitmap, M->values};
    hsp_status s = arrays_with(g, x, bytes, host, M_ARRAYS);
    gpu_arg rows[] = {gpu_val(&nbrows, 8), gpu_val(&nb, 8), gpu_array_arg(&x[M_KEY]), gpu_array_arg(&x[M_ROW])};
    gpu_arg bits[] = {gpu_val(&nb, 8), gpu_array_arg(&x[M_BITS]), gpu_array_arg(&x[M_COUNT])};
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_BM_ROWS, rows, 4, nbrows + 1);
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_BM_BITS, bits, 3, nb);
    return s == HSP_OK ? gpu_scan(g, dbl, &x[M_COUNT], &x[M_START], nb, NULL) : s;
}

/* The work-groups of the passes: one a block row, as many as their own
 * arrays allow. */
static int64_t groups_for(int64_t nbrows, int64_t nbcols)
{
    int64_t most = BM_OWN_BYTES / (16 * (nbcols ? nbcols : 1));
    if (most > BM_MOST_GROUPS) most = BM_MOST_GROUPS;
    if (most < 1) most = 1;
    return nbrows < most ? nbrows : most;
}

/* The operands' ten arguments (BM_OPERANDS), from args on. */
static void operand_args(gpu_arg *args, const gpu_array *a, const gpu_array *b)
{
    const int order[5] = {M_ROW, M_KEY, M_BITS, M_START, M_VAL};
    for (int k = 0; k < 5; k++) args[k] = gpu_array_arg(&a[order[k]]), args[5 + k] = gpu_array_arg(&b[order[k]]);
}

/* The counting pass, and its scans: C's blocks, entries and multiply-adds. */
static hsp_status count(gpu *g, int dbl, const gpu_array *a, const gpu_array *b, gpu_array *c, int64_t nbrows,
                        int64_t nbcols, int64_t totals[3])
{
    int64_t groups = groups_for(nbrows, nbcols);
    int32_t cap = BM_LISTED;
    size_t size = gpu_group_size(g, dbl, GK_BM_COUNT, BM_GROUP);
    gpu_arg args[19] = {gpu_val(&nbrows, 8), gpu_val(&nbcols, 8)};
    operand_args(args + 2, a, b);
    const int mine[4] = {C_MARK, C_BLOCKS, C_NNZ, C_MADDS};
    for (int k = 0; k < 4; k++) args[12 + k] = gpu_array_arg(&c[mine[k]]);
    args[16] = gpu_val(&cap, 4), args[17] = gpu_local(BM_LISTED * sizeof(int32_t)), args[18] = gpu_local(size * 8);
    hsp_status s = g->ops->launch(g, dbl, GK_BM_COUNT, args, 19, (size_t)groups, size);
    for (int k = 0; k < 3 && s == HSP_OK; k++)
        s = gpu_scan(g, dbl, &c[C_BLOCKS + k], &c[C_BLOCK_AT + k], nbrows, &totals[k]);
    return s;
}

/* The writing pass into C's arrays. */
static hsp_status fill(gpu *g, int dbl, const gpu_array *a, const gpu_array *b, gpu_array *c, int64_t nbrows,
                       int64_t nbcols, int32_t pattern)
{
    int64_t groups = groups_for(nbrows, nbcols);
    int32_t cap = BM_LISTED;
    size_t size = gpu_group_size(g, dbl, GK_BM_FILL, BM_GROUP);
    gpu_arg args[24] = {gpu_val(&nbrows, 8), gpu_val(&nbcols, 8)};
    operand_args(args + 2, a, b);
    const int mine[7] = {C_MARK, C_AT, C_BLOCK_AT, C_VALUE_AT, C_KEY, C_BITS, C_VAL};
    for (int k = 0; k < 7; k++) args[12 + k] = gpu_array_arg(&c[mine[k]]);
    args[19] = gpu_val(&pattern, 4), args[20] = gpu_val(&cap, 4);
    args[21] = gpu_local(BM_LISTED * sizeof(int32_t)), args[22] = gpu_local(size * 8);
    return g->ops->launch(g, dbl, GK_BM_FILL, args, 23, (size_t)groups, size);
}

/* Room for C's count arrays and the groups' own arrays (marks zeroed). */
static hsp_status room(gpu *g, int dbl, gpu_array *c, int64_t nbrows, int64_t nbcols)
{
    int64_t own = groups_for(nbrows, nbcols) * nbcols, ints = 2 * own;
    hsp_status s = HSP_OK;
    for (int k = C_BLOCKS; k <= C_MADDS_AT && s == HSP_OK; k++)
        s = gpu_array_new(g, &c[k], (size_t)(nbrows + (k >= C_BLOCK_AT)) * 8);
    if (s == HSP_OK) s = gpu_array_new(g, &c[C_MARK], (size_t)own * 8);
    if (s == HSP_OK) s = gpu_array_new(g, &c[C_AT], (size_t)own * 8);
    gpu_arg zero[] = {gpu_val(&ints, 8), gpu_array_arg(&c[C_MARK])};
    return s == HSP_OK ? gpu_launch_items(g, dbl, GK_ZERO_INTS, zero, 2, ints) : s;
}

/* C of totals[0] blocks and totals[1] entries made, filled, brought home. */
static hsp_status make_c(gpu *g, int dbl, const hsp_bitmap *A, const hsp_bitmap *B, const gpu_array *a,
                         const gpu_array *b, gpu_array *c, int pattern, const int64_t totals[3], hsp_bitmap **C)
{
    int64_t nbrows = hsp_blocks(A->nrows), nbcols = hsp_blocks(B->ncols);
    size_t vs = hsp_value_size(A->precision);
    hsp_status s = hsp_bitmap_new(A->nrows, B->ncols, totals[0], totals[1], A->precision, C);
    if (s == HSP_OK) s = gpu_array_new(g, &c[C_KEY], (size_t)totals[0] * 8);
    if (s == HSP_OK) s = gpu_array_new(g, &c[C_BITS], (size_t)totals[0] * 8);
    if (s == HSP_OK) s = gpu_array_new(g, &c[C_VAL], (size_t)totals[1] * vs);
    if (s == HSP_OK) s = fill(g, dbl, a, b, c, nbrows, nbcols, pattern);
    if (s == HSP_OK && totals[0]) s = gpu_array_read(g, &c[C_KEY], (*C)->key, (size_t)totals[0] * 8);
    if (s == HSP_OK && totals[0]) s = gpu_array_read(g, &c[C_BITS], (*C)->bitmap, (size_t)totals[0] * 8);
    if (s == HSP_OK && totals[1]) s = gpu_array_read(g, &c[C_VAL], (*C)->values, (size_t)totals[1] * vs);
    if (s == HSP_OK) s = g->ops->finish(g);
    return s;
}

static hsp_status gpu_bitmap_multiply(hsp_device *dev, const hsp_bitmap *A, const hsp_bitmap *B, int pattern,
                                      hsp_bitmap **C, int64_t *flops)
{
    gpu *g = dev->state;
    int dbl = A->precision == HSP_DOUBLE;
    int64_t nbrows = hsp_blocks(A->nrows), nbcols = hsp_blocks(B->ncols), totals[3] = {0, 0, 0};
    gpu_array a[M_ARRAYS] = {{0}}, b[M_ARRAYS] = {{0}}, c[C_ARRAYS] = {{0}};
    *C = NULL;
    if (dbl && !g->fp64)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "device %s has no double precision (%s): use float or another device",
                        dev->description, g->no_fp64);
    hsp_status s = g->ops->unmap_host ? g->ops->finish(g) : HSP_OK;
    if (g->ops->unmap_host) g->ops->unmap_host(g, NULL);
    if (s == HSP_OK) s = place(g, dbl, A, a);
    if (s == HSP_OK) s = place(g, dbl, B, b);
    if (s == HSP_OK) s = room(g, dbl, c, nbrows, nbcols);
    if (s == HSP_OK) s = count(g, dbl, a, b, c, nbrows, nbcols, totals);
    if (s == HSP_OK) s = make_c(g, dbl, A, B, a, b, c, pattern, totals, C);
    if (s == HSP_OK) *flops = pattern ? 0 : 2 * totals[2]; /* a pattern multiplies no values */
    if (s != HSP_OK && !g->lost) g->ops->finish(g); /* launches may still use the arrays */
    if (s != HSP_OK) hsp_bitmap_free(*C), *C = NULL;
    if (!g->lost) gpu_arrays_free(g, a, M_ARRAYS), gpu_arrays_free(g, b, M_ARRAYS), gpu_arrays_free(g, c, C_ARRAYS);
    return gpu_noted(dev, s);
}

const hsp_bitmap_device gpu_bitmap_device = {gpu_bitmap_multiply};
