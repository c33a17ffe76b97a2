/* t_warp.c: ESC's rows of up to 64 products sorted in registers (esc.cl's
 * esc_rows_warp), which NVIDIA's compiler builds with warp shuffles, run on
 * a CPU platform, and hsp_esc's rows merged by entries (esc_merge) or
 * sorted: the test wraps the loader's clBuildProgram to add
 * -DHSP_WARP_EMULATE, under which the kernels trade entries through local
 * memory instead (same network, same runs), and takes method esc for short
 * and medium rows.  Every product is checked against the reference, and two
 * runs give the same bits.  Then, with the platform named NVIDIA's (the
 * loader's clGetPlatformInfo wrapped too), the defaults NVIDIA's devices
 * take: ESC for the short and medium bins of up to 64 products where the
 * sampled products meet less than 2 / 5 of the time (random rows, poisson
 * stencils), not where they meet more (bands), and for larger bins of rows
 * unlike whose products rarely meet (R-MAT), not those of a stencil, on the
 * host path and resident; RMerge for short rows alike where A's rows hold
 * 8 entries or more on average.  Run on PoCL as tests/t_warp@bufsvm.dev. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ref.h"
#include "tap.h"

#ifndef HSP_HAVE_OPENCL
int main(void)
{
    printf("1..0 # SKIP no OpenCL in this build\n");
    return 0;
}
#else
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

static int emulated_builds; /* kernel builds given HSP_WARP_EMULATE */

/* The major version of PoCL that runs device id (0: another platform).  The
 * buffer is large: a query with one too small for the text fills nothing. */
static int pocl_major(cl_device_id id)
{
    cl_platform_id platform;
    char version[1024] = "";
    if (clGetDeviceInfo(id, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) != CL_SUCCESS ||
        clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof version - 1, version, NULL) != CL_SUCCESS)
        return 0;
    const char *at = strstr(version, "PoCL ");
    return at ? atoi(at + 5) : 0;
}

/* The loader's clBuildProgram, with -DHSP_WARP_EMULATE added to the options,
 * and -cl-opt-disable before PoCL 5: PoCL 3.1 compiled the program in 290 s
 * optimized and in 18 s unoptimized on the 2-core VM (the test checks the
 * network's logic, not its speed), while PoCL 5.0 aborts on the unoptimized
 * program ("Cannot add context restore for a PHI node at the region entry",
 * with 404ad15's kernels as with later ones) and passes optimized (the whole
 * test in 212 s on the GPU machine's 16 cores). */
cl_int clBuildProgram(cl_program p, cl_uint n, const cl_device_id *ids, const char *options,
                      void (CL_CALLBACK *notify)(cl_program, void *), void *user)
{
    static __typeof__(clBuildProgram) *real;
    if (!real) real = (__typeof__(clBuildProgram) *)dlsym(RTLD_NEXT, "clBuildProgram");
    char more[1024];
    int unoptimized = !(n && ids && pocl_major(ids[0]) >= 5);
    snprintf(more, sizeof more, "%s -DHSP_WARP_EMULATE%s", options ? options : "", unoptimized ? " -cl-opt-disable" : "");
    emulated_builds++;
    return real(p, n, ids, more, notify, user);
}

static int as_nvidia; /* name the platform NVIDIA's (all but the checks of its wrapper) */

/* The loader's clGetPlatformInfo, the platform's name NVIDIA's while as_nvidia. */
cl_int clGetPlatformInfo(cl_platform_id p, cl_platform_info what, size_t size, void *value, size_t *size_ret)
{
    static __typeof__(clGetPlatformInfo) *real;
    if (!real) real = (__typeof__(clGetPlatformInfo) *)dlsym(RTLD_NEXT, "clGetPlatformInfo");
    cl_int e = real(p, what, size, value, size_ret);
    if (e == CL_SUCCESS && as_nvidia && what == CL_PLATFORM_NAME && value && size >= sizeof "NVIDIA CUDA")
        strcpy(value, "NVIDIA CUDA");
    return e;
}

/* A context on the device under test with method esc for short and medium rows. */
static hsp_context *esc_context(void)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = ref_device(), o.threads = 2, o.small_nnz = -1;
    o.method[0] = o.method[1] = HSP_METHOD_ESC, o.method[2] = HSP_METHOD_AUTO;
    if (hsp_context_create(&o, &ctx) != HSP_OK) tap_diag("%s: %s", o.device, hsp_errmsg());
    return ctx;
}

/* C = A*B of random A (m x k, rows of alo..ahi entries) and B (k x n, rows
 * of blo..bhi): right against the reference, and the same bits twice. */
