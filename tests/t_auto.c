/* t_auto.c: device "auto" hands over to its next device when the one it
 * chose fails at opening or at its first product, and the stats say so.
 *
 * This machine has no GPU, so the test presents PoCL's CPU device to the
 * library as a GPU (it wraps the loader's clGetDeviceInfo): auto then
 * chooses it through OpenCL.  Other wrappers of the loader's functions fail
 * the context's creation, the kernels' build, a launch or a wait (a wait
 * fails after waiting) while armed.  Where PoCL is absent the tests skip.
 * And the hook of hsp_set_build_hook: it hears a kernel build that is not
 * cached (made to fail here, at once), and nothing where the kernels are. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The faults, one armed at a time: every call of its kind fails. */
enum { NONE, CONTEXT, BUILD, LAUNCH, WAIT };
static int armed, injected;

static int fails(int kind)
{
    if (armed != kind) return 0;
    injected++;
    return 1;
}

/* The loader's function name, found at its first use. */
#define REAL(name) static __typeof__(name) *real; if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

/* Is id a device of PoCL's platform? */
static int is_pocl(cl_device_id id, __typeof__(clGetDeviceInfo) *device_info)
{
    cl_platform_id p;
    char name[128] = "";
    return device_info(id, CL_DEVICE_PLATFORM, sizeof p, &p, NULL) == CL_SUCCESS &&
           clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name - 1, name, NULL) == CL_SUCCESS &&
           strstr(name, "Portable Computing Language");
}

/* PoCL's devices say they are GPUs. */
cl_int clGetDeviceInfo(cl_device_id id, cl_device_info what, size_t size, void *value, size_t *size_ret)
{
    REAL(clGetDeviceInfo);
    cl_int err = real(id, what, size, value, size_ret);
    if (err == CL_SUCCESS && what == CL_DEVICE_TYPE && size >= sizeof(cl_device_type) && is_pocl(id, real))
        *(cl_device_type *)value = CL_DEVICE_TYPE_GPU;
    return err;
}

cl_context clCreateContext(const cl_context_properties *props, cl_uint n, const cl_device_id *ids,
                           void (CL_CALLBACK *notify)(const char *, const void *, size_t, void *), void *user,
                           cl_int *err)
{
    REAL(clCreateContext);
    if (!fails(CONTEXT)) return real(props, n, ids, notify, user, err);
    if (err) *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
}

cl_int clBuildProgram(cl_program p, cl_uint n, const cl_device_id *ids, const char *options,
                      void (CL_CALLBACK *notify)(cl_program, void *), void *user)
{
    REAL(clBuildProgram);
    return fails(BUILD) ? CL_BUILD_PROGRAM_FAILURE : real(p, n, ids, options, notify, user);
}

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
                              const size_t *global, const size_t *local, cl_uint nwait, const cl_event *wait,
                              cl_event *event)
{
    REAL(clEnqueueNDRangeKernel);
    return fails(LAUNCH) ? CL_OUT_OF_RESOURCES : real(q, k, dims, offset, global, local, nwait, wait, event);
}

cl_int clFinish(cl_command_queue q)
{
    REAL(clFinish);
    cl_int err = real(q);
    return fails(WAIT) ? CL_OUT_OF_RESOURCES : err;
}

/* ---- the tests ----------------------------------------------------------------------- */

typedef struct {
    hsp_csr *A, *B, *copy[2], *ref;
    double *mag;
} operands;

/* A context on "auto" with a memory limit (0: none) and a fault armed while
 * it is made (NULL when it fails). */
static hsp_context *auto_context(int fault, int64_t mem_limit)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.threads = 2, o.small_nnz = -1, o.mem_limit = mem_limit; /* every product on the device */
    armed = fault, injected = 0;
    hsp_status s = hsp_context_create(&o, &ctx);
    armed = NONE;
    if (s != HSP_OK) tap_diag("no auto context: %s", hsp_errmsg());
    return ctx;
}

/* Why A*B on ctx, with a fault armed, was wrong (or ""): its status, its
 * result against the reference, the operands, and the device that ran it. */
