/* t_opencl.c: what is particular to the opencl device (on PoCL in CI): a
 * device without double, the kernel binary cache, rows that overflow many
 * times, the memory and grow mode it reports, the methods it refuses, the
 * device list (each OpenCL device with its platform's version) and what
 * auto picks, and launches with the wrong number of arguments refused.  The
 * multiply suite itself runs on it as tests/t_multiply@bufsvm.dev and
 * @nosvm.dev; tests/t_opencl@bufsvm.dev runs this on PoCL. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "open/devices.h"
#include "device/gpu.h"
#include "ref.h"
#include "tap.h"

/* The device under test ($HSPGEMM_TEST_DEVICE, else "opencl") with flags
 * (",nosvm", or "") into name (64 bytes). */
static const char *device(char *name, const char *flags)
{
    const char *d = getenv("HSPGEMM_TEST_DEVICE");
    snprintf(name, 64, "%s%s", d && *d ? d : "opencl", flags);
    return name;
}

/* A context on device, grow mode and grow_start; NULL (and a diagnostic) on failure. */
static hsp_context *open_device(const char *device, hsp_grow grow, int64_t grow_start)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = device, o.grow = grow, o.grow_start = grow_start, o.threads = 2, o.small_nnz = -1;
    if (grow_start) o.method[2] = HSP_METHOD_MERGE; /* growth asked for: the method that grows */
    if (hsp_context_create(&o, &ctx) != HSP_OK) tap_diag("%s: %s", device, hsp_errmsg());
    return ctx;
}

/* Does C = A*B on ctx match the reference? */
static int product_ok(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_stats *st, hsp_csr **out)
{
    hsp_csr *C = NULL, *R;
    double *mag = NULL;
    char why[256] = "";
    if (!ctx || hsp_multiply(ctx, A, B, &C, st) != HSP_OK) {
        tap_diag("multiply: %s", hsp_errmsg());
        return 0;
    }
    R = ref_multiply(A, B, &mag);
    int ok = R && ref_compare(C, R, mag, why, sizeof why);
    if (!ok) tap_diag("%s", why);
    hsp_csr_free(R);
    free(mag);
    if (out) *out = C;
    else hsp_csr_free(C);
    return ok;
}

static void test_no_double(void)
{
    char dev[64];
    hsp_context *ctx = open_device(device(dev, ",nofp64"), HSP_GROW_COPY, 0);
    hsp_csr *Ad = ref_random(50, 50, 0, 10, HSP_DOUBLE, 3), *Af = NULL, *A0 = NULL, *C = (hsp_csr *)&C;
    hsp_csr_convert(Ad, HSP_FLOAT, &Af);
    hsp_csr_convert(Ad, HSP_DOUBLE, &A0);
    tap_ok(product_ok(ctx, Af, Af, NULL, NULL), "no double: float products still run");
    hsp_status s = ctx ? hsp_multiply(ctx, Ad, Ad, &C, NULL) : HSP_ERR_ARG;
    tap_ok(s == HSP_ERR_UNSUPPORTED && C == NULL && strstr(hsp_errmsg(), "no double precision"),
           "no double: a double product is refused: %s", hsp_errmsg());
    tap_ok(ref_identical(Ad, A0), "no double: operand untouched");
    hsp_csr_free(Ad), hsp_csr_free(Af), hsp_csr_free(A0);
    hsp_context_free(ctx);
}

/* The number of kernel binaries in dir. */
static int cached_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strncmp(e->d_name, "kernels-", 8) == 0;
    if (d) closedir(d);
    return n;
}

/* Overwrite every cached binary in dir with junk. */
static void spoil_cache(const char *dir)
{
    DIR *d = opendir(dir);
    char path[1024];
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, "kernels-", 8)) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "wb");
        if (f) fputs("not a binary", f), fclose(f);
    }
    if (d) closedir(d);
}

