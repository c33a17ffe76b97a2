/* tune.c: hsp_tune, methods per bin chosen by measurement on the context's
 * device (doc/devices.md, "Tuning").  Each matrix (the user's, or a generated set) is
 * squared with the device's own methods and with each variant: one bin of
 * short or medium rows (or the long rows) given another method that can run
 * there, the rest as the device chooses; the settings take turns run by run.
 * A bin's time for a method is the sum, over the matrices with rows in the
 * bin, of the median whole product with that method there.  A method that
 * beats the device's own by more than 5% takes the bin: below that is the
 * noise of the sums.  (Timing each bin's launch alone misled: it chose
 * methods that made whole products five times slower.  Both:
 * doc/performance.md, "Figures behind the code".) */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "spgemm/bins.h"
#include "device/context.h"
#include "core/internal.h"
#include "spgemm/profile.h"
#include "spgemm/spgemm_device.h"

/* A bin is given a method only where the matrices put MIN_ROWS rows or more
 * in it: the time of fewer is mostly the launch's, whatever the method. */
enum { NMETHODS = HSP_NMETHODS, NSPECS = 10, SECTION_BYTES = 32768, MIN_ROWS = 1024 };
static const double MARGIN = 0.05; /* a method must beat the device's own by this */

void hsp_tune_options_init(hsp_tune_options *t)
{
    if (!t) return;
    memset(t, 0, sizeof *t);
    t->precision = HSP_DOUBLE;
}

/* The set of matrices for about n rows each: stencils and bands whose rows
 * fill the short bins, random rows and wider bands for the medium ones, and
 * an R-MAT graph for rows of every length, long ones too. */
static int tune_specs(int64_t n, char spec[NSPECS][64])
{
    int64_t side2 = (int64_t)sqrt((double)n), side3 = (int64_t)cbrt((double)n), scale = 1;
    while (scale < 30 && (int64_t)1 << (scale + 1) <= n) scale++;
    if (side2 < 2) side2 = 2;
    if (side3 < 2) side3 = 2;
    int k = 0;
    snprintf(spec[k++], 64, "poisson2d5:%lld", (long long)side2);
    snprintf(spec[k++], 64, "poisson2d9:%lld", (long long)side2);
    snprintf(spec[k++], 64, "poisson3d7:%lld", (long long)side3);
    snprintf(spec[k++], 64, "poisson3d27:%lld", (long long)side3);
    snprintf(spec[k++], 64, "band:%lld,4", (long long)n);
    snprintf(spec[k++], 64, "band:%lld,12", (long long)(n / 4 > 32 ? n / 4 : 32));
    snprintf(spec[k++], 64, "random:%lld,8", (long long)n);
    snprintf(spec[k++], 64, "random:%lld,24", (long long)(n / 4 > 32 ? n / 4 : 32));
    snprintf(spec[k++], 64, "random:%lld,48", (long long)(n / 16 > 64 ? n / 16 : 64));
    snprintf(spec[k++], 64, "rmat:%lld,8", (long long)(scale > 6 ? scale - 2 : 4)); /* its square is large */
    return k;
}

/* A setting timed against the context's own methods: method m in bin b of
 * short or medium rows, or (b = LONG_ROWS) for the long rows. */
enum { LONG_ROWS = -1, VARIANTS_MAX = HSP_MAX_BINS * NMETHODS };
typedef struct {
    int bin, method;
    double *ms; /* its runs' times */
} variant;

/* What a tuning run gathers: per method and bin, the sums over the
 * matrices with rows in the bin of their products' median times with that
 * method there (the method the device took itself: its own products' times),
 * < 0 where none ran, infinite where it failed; the same for long rows. */
typedef struct {
    hsp_context *ctx;
    const hsp_tune_options *t;
    int dbl;
    unsigned candidates[HSP_NMETHODGROUPS]; /* methods each group may take */
    double bin_ms[NMETHODS][HSP_MAX_BINS];
    double own_ms[HSP_MAX_BINS];            /* the sums of the own products' medians */
    double long_ms[NMETHODS], long_own_ms;
    int64_t rows[HSP_MAX_BINS];             /* rows of each bin over the matrices */
    variant v[VARIANTS_MAX];
    int nv;
    double *runs_ms;                        /* (1 + nv) x runs times */
    hsp_progress progress;
    int64_t done;
    char skipped[1024];                     /* comment lines: matrices whose own product failed */
} tuning;