static void product(hsp_context *ctx, int32_t m, int32_t k, int32_t n, int32_t alo, int32_t ahi, int32_t blo,
                    int32_t bhi, hsp_precision precision, uint64_t seed)
{
    const char *p = precision == HSP_DOUBLE ? "double" : "float";
    hsp_csr *A = ref_random(m, k, alo, ahi, precision, seed), *B = ref_random(k, n, blo, bhi, precision, seed + 1);
    hsp_csr *C = NULL, *again = NULL, *R = NULL;
    double *mag = NULL;
    char why[256] = "";
    if (A && B) R = ref_multiply(A, B, &mag);
    hsp_status s = R ? hsp_multiply(ctx, A, B, &C, NULL) : HSP_ERR_NOMEM;
    if (s == HSP_OK) s = hsp_multiply(ctx, A, B, &again, NULL);
    if (s != HSP_OK) snprintf(why, sizeof why, "%s", hsp_errmsg());
    int right = s == HSP_OK && ref_compare(C, R, mag, why, sizeof why);
    tap_ok(right, "%d x %d times %d x %d, rows of %d-%d by %d-%d, %s: matches the reference%s%s", m, k, k, n, alo,
           ahi, blo, bhi, p, *why ? ": " : "", why);
    tap_ok(right && ref_identical(C, again), "the same, run twice: the same bits, %s", p);
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(C), hsp_csr_free(again), hsp_csr_free(R), free(mag);
}

/* A B of n columns (its entries in the last 64), rows of up to 8 ahi
 * products: with 2^25 + 7, more than a warp's sort keys hold, its rows of up
 * to 64 products go through local memory unkeyed; with 2^24 - 1, rows of up
 * to 128 are keyed at the keys' limit (gpu_rows.c's esc_keyed).  Right
 * against the reference of the product with B's columns shifted down to
 * 0-63. */
static void wide_product(hsp_context *ctx, hsp_precision precision, int32_t n, int32_t ahi)
{
    hsp_csr *A = ref_random(200, 40, 1, ahi, precision, 51), *B = ref_random(40, 64, 0, 8, precision, 52);
    hsp_csr *R = NULL, *C = NULL;
    double *mag = NULL;
    char why[256] = "";
    if (A && B) R = ref_multiply(A, B, &mag);
    for (int64_t q = 0; B && q < B->nnz; q++) B->colidx[q] += n - 64;
    if (B) B->ncols = n;
    hsp_status s = R ? hsp_multiply(ctx, A, B, &C, NULL) : HSP_ERR_NOMEM;
    if (s != HSP_OK) snprintf(why, sizeof why, "%s", hsp_errmsg());
    int shape = s == HSP_OK && C->ncols == n;
    for (int64_t p = 0; shape && p < C->nnz; p++) C->colidx[p] -= n - 64;
    if (shape) C->ncols = 64;
    tap_ok(shape && ref_compare(C, R, mag, why, sizeof why), "B of %d columns, rows of up to %d products, %s%s%s", n,
           8 * ahi, precision == HSP_DOUBLE ? "double" : "float", *why ? ": " : "", why);
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(C), hsp_csr_free(R), free(mag);
}

/* Do the short and medium bins of up to 64 products (of more where over)
 * that hold rows of the product in st take ESC (want 1) or not (want 0),
 * each of them? */
static int esc_bins(const hsp_context *ctx, const hsp_stats *st, int want, int over, char *why, size_t len)
{
    const hsp_bins *bins = hsp_context_bins(ctx);
    int seen = 0;
    for (int b = 0; b < bins->nbins; b++) {
        if (!st->rows_bin[b] || (bins->hi[b] > 64) != over || (bins->group[b] != 2 && bins->group[b] != 3)) continue;
        seen++;
        if ((st->bin_method[b] == HSP_METHOD_ESC) != want) {
            snprintf(why, len, "bin %d (u %lld-%lld): %s", b, (long long)bins->lo[b], (long long)bins->hi[b],
                     hsp_method_name(st->bin_method[b]));
            return 0;
        }
    }
    if (!seen) snprintf(why, len, "no short or medium rows of %s 64 products", over ? "over" : "up to");
    return seen > 0;
}

/* The generated A squared with the defaults of an NVIDIA device, from the
 * host and resident: right, and ESC in the bins of up to 64 products (of
 * more where over) if and only if esc. */
