/* t_multiply.c: every product checked against the reference, over many random
 * shapes, every bin, every method, both grow modes, both precisions and
 * several thread counts; bad operands give clear errors and touch nothing.
 * Runs on the device named by $HSPGEMM_TEST_DEVICE (default cpu), with the
 * methods that device offers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include "ref.h"
#include "core/scratch.h"
#include "tap.h"

/* Options for the device under test with method for every group that can run
 * it (the device's default elsewhere); *runs says whether any group does.
 * The groups that run each method are probed (a context each) once per
 * process: they depend on the device under test alone, and on Intel's
 * runtime a context takes a quarter of a second. */
static void test_options(hsp_options *o, int threads, hsp_grow grow, hsp_method method, int *runs)
{
    static unsigned groups[HSP_NMETHODS], probed[HSP_NMETHODS]; /* per method: the groups that run it */
    hsp_context *ctx = NULL;
    hsp_options_init(o);
    o->device = ref_device(), o->threads = threads, o->grow = grow;
    o->small_nnz = -1; /* every product on the device under test */
    for (int g = 0; g < HSP_NMETHODGROUPS && !probed[method]; g++) {
        o->method[g] = method;
        if (hsp_context_create(o, &ctx) == HSP_OK) groups[method] |= 1u << g;
        else o->method[g] = HSP_METHOD_DEFAULT;
        hsp_context_free(ctx);
        ctx = NULL;
    }
    probed[method] = 1;
    for (int g = 0; g < HSP_NMETHODGROUPS; g++) o->method[g] = groups[method] >> g & 1 ? method : HSP_METHOD_DEFAULT;
    *runs = method == HSP_METHOD_DEFAULT || groups[method];
}

/* The contexts of make_context, one per thread count (1-3), growth and
 * method, each kept for the whole run as a program keeps one for many
 * products (errors included): on Intel's runtime, opening the device took
 * 80% of this suite's time when each test made its own (257 contexts, a
 * quarter of a second each; 139 now).  They hold their pools: the run's
 * peak is 1.0-1.7 GB resident on the OpenCL devices here. */
static hsp_context *kept[4][2][HSP_NMETHODS];

/* The kept context with method wherever the device can run it (made at the
 * first call); NULL when it can run it nowhere.  Not freed by the caller. */
static hsp_context *make_context(int threads, hsp_grow grow, hsp_method method)
{
    hsp_options o;
    hsp_context **ctx = &kept[threads][grow][method];
    int runs;
    test_options(&o, threads, grow, method, &runs);
    if (!runs) return NULL;
    if (!*ctx && hsp_context_create(&o, ctx) != HSP_OK) tap_diag("context: %s", hsp_errmsg());
    return *ctx;
}

/* Free the kept contexts (at the end of the run). */
static void free_kept_contexts(void)
{
    hsp_context **all = &kept[0][0][0];
    for (size_t k = 0; k < sizeof kept / sizeof *all; k++) hsp_context_free(all[k]);
}

/* Can the device under test run method on some group? */
static int method_runs(hsp_method method)
{
    hsp_options o;
    int runs;
    test_options(&o, 1, HSP_GROW_REALLOC, method, &runs);
    return runs;
}

/* The products of A*B: the lengths of the B rows of A's entries, summed. */
static int64_t ref_products(const hsp_csr *A, const hsp_csr *B)
{
    int64_t u = 0;
    for (int64_t p = 0; p < A->nnz; p++) u += B->rowptr[A->colidx[p] + 1] - B->rowptr[A->colidx[p]];
    return u;
}

/* Multiply and check against the reference, and the flops counted (two a
 * product: stage 1's bounds, summed); return C (or NULL) for more checks. */
static hsp_csr *check_product(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B,
                              hsp_stats *st, const char *what)
{
    hsp_csr *C = NULL;
    hsp_stats own;
    if (!st) st = &own;
    hsp_status s = hsp_multiply(ctx, A, B, &C, st);
    if (!tap_ok(s == HSP_OK, "%s: multiply succeeds", what)) {
        tap_diag("%s: %s", hsp_strerror(s), hsp_errmsg());
        return NULL;
    }
    double *mag = NULL;
    hsp_csr *R = ref_multiply(A, B, &mag);
    char why[256] = "";
    int valid = hsp_csr_check(C) == HSP_OK;
    int same = valid && R && ref_compare(C, R, mag, why, sizeof why);
    if (!tap_ok(same, "%s: matches the reference (nnz %lld)", what, (long long)C->nnz))
        tap_diag("%s", valid ? why : hsp_errmsg());
    int64_t flops = 2 * ref_products(A, B);
    tap_ok(st->flops == flops, "%s: %lld flops counted, two a product (%lld)", what, (long long)st->flops,
           (long long)flops);
    hsp_csr_free(R);
    free(mag);
    return C;
}

/* A with row i a single entry pointing at row i of B, which holds len[i]
 * entries (distinct sorted columns below maxlen + 1): row i of C has u = len[i]. */
static void bin_operands(const int32_t *len, int32_t nrows, int32_t maxlen, hsp_precision prec,
                         hsp_csr **A, hsp_csr **B)
{
    int64_t nnz = 0;
    for (int32_t i = 0; i < nrows; i++) nnz += len[i];
    hsp_csr_create(nrows, maxlen + 1, nnz, prec, B);
    nnz = 0;
    for (int32_t i = 0; i < nrows; i++) {
        for (int32_t t = 0; t < len[i]; t++) { /* columns spread over all maxlen + 1, increasing */
            (*B)->colidx[nnz] = (int32_t)((int64_t)t * (maxlen + 1) / len[i]);
            if (prec == HSP_DOUBLE) ((double *)(*B)->values)[nnz] = 1.0 + t;
            else ((float *)(*B)->values)[nnz] = 1.0f + (float)t;
            nnz++;
        }
        (*B)->rowptr[i + 1] = nnz;
    }
    hsp_csr_create(nrows, nrows, nrows, prec, A);
    for (int32_t i = 0; i < nrows; i++) {
        (*A)->colidx[i] = i;
        (*A)->rowptr[i + 1] = i + 1;
        if (prec == HSP_DOUBLE) ((double *)(*A)->values)[i] = 0.5;
        else ((float *)(*A)->values)[i] = 0.5f;
    }
}

/* An n x n A of 2 or 3 entries a row (columns i, i+1 and, every third row,
 * i+2, wrapping), so that a row of A*B sums the products of overlapping B
 * rows of bin_operands (each holds column 0 and spreads over the rest). */
static hsp_csr *overlap_rows(int32_t n, hsp_precision prec)
{
    int32_t *r = malloc(3 * (size_t)n * sizeof *r), *c = malloc(3 * (size_t)n * sizeof *c);
    double *v = malloc(3 * (size_t)n * sizeof *v);
    int64_t k = 0;
    for (int32_t i = 0; r && c && v && i < n; i++)
        for (int32_t t = 0; t < (i % 3 ? 2 : 3) && t < n; t++)
            r[k] = i, c[k] = (i + t) % n, v[k++] = t == 1 ? -0.25 : 0.5 / (t + 1);
    hsp_csr *D = NULL, *A = NULL;
    if (r && c && v) hsp_csr_from_triplets(n, n, k, r, c, v, HSP_DOUBLE, &D);
    if (D) hsp_csr_convert(D, prec, &A);
    free(r), free(c), free(v), hsp_csr_free(D);
    return A;
}