static int compare_ms(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median of n times (reordered). */
static double median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, compare_ms);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* A*A once on the device (resident where it holds matrices: as the bench
 * times it), its figures into st. */
static hsp_status square_once(hsp_context *ctx, const hsp_csr *A, hsp_resident *rA, hsp_stats *st)
{
    hsp_status s;
    if (rA) {
        hsp_resident *rC = NULL;
        s = hsp_multiply_resident(ctx, rA, rA, &rC, st);
        hsp_resident_free(rC);
    } else {
        hsp_csr *C = NULL;
        s = hsp_multiply(ctx, A, A, &C, st);
        hsp_csr_free(C);
    }
    return s;
}

/* The variants for A, whose own product gave own: every other candidate of
 * each non-empty bin of short and medium rows, and of the long rows. */
static void list_variants(tuning *r, const hsp_stats *own)
{
    const hsp_bins *bins = &r->ctx->engine->bins;
    r->nv = 0;
    for (int b = 0; b < bins->nbins; b++) {
        int g = bins->group[b] - HSP_GROUP_SHORT;
        if ((g != 0 && g != 1) || !own->rows_bin[b]) continue;
        for (int m = HSP_METHOD_HEAP; m < NMETHODS; m++)
            if (r->candidates[g] & 1u << m && m != (int)own->bin_method[b]) r->v[r->nv++] = (variant){b, m, NULL};
    }
    for (int m = HSP_METHOD_HEAP; m < NMETHODS && own->rows_group[HSP_GROUP_LONG]; m++)
        if (r->candidates[2] & 1u << m && m != (int)own->method[2]) r->v[r->nv++] = (variant){LONG_ROWS, m, NULL};
}

/* Square A with variant v (NULL: the context's own methods), its time into *ms. */
static hsp_status time_variant(tuning *r, const hsp_csr *A, hsp_resident *rA, const variant *v, double *ms)
{
    hsp_stats st;
    hsp_profile *p = &r->ctx->engine->profile;
    if (v && v->bin == LONG_ROWS) p->long_rows[r->dbl] = (hsp_method)v->method;
    else if (v) p->bin[r->dbl][v->bin] = (hsp_method)v->method;
    hsp_status s = square_once(r->ctx, A, rA, &st);
    memset(p, 0, sizeof *p);
    *ms = s == HSP_OK ? st.ms_total : INFINITY;
    return s;
}

/* Add x to a sum that is < 0 until the first. */
static void add_to(double *sum, double x)
{
    *sum = (*sum < 0 ? 0 : *sum) + x;
}

/* A method that fails where the context's own methods ran (out of local
 * or device memory) is marked failed (an infinite time) for what it was
 * timed on; the tuning goes on unless the device is lost. */
static hsp_status failed(const tuning *r, hsp_status s)
{
    return r->ctx->device->lost ? s : HSP_OK;
}

/* Time A's own product and every variant, taking turns run by run (so that
 * a drift of the device's speed falls on all alike), and add the medians. */