static void test_cache(void)
{
    char dev[64];
    char dir[] = "/tmp/hspgemm-cache-XXXXXX";
    const char *old = getenv("HSPGEMM_CACHE_DIR");
    char *saved = old ? strdup(old) : NULL;
    if (!tap_ok(mkdtemp(dir) != NULL, "cache: a fresh directory")) return;
    setenv("HSPGEMM_CACHE_DIR", dir, 1);
    hsp_csr *A = ref_random(100, 100, 0, 30, HSP_DOUBLE, 5);
    hsp_context *ctx = open_device(device(dev, ""), HSP_GROW_REALLOC, 0);
    int built = cached_files(dir);
    tap_ok(built >= 1, "cache: the built kernels were stored (%d files)", built);
    hsp_context_free(ctx);
    ctx = open_device(device(dev, ""), HSP_GROW_REALLOC, 0);
    tap_ok(product_ok(ctx, A, A, NULL, NULL) && cached_files(dir) == built,
           "cache: a second context loads them and computes right");
    hsp_context_free(ctx);
    spoil_cache(dir);
    ctx = open_device(device(dev, ""), HSP_GROW_REALLOC, 0);
    tap_ok(product_ok(ctx, A, A, NULL, NULL), "cache: a spoilt binary is rebuilt from source");
    hsp_context_free(ctx);
    hsp_csr_free(A);
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) tap_diag("could not remove %s", dir);
    if (saved) setenv("HSPGEMM_CACHE_DIR", saved, 1);
    else unsetenv("HSPGEMM_CACHE_DIR");
    free(saved);
}

/* One long row merging 80 B rows of 150 columns each (12000 products, more
 * than ESC takes in local memory, and three merge batches of 4096 or more):
 * by merge, with a first buffer of 16 entries, it stops and is relaunched
 * again and again. */
static void test_many_overflows(const char *flags)
{
    char dev[64];
    const char *name = device(dev, flags);
    hsp_csr *A = ref_random(1, 80, 80, 80, HSP_DOUBLE, 9);
    hsp_csr *B = ref_random(80, 80 * 150, 150, 150, HSP_DOUBLE, 10);
    hsp_csr *C[2] = {NULL, NULL};
    for (hsp_grow g = HSP_GROW_REALLOC; g <= HSP_GROW_COPY; g++) {
        hsp_context *ctx = open_device(name, g, 16);
        hsp_stats st;
        int ok = product_ok(ctx, A, B, &st, &C[g]);
        tap_ok(ok && st.grow_events >= 3, "%s, %s: one row relaunched %lld times, C right", name,
               hsp_grow_name(g), (long long)st.grow_events);
        hsp_context_free(ctx);
    }
    tap_ok(C[0] && C[1] && ref_identical(C[0], C[1]), "%s: both grow modes give identical C", name);
    hsp_csr_free(C[0]), hsp_csr_free(C[1]), hsp_csr_free(A), hsp_csr_free(B);
}

/* Long rows of 1000 products (10 B rows of 100), long in the paper's layout
 * (local memory given as 48 KiB: medium rows up to 512): method auto takes
 * them by ESC in the device's local memory and dense counts them first, both
 * without growth; merge (the paper's) grows their buffers from 16 entries. */
static void test_long_in_local(void)
{
    char dev[64];
    hsp_csr *A = ref_random(50, 200, 10, 10, HSP_DOUBLE, 14);
    hsp_csr *B = ref_random(200, 3000, 100, 100, HSP_DOUBLE, 15);
    static const hsp_method methods[] = {HSP_METHOD_MERGE, HSP_METHOD_DENSE, HSP_METHOD_AUTO};
    for (int j = 0; j < 3; j++) {
        hsp_method m = methods[j];
        hsp_options o;
        hsp_context *ctx = NULL;
        hsp_stats st;
        hsp_options_init(&o);
        o.device = device(dev, ""), o.grow_start = 16, o.method[2] = m, o.small_nnz = -1, o.local_mem = 48 << 10;
        if (hsp_context_create(&o, &ctx) != HSP_OK) tap_diag("%s", hsp_errmsg());
        int ok = product_ok(ctx, A, B, &st, NULL);
        tap_ok(ok && st.rows_group[4] == 50 && (m != HSP_METHOD_MERGE ? st.grow_events == 0 : st.grow_events >= 50),
               "long rows of 1000 products, %s: C right, %lld grow events", hsp_method_name(m),
               (long long)st.grow_events);
        hsp_context_free(ctx);
    }
    hsp_csr_free(A), hsp_csr_free(B);
}