static void nvidia_default(hsp_context *ctx, const char *spec, int esc, int over)
{
    hsp_csr *A = NULL, *C = NULL, *R = NULL;
    hsp_resident *held = NULL, *held_c = NULL;
    const hsp_csr *home = NULL;
    double *mag = NULL;
    hsp_stats st[2];
    char why[256] = "";
    hsp_status s = hsp_generate(spec, 1, HSP_DOUBLE, &A);
    if (s == HSP_OK && !(R = ref_multiply(A, A, &mag))) s = HSP_ERR_NOMEM;
    if (s == HSP_OK) s = hsp_multiply(ctx, A, A, &C, &st[0]);
    if (s == HSP_OK) s = hsp_place(ctx, A, &held);
    if (s == HSP_OK) s = hsp_multiply_resident(ctx, held, held, &held_c, &st[1]);
    if (s == HSP_OK) s = hsp_resident_host(held_c, &home);
    if (s != HSP_OK) snprintf(why, sizeof why, "%s", hsp_errmsg());
    for (int r = 0; r < 2; r++) {
        int ok = s == HSP_OK && ref_compare(r ? home : C, R, mag, why, sizeof why) &&
                 esc_bins(ctx, &st[r], esc, over, why, sizeof why);
        tap_ok(ok, "%s squared%s with NVIDIA's defaults: right, %s for rows of %s 64 products%s%s", spec,
               r ? " resident" : "", esc ? "ESC" : "no ESC", over ? "over" : "up to", *why ? ": " : "", why);
    }
    hsp_resident_free(held_c), hsp_resident_free(held);
    hsp_csr_free(A), hsp_csr_free(C), hsp_csr_free(R), free(mag);
}

/* A k x k/4 matrix of two entries a row, columns i/4 and its neighbour (the
 * prolongation of aggregates of four, smoothed), in double. */
static hsp_csr *aggregates_of_four(int32_t k)
{
    hsp_csr *P = NULL;
    int32_t n = k / 4;
    if (n < 2 || hsp_csr_create(k, n, 2 * (int64_t)k, HSP_DOUBLE, &P) != HSP_OK) return NULL;
    for (int32_t i = 0; i < k; i++) {
        int32_t c = i / 4 + 1 < n ? i / 4 : n - 2;
        P->rowptr[i + 1] = 2 * (int64_t)(i + 1);
        P->colidx[2 * i] = c, P->colidx[2 * i + 1] = c + 1;
        ((double *)P->values)[2 * i] = 0.75, ((double *)P->values)[2 * i + 1] = 0.25;
    }
    return P;
}

/* Do the short bins that hold rows of the product in st take method want,
 * each of them? */
static int short_bins(const hsp_context *ctx, const hsp_stats *st, hsp_method want, char *why, size_t len)
{
    const hsp_bins *bins = hsp_context_bins(ctx);
    int seen = 0;
    for (int b = 0; b < bins->nbins; b++) {
        if (!st->rows_bin[b] || bins->group[b] != 2) continue;
        seen++;
        if (st->bin_method[b] != want) {
            snprintf(why, len, "bin %d (u %lld): %s", b, (long long)bins->lo[b], hsp_method_name(st->bin_method[b]));
            return 0;
        }
    }
    if (!seen) snprintf(why, len, "no short rows");
    return seen > 0;
}

/* A*P, A generated from spec and P of aggregates of four (short rows, two
 * products an entry of A, alike), resident (nothing sampled, so no ESC)
 * with NVIDIA's defaults: right, and the short rows by RMerge where A's
 * rows hold 8 entries or more on average (gpu_stages.c's short_method),
 * else by hash. */
static void nvidia_short(hsp_context *ctx, const char *spec, int rmerge)
{
    hsp_csr *A = NULL, *P = NULL, *R = NULL;
    hsp_resident *held_a = NULL, *held_p = NULL, *held_c = NULL;
    const hsp_csr *home = NULL;
    double *mag = NULL;
    hsp_stats st;
    char why[256] = "";
    hsp_status s = hsp_generate(spec, 1, HSP_DOUBLE, &A);
    if (s == HSP_OK && !(P = aggregates_of_four(A->ncols))) s = HSP_ERR_NOMEM;
    if (s == HSP_OK && !(R = ref_multiply(A, P, &mag))) s = HSP_ERR_NOMEM;
    if (s == HSP_OK) s = hsp_place(ctx, A, &held_a);
    if (s == HSP_OK) s = hsp_place(ctx, P, &held_p);
    if (s == HSP_OK) s = hsp_multiply_resident(ctx, held_a, held_p, &held_c, &st);
    if (s == HSP_OK) s = hsp_resident_host(held_c, &home);
    if (s != HSP_OK) snprintf(why, sizeof why, "%s", hsp_errmsg());
    int ok = s == HSP_OK && ref_compare(home, R, mag, why, sizeof why) &&
             short_bins(ctx, &st, rmerge ? HSP_METHOD_RMERGE : HSP_METHOD_HASH, why, sizeof why);
    tap_ok(ok, "%s times aggregates of four, resident, with NVIDIA's defaults: right, short rows by %s%s%s", spec,
           rmerge ? "RMerge" : "hash", *why ? ": " : "", why);
    hsp_resident_free(held_c), hsp_resident_free(held_p), hsp_resident_free(held_a);
    hsp_csr_free(A), hsp_csr_free(P), hsp_csr_free(R), free(mag);
}