static hsp_status tune_matrix(tuning *r, const hsp_csr *A, hsp_resident *rA)
{
    hsp_stats own;
    int runs = r->t->runs;
    memset(&r->ctx->engine->profile, 0, sizeof r->ctx->engine->profile);
    hsp_status s = square_once(r->ctx, A, rA, &own); /* untimed: its bins and methods */
    if (s != HSP_OK) return s;
    list_variants(r, &own);
    double *own_runs = r->runs_ms;
    for (int j = 0; j < r->nv; j++) r->v[j].ms = r->runs_ms + (size_t)(j + 1) * runs;
    for (int k = 0; k < runs && s == HSP_OK; k++) {
        s = time_variant(r, A, rA, NULL, &own_runs[k]);
        for (int j = 0; j < r->nv && s == HSP_OK; j++)
            if ((s = time_variant(r, A, rA, &r->v[j], &r->v[j].ms[k])) != HSP_OK) s = failed(r, s);
    }
    if (s != HSP_OK) return s;
    double own_ms = median(own_runs, runs);
    for (int b = 0; b < r->ctx->engine->bins.nbins; b++) {
        int g = r->ctx->engine->bins.group[b] - HSP_GROUP_SHORT;
        if ((g != 0 && g != 1) || !own.rows_bin[b]) continue;
        r->rows[b] += own.rows_bin[b];
        add_to(&r->own_ms[b], own_ms), add_to(&r->bin_ms[own.bin_method[b]][b], own_ms);
    }
    if (own.rows_group[HSP_GROUP_LONG]) add_to(&r->long_own_ms, own_ms), add_to(&r->long_ms[own.method[2]], own_ms);
    for (int j = 0; j < r->nv; j++) { /* a failed run (infinite) makes the sum infinite */
        variant *v = &r->v[j];
        add_to(v->bin == LONG_ROWS ? &r->long_ms[v->method] : &r->bin_ms[v->method][v->bin], median(v->ms, runs));
    }
    hsp_progress_update(&r->progress, ++r->done);
    return HSP_OK;
}

/* The fastest method of times ms (< 0: not run; infinite: failed) where it
 * beats own, the time of the device's own choices, by more than MARGIN (less
 * is within the noise); else DEFAULT: the device chooses. */
static int fastest(const double *ms, double own)
{
    int best = HSP_METHOD_DEFAULT;
    for (int m = HSP_METHOD_HEAP; m < NMETHODS; m++)
        if (ms[m] >= 0 && !isinf(ms[m]) && (!best || ms[m] < ms[best])) best = m;
    return best && ms[best] < (1 - MARGIN) * own ? best : HSP_METHOD_DEFAULT;
}

/* Bin b's fastest method, or DEFAULT. */
static int bin_fastest(const tuning *r, int b)
{
    double ms[NMETHODS];
    for (int m = 0; m < NMETHODS; m++) ms[m] = r->bin_ms[m][b];
    return r->own_ms[b] >= 0 ? fastest(ms, r->own_ms[b]) : HSP_METHOD_DEFAULT;
}