static void product(hsp_context *ctx, const operands *o, int fault, hsp_stats *st, const char *device, char *why,
                    size_t len)
{
    hsp_csr *C = NULL;
    armed = fault, injected = 0;
    hsp_status s = hsp_multiply(ctx, o->A, o->B, &C, st);
    armed = NONE;
    why[0] = 0;
    if (s != HSP_OK) snprintf(why, len, "failed: %s", hsp_errmsg());
    else if (fault && !injected) snprintf(why, len, "no fault was injected");
    else if (!ref_compare(C, o->ref, o->mag, why, len)) {
    } else if (!ref_identical(o->A, o->copy[0]) || !ref_identical(o->B, o->copy[1]))
        snprintf(why, len, "an operand changed");
    else if (strncmp(st->device, device, strlen(device)))
        snprintf(why, len, "ran on %s, not %s", st->device, device);
    hsp_csr_free(C);
}

/* Does the note name the device passed over and the reason? */
static int noted(const hsp_stats *st, const char *device, const char *reason)
{
    char passed[64];
    snprintf(passed, sizeof passed, "auto passed over %s: ", device);
    const char *at = strstr(st->device_note, passed);
    return at && strstr(at, reason);
}

/* A first product whose launch or wait fails is rerun on cpu, and the
 * next product stays there. */
static void first_product_fails(const operands *o, int fault, const char *what, const char *reason)
{
    hsp_stats st;
    char why[256];
    hsp_context *ctx = auto_context(NONE, 0);
    if (!ctx) return;
    product(ctx, o, fault, &st, "cpu", why, sizeof why);
    tap_ok(!why[0] && noted(&st, "opencl", reason), "%s of the first product fails: it runs on cpu, right; the note "
           "says '%s' (%s; note: %s)", what, reason, why[0] ? why : "ok", st.device_note);
    product(ctx, o, NONE, &st, "cpu", why, sizeof why);
    tap_ok(!why[0] && noted(&st, "opencl", reason), "the next product runs on cpu, right (%s)", why[0] ? why : "ok");
    hsp_context_free(ctx);
}

/* A device that fails at opening is passed over, and the note says why. */
static void open_fails(const operands *o, int fault, const char *what, const char *reason)
{
    hsp_stats st;
    char why[256];
    hsp_context *ctx = auto_context(fault, 0);
    if (!tap_ok(ctx && injected, "%s fails: the auto context is made (faults injected: %d)", what, injected)) {
        hsp_context_free(ctx);
        return;
    }
    product(ctx, o, NONE, &st, "cpu", why, sizeof why);
    tap_ok(!why[0] && noted(&st, "opencl", reason), "its products run on cpu, right; the note says '%s' (%s; note: %s)",
           reason, why[0] ? why : "ok", st.device_note);
    hsp_context_free(ctx);
}

/* No hand-over for a first product that is the caller's error, nor for a
 * device that has done its first product. */
static void no_hand_over(const operands *o)
{
    hsp_stats st;
    char why[256];
    hsp_csr *C = NULL;
    hsp_context *ctx = auto_context(NONE, 0);
    if (!ctx) return;
    hsp_status s = hsp_multiply(ctx, o->A, o->A, &C, &st); /* 300 x 200 times 300 x 200 */
    tap_ok(s == HSP_ERR_SHAPE && !C, "a first product of mismatched shapes: HSP_ERR_SHAPE (got %s)", hsp_strerror(s));
    product(ctx, o, NONE, &st, "opencl", why, sizeof why);
    tap_ok(!why[0] && !strstr(st.device_note, "opencl"), "then the product runs on opencl, right (%s)",
           why[0] ? why : "ok");
    armed = LAUNCH, injected = 0;
    s = hsp_multiply(ctx, o->A, o->B, &C, &st);
    armed = NONE;
    tap_ok(s == HSP_ERR_DEVICE && injected && !C && strstr(hsp_errmsg(), "launching"),
           "a failed launch of its second product is the caller's: HSP_ERR_DEVICE (got %s: %s)", hsp_strerror(s),
           hsp_errmsg());
    product(ctx, o, NONE, &st, "opencl", why, sizeof why);
    tap_ok(!why[0], "and the next product runs on opencl, right (%s)", why[0] ? why : "ok");
    hsp_context_free(ctx);
    ctx = auto_context(NONE, 4 << 20);
    if (!ctx) return;
    hsp_csr *X = ref_random(300000, 300000, 0, 1, HSP_DOUBLE, 23);
    s = hsp_multiply(ctx, X, X, &C, &st);
    tap_ok(s == HSP_ERR_NOMEM && !C, "a first product past the memory limit: HSP_ERR_NOMEM (got %s: %s)",
           hsp_strerror(s), hsp_errmsg());
    product(ctx, o, NONE, &st, "opencl", why, sizeof why);
    tap_ok(!why[0], "then a product within it runs on opencl, right (%s)", why[0] ? why : "ok");
    hsp_csr_free(X);
    hsp_context_free(ctx);
}