static void test_reports(void)
{
    char dev[64];
    hsp_csr *A = ref_random(400, 400, 0, 40, HSP_FLOAT, 12);
    for (int nosvm = 0; nosvm <= 1; nosvm++) {
        hsp_context *ctx = open_device(device(dev, nosvm ? ",nosvm" : ""), HSP_GROW_REALLOC, 0);
        hsp_stats st;
        tap_ok(product_ok(ctx, A, A, &st, NULL), "reports: product right");
        int sys = strstr(st.device, "system SVM") != NULL;
        tap_ok(!strncmp(st.device, "opencl:", 7) && (!nosvm || strstr(st.device, "(buffers)")),
               "reports: device '%s'", st.device);
        tap_ok(st.grow == (sys ? HSP_GROW_REALLOC : HSP_GROW_COPY),
               "reports: grow mode that ran is %s", hsp_grow_name(st.grow));
        tap_ok(st.ms_device > 0 && st.ms_host >= 0 && st.ms_overlap <= st.ms_device,
               "reports: device %.3f ms, host %.3f ms, overlap %.3f ms", st.ms_device, st.ms_host,
               st.ms_overlap);
        tap_ok(sys || st.peak_device_bytes > 0, "reports: peak device memory %lld bytes",
               (long long)st.peak_device_bytes);
        hsp_context_free(ctx);
    }
    hsp_csr_free(A);
}

static void test_methods_refused(void)
{
    char dev[64];
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = device(dev, "");
    o.method[1] = HSP_METHOD_DENSE;
    hsp_status s = hsp_context_create(&o, &ctx);
    tap_ok(s == HSP_ERR_UNSUPPORTED && !ctx && strstr(hsp_errmsg(), "dense cannot run on the medium rows"),
           "methods: dense refused for medium rows: %s", hsp_errmsg());
    o.method[1] = HSP_METHOD_HEAP;
    s = hsp_context_create(&o, &ctx);
    tap_ok(s == HSP_ERR_UNSUPPORTED && !ctx, "methods: heap refused for medium rows: %s", hsp_errmsg());
}

static void test_device_list(void)
{
    hsp_device_info list[40];
    int count = 0, gpu = 0;
    hsp_status s = hsp_devices(list, 40, &count);
    tap_ok(s == HSP_OK && count >= 2 && !strcmp(list[0].name, "cpu") && !strcmp(list[1].name, "opencl:0"),
           "devices: cpu then opencl:0 (%d devices)", count);
    for (int k = 1; k < count && k < 40; k++) {
        gpu |= list[k].is_gpu;
        int versioned = strncmp(list[k].name, "opencl", 6) || !strncmp(list[k].version, "OpenCL ", 7);
        tap_ok(list[k].wavefront >= 32 && list[k].local_mem > 0 && list[k].memory[0] && versioned,
               "devices: %s: W %d, %lld bytes local, %s, %s, %s", list[k].name, list[k].wavefront,
               (long long)list[k].local_mem, list[k].memory, list[k].description, list[k].version);
    }
    hsp_context *ctx = open_device("auto", HSP_GROW_REALLOC, 0);
    hsp_stats st;
    hsp_csr *A = ref_random(30, 30, 0, 5, HSP_DOUBLE, 2);
    int ok = product_ok(ctx, A, A, &st, NULL);
    tap_ok(ok && (gpu ? !strncmp(st.device, "opencl", 6) : !strcmp(st.device, "cpu")),
           "auto picks %s (a GPU is %s), and its product is right", st.device, gpu ? "present" : "absent");
    hsp_csr_free(A);
    hsp_context_free(ctx);
}

/* Small products run on the CPU threads (small_nnz), larger ones on the
 * device; both give the reference product. */