/* Append to text (SECTION_BYTES) the printf of fmt. */
static void append(char *text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(char *text, const char *fmt, ...)
{
    size_t n = strlen(text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + n, SECTION_BYTES - n, fmt, ap);
    va_end(ap);
}

/* The section's comment table: each bin's rows and times per method. */
static void times_table(const tuning *r, char *text)
{
    const hsp_bins *bins = &r->ctx->engine->bins;
    append(text, "# bin     u from     u to       rows       own");
    for (int m = HSP_METHOD_HEAP; m < NMETHODS; m++)
        if ((r->candidates[0] | r->candidates[1]) & 1u << m) append(text, " %9s", hsp_method_name((hsp_method)m));
    append(text, "   (ms: medians of whole products, summed over the matrices)\n");
    for (int b = 0; b < bins->nbins; b++) {
        if (r->own_ms[b] < 0) continue;
        append(text, "# %3d %10lld %10lld %10lld %9.4f", b, (long long)bins->lo[b], (long long)bins->hi[b],
               (long long)r->rows[b], r->own_ms[b]);
        for (int m = HSP_METHOD_HEAP; m < NMETHODS; m++) {
            if (!((r->candidates[0] | r->candidates[1]) & 1u << m)) continue;
            double ms = r->bin_ms[m][b];
            if (ms < 0 || isinf(ms)) append(text, " %9s", ms < 0 ? "-" : "failed");
            else append(text, " %9.4f", ms);
        }
        append(text, "\n");
    }
}

/* The section's lines: the table, a rows line for each run of bins with the
 * same fastest method, the long rows' times and line. */
static void section_text(const tuning *r, const char *specs, char *text)
{
    const hsp_bins *bins = &r->ctx->engine->bins;
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
    append(text, "# tuned %s: squares of %s, %d runs each\n%s", date, specs, r->t->runs, r->skipped);
    times_table(r, text);
    for (int b = 0; b < bins->nbins; b++) {
        int best = bin_fastest(r, b), last = b;
        if (r->rows[b] < MIN_ROWS || !best) continue;
        while (last + 1 < bins->nbins && r->rows[last + 1] >= MIN_ROWS && bin_fastest(r, last + 1) == best) last++;
        append(text, "rows %lld %lld %s\n", (long long)bins->lo[b], (long long)bins->hi[last],
               hsp_method_name((hsp_method)best));
        b = last;
    }
    if (r->long_own_ms < 0) return;
    int best = fastest(r->long_ms, r->long_own_ms);
    append(text, "# long rows, whole products (ms; inf: failed): own %.3f", r->long_own_ms);
    for (int m = HSP_METHOD_HEAP; m < NMETHODS; m++)
        if (r->long_ms[m] >= 0) append(text, " %s %.3f", hsp_method_name((hsp_method)m), r->long_ms[m]);
    append(text, "\n");
    if (best) append(text, "long %s\n", hsp_method_name((hsp_method)best));
}

/* The name of matrix k of t, or of the generated set, into name (len bytes). */
static void matrix_name(const hsp_tune_options *t, char spec[NSPECS][64], int k, char *name, size_t len)
{
    if (t->nmatrices && t->names) snprintf(name, len, "%s", t->names[k]);
    else if (t->nmatrices) snprintf(name, len, "matrix %d", k + 1);
    else snprintf(name, len, "%.*s", (int)sizeof spec[k] - 1, spec[k]);
}

/* The names of the matrices tuned on, for the section's comment. */
static void matrix_names(const hsp_tune_options *t, char spec[NSPECS][64], int n, char *names, size_t len)
{
    names[0] = '\0';
    for (int k = 0; k < n; k++) {
        size_t at = strlen(names);
        snprintf(names + at, len - at, "%s", k ? " " : "");
        matrix_name(t, spec, k, names + strlen(names), len - strlen(names));
    }
}

/* Matrix k of t, checked. */
static hsp_status given_matrix(const hsp_tune_options *t, int k, const hsp_csr **A)
{
    hsp_status s = hsp_csr_check(*A = t->matrices[k]);
    if (s != HSP_OK) return s;
    if ((*A)->nrows != (*A)->ncols)
        return hsp_fail(HSP_ERR_SHAPE, "hsp_tune squares its matrices: matrix %d is %lld x %lld", k + 1,
                        (long long)(*A)->nrows, (long long)(*A)->ncols);
    if ((*A)->precision != t->precision)
        return hsp_fail(HSP_ERR_ARG, "hsp_tune: matrix %d is not of the precision tuned (%s)", k + 1,
                        t->precision == HSP_DOUBLE ? "double" : "float");
    return HSP_OK;
}

/* Tune on each matrix of t, or of the generated set, in turn. */
static hsp_status tune_all(tuning *r, char spec[NSPECS][64], int n)
{
    hsp_status s = HSP_OK;
    for (int k = 0; k < n && s == HSP_OK; k++) {
        char name[256];
        hsp_csr *made = NULL;
        const hsp_csr *A = NULL;
        hsp_resident *rA = NULL;
        if (r->t->nmatrices) s = given_matrix(r->t, k, &A);
        else s = hsp_generate(spec[k], (uint64_t)k + 1, r->t->precision, &made), A = made;
        if (s == HSP_OK && r->ctx->device->hold) s = hsp_place(r->ctx, A, &rA);
        int ran = s == HSP_OK;
        if (ran) s = tune_matrix(r, A, rA);
        if (ran && s != HSP_OK && !r->ctx->device->lost) { /* e.g. too large for the device: noted, passed over */
            size_t at = strlen(r->skipped);
            matrix_name(r->t, spec, k, name, sizeof name);
            snprintf(r->skipped + at, sizeof r->skipped - at, "# skipped %s: %s: %s\n", name, hsp_strerror(s),
                     hsp_errmsg());
            s = HSP_OK;
        }
        hsp_resident_free(rA);
        hsp_csr_free(made);
    }
    return s;
}

/* Check t for ctx. */
static hsp_status check_tune(const hsp_context *ctx, const hsp_tune_options *t)
{
    const hsp_device *dev = ctx->device;
    if (t->precision != HSP_FLOAT && t->precision != HSP_DOUBLE)
        return hsp_fail(HSP_ERR_ARG, "hsp_tune: unknown precision %d", (int)t->precision);
    if (t->nmatrices < 0 || (t->nmatrices && !t->matrices))
        return hsp_fail(HSP_ERR_ARG, "hsp_tune: nmatrices = %d with matrices %s", t->nmatrices,
                        t->matrices ? "given" : "NULL");
    if (t->rows < 0 || t->rows > (1 << 26) || t->runs < 0 || t->runs > 1000)
        return hsp_fail(HSP_ERR_ARG, "hsp_tune: rows = %lld, runs = %d: give 0 (the default) or rows 1..2^26, "
                        "runs 1..1000", (long long)t->rows, t->runs);
    if (!dev->spgemm->launch_bin || dev->spgemm->direct)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "hsp_tune: device %s computes rows on CPU threads, with no bins "
                        "launched to time: tune a GPU device (opencl, hsa)", dev->description);
    return HSP_OK;
}