/* Do the long rows of a product that ran as st says grow their buffers?  On
 * an opencl device only by merge: auto takes them by ESC in local memory or
 * dense, and dense counts each row's entries before it sums them (t_opencl
 * checks both). */
static int long_rows_grow(const hsp_stats *st)
{
    return strncmp(ref_device(), "opencl", 6) || st->method[2] == HSP_METHOD_MERGE;
}

/* Rows landing in every bin, each method, both grow modes: bins all used, and
 * the two grow modes give bit-identical results where the rows grew (dense
 * sums, without growth, may add in another order each run).  Rows of each u up to 600,
 * and of the device's long bin: three from its first u, and 1000, 2000, 3000. */
static void test_every_bin(void)
{
    hsp_context *probe = make_context(1, HSP_GROW_REALLOC, HSP_METHOD_DEFAULT);
    const hsp_bins *layout = hsp_context_bins(probe);
    int32_t first_long = (int32_t)layout->lo[layout->nbins - 1], len[700], n = 0, maxlen = 5 * first_long;
    for (int32_t u = 0; u <= 600; u++) len[n++] = u;
    len[n++] = first_long, len[n++] = 2 * first_long, len[n++] = 3 * first_long;
    len[n++] = 1000, len[n++] = 2000, len[n++] = 3000;
    if (maxlen < 3000) maxlen = 3000;
    for (hsp_precision prec = HSP_FLOAT; prec <= HSP_DOUBLE; prec++) {
        hsp_csr *A, *B;
        bin_operands(len, n, maxlen, prec, &A, &B);
        for (hsp_method m = HSP_METHOD_DEFAULT; m < HSP_NMETHODS; m++) {
            hsp_csr *C[2] = {NULL, NULL};
            hsp_stats st;
            if (!method_runs(m)) continue;
            for (hsp_grow g = HSP_GROW_REALLOC; g <= HSP_GROW_COPY; g++) {
                hsp_context *ctx = make_context(2, g, m);
                char what[128];
                snprintf(what, sizeof what, "every bin, %s, %s, %s",
                         prec == HSP_DOUBLE ? "double" : "float", hsp_method_name(m),
                         hsp_grow_name(g));
                C[g] = check_product(ctx, A, B, &st, what);
                int used = 1;
                const hsp_bins *bins = hsp_context_bins(ctx);
                for (int b = 0; b < bins->nbins; b++) used &= st.rows_bin[b] > 0;
                tap_ok(used, "%s: all %d bins used", what, bins->nbins);
                if (strstr(st.device, "system SVM")) /* as on an APU: both sides at once, nothing copied */
                    tap_ok(st.rows_bin[1] > 0 && st.ms_host > 0 && st.ms_overlap == st.ms_host &&
                               !st.bytes_to_device && !st.bytes_to_host,
                           "%s, system SVM: the CPU threads did bins 0-1 (%.2f ms) while the device worked, "
                           "host arrays in place", what, st.ms_host);
                if (long_rows_grow(&st))
                    tap_ok(st.grow_events >= 3, "%s: long rows grew (%lld events)", what,
                           (long long)st.grow_events);
                else
                    tap_ok(st.grow_events == 0 && st.grow_bytes_copied == 0,
                           "%s: long rows sized without growth (%lld events)", what, (long long)st.grow_events);
                if (st.grow == HSP_GROW_COPY && st.method[2] != HSP_METHOD_MERGE && long_rows_grow(&st))
                    tap_ok(st.grow_bytes_copied > 0, "%s: growth copied %lld bytes", what,
                           (long long)st.grow_bytes_copied);
            }
            if (long_rows_grow(&st))
                tap_ok(C[0] && C[1] && ref_identical(C[0], C[1]),
                       "every bin, %s: realloc and copy give identical C", hsp_method_name(m));
            hsp_csr_free(C[0]), hsp_csr_free(C[1]);
        }
        hsp_csr *A3 = overlap_rows(n, prec); /* products that land on one column: duplicates summed */
        for (hsp_method m = HSP_METHOD_DEFAULT; m < HSP_NMETHODS; m++) {
            hsp_stats st;
            if (!method_runs(m)) continue;
            hsp_context *ctx = make_context(2, m % 2 ? HSP_GROW_COPY : HSP_GROW_REALLOC, m);
            char what[128];
            snprintf(what, sizeof what, "every bin, 2-3 A entries a row over overlapping B rows, %s, %s",
                     prec == HSP_DOUBLE ? "double" : "float", hsp_method_name(m));
            hsp_csr_free(check_product(ctx, A3, B, &st, what));
        }
        hsp_csr_free(A3), hsp_csr_free(A), hsp_csr_free(B);
    }
}

/* Long rows of many B rows each (about 10000 products: three merge batches
 * on a GPU): every method that grows grows each at least twice (the second
 * time with live entries), and both grow modes agree bit for bit; dense on a
 * GPU neither grows nor copies. */
static void test_long_rows(void)
{
    hsp_csr *A = ref_random(6, 150, 90, 120, HSP_DOUBLE, 31);
    hsp_csr *B = ref_random(150, 20000, 80, 120, HSP_DOUBLE, 32);
    for (hsp_method m = HSP_METHOD_HEAP; m < HSP_NMETHODS; m++) {
        hsp_csr *C[2] = {NULL, NULL};
        hsp_stats st[2];
        if (!method_runs(m)) continue;
        for (hsp_grow g = HSP_GROW_REALLOC; g <= HSP_GROW_COPY; g++) {
            hsp_context *ctx = make_context(2, g, m);
            char what[128];
            snprintf(what, sizeof what, "long rows, %s, %s", hsp_method_name(m), hsp_grow_name(g));
            C[g] = check_product(ctx, A, B, &st[g], what);
            if (long_rows_grow(&st[g]))
                tap_ok(st[g].grow_events >= 6 * 2, "%s: %lld grow events (two a row or more)", what,
                       (long long)st[g].grow_events);
            else
                tap_ok(st[g].grow_events == 0 && st[g].grow_bytes_copied == 0,
                       "%s: no growth, nothing copied (%lld events)", what, (long long)st[g].grow_events);
        }
        if (!long_rows_grow(&st[0])) {
            hsp_csr_free(C[0]), hsp_csr_free(C[1]);
            continue;
        }
        /* where the device cannot realloc, both runs copy (and say so) */
        int realloc_ran = st[0].grow == HSP_GROW_REALLOC;
        tap_ok(st[1].grow_bytes_copied > 0 && (st[0].grow_bytes_copied == 0) == realloc_ran,
               "long rows, %s: copy copied %lld bytes, realloc %lld (ran %s)", hsp_method_name(m),
               (long long)st[1].grow_bytes_copied, (long long)st[0].grow_bytes_copied,
               hsp_grow_name(st[0].grow));
        tap_ok(C[0] && C[1] && ref_identical(C[0], C[1]),
               "long rows, %s: realloc and copy give identical C", hsp_method_name(m));
        if (!strcmp(st[0].device, "cpu"))
            tap_ok(st[0].grow_moves == 0 && st[1].grow_moves == 0 && st[1].grow_bytes_copied > 0,
                   "long rows, %s, cpu: realloc grew every row in place (%lld moves), copy copied",
                   hsp_method_name(m), (long long)st[0].grow_moves);
        if (strstr(st[0].device, "system SVM")) /* as on an APU */
            tap_ok(realloc_ran && !st[0].bytes_to_device && !st[0].bytes_to_host && !st[1].bytes_to_device &&
                       !st[1].bytes_to_host,
                   "long rows, %s, system SVM: host arrays used in place (nothing copied to the device or back), "
                   "grown by realloc", hsp_method_name(m));
        hsp_csr_free(C[0]), hsp_csr_free(C[1]);
    }
    hsp_csr_free(A), hsp_csr_free(B);
}