static void test_small(void)
{
    char dev[64];
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_csr *A = NULL, *C = NULL, *ref;
    hsp_stats st;
    double *mag = NULL;
    char why[128] = "";
    hsp_generate("poisson2d5:20", 1, HSP_DOUBLE, &A);
    ref = ref_multiply(A, A, &mag);
    for (int k = 0; k < 2; k++) {
        hsp_options_init(&o);
        o.device = device(dev, ""), o.small_nnz = k ? 1000 : 0; /* default 2^18 entries; then fewer than A's 1920 */
        int ok = hsp_context_create(&o, &ctx) == HSP_OK && hsp_multiply(ctx, A, A, &C, &st) == HSP_OK &&
                 ref_compare(C, ref, mag, why, sizeof why);
        tap_ok(ok && !strncmp(st.device, k ? "opencl" : "cpu (a small product)", k ? 6 : 21),
               "small_nnz %s: A*A of %lld entries ran on %s %s", k ? "1000" : "default", (long long)A->nnz, st.device,
               why);
        hsp_csr_free(C), hsp_context_free(ctx);
        C = NULL, ctx = NULL;
    }
    o.small_nnz = -2;
    tap_ok(hsp_context_create(&o, &ctx) == HSP_ERR_ARG, "small_nnz -2 refused: %s", hsp_errmsg());
    hsp_csr_free(A), hsp_csr_free(ref), free(mag);
}

/* Launches on the device itself: hsp_bound with its 5 arguments runs; with
 * 4 (the 5th would be left from the launch before) or 6 it is refused,
 * naming the kernel and both counts, and so is a kernel number that does not
 * exist (kernels/kernels.def's table); the device still runs after. */
static void test_argument_count(void)
{
    char name[64];
    int next;
    hsp_device *dev = NULL;
    hsp_status s = hsp_device_open(device(name, ""), NULL, &dev, &next);
    if (!tap_ok(s == HSP_OK, "launch: %s opens%s%s", name, dev ? "" : ": ", dev ? "" : hsp_errmsg())) return;
    gpu *g = dev->state;
    gpu_array x = {0};
    int64_t m = 1;
    s = gpu_array_new(g, &x, 64);
    if (s == HSP_OK) s = gpu_array_write(g, &x, (int64_t[8]){0}, 64);
    gpu_arg a[] = {gpu_val(&m, sizeof m), gpu_array_arg(&x), gpu_array_arg(&x), gpu_array_arg(&x), gpu_array_arg(&x),
                   gpu_val(&m, sizeof m)};
    tap_ok(s == HSP_OK && g->ops->launch(g, 0, GK_BOUND, a, 5, 1, 64) == HSP_OK && g->ops->finish(g) == HSP_OK,
           "launch: hsp_bound with its 5 arguments runs%s%s", s == HSP_OK ? "" : ": ", s == HSP_OK ? "" : hsp_errmsg());
    tap_ok(g->ops->launch(g, 0, GK_BOUND, a, 4, 1, 64) == HSP_ERR_ARG && strstr(hsp_errmsg(), "hsp_bound takes 5"),
           "launch: one argument short refused: %s", hsp_errmsg());
    tap_ok(g->ops->launch(g, 0, GK_BOUND, a, 6, 1, 64) == HSP_ERR_ARG && strstr(hsp_errmsg(), "a launch gave 6"),
           "launch: one argument over refused: %s", hsp_errmsg());
    tap_ok(g->ops->launch(g, 0, GK_HEAP + 1, a, ROW_ARGS, 1, 64) == HSP_ERR_ARG && strstr(hsp_errmsg(), "not exist"),
           "launch: a kernel number without a kernel refused: %s", hsp_errmsg());
    tap_ok(g->ops->launch(g, 0, GK_BOUND, a, 5, 1, 64) == HSP_OK && g->ops->finish(g) == HSP_OK,
           "launch: the device runs hsp_bound after");
    gpu_array_free(g, &x);
    dev->destroy(dev);
}

int main(void)
{
    test_device_list();
    test_no_double();
    test_cache();
    test_many_overflows("");
    test_many_overflows(",nosvm");
    test_long_in_local();
    test_reports();
    test_methods_refused();
    test_small();
    test_argument_count();
    return tap_done();
}
