/* t_warp.c: ESC's rows of up to 64 products sorted in registers (esc.cl's
 * esc_rows_warp), which NVIDIA's compiler builds with warp shuffles, run on
 * a CPU platform: the test wraps the loader's clBuildProgram to add
 * -DHSP_WARP_EMULATE, under which the kernels trade entries through local
 * memory instead (same network, same runs), and takes method esc for short
 * and medium rows.  Every product is checked against the reference, and two
 * runs give the same bits.  Run on PoCL by t_warp_pocl.sh. */
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

/* The loader's clBuildProgram, with -DHSP_WARP_EMULATE added to the options. */
cl_int clBuildProgram(cl_program p, cl_uint n, const cl_device_id *ids, const char *options,
                      void (CL_CALLBACK *notify)(cl_program, void *), void *user)
{
    static __typeof__(clBuildProgram) *real;
    if (!real) real = (__typeof__(clBuildProgram) *)dlsym(RTLD_NEXT, "clBuildProgram");
    char more[1024];
    snprintf(more, sizeof more, "%s -DHSP_WARP_EMULATE", options ? options : "");
    emulated_builds++;
    return real(p, n, ids, more, notify, user);
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

/* C = A*B of random A (m x k, rows of alo..ahi entries) and B (k x n, bhi
 * at most): right against the reference, and the same bits twice. */
static void product(hsp_context *ctx, int32_t m, int32_t k, int32_t n, int32_t alo, int32_t ahi, int32_t bhi,
                    hsp_precision precision, uint64_t seed)
{
    const char *p = precision == HSP_DOUBLE ? "double" : "float";
    hsp_csr *A = ref_random(m, k, alo, ahi, precision, seed), *B = ref_random(k, n, 0, bhi, precision, seed + 1);
    hsp_csr *C = NULL, *again = NULL, *R = NULL;
    double *mag = NULL;
    char why[256] = "";
    if (A && B) R = ref_multiply(A, B, &mag);
    hsp_status s = R ? hsp_multiply(ctx, A, B, &C, NULL) : HSP_ERR_NOMEM;
    if (s == HSP_OK) s = hsp_multiply(ctx, A, B, &again, NULL);
    if (s != HSP_OK) snprintf(why, sizeof why, "%s", hsp_errmsg());
    int right = s == HSP_OK && ref_compare(C, R, mag, why, sizeof why);
    tap_ok(right, "%d x %d times %d x %d, rows of %d-%d by up to %d, %s: matches the reference%s%s", m, k, k, n, alo,
           ahi, bhi, p, *why ? ": " : "", why);
    tap_ok(right && ref_identical(C, again), "the same, run twice: the same bits, %s", p);
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(C), hsp_csr_free(again), hsp_csr_free(R), free(mag);
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
    hsp_context *ctx = esc_context();
    tap_ok(ctx != NULL, "a context on %s with esc for short and medium rows", ref_device());
    for (int p = 0; ctx && p < 2; p++) {
        hsp_precision precision = p ? HSP_DOUBLE : HSP_FLOAT;
        product(ctx, 300, 200, 300, 0, 8, 8, precision, 11);  /* up to 64 products a row, few shared columns */
        product(ctx, 257, 24, 40, 1, 8, 8, precision, 21);    /* many products on few columns: long runs */
        product(ctx, 100, 50, 1000, 0, 2, 1, precision, 31);  /* rows of 0-2 products, rectangular */
        product(ctx, 64, 64, 64, 4, 8, 16, precision, 41);    /* medium rows of up to 128 products: either path */
    }
    tap_ok(emulated_builds > 0, "the kernels were built with HSP_WARP_EMULATE (%d builds)", emulated_builds);
    hsp_context_free(ctx);
    remove_cache(cache);
    return tap_done();
}
#endif