/* Random shapes: empty, tall, wide, square; row lengths from 0 to long. */
static void test_random_shapes(void)
{
    static const int32_t shape[][5] = {
        /* m, k, n, min row, max row */
        {0, 0, 0, 0, 0},    {0, 5, 7, 0, 3},     {5, 0, 7, 0, 0},      {4, 6, 0, 0, 3},
        {1, 1, 1, 1, 1},    {30, 20, 10, 0, 4},  {10, 40, 300, 0, 40}, {200, 200, 200, 0, 8},
        {50, 1000, 1000, 20, 60}, {300, 50, 2000, 0, 50}, {64, 64, 5000, 1, 64},
        {1000, 1000, 1000, 0, 2},
    };
    uint64_t seed = 1;
    for (size_t s = 0; s < sizeof shape / sizeof shape[0]; s++) {
        for (int threads = 1; threads <= 3; threads++) {
            const int32_t *d = shape[s];
            hsp_precision prec = (s + (size_t)threads) % 2 ? HSP_DOUBLE : HSP_FLOAT;
            hsp_method m = (hsp_method)((s + (size_t)threads) % (HSP_NMETHODS));
            if (!method_runs(m)) m = HSP_METHOD_DEFAULT;
            hsp_csr *A = ref_random(d[0], d[1], d[3], d[4], prec, seed++);
            hsp_csr *B = ref_random(d[1], d[2], d[3], d[4] * 4, prec, seed++);
            hsp_grow grow = (seed / 2) % 2 ? HSP_GROW_COPY : HSP_GROW_REALLOC; /* seed is odd here: alternate by half */
            hsp_context *ctx = make_context(threads, grow, m);
            char what[128];
            snprintf(what, sizeof what, "random %dx%d * %dx%d, %d threads, %s, grow=%s", d[0], d[1], d[1],
                     d[2], threads, hsp_method_name(m), hsp_grow_name(grow));
            hsp_stats st;
            hsp_csr_free(check_product(ctx, A, B, &st, what));
            hsp_csr_free(A), hsp_csr_free(B);
        }
    }
}

/* Cancellation: explicit zeros in C are kept as entries. */
static void test_explicit_zeros(void)
{
    int32_t ar[] = {0, 0}, ac[] = {0, 1}, br[] = {0, 1}, bc[] = {0, 0};
    double av[] = {1, 1}, bv[] = {2, -2};
    hsp_csr *A, *B, *C = NULL;
    hsp_csr_from_triplets(1, 2, 2, ar, ac, av, HSP_DOUBLE, &A);
    hsp_csr_from_triplets(2, 1, 2, br, bc, bv, HSP_DOUBLE, &B);
    for (hsp_method m = HSP_METHOD_HEAP; m < HSP_NMETHODS; m++) {
        hsp_context *ctx = make_context(1, HSP_GROW_REALLOC, m);
        if (!ctx) continue;
        hsp_multiply(ctx, A, B, &C, NULL);
        tap_ok(C && C->nnz == 1 && ((double *)C->values)[0] == 0.0,
               "%s: a cancelled entry stays as an explicit zero", hsp_method_name(m));
        hsp_csr_free(C);
    }
    hsp_csr_free(A), hsp_csr_free(B);
}

/* Long rows over 600000 columns (many windows of the dense method, and
 * several of its count's bitmaps), both precisions; and a long row whose
 * products cancel in pairs: every entry an explicit zero. */
static void test_wide_long_rows(void)
{
    for (hsp_precision prec = HSP_FLOAT; prec <= HSP_DOUBLE; prec++) {
        hsp_csr *A = ref_random(4, 300, 60, 300, prec, 41), *B = ref_random(300, 600000, 40, 40, prec, 42);
        hsp_context *ctx = make_context(2, HSP_GROW_REALLOC, HSP_METHOD_DEFAULT);
        hsp_csr_free(check_product(ctx, A, B, NULL, prec == HSP_DOUBLE ? "wide long rows, double"
                                                                        : "wide long rows, float"));
        hsp_csr_free(A), hsp_csr_free(B);
    }
    enum { N = 3000 };
    static int32_t br[2 * N], bc[2 * N], ac[2] = {0, 1}, ar[2] = {0, 0};
    static double bv[2 * N], av[2] = {1, 1};
    for (int j = 0; j < 2 * N; j++) br[j] = j / N, bc[j] = 200 * (j % N), bv[j] = (j < N ? 1 : -1) * (0.5 + j % N % 7);
    hsp_csr *A, *B, *C = NULL;
    hsp_csr_from_triplets(1, 2, 2, ar, ac, av, HSP_DOUBLE, &A);
    hsp_csr_from_triplets(2, 600000, 2 * N, br, bc, bv, HSP_DOUBLE, &B);
    hsp_context *ctx = make_context(2, HSP_GROW_REALLOC, HSP_METHOD_DEFAULT);
    hsp_multiply(ctx, A, B, &C, NULL);
    int zeros = C && C->nnz == N;
    for (int64_t e = 0; zeros && e < N; e++) zeros = ((double *)C->values)[e] == 0 && C->colidx[e] == 200 * e;
    tap_ok(zeros, "a long row of %d columns, each two products that cancel: %d explicit zeros", N, N);
    hsp_csr_free(C), hsp_csr_free(A), hsp_csr_free(B);
}

/* C = A*B with every method the device runs, each checked against the
 * reference; what names the operands. */
static void check_every_method(const hsp_csr *A, const hsp_csr *B, const char *what)
{
    for (hsp_method m = HSP_METHOD_DEFAULT; m < HSP_NMETHODS; m++) {
        char name[128];
        if (!method_runs(m)) continue;
        hsp_context *ctx = make_context(2, HSP_GROW_REALLOC, m);
        snprintf(name, sizeof name, "%s, %s", what, hsp_method_name(m));
        hsp_csr_free(check_product(ctx, A, B, NULL, name));
    }
}

/* Long rows of 51200 products over 160000 columns, about 1100 entries in
 * each 4096 columns (on a GPU: dense, whose sums take runs of windows that
 * end where the next window's entries would overflow one window's values),
 * every method, both precisions. */