/* r for ctx and t (checked): the candidates, no times yet. */
static void tune_start(hsp_context *ctx, const hsp_tune_options *t, tuning *r)
{
    const hsp_device *dev = ctx->device;
    r->ctx = ctx, r->t = t, r->dbl = t->precision == HSP_DOUBLE;
    for (int g = 0; g < HSP_NMETHODGROUPS; g++)
        r->candidates[g] = dev->spgemm->methods[g] & (ctx->options.deterministic ? dev->spgemm->exact[g] : ~0u);
    for (int m = 0; m < NMETHODS; m++) {
        r->long_ms[m] = -1;
        for (int b = 0; b < HSP_MAX_BINS; b++) r->bin_ms[m][b] = -1;
    }
    r->long_own_ms = -1;
    for (int b = 0; b < HSP_MAX_BINS; b++) r->own_ms[b] = -1;
}

/* Measure on ctx's device (ctx locked, t checked, use = t with its
 * defaults filled), then write the section. */
static hsp_status tune_locked(hsp_context *ctx, const hsp_tune_options *t, const hsp_tune_options *use)
{
    tuning *r = calloc(1, sizeof *r);
    char *text = calloc(1, SECTION_BYTES);
    double *runs_ms = calloc((size_t)(VARIANTS_MAX + 1) * (size_t)use->runs, sizeof *runs_ms);
    char spec[NSPECS][64], names[1024], path[256];
    hsp_status s = r && text && runs_ms ? HSP_OK : hsp_fail(HSP_ERR_NOMEM, "no memory to tune");
    if (s == HSP_OK) {
        int n = t->nmatrices ? t->nmatrices : tune_specs(use->rows, spec);
        tune_start(ctx, use, r);
        r->runs_ms = runs_ms;
        matrix_names(t, spec, n, names, sizeof names);
        hsp_progress_start(&r->progress, "tune", n, t->progress);
        s = tune_all(r, spec, n);
        hsp_progress_done(&r->progress);
        if (s == HSP_OK) section_text(r, names, text);
        if (s == HSP_OK) s = hsp_profile_write(t->profile, r->dbl, ctx->device->description, text, path, sizeof path);
    }
    free(r), free(text), free(runs_ms);
    return s;
}

hsp_status hsp_tune(hsp_context *ctx, const hsp_tune_options *t)
{
    hsp_tune_options defaults;
    if (!ctx) return hsp_fail(HSP_ERR_ARG, "hsp_tune: ctx is NULL");
    if (!t) hsp_tune_options_init(&defaults), t = &defaults;
    hsp_tune_options use = *t;
    if (!use.rows) use.rows = 1 << 18;
    if (!use.runs) use.runs = 5;
    hsp_context_lock(ctx);
    hsp_status s = check_tune(ctx, t);
    if (s == HSP_OK) {
        hsp_profile kept = ctx->engine->profile;
        int64_t small_nnz = ctx->options.small_nnz;
        ctx->options.small_nnz = -1; /* every product on the device */
        s = tune_locked(ctx, t, &use);
        ctx->engine->profile = kept, ctx->options.small_nnz = small_nnz;
    }
    hsp_context_unlock(ctx);
    return s;
}