/* What the build hook heard. */
typedef struct {
    int start, done, precision, cache;
    char device[128];
} heard;

static void hear(hsp_build_event event, const char *device, hsp_precision precision, const char *cache,
                 double seconds, void *arg)
{
    heard *h = arg;
    h->start += event == HSP_BUILD_START;
    h->done += event == HSP_BUILD_DONE && seconds >= 0;
    h->precision = precision;
    h->cache += cache != NULL;
    snprintf(h->device, sizeof h->device, "%s", device);
}

/* The build hook hears nothing where the kernels are cached (as they are
 * once a context opened the device), and a build's start and end where
 * they are not (a fault makes the cached binary fail to load, then the
 * build from source fail). */
static void build_heard(void)
{
    heard h = {0};
    int cache = !getenv("HSPGEMM_CACHE_DIR") || strcmp(getenv("HSPGEMM_CACHE_DIR"), "off");
    hsp_set_build_hook(hear, &h);
    hsp_context_free(auto_context(NONE, 0));
    if (cache) tap_ok(h.start + h.done == 0, "the build hook hears nothing where the kernels are cached (%d, %d)",
                      h.start, h.done);
    else tap_skip("HSPGEMM_CACHE_DIR=off", "the build hook hears nothing where the kernels are cached");
    h = (heard){0};
    hsp_context_free(auto_context(BUILD, 0));
    hsp_set_build_hook(NULL, NULL);
    tap_ok(h.start == 1 && h.done == 1 && h.precision == HSP_FLOAT && h.device[0] && h.cache == (cache ? 2 : 0),
           "a build of the kernels (which fails): the hook hears its start and end, float, on '%s', the cache "
           "folder where there is one (%d, %d, %d)", h.device, h.start, h.done, h.cache);
    h = (heard){0};
    hsp_context_free(auto_context(BUILD, 0));
    tap_ok(h.start + h.done == 0, "a hook set to NULL hears nothing");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    operands o = {.A = ref_random(300, 200, 0, 12, HSP_DOUBLE, 21), .B = ref_random(200, 250, 0, 40, HSP_DOUBLE, 22)};
    hsp_csr_convert(o.A, HSP_DOUBLE, &o.copy[0]);
    hsp_csr_convert(o.B, HSP_DOUBLE, &o.copy[1]);
    o.ref = ref_multiply(o.A, o.B, &o.mag);
    if (!tap_ok(o.ref && o.copy[0] && o.copy[1], "operands and their reference product")) return tap_done();
    hsp_stats st;
    char why[256];
    hsp_context *ctx = auto_context(NONE, 0);
    if (ctx) product(ctx, &o, NONE, &st, "opencl", why, sizeof why);
    hsp_context_free(ctx);
    if (!ctx || why[0]) {
        tap_skip("PoCL, presented as a GPU, is not chosen by auto here", "the auto hand-over (%s)",
                 ctx ? why : hsp_errmsg());
    } else {
        first_product_fails(&o, LAUNCH, "a launch", "OpenCL: launching");
        first_product_fails(&o, WAIT, "the wait", "out of resources");
        open_fails(&o, CONTEXT, "creating the OpenCL context", "OpenCL: opening");
        open_fails(&o, BUILD, "building the kernels", "OpenCL: building the kernels");
        no_hand_over(&o);
        build_heard();
    }
    hsp_csr_free(o.A), hsp_csr_free(o.B), hsp_csr_free(o.copy[0]), hsp_csr_free(o.copy[1]), hsp_csr_free(o.ref);
    free(o.mag);
    return tap_done();
}
#endif