static void test_long_rows_dense_runs(void)
{
    for (hsp_precision prec = HSP_FLOAT; prec <= HSP_DOUBLE; prec++) {
        hsp_csr *A = ref_random(8, 64, 64, 64, prec, 63), *B = ref_random(64, 160000, 800, 800, prec, 64);
        check_every_method(A, B, prec == HSP_DOUBLE ? "long rows, runs of windows ended by entries, double"
                                                    : "long rows, runs of windows ended by entries, float");
        hsp_csr_free(A), hsp_csr_free(B);
    }
}

/* Long rows of 6400 products over 150 columns (on a GPU: dense, over a
 * narrow span of windows, each of many products), every method. */
static void test_long_rows_few_columns(void)
{
    hsp_csr *A = ref_random(8, 64, 64, 64, HSP_DOUBLE, 61), *B = ref_random(64, 150, 100, 100, HSP_DOUBLE, 62);
    check_every_method(A, B, "long rows of 6400 products over 150 columns");
    hsp_csr_free(A), hsp_csr_free(B);
}

/* Rows of 100 A entries whose B rows are nearly all empty: few products
 * from many A entries (more A entries than a row's work-items in the GPU
 * kernels that stage them), every method. */
static void test_mostly_empty_b_rows(void)
{
    hsp_csr *A = ref_random(50, 200, 100, 100, HSP_DOUBLE, 51), *B = ref_random(200, 300, 0, 3, HSP_DOUBLE, 52);
    for (int32_t b = 0; b < 200; b++) /* keep every 40th B row */
        if (b % 40) B->rowptr[b + 1] = B->rowptr[b];
        else B->rowptr[b + 1] = B->rowptr[b] + 1;
    B->nnz = B->rowptr[200];
    for (int32_t b = 0; b < 5; b++) B->colidx[b] = 7 * b, ((double *)B->values)[b] = b + 1;
    check_every_method(A, B, "rows of 100 A entries over mostly empty B rows");
    hsp_csr_free(A), hsp_csr_free(B);
}

/* A product of 10^6 rows: 900000 of one product (bin 1, done by the CPU
 * threads in chunks beside the device) and 100000 empty, A's columns and B's
 * spread by a stride; every entry of C checked against the reference (few
 * columns: the reference scans every column of each row). */
static void test_million_rows(void)
{
    enum { N = 1000000, K = 2000, M = 600 };
    hsp_csr *A = NULL, *B = NULL;
    hsp_context *ctx = make_context(2, HSP_GROW_REALLOC, HSP_METHOD_DEFAULT);
    if (hsp_csr_create(N, K, N - N / 10, HSP_DOUBLE, &A) != HSP_OK || hsp_csr_create(K, M, K, HSP_DOUBLE, &B) != HSP_OK)
        tap_diag("no memory: %s", hsp_errmsg());
    for (int64_t i = 0, k = 0; A && i < N; i++) {
        if (i % 10) A->colidx[k] = (int32_t)(i * 7919 % K), ((double *)A->values)[k++] = 1 + (double)(i % 7);
        A->rowptr[i + 1] = k;
    }
    for (int64_t i = 0; B && i < K; i++)
        B->colidx[i] = (int32_t)(i * 104729 % M), ((double *)B->values)[i] = 2 - (double)(i % 3), B->rowptr[i + 1] = i + 1;
    hsp_stats st;
    hsp_csr_free(A && B && ctx ? check_product(ctx, A, B, &st, "10^6 rows, 900000 of one product") : NULL);
    hsp_csr_free(A), hsp_csr_free(B);
}

/* Row i's upper bound u: the entries of the B rows its A entries point at. */
static int64_t row_bound(const hsp_csr *A, const hsp_csr *B, int32_t i)
{
    int64_t u = 0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
        u += B->rowptr[A->colidx[p] + 1] - B->rowptr[A->colidx[p]];
    return u;
}

/* The bin whose range [lo, hi] holds u, by a scan of the ranges (not the
 * library's lookup). */
static int bin_holding(const hsp_bins *bins, int64_t u)
{
    for (int b = 0; b < bins->nbins; b++)
        if (bins->lo[b] <= u && u <= bins->hi[b]) return b;
    return -1;
}

/* Row i of A alone, a 1 x ncols(A) matrix. */
static hsp_csr *one_row(const hsp_csr *A, int32_t i)
{
    int64_t first = A->rowptr[i], n = A->rowptr[i + 1] - first;
    size_t vsize = A->precision == HSP_DOUBLE ? sizeof(double) : sizeof(float);
    hsp_csr *R = NULL;
    if (hsp_csr_create(1, A->ncols, n, A->precision, &R) != HSP_OK) return NULL;
    memcpy(R->colidx, A->colidx + first, (size_t)n * sizeof *R->colidx);
    memcpy(R->values, (const char *)A->values + (size_t)first * vsize, (size_t)n * vsize);
    return R;
}

/* The one bin stats put a single-row product's row in, or -1 when it is not
 * exactly one row in one bin. */
static int lone_bin(const hsp_stats *st, int nbins)
{
    int bin = -1, rows = 0;
    for (int b = 0; b < nbins; b++) {
        rows += (int)st->rows_bin[b];
        if (st->rows_bin[b]) bin = b;
    }
    return rows == 1 ? bin : -1;
}

/* Binning, row by row, on the device under test: rows whose u is each
 * bin's first, middle and last (the long bin: its first, the next, twice
 * the first), so empty, single, short, medium and long rows and every
 * power-of-two multiple of W that bounds a range.  The whole product's
 * rows_bin must hold, bin by bin, the rows whose u its range holds; and
 * each row multiplied alone must land, as its product's one row, in the
 * bin whose range holds its u (the library keeps no per-row bin of a
 * product that a test could read: the cpu device computes all but the long
 * rows straight into C). */
static void test_bins_row_by_row(void)
{
    hsp_context *ctx = make_context(2, HSP_GROW_REALLOC, HSP_METHOD_DEFAULT);
    const hsp_bins *bins = hsp_context_bins(ctx);
    int nbins = bins->nbins, last = nbins - 1;
    int32_t len[3 * HSP_MAX_BINS], n = 0, maxlen = 0;
    for (int b = 0; b < last; b++) {
        len[n++] = (int32_t)bins->lo[b], len[n++] = (int32_t)((bins->lo[b] + bins->hi[b]) / 2);
        if (bins->hi[b] > bins->lo[b]) len[n++] = (int32_t)bins->hi[b];
    }
    len[n++] = (int32_t)bins->lo[last], len[n++] = (int32_t)bins->lo[last] + 1, len[n++] = 2 * (int32_t)bins->lo[last];
    for (int32_t i = 0; i < n; i++) maxlen = len[i] > maxlen ? len[i] : maxlen;
    hsp_csr *A, *B;
    bin_operands(len, n, maxlen, HSP_DOUBLE, &A, &B);
    int64_t want[HSP_MAX_BINS] = {0};
    for (int32_t i = 0; i < n; i++) want[bin_holding(bins, row_bound(A, B, i))]++;
    hsp_stats st;
    hsp_csr_free(check_product(ctx, A, B, &st, "rows at every bin's edges"));
    int b = 0;
    while (b < nbins && st.rows_bin[b] == want[b]) b++;
    if (!tap_ok(b == nbins, "rows at every bin's edges: each bin holds the %d rows whose u its range holds", n))
        tap_diag("bin %d [%lld, %lld]: %lld rows, expected %lld", b, (long long)bins->lo[b], (long long)bins->hi[b],
                 (long long)st.rows_bin[b], (long long)want[b]);
    int32_t i = 0;
    int got = 0, expect = 0;
    for (; i < n; i++) {
        hsp_csr *R = one_row(A, i), *C = NULL;
        expect = bin_holding(bins, row_bound(A, B, i));
        got = R && hsp_multiply(ctx, R, B, &C, &st) == HSP_OK ? lone_bin(&st, nbins) : -2;
        hsp_csr_free(R), hsp_csr_free(C);
        if (got != expect) break;
    }
    if (!tap_ok(i == n, "each of the %d rows alone lands in the bin whose range holds its u", n))
        tap_diag("row %d, u = %d: bin %d, expected bin %d [%lld, %lld] (-2: failed, -1: not one row)", i, len[i], got,
                 expect, (long long)bins->lo[expect], (long long)bins->hi[expect]);
    hsp_csr_free(A), hsp_csr_free(B);
}

