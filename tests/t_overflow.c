/* t_overflow.c: the checks that a product's counts fit 64 bits, reached for
 * real.  No machine holds a product of 2^62 products, but the checks come
 * before anything of that size is read or allocated:
 * - stage 1 reads B's row pointers alone (never its columns or values), so
 *   a B whose row pointers declare rows of 2^62 entries, with no columns
 *   behind them, drives the product count and the flop count past 64 bits;
 *   the stage runs on a job made here, and the whole product through
 *   hsp_product as for operands already checked (placed), which must leave
 *   them untouched and the context right;
 * - stage 4 checks nnz(C) before it reserves or allocates C's arrays;
 * - on a GPU device with the operands on it, stage 2 adds up sums the device
 *   made per work-group: a scripted back end (its launches write the sums the
 *   test chooses) drives them past 64 bits.  (Stage 4 sums the row counts on
 *   the device: a row's count is at most its products, whose sum stage 2
 *   checked.)
 * Just below each limit the same calls must succeed (or, for C's arrays,
 * fail on the memory limit), so that a check that fires too early fails
 * too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device/gpu.h"
#include "core/internal.h"
#include "spgemm/spgemm.h"
#include "ref.h"
#include "spgemm/stages.h"
#include "tap.h"
#include "spgemm/gpu_stages.h"

#define TWO_62 ((int64_t)1 << 62)

/* An m x 1 A with one entry a row, and a 1 x 1 B whose one row declares
 * brow entries (row pointers only: no columns or values exist). */
typedef struct {
    int64_t arp[65], brp[2];
    int32_t acol[64];
    double aval[64];
    hsp_csr A, B;
} operands;

static void make_operands(operands *o, int32_t m, int64_t brow)
{
    memset(o, 0, sizeof *o);
    for (int32_t i = 0; i < m; i++) o->arp[i + 1] = i + 1, o->aval[i] = 1;
    o->brp[1] = brow;
    o->A = (hsp_csr){.nrows = m, .ncols = 1, .nnz = m, .precision = HSP_DOUBLE, .rowptr = o->arp, .colidx = o->acol,
                     .values = o->aval};
    o->B = (hsp_csr){.nrows = 1, .ncols = 1, .nnz = brow, .precision = HSP_DOUBLE, .rowptr = o->brp};
}

/* A job of ctx for A*B, as hsp_product makes one. */
static hsp_job job_of(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_stats *st)
{
    memset(st, 0, sizeof *st);
    hsp_job job = {.ctx = ctx, .dev = ctx->device, .A = A, .B = B,
                   .vsize = sizeof(double), .short_max = hsp_bins_group_max(&ctx->engine->bins, HSP_GROUP_SHORT),
                   .medium_max = hsp_bins_group_max(&ctx->engine->bins, HSP_GROUP_MEDIUM), .stats = st};
    memcpy(job.method, ctx->engine->method, sizeof job.method);
    return job;
}

/* Did s fail with HSP_ERR_OVERFLOW and a message holding what? */
static int overflowed(hsp_status s, const char *what)
{
    return s == HSP_ERR_OVERFLOW && strstr(hsp_errmsg(), what);
}

