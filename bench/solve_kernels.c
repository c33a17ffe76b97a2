/* solve_kernels.c: solve-kernels, the bandwidth of the AMG solve's kernels
 * on a device with memory of its own: a copy of a vector as long as makes
 * the SpMV's bytes (the bandwidth the card gives a streaming kernel of that
 * size), y = A x by the solve's SpMV (its bytes:
 * A's row pointers, columns and values, x once and y), and the time of a
 * dot product read back (a round trip), and a launch of one entry's copy
 * waited for (the least a product on the device can take).  The SpMV's
 * share of the copy's bandwidth is the figure the AMG solve's kernels are
 * judged by. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amg/amg_device.h"
#include "core/internal.h"
#include "device/context.h"
#include "spgemm/spgemm.h"
#include "peer.h"

static const char usage[] =
    "usage: solve-kernels [--device=D] [--repeat=R] [--precision=double|float] SPEC...\n"
    "For each generated matrix SPEC (hspgemm gen's specs), on device D (default opencl:0;\n"
    "one with memory of its own), R times each (default 200) after a warm-up: a copy\n"
    "y = x moving as many bytes as the SpMV, y = A x by the AMG solve's SpMV, a dot\n"
    "product of A's rows read back, and a copy of one entry waited for launch by launch.\n"
    "Prints their GB/s (bytes each must move over the time), the SpMV's share of the\n"
    "copy's, the dot's microseconds and the median microseconds of the one-entry copy.\n";

typedef struct {
    const char *device;
    int repeat;
    hsp_precision precision;
} args;

/* ms a launch of step, run r times after one untimed, the device finished after each batch. */
static double time_step(hsp_device *dev, int r, hsp_status (*step)(hsp_device *, void *), void *what)
{
    hsp_status s = step(dev, what);
    if (s == HSP_OK) s = dev->finish(dev);
    double t0 = hsp_now_ms();
    for (int k = 0; k < r && s == HSP_OK; k++) s = step(dev, what);
    if (s == HSP_OK) s = dev->finish(dev);
    if (s != HSP_OK) fprintf(stderr, "solve-kernels: %s\n", hsp_errmsg()), exit(1);
    return (hsp_now_ms() - t0) / r;
}

/* The median ms of step's launch and the device's finish, each of r runs
 * timed alone (time_step times a batch: each launch's share of it). */
static double median_step(hsp_device *dev, int r, hsp_status (*step)(hsp_device *, void *), void *what)
{
    double *ms = malloc((size_t)r * sizeof *ms), median;
    hsp_status s = ms ? step(dev, what) : HSP_ERR_NOMEM;
    if (s == HSP_OK) s = dev->finish(dev);
    for (int k = 0; k < r && s == HSP_OK; k++) {
        double t0 = hsp_now_ms();
        s = step(dev, what);
        if (s == HSP_OK) s = dev->finish(dev);
        ms[k] = hsp_now_ms() - t0;
    }
    if (s != HSP_OK) fprintf(stderr, "solve-kernels: %s\n", s == HSP_ERR_NOMEM ? "no memory" : hsp_errmsg()), exit(1);
    median = peer_median(ms, r);
    free(ms);
    return median;
}

typedef struct {
    const hsp_resident *A;
    void *x, *y, *from, *to; /* from, to: the copy's, of ncopy entries */
    hsp_vec_sums sums;       /* the dot's parts and sum */
    int32_t n, ncopy;
    hsp_precision p;
    unsigned char dot[sizeof(double)]; /* the sum read back, of the precision */
} operands;

static hsp_status copy_step(hsp_device *dev, void *what)
{
    operands *o = what;
    void *const v[4] = {o->to, o->from, NULL, NULL};
    return dev->amg->vector(dev, HSP_VEC_COPY, o->ncopy, o->p, 0, 0, v, NULL);
}

/* The copy of one entry of from into to. */
static hsp_status one_step(hsp_device *dev, void *what)
{
    operands *o = what;
    void *const v[4] = {o->to, o->from, NULL, NULL};
    return dev->amg->vector(dev, HSP_VEC_COPY, 1, o->p, 0, 0, v, NULL);
}

static hsp_status spmv_step(hsp_device *dev, void *what)
{
    operands *o = what;
    return dev->amg->spmv(dev, hsp_resident_csr(o->A), hsp_resident_held(o->A), 1, o->x, NULL, o->y, NULL, NULL);
}

static hsp_status dot_step(hsp_device *dev, void *what)
{
    operands *o = what;
    void *const v[4] = {o->x, o->y, NULL, NULL};
    size_t bytes = hsp_value_size(o->p);
    hsp_status s = dev->amg->vector(dev, HSP_VEC_DOT, o->n, o->p, 0, 0, v, &o->sums);
    return s == HSP_OK ? dev->home(dev, o->sums.sums, 1, (void *[]){o->dot}, &bytes) : s;
}