/* Operands whose products cancel: row i of A is 1/2 at columns 2i and 2i+1;
 * B's rows 2i and 2i+1 hold the same len[i] columns, with values v and -v
 * but at every fourth column (v and 2v), so that row i of C (u = 2 len[i])
 * holds len[i] entries, three in four of them exact zeros. */
static void cancelling_operands(const int32_t *len, int32_t nrows, int32_t ncols, hsp_precision prec,
                                hsp_csr **A, hsp_csr **B)
{
    int64_t nnz = 0;
    for (int32_t i = 0; i < nrows; i++) nnz += 2 * (int64_t)len[i];
    int32_t *r = malloc((size_t)nnz * sizeof *r), *c = malloc((size_t)nnz * sizeof *c);
    int32_t *ar = malloc(2 * (size_t)nrows * sizeof *ar), *ac = malloc(2 * (size_t)nrows * sizeof *ac);
    double *v = malloc((size_t)nnz * sizeof *v), *av = malloc(2 * (size_t)nrows * sizeof *av);
    hsp_csr *DA = NULL, *DB = NULL;
    *A = *B = NULL;
    for (int32_t i = 0, k = 0; r && c && v && ar && ac && av && i < nrows; i++)
        for (int32_t half = 0; half < 2; half++) {
            ar[2 * i + half] = i, ac[2 * i + half] = 2 * i + half, av[2 * i + half] = 0.5;
            for (int32_t t = 0; t < len[i]; t++, k++) {
                double x = 1 + (t + i) % 7;
                r[k] = 2 * i + half, c[k] = (int32_t)((int64_t)t * ncols / len[i]);
                v[k] = half == 0 ? x : t % 4 ? -x : 2 * x;
            }
        }
    if (r && c && v && ar && ac && av) {
        hsp_csr_from_triplets(nrows, 2 * nrows, 2 * nrows, ar, ac, av, HSP_DOUBLE, &DA);
        hsp_csr_from_triplets(2 * nrows, ncols, nnz, r, c, v, HSP_DOUBLE, &DB);
    }
    if (DA && DB) hsp_csr_convert(DA, prec, A), hsp_csr_convert(DB, prec, B);
    free(r), free(c), free(v), free(ar), free(ac), free(av), hsp_csr_free(DA), hsp_csr_free(DB);
}

/* The entries of C that are exactly zero. */
static int64_t zero_entries(const hsp_csr *C)
{
    int64_t zeros = 0;
    for (int64_t k = 0; C && k < C->nnz; k++) zeros += hsp_csr_value(C, k) == 0;
    return zeros;
}

/* Cancellation in medium rows (u = 34..512) and long rows (u past the
 * device's long bin, up to 6000, whose buffers grow): every method, both
 * grow modes, both precisions; C matches the reference, which keeps a
 * column whatever its sum, and holds each cancelled entry as an explicit
 * zero (doc/library.md: the pattern of C depends only on A's and B's). */
static void test_cancelling_rows(void)
{
    hsp_context *probe = make_context(1, HSP_GROW_REALLOC, HSP_METHOD_DEFAULT);
    const hsp_bins *layout = hsp_context_bins(probe);
    int32_t first_long = (int32_t)layout->lo[layout->nbins - 1], len[40], n = 0;
    for (int32_t l = 17; l <= 256; l += 17) len[n++] = l; /* medium: u = 34..510 */
    len[n++] = 256;
    len[n++] = (first_long + 1) / 2, len[n++] = first_long, len[n++] = 3000; /* long */
    for (hsp_precision prec = HSP_FLOAT; prec <= HSP_DOUBLE; prec++) {
        hsp_csr *A, *B;
        cancelling_operands(len, n, 4 * 3000, prec, &A, &B);
        int64_t want_zeros = 0;
        for (int32_t i = 0; i < n; i++) want_zeros += len[i] - (len[i] + 3) / 4;
        for (hsp_method m = HSP_METHOD_DEFAULT; m < HSP_NMETHODS; m++) {
            if (!method_runs(m)) continue;
            for (hsp_grow g = HSP_GROW_REALLOC; g <= HSP_GROW_COPY; g++) {
                hsp_context *ctx = make_context(2, g, m);
                hsp_stats st;
                char what[128];
                snprintf(what, sizeof what, "cancelling medium and long rows, %s, %s, %s",
                         prec == HSP_DOUBLE ? "double" : "float", hsp_method_name(m), hsp_grow_name(g));
                hsp_csr *C = check_product(ctx, A, B, &st, what);
                tap_ok(C && zero_entries(C) == want_zeros && st.rows_group[3] > 0 && st.rows_group[4] >= 3,
                       "%s: %lld explicit zeros kept of %lld (%lld medium, %lld long rows)", what,
                       (long long)zero_entries(C), (long long)want_zeros, (long long)st.rows_group[3],
                       (long long)st.rows_group[4]);
                if (long_rows_grow(&st))
                    tap_ok(st.grow_events > 0, "%s: long rows grew (%lld events)", what, (long long)st.grow_events);
                hsp_csr_free(C);
            }
        }
        hsp_csr_free(A), hsp_csr_free(B);
    }
}

/* Expect status s from multiplying, with a message containing text, and
 * the operands unchanged. */
static void expect_error(hsp_context *ctx, hsp_csr *A, hsp_csr *B, hsp_status want,
                         const char *text, const char *what)
{
    hsp_csr *A0 = ref_copy(A), *B0 = ref_copy(B), *C = (hsp_csr *)&C;
    hsp_status s = hsp_multiply(ctx, A, B, &C, NULL);
    tap_ok(s == want && C == NULL, "%s: %s", what, hsp_strerror(want));
    tap_ok(strstr(hsp_errmsg(), text) != NULL, "%s: message '%s' says '%s'", what, hsp_errmsg(),
           text);
    tap_ok(ref_identical(A, A0) && ref_identical(B, B0), "%s: operands untouched", what);
    hsp_csr_free(A0), hsp_csr_free(B0);
}