/* Stage 1 on the cpu device's job: m rows of brow products each. */
static void stage_bound(hsp_context *ctx)
{
    static const struct {
        int32_t m;
        int64_t brow;
        const char *what, *why;
    } cases[] = {{4, TWO_62, "the number of products overflows 64 bits", "4 rows of 2^62 products, a row a part"},
                 {64, TWO_62, "the number of products overflows 64 bits", "64 rows of 2^62 products, parts of 8"},
                 {1, TWO_62, "the flop count overflows 64 bits", "one row of 2^62 products"},
                 {1, TWO_62 - 1, NULL, "one row of 2^62 - 1 products"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        operands o;
        hsp_stats st;
        make_operands(&o, cases[k].m, cases[k].brow);
        hsp_job job = job_of(ctx, &o.A, &o.B, &st);
        hsp_status s = hsp_stage_bound(&job);
        if (cases[k].what)
            tap_ok(overflowed(s, cases[k].what), "stage 1, %s: HSP_ERR_OVERFLOW, '%s' (got %s: %s)", cases[k].why,
                   cases[k].what, hsp_strerror(s), hsp_errmsg());
        else
            tap_ok(s == HSP_OK && st.flops == 2 * (TWO_62 - 1), "stage 1, %s: %lld flops, no overflow (got %s: %s)",
                   cases[k].why, (long long)st.flops, hsp_strerror(s), s == HSP_OK ? "" : hsp_errmsg());
        hsp_job_cleanup(&job);
    }
}

/* Are the operands as they were (the headers and every array)? */
static int untouched(const operands *o, const operands *was)
{
    const hsp_csr *M[2] = {&o->A, &o->B}, *W[2] = {&was->A, &was->B};
    for (int k = 0; k < 2; k++)
        if (M[k]->nrows != W[k]->nrows || M[k]->ncols != W[k]->ncols || M[k]->nnz != W[k]->nnz ||
            M[k]->rowptr != W[k]->rowptr || M[k]->colidx != W[k]->colidx || M[k]->values != W[k]->values ||
            M[k]->precision != W[k]->precision)
            return 0;
    return !memcmp(o->arp, was->arp, sizeof o->arp) && !memcmp(o->brp, was->brp, sizeof o->brp) &&
           !memcmp(o->acol, was->acol, sizeof o->acol) && !memcmp(o->aval, was->aval, sizeof o->aval);
}

/* The whole product of operands whose products overflow, as for operands
 * checked when placed: the error, no C, the operands untouched, and the
 * context's next product right. */
static void whole_product(hsp_context *ctx)
{
    operands o, was;
    hsp_csr *C = NULL;
    hsp_stats st;
    void *const on_host[2] = {NULL, NULL};
    make_operands(&o, 4, TWO_62);
    was = o;
    hsp_status s = hsp_product(ctx, &o.A, &o.B, 1, on_host, 0, 0, &C, NULL, &st);
    tap_ok(overflowed(s, "the number of products overflows 64 bits") && !C,
           "hsp_product of 4 rows of 2^62 products: HSP_ERR_OVERFLOW and no C (got %s: %s)", hsp_strerror(s),
           hsp_errmsg());
    tap_ok(untouched(&o, &was), "the operands are untouched");
    hsp_csr *X = ref_random(50, 40, 0, 8, HSP_DOUBLE, 5), *Y = ref_random(40, 30, 0, 8, HSP_DOUBLE, 6);
    hsp_csr *R = ref_multiply(X, Y, NULL);
    s = hsp_multiply(ctx, X, Y, &C, NULL);
    tap_ok(s == HSP_OK && ref_identical(C, R), "the context's next product is right");
    hsp_csr_free(X), hsp_csr_free(Y), hsp_csr_free(R), hsp_csr_free(C);
}

/* Stage 4's check of nnz(C) before C's arrays: past what their bytes (12 or
 * 16 an entry, counted in int64_t and size_t) can hold it overflows; just
 * below, the memory limit refuses them. */
static void stage_alloc_entries(hsp_context *ctx)
{
    static const struct {
        int64_t nnz;
        hsp_status want;
    } cases[] = {{INT64_MAX / 16 + 1, HSP_ERR_OVERFLOW}, {3 * (TWO_62 >> 4), HSP_ERR_OVERFLOW},
                 {TWO_62, HSP_ERR_OVERFLOW}, {INT64_MAX, HSP_ERR_OVERFLOW}, {INT64_MAX / 16, HSP_ERR_NOMEM}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        hsp_csr C = {.nnz = cases[k].nnz, .precision = HSP_DOUBLE};
        operands o;
        hsp_stats st;
        make_operands(&o, 1, 1);
        hsp_job job = job_of(ctx, &o.A, &o.B, &st);
        job.C = &C;
        hsp_status s = hsp_job_alloc_entries(&job);
        int ok = s == cases[k].want && !C.colidx && !C.values && atomic_load(&job.temp_bytes) == 0;
        if (cases[k].want == HSP_ERR_OVERFLOW) ok = ok && strstr(hsp_errmsg(), "does not fit in memory");
        tap_ok(ok, "nnz(C) = %lld: %s, no arrays, nothing reserved (got %s: %s)", (long long)cases[k].nnz,
               hsp_strerror(cases[k].want), hsp_strerror(s), hsp_errmsg());
    }
}

/* ---- a scripted GPU back end --------------------------------------------------------- */

enum { SPAN = 8 * 256 }; /* rows of a work-group of gpu_bins.c */

/* What the scripted device's kernels report for each of two work-groups: u
 * of one bin group. */
static struct {
    int bin, group; /* the rows' bin and its group */
    int64_t sum[2];
} script;

static size_t scripted_group_limit(gpu *g, int dbl, int kernel)
{
    (void)g, (void)dbl, (void)kernel;
    return 256;
}

/* The scan of stage 2's figures writes what the device sums from the
 * script's two work-groups (bins.cl's hsp_bin_scan: each bin's rows, each
 * bin group's u as the sums of its figures' high and low 32 bits, the
 * sample); the others do nothing the host reads (no row is long). */
static hsp_status scripted_launch(gpu *g, int dbl, int kernel, const gpu_arg *a, int nargs, size_t groups, size_t size)
{
    (void)g, (void)dbl, (void)nargs, (void)groups, (void)size;
    if (kernel != GK_BIN_SCAN) return HSP_OK;
    int nb = *(const int32_t *)a[1].data;
    int64_t *sums = a[6].array->ptr, *half = sums + nb + 2 * script.group;
    memset(sums, 0, (size_t)(nb + 12) * sizeof *sums);
    sums[script.bin] = 2 * SPAN;
    for (int w = 0; w < 2; w++) half[0] += script.sum[w] >> 32, half[1] += script.sum[w] & 0xffffffff;
    return HSP_OK;
}

static hsp_status scripted_finish(gpu *g)
{
    (void)g;
    return HSP_OK;
}

static void scripted_close(gpu *g)
{
    free(g->backend);
}

static const gpu_ops scripted_ops = {.group_limit = scripted_group_limit, .launch = scripted_launch,
                                     .finish = scripted_finish, .close = scripted_close};

/* Stage 2 of the device (gpu_bin_rows) on two work-groups of rows, each
 * reporting sum[w] products in the script's bin. */
static hsp_status device_bins(hsp_context *ctx, gpu *g, int bin, const int64_t sum[2], hsp_stats *st)
{
    static int32_t rows[2 * SPAN + 1];
    operands o;
    make_operands(&o, 1, 1);
    o.A.nrows = 2 * SPAN; /* only its row count is read */
    hsp_job job = job_of(ctx, &o.A, &o.B, st);
    job.resident.all_device = 1, job.bin_rows = rows;
    script.bin = bin, script.group = ctx->engine->bins.group[bin], script.sum[0] = sum[0], script.sum[1] = sum[1];
    return gpu_bin_rows(g, &job, 0);
}

/* Stage 2 of a device: its sums of products. */
static void device_sums(hsp_context *ctx)
{
    hsp_device *dev;
    if (!tap_ok(gpu_device_new(&scripted_ops, 1, "scripted", &dev) == HSP_OK, "a scripted device")) return;
    gpu *g = dev->state;
    g->host_arrays = 1;
    int medium = 0, longbin = ctx->engine->bins.nbins - 1;
    while (ctx->engine->bins.group[medium] != HSP_GROUP_MEDIUM) medium++;
    hsp_stats st;
    const int64_t half[2] = {TWO_62, TWO_62}, most[2] = {TWO_62 - 1, 0}, flops[2] = {TWO_62, 0};
    hsp_status s = device_bins(ctx, g, longbin, half, &st);
    tap_ok(overflowed(s, "the number of products overflows 64 bits"),
           "device stage 2, two work-groups of 2^62 long-row products: HSP_ERR_OVERFLOW (got %s: %s)",
           hsp_strerror(s), hsp_errmsg());
    s = device_bins(ctx, g, medium, flops, &st);
    tap_ok(overflowed(s, "the flop count overflows 64 bits"),
           "device stage 2, 2^62 medium-row products: the flop count overflows (got %s: %s)", hsp_strerror(s),
           hsp_errmsg());
    s = device_bins(ctx, g, medium, most, &st);
    tap_ok(s == HSP_OK && st.flops == 2 * (TWO_62 - 1) && st.flops_group[HSP_GROUP_MEDIUM] == st.flops,
           "device stage 2, 2^62 - 1 medium-row products: %lld flops, all of the medium group, no overflow (got %s)",
           (long long)st.flops, hsp_strerror(s));
    dev->destroy(dev);
}

int main(void)
{
    hsp_options opt;
    hsp_context *ctx = NULL;
    setvbuf(stdout, NULL, _IOLBF, 0); /* the lines before a crash of a product that should have failed */
    hsp_options_init(&opt);
    opt.device = "cpu", opt.threads = 2, opt.small_nnz = -1, opt.mem_limit = (int64_t)1 << 30;
    if (!tap_ok(hsp_context_create(&opt, &ctx) == HSP_OK, "a cpu context")) return tap_done();
    stage_bound(ctx);
    whole_product(ctx);
    stage_alloc_entries(ctx);
    device_sums(ctx);
    hsp_context_free(ctx);
    return tap_done();
}