/* Times spec's kernels on ctx's device and prints a line. */
static int run(hsp_context *ctx, const args *a, const char *spec)
{
    hsp_device *dev = ctx->device;
    hsp_csr *A = NULL;
    operands o = {.p = a->precision};
    hsp_status s = hsp_generate(spec, 1, a->precision, &A);
    if (s == HSP_OK) s = hsp_place(ctx, A, (hsp_resident **)&o.A);
    size_t vs = hsp_value_size(a->precision), bytes = A ? (size_t)A->nrows * vs : 0;
    double spmv_bytes = A ? (double)A->nnz * (double)(vs + sizeof(int32_t)) +
                            (double)(A->nrows + 1) * sizeof(int64_t) + 2.0 * (double)bytes : 0;
    o.ncopy = (int32_t)(spmv_bytes / 2 / (double)vs);
    size_t cbytes = (size_t)o.ncopy * vs;
    void *zeros = calloc((bytes > cbytes ? bytes : cbytes) + 1, 1);
    if (s == HSP_OK) s = dev->hold(dev, 1, (const void *[]){zeros}, &bytes, &o.x);
    if (s == HSP_OK) s = dev->hold(dev, 1, (const void *[]){zeros}, &bytes, &o.y);
    if (s == HSP_OK) s = dev->hold(dev, 1, (const void *[]){zeros}, &cbytes, &o.from);
    if (s == HSP_OK) s = dev->hold(dev, 1, (const void *[]){zeros}, &cbytes, &o.to);
    if (s == HSP_OK) s = dev->hold(dev, 1, (const void *[]){zeros}, &bytes, &o.sums.parts);
    if (s == HSP_OK) s = dev->hold(dev, 1, (const void *[]){zeros}, &(size_t){vs}, &o.sums.sums);
    o.sums.num = -1;
    if (s != HSP_OK) return fprintf(stderr, "solve-kernels: %s: %s\n", spec, hsp_errmsg()), 1;
    o.n = A->nrows;
    double copy = time_step(dev, a->repeat, copy_step, &o), spmv = time_step(dev, a->repeat, spmv_step, &o);
    double dot = time_step(dev, a->repeat / 10 + 1, dot_step, &o), copy_bytes = 2.0 * (double)cbytes;
    double one = median_step(dev, a->repeat, one_step, &o);
    printf("%-18s %9d %10lld %9.1f %9.1f %6.1f%% %9.1f %9.1f %9.4f %9.4f\n", spec, A->nrows, (long long)A->nnz,
           copy_bytes / copy / 1e6, spmv_bytes / spmv / 1e6, 100 * (spmv_bytes / spmv) / (copy_bytes / copy),
           dot * 1e3, one * 1e3, copy, spmv);
    dev->drop(dev, o.x), dev->drop(dev, o.y), dev->drop(dev, o.from), dev->drop(dev, o.to);
    dev->drop(dev, o.sums.parts), dev->drop(dev, o.sums.sums);
    hsp_resident_free((hsp_resident *)o.A), hsp_csr_free(A), free(zeros);
    return 0;
}

/* The options and the first spec's index in argv; 0 after a message. */
static int parse(int argc, char **argv, args *a)
{
    *a = (args){"opencl:0", 200, HSP_DOUBLE};
    int k = 1;
    for (; k < argc && !strncmp(argv[k], "--", 2); k++) {
        if (!strncmp(argv[k], "--device=", 9)) a->device = argv[k] + 9;
        else if (!strncmp(argv[k], "--repeat=", 9) && atoi(argv[k] + 9) > 0) a->repeat = atoi(argv[k] + 9);
        else if (!strcmp(argv[k], "--precision=float")) a->precision = HSP_FLOAT;
        else if (strcmp(argv[k], "--precision=double")) return fprintf(stderr, "%s", usage), 0;
    }
    return k < argc ? k : (fprintf(stderr, "%s", usage), 0);
}

int main(int argc, char **argv)
{
    args a;
    int first = parse(argc, argv, &a), bad = 0;
    if (!first) return 2;
    hsp_options opts;
    hsp_options_init(&opts);
    opts.device = a.device;
    hsp_context *ctx = NULL;
    if (hsp_context_create(&opts, &ctx) != HSP_OK) return fprintf(stderr, "solve-kernels: %s\n", hsp_errmsg()), 1;
    if (!ctx->device->amg) {
        fprintf(stderr, "solve-kernels: %s uses host arrays in place: no solve kernels of its own\n", a.device);
        return hsp_context_free(ctx), 1;
    }
    printf("solve-kernels on %s, %s, %d launches each\n", ctx->device->description,
           a.precision == HSP_DOUBLE ? "double" : "float", a.repeat);
    printf("%-18s %9s %10s %9s %9s %7s %9s %9s %9s %9s\n", "matrix", "rows", "nnz", "copy GB/s", "spmv GB/s", "share",
           "dot us", "launch us", "copy ms", "spmv ms");
    for (int k = first; k < argc; k++) bad |= run(ctx, &a, argv[k]);
    hsp_context_free(ctx);
    return bad;
}