static void test_errors(void)
{
    hsp_context *ctx = make_context(2, HSP_GROW_REALLOC, HSP_METHOD_DEFAULT);
    hsp_csr *A = ref_random(20, 30, 1, 5, HSP_DOUBLE, 7), *B = ref_random(20, 10, 1, 5, HSP_DOUBLE, 8);
    expect_error(ctx, A, B, HSP_ERR_SHAPE, "ncols(A) != nrows(B)", "shape mismatch");
    hsp_csr *Bf = ref_random(30, 10, 1, 5, HSP_FLOAT, 9);
    expect_error(ctx, A, Bf, HSP_ERR_ARG, "convert", "precision mismatch");
    hsp_csr *B2 = ref_random(30, 10, 2, 5, HSP_DOUBLE, 10);
    int32_t t = B2->colidx[B2->rowptr[3]];
    B2->colidx[B2->rowptr[3]] = B2->colidx[B2->rowptr[3] + 1];
    B2->colidx[B2->rowptr[3] + 1] = t;
    expect_error(ctx, A, B2, HSP_ERR_INVALID_CSR, "B: row 3", "unsorted row");
    B2->colidx[B2->rowptr[3] + 1] = B2->colidx[B2->rowptr[3]];
    expect_error(ctx, A, B2, HSP_ERR_INVALID_CSR, "duplicate column", "duplicate column");
    B2->colidx[B2->rowptr[3] + 1] = 10;
    expect_error(ctx, A, B2, HSP_ERR_INVALID_CSR, "out of range", "column out of range");
    B2->colidx[B2->rowptr[3] + 1] = t;
    A->rowptr[5] = A->rowptr[6] + 1;
    expect_error(ctx, A, B2, HSP_ERR_INVALID_CSR, "A: row", "row pointers not monotone");
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(Bf), hsp_csr_free(B2);

    hsp_options o;
    hsp_options_init(&o);
    o.device = ref_device(), o.small_nnz = -1;
    o.mem_limit = 8192; /* the row arrays fit (200 x 28 bytes), C does not */
    hsp_context_create(&o, &ctx);
    A = ref_random(200, 200, 5, 20, HSP_DOUBLE, 11);
    expect_error(ctx, A, A, HSP_ERR_NOMEM, "memory limit of 8192 bytes reached", "memory limit reached");
    hsp_csr_free(A);
    A = ref_random(2000, 2000, 0, 2, HSP_DOUBLE, 12); /* 2001 x 28 bytes of row arrays */
    expect_error(ctx, A, A, HSP_ERR_NOMEM, "2000 rows need 56028 bytes", "row arrays over the limit refused first");
    hsp_csr_free(A);
    hsp_context_free(ctx);
}

/* A 2147483647 x 2147483647 matrix without entries, its 16 GiB of row
 * pointers untouched zero pages (address space, no memory): hsp_multiply
 * refuses the product's row arrays (28 bytes a row) before it checks A's
 * rows, reading none of them (issue 28: it read all 16 GiB first). */
static void test_huge_rows(void)
{
    size_t bytes = ((size_t)INT32_MAX + 1) * sizeof(int64_t);
    int64_t *rowptr = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (rowptr == MAP_FAILED) {
        tap_skip("no 16 GiB of address space", "a 2147483647-row A is refused before its rows are read");
        tap_skip("no 16 GiB of address space", "and none of its row pointers is touched");
        return;
    }
    hsp_csr A = {INT32_MAX, INT32_MAX, 0, HSP_DOUBLE, rowptr, NULL, NULL}, *C = (hsp_csr *)&C;
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = ref_device(), o.small_nnz = -1, o.mem_limit = (int64_t)1 << 30;
    hsp_context_create(&o, &ctx);
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    hsp_status s = hsp_multiply(ctx, &A, &A, &C, NULL);
    getrusage(RUSAGE_SELF, &after);
    long faults = after.ru_minflt - before.ru_minflt;
    tap_ok(s == HSP_ERR_NOMEM && C == NULL && strstr(hsp_errmsg(), "2147483647 rows need 60129542144 bytes"),
           "a 2147483647-row A is refused for its row arrays: %s", hsp_errmsg());
    tap_ok(faults < 1024, "and none of its row pointers is read first: %ld page faults (16 GiB: 8192 or more)", faults);
    hsp_context_free(ctx);
    munmap(rowptr, bytes);
}

/* B of k rows of 250 entries: over the same 250 columns (A's rows of k
 * entries then have 250 entries, within a long row's first buffer) or over
 * 250 k distinct columns (250 k entries a row: its buffer must grow). */
static hsp_csr *long_row_b(int32_t k, int spread)
{
    hsp_csr *B = NULL;
    if (hsp_csr_create(k, 250 * k, 250 * (int64_t)k, HSP_DOUBLE, &B) != HSP_OK) return NULL;
    for (int32_t r = 0; r < k; r++) {
        for (int32_t t = 0; t < 250; t++) {
            B->colidx[250 * r + t] = spread ? k * t + r : t;
            ((double *)B->values)[250 * r + t] = 1 + (t + r) % 5;
        }
        B->rowptr[r + 1] = 250 * (r + 1);
    }
    return B;
}

/* A memory limit that trips while long rows grow, in both grow modes (on a
 * GPU device with merge, whose long rows grow), long rows starting with
 * 1024 entries.  Two products of the same shapes and bounds: four long rows
 * of 250 entries, which keep their first buffer, and the same rows over
 * distinct columns (more than 2048 entries each), which must grow.  The
 * limit is the first's peak: the second starts as the first did, and on the
 * cpu device trips when a row's buffer grows (a limit that held the second's
 * C would hold its grown rows too: they shrink to their length before C is
 * made).  On a GPU it is that peak plus what the second's larger C takes,
 * and trips when the pool of long rows grows past it.  It fails with
 * HSP_ERR_NOMEM and a message, touches neither operand, and the context
 * then runs the first product right (what it allocated is freed: the
 * sanitizer build's LeakSanitizer checks), and rows over the even columns
 * of those the failed rows had begun (nothing of them left in a thread's
 * workspace). */