/* Remove the test's kernel cache. */
static void remove_cache(const char *dir)
{
    DIR *d = opendir(dir);
    char path[512];
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.') snprintf(path, sizeof path, "%s/%s", dir, e->d_name), unlink(path);
    if (d) closedir(d);
    rmdir(dir);
}

int main(void)
{
    char cache[] = "/tmp/hspgemm-t-warp-XXXXXX";
    if (!mkdtemp(cache)) return tap_ok(0, "a scratch kernel cache"), tap_done();
    setenv("HSPGEMM_CACHE_DIR", cache, 1); /* no binary built without the define */
    as_nvidia = 1; /* before the library lists the devices (once) */
    hsp_context *ctx = esc_context();
    tap_ok(ctx != NULL, "a context on %s with esc for short and medium rows", ref_device());
    for (int p = 0; ctx && p < 2; p++) {
        hsp_precision precision = p ? HSP_DOUBLE : HSP_FLOAT;
        product(ctx, 300, 200, 300, 0, 8, 0, 8, precision, 11);  /* up to 64 products a row, few shared columns */
        product(ctx, 257, 24, 40, 1, 8, 0, 8, precision, 21);    /* many products on few columns: long runs */
        product(ctx, 100, 50, 1000, 0, 2, 0, 1, precision, 31);  /* rows of 0-2 products, rectangular */
        product(ctx, 64, 64, 64, 4, 8, 0, 16, precision, 41);    /* medium rows of up to 128 products: either path */
        product(ctx, 300, 200, 300, 0, 16, 3, 4, precision, 61); /* B rows in runs of 4 places, or not: mixed */
        product(ctx, 300, 24, 40, 2, 12, 4, 5, precision, 71);   /* the same on few columns: runs meet */
        product(ctx, 200, 100, 500, 1, 1, 0, 60, precision, 81); /* one B row a row: sorted already, no steps */
        /* hsp_esc's merges (rows of up to 256 entries, a work-group's): */
        product(ctx, 150, 40, 300, 2, 9, 0, 150, precision, 91);    /* few entries, B rows overlapping, some empty */
        product(ctx, 100, 600, 2000, 200, 320, 1, 3, precision, 95); /* 200-320 entries: merged or sorted */
        wide_product(ctx, precision, (1 << 25) + 7, 8);
        wide_product(ctx, precision, (1 << 24) - 1, 16);
    }
    tap_ok(emulated_builds > 0, "the kernels were built with HSP_WARP_EMULATE (%d builds)", emulated_builds);
    hsp_context_free(ctx);
    hsp_options o;
    hsp_options_init(&o);
    o.device = ref_device(), o.threads = 2, o.small_nnz = -1;
    if (hsp_context_create(&o, &ctx) != HSP_OK) tap_diag("%s: %s", o.device, hsp_errmsg());
    tap_ok(ctx != NULL, "a context on %s named NVIDIA's, default methods", ref_device());
    if (ctx) {
        nvidia_default(ctx, "random:20000,4", 1, 0); /* short rows: 16 products, rarely on one column */
        nvidia_default(ctx, "random:20000,6", 1, 0); /* medium rows: 36 */
        nvidia_default(ctx, "poisson2d5:120", 1, 0); /* 25 products on 13 columns: shared 0.32 */
        nvidia_default(ctx, "poisson3d7:30", 1, 0);  /* 49 on 25: 0.25 */
        nvidia_default(ctx, "band:20000,1", 0, 0);   /* 9 on 5: 0.44 */
        nvidia_default(ctx, "band:20000,3", 0, 0);   /* 49 on 13: 0.73 */
        nvidia_default(ctx, "rmat:13,8", 1, 1);      /* rows unlike, whose products rarely meet: hash's by ESC */
        nvidia_default(ctx, "poisson2d9:40", 0, 1);  /* 81 products on 25 */
        nvidia_short(ctx, "band:2000,4", 1);         /* rows of 9 entries, 18 products */
        nvidia_short(ctx, "poisson2d5:44", 0);       /* rows of 5 entries or fewer */
    }
    hsp_context_free(ctx);
    remove_cache(cache);
    return tap_done();
}
#endif