static void test_limit_in_growth(void)
{
    hsp_method m = strncmp(ref_device(), "opencl", 6) ? HSP_METHOD_DEFAULT : HSP_METHOD_MERGE;
    hsp_context *probe = make_context(1, HSP_GROW_REALLOC, m);
    const hsp_bins *layout = hsp_context_bins(probe);
    int32_t k = (int32_t)(layout->lo[layout->nbins - 1] / 250 + 1); /* u = 250 k: long */
    if (k < 9) k = 9;
    hsp_csr *A = ref_random(4, k, k, k, HSP_DOUBLE, 71), *fits = long_row_b(k, 0), *grows = long_row_b(k, 1);
    hsp_csr *ones = ref_random(4, 1, 1, 1, HSP_DOUBLE, 72), *evens = NULL; /* 4 rows: the 150 even columns < 300 */
    hsp_csr_create(1, 300, 150, HSP_DOUBLE, &evens);
    for (int32_t t = 0; t < 150; t++) evens->colidx[t] = 2 * t, ((double *)evens->values)[t] = 1 + t % 3;
    for (hsp_grow g = HSP_GROW_REALLOC; g <= HSP_GROW_COPY; g++) {
        hsp_options o;
        hsp_context *ctx = NULL;
        hsp_stats st;
        int runs;
        char what[128];
        test_options(&o, 2, g, m, &runs);
        o.grow_start = 1024;
        hsp_context_create(&o, &ctx);
        snprintf(what, sizeof what, "memory limit in growth, %s", hsp_grow_name(g));
        hsp_csr_free(check_product(ctx, A, fits, &st, what));
        hsp_context_free(ctx);
        tap_ok(st.grow_events == 0 && st.rows_group[4] == 4, "%s: rows of u = %d and 250 entries: %lld long, "
               "%lld grow events", what, 250 * k, (long long)st.rows_group[4], (long long)st.grow_events);
        o.mem_limit = st.peak_temp_bytes + (m == HSP_METHOD_MERGE) * 4 * 250 * (int64_t)(k - 1) *
                                               (int64_t)(sizeof(int32_t) + sizeof(double));
        hsp_context_create(&o, &ctx);
        expect_error(ctx, A, grows, HSP_ERR_NOMEM, "memory limit of", what);
        snprintf(what, sizeof what, "memory limit in growth, %s: then the product that fits", hsp_grow_name(g));
        hsp_csr_free(check_product(ctx, A, fits, NULL, what));
        hsp_context_free(ctx);
        o.threads = 1; /* the failed rows' thread computes the next */
        hsp_context_create(&o, &ctx);
        expect_error(ctx, A, grows, HSP_ERR_NOMEM, "memory limit of", what);
        snprintf(what, sizeof what, "memory limit in growth, %s: then rows of the even columns", hsp_grow_name(g));
        hsp_csr_free(check_product(ctx, ones, evens, NULL, what)); /* nothing left of the rows that failed */
        hsp_context_free(ctx);
    }
    hsp_csr_free(A), hsp_csr_free(fits), hsp_csr_free(grows), hsp_csr_free(ones), hsp_csr_free(evens);
}

/* The least limit from the one pass's peak up, in sixteenths of it, under
 * which the cpu device succeeds in two passes (stats passes 2), or 0 when a
 * limit that lets it succeed gives one pass first.  (One pass is chosen
 * only where the limit would hold the staging of all rows and the largest C
 * they allow, more than it touches.) */
static int64_t two_pass_limit(hsp_options o, const hsp_csr *A, const hsp_csr *B, int64_t peak)
{
    for (int k = 0; k <= 64; k++) {
        hsp_context *ctx;
        hsp_csr *C = NULL;
        hsp_stats st;
        o.mem_limit = peak + peak / 16 * k;
        hsp_context_create(&o, &ctx);
        hsp_status s = hsp_multiply(ctx, A, B, &C, &st);
        hsp_csr_free(C);
        hsp_context_free(ctx);
        if (s == HSP_OK) return st.passes == 2 ? o.mem_limit : 0;
    }
    return 0;
}

/* The cpu device under a memory limit that cannot hold the rows' staging
 * and the largest C they allow as well (rows with many duplicate products,
 * medium and long): it counts, then computes into C, and gives the one
 * pass's product within the limit. */
static void test_two_passes(void)
{
    hsp_options o;
    hsp_context *ctx;
    hsp_options_init(&o);
    o.device = "cpu", o.threads = 2;
    hsp_context_create(&o, &ctx);
    hsp_csr *A = ref_random(3000, 300, 10, 60, HSP_DOUBLE, 31), *B = ref_random(300, 300, 5, 40, HSP_DOUBLE, 32);
    hsp_stats one, two;
    hsp_csr *C = check_product(ctx, A, B, &one, "one pass");
    hsp_context_free(ctx);
    tap_ok(one.passes == 1, "one pass without a limit (passes %d)", one.passes);
    o.mem_limit = two_pass_limit(o, A, B, one.peak_temp_bytes);
    tap_ok(o.mem_limit > 0, "a limit above the one pass's peak (%lld bytes) gives two passes: %lld",
           (long long)one.peak_temp_bytes, (long long)o.mem_limit);
    hsp_context_create(&o, &ctx);
    hsp_csr *C2 = o.mem_limit > 0 ? check_product(ctx, A, B, &two, "two passes under the memory limit") : NULL;
    tap_ok(C && C2 && ref_identical(C, C2), "two passes give the one pass's C bit for bit");
    tap_ok(C2 && two.passes == 2 && two.peak_temp_bytes <= o.mem_limit,
           "two passes stay within the limit: %lld of %lld bytes (one pass %lld)",
           (long long)two.peak_temp_bytes, (long long)o.mem_limit, (long long)one.peak_temp_bytes);
    tap_ok(one.rows_group[4] > 0 && one.rows_group[3] > 0, "the rows are medium and long: %lld, %lld",
           (long long)one.rows_group[3], (long long)one.rows_group[4]);
    hsp_context_free(ctx);
    hsp_csr *U = NULL;
    o.unsorted = 1;
    hsp_context_create(&o, &ctx);
    hsp_status s = hsp_multiply(ctx, A, B, &U, &two);
    tap_ok(s == HSP_OK && two.passes == 2 && hsp_csr_sort(U) == HSP_OK && C && ref_identical(C, U),
           "two passes, unsorted: C, once sorted, is the one pass's bit for bit (passes %d)", two.passes);
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(C), hsp_csr_free(C2), hsp_csr_free(U);
    hsp_context_free(ctx);
}

/* Options that are out of range are refused with a message. */
static void test_bad_options(void)
{
    static const struct {
        const char *device;
        int threads, wavefront;
        int64_t local_mem;
        hsp_status want;
        const char *text;
    } bad[] = {
        {"gpu9", 0, 0, 0, HSP_ERR_ARG, "unknown device"},
#ifdef HSP_HAVE_OPENCL
        {"opencl:999", 0, 0, 0, HSP_ERR_ARG, "no OpenCL device 999"},
        {"opencl,svm", 0, 0, 0, HSP_ERR_ARG, "bad device"},
#else
        {"opencl", 0, 0, 0, HSP_ERR_UNSUPPORTED, "built without OpenCL"},
#endif
#ifdef HSP_HAVE_HSA
        {"hsa:99", 0, 0, 0, HSP_ERR_ARG, "no HSA GPU 99"},
#else
        {"hsa", 0, 0, 0, HSP_ERR_UNSUPPORTED, "not built"},
#endif
        {"cpu", -1, 0, 0, HSP_ERR_ARG, "threads"},
        {"cpu", 0, 48, 0, HSP_ERR_ARG, "wavefront"},
        {"cpu", 0, 32, 100, HSP_ERR_ARG, "local memory"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        hsp_options o;
        hsp_context *ctx = (hsp_context *)&o;
        hsp_options_init(&o);
        o.device = bad[k].device, o.threads = bad[k].threads;
        o.wavefront = bad[k].wavefront, o.local_mem = bad[k].local_mem;
        hsp_status s = hsp_context_create(&o, &ctx);
        tap_ok(s == bad[k].want && ctx == NULL && strstr(hsp_errmsg(), bad[k].text),
               "bad option %zu refused: %s", k, hsp_errmsg());
    }
}

/* A thread's row tags wrap after 2^32 rows: every mark is cleared, so that
 * no old row's matches the next. */
static void test_tag_wrap(void)
{
    hsp_scratch s;
    memset(&s, 0, sizeof s);
    int made = hsp_scratch_marks(&s, 100) == HSP_OK;
    if (made) s.mark[7] = UINT32_MAX, s.mark[9] = 1, s.tag = UINT32_MAX;
    uint32_t tag = made ? hsp_scratch_tag(&s) : 0;
    tap_ok(made && tag == 1 && s.mark[7] == 0 && s.mark[9] == 0,
           "after tag 2^32 - 1 the next is 1, with every mark cleared");
    hsp_scratch_free(&s);
}

/* The device timeout: negative refused; from the environment when the options
 * give none, where a value that is no number of seconds is refused. */
static void test_device_timeout(void)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = "cpu", o.device_timeout = -1;
    tap_ok(hsp_context_create(&o, &ctx) == HSP_ERR_ARG && !ctx && strstr(hsp_errmsg(), "device_timeout"),
           "device timeout: -1 s refused: %s", hsp_errmsg());
    o.device_timeout = 0;
    setenv("HSPGEMM_DEVICE_TIMEOUT", "ten", 1);
    tap_ok(hsp_context_create(&o, &ctx) == HSP_ERR_ARG && !ctx && strstr(hsp_errmsg(), "HSPGEMM_DEVICE_TIMEOUT='ten'"),
           "device timeout: HSPGEMM_DEVICE_TIMEOUT=ten refused: %s", hsp_errmsg());
    o.device_timeout = 30;
    int ok = hsp_context_create(&o, &ctx) == HSP_OK;
    hsp_context_free(ctx);
    setenv("HSPGEMM_DEVICE_TIMEOUT", "2.5", 1);
    o.device_timeout = 0;
    ok &= hsp_context_create(&o, &ctx) == HSP_OK;
    hsp_context_free(ctx);
    unsetenv("HSPGEMM_DEVICE_TIMEOUT");
    tap_ok(ok, "device timeout: the option overrides the environment; 2.5 s from the environment taken");
}

/* A wavefront of 64 and 64 KiB of local memory: 70 bins, products still right. */
static void test_wide_layout(void)
{
    hsp_options o;
    hsp_context *ctx;
    hsp_options_init(&o);
    o.device = ref_device(), o.small_nnz = -1;
    o.wavefront = 64, o.local_mem = 64 << 10, o.threads = 2;
    hsp_context_create(&o, &ctx);
    const hsp_bins *bins = hsp_context_bins(ctx);
    tap_ok(bins->nbins == 70 && bins->hi[64] == 64 && bins->hi[68] == 1024 && bins->lo[69] == 1025,
           "wavefront 64: 70 bins, medium up to 1024");
    hsp_csr *A = ref_random(300, 300, 0, 40, HSP_DOUBLE, 21);
    hsp_csr_free(check_product(ctx, A, A, NULL, "wavefront 64 layout"));
    hsp_context_free(ctx);
    o.wavefront = 32, o.local_mem = 128 * 12; /* room for rows of 128 entries */
    hsp_context_create(&o, &ctx);
    bins = hsp_context_bins(ctx);
    tap_ok(bins->nbins == 36 && bins->hi[34] == 128 && bins->lo[35] == 129,
           "1.5 KiB of local memory: medium rows up to 128, 36 bins");
    hsp_stats st;
    hsp_csr_free(check_product(ctx, A, A, &st, "small local memory layout"));
    int64_t rows = 0;
    for (int b = 0; b < bins->nbins; b++) rows += st.rows_bin[b];
    tap_ok(rows == A->nrows && st.rows_bin[35] > 0, "every row binned, long rows above 128");
    hsp_csr_free(A);
    hsp_context_free(ctx);
}

/* The default layout: a bin for each u up to W, doubling ranges up to the
 * medium group's top, the rest.  The top is 16 W on the cpu device (the
 * paper's 38 bins where W is 32); a GPU device's medium rows go as far as ESC
 * sorts them in its local memory, a power of two of at least 16 W (4096 with
 * 64 KiB, 2048 with an H100's 48 KiB). */
static void test_default_layout(void)
{
    hsp_context *ctx = make_context(1, HSP_GROW_REALLOC, HSP_METHOD_DEFAULT);
    const hsp_bins *b = hsp_context_bins(ctx);
    int w = b->width, last = b->nbins - 1, cpu = !strcmp(ref_device(), "cpu");
    int64_t top = b->lo[last] - 1;
    int ok = b->hi[0] == 0 && b->hi[1] == 1 && b->lo[w] == w && b->lo[w + 1] == w + 1 && b->hi[w + 1] == 2 * w &&
             top >= 16 * w && !(top & (top - 1)) && (!cpu || top == 32 * w);
    for (int k = 2; k <= w; k++) ok &= b->group[k] == 2;
    for (int k = w + 1; k < last; k++)
        ok &= b->group[k] == 3 && b->lo[k] == b->hi[k - 1] + 1 && b->hi[k] == 2 * b->hi[k - 1];
    tap_ok(ok && b->group[0] == 0 && b->group[1] == 1 && b->group[last] == 4 && (!cpu || w != 32 || b->nbins == 39),
           "default layout: %d bins in 5 groups for W = %d, medium rows up to %lld (39 bins on cpu, up to 1024)",
           b->nbins, w, (long long)top);
}

/* The tests in two parts of about equal time on the slowest device here
 * (Intel's CPU runtime, about 25 s each on the 2-core VM), which tests/t_multiply@syssvm.1of2.dev
 * and .2of2.dev run at once (ref_shard). */
int main(void)
{
    if (ref_shard(2)) test_default_layout();
    if (ref_shard(2)) test_wide_layout();
    if (ref_shard(1)) test_every_bin();
    if (ref_shard(2)) test_long_rows();
    if (ref_shard(2)) test_random_shapes();
    if (ref_shard(1)) test_explicit_zeros();
    if (ref_shard(1)) test_wide_long_rows();
    if (ref_shard(2)) test_mostly_empty_b_rows();
    if (ref_shard(1)) test_million_rows();
    if (ref_shard(2)) test_bins_row_by_row();
    if (ref_shard(1)) test_cancelling_rows();
    if (ref_shard(1)) test_long_rows_dense_runs();
    if (ref_shard(2)) test_long_rows_few_columns();
    if (ref_shard(2)) test_two_passes();
    if (ref_shard(2)) test_errors();
    if (ref_shard(2)) test_huge_rows();
    if (ref_shard(1)) test_limit_in_growth();
    if (ref_shard(2)) test_bad_options();
    if (ref_shard(2)) test_device_timeout();
    if (ref_shard(2)) test_tag_wrap();
    free_kept_contexts();
    return tap_done();
}
