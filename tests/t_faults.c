/* t_faults.c: every allocation the library makes, and every call it makes
 * into the OpenCL back end that can fail, made to fail in turn.
 *
 * This program replaces malloc, calloc, realloc, free, aligned_alloc and
 * posix_memalign (glibc lets a program do so) with wrappers over glibc's own
 * allocator, and the OpenCL calls that allocate device memory, transfer,
 * build, launch or wait with wrappers over the loader's (found by dlsym).
 * They count the calls made from libhspgemm's code and, once armed with a
 * kind of fault and n, fail the n-th of that kind (an allocation returns
 * NULL; an OpenCL call an error).  For each call of the API under test, n
 * walks 1, 2, ... until a run makes fewer than n such calls: every n with
 * HSPGEMM_FAULTS=all (`make check-faults`, in two parts at once), else the
 * first FIRST_POINTS and then a stride that leaves about SAMPLED_POINTS more
 * over the calls a run without failures makes (`make check`).  Every run must
 * either succeed with the result of a run without failures (where the
 * library has another way; contexts are deterministic, so that on a GPU too
 * that result is the same bits) or fail with HSP_ERR_NOMEM (or HSP_ERR_DEVICE for
 * an OpenCL fault) and a message of its own; it must leave its operands bit
 * for bit as they were; its context must then serve the same call again,
 * rightly; and once its outputs and context are freed, no block and no
 * OpenCL buffer the library allocated may be left (the wrappers count them).
 *
 * AddressSanitizer and ThreadSanitizer replace the allocator themselves, so
 * under them this test skips; the other tests run under them there. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ref.h"
#include "tap.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
int main(void)
{
    printf("1..0 # SKIP the sanitizer replaces the allocator this test wraps\n");
    return 0;
}
#else

/* ---- the allocator wrappers ---------------------------------------------------------- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

enum { LIVE_SLOTS = 1 << 20 };

static uintptr_t lib_lo, lib_hi;          /* libhspgemm's loaded segments */
enum { FAULT_ALLOC, FAULT_OPENCL };
static const char *const fault_name[] = {"allocation", "OpenCL call"};

static atomic_int armed;                  /* counting the library's calls of kind armed - 1 */
static atomic_long made;                  /* those calls since arming */
static atomic_long fail_at;               /* fail the call of this number; 0: none */
static atomic_long live_cl;               /* the library's OpenCL buffers not yet released */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t live[LIVE_SLOTS];        /* the library's blocks not yet freed (0: empty) */
static long nlive;

static int from_library(const void *caller)
{
    return (uintptr_t)caller >= lib_lo && (uintptr_t)caller < lib_hi;
}

/* Should the library's call of this kind now being made fail? */
static int fails(int kind, const void *caller)
{
    if (atomic_load(&armed) != kind + 1 || !from_library(caller)) return 0;
    long n = atomic_fetch_add(&made, 1) + 1, at = atomic_load(&fail_at);
    if (at == 0 || n != at) return 0;
    errno = ENOMEM;
    return 1;
}

static size_t live_slot(uintptr_t p)
{
    return (size_t)((p >> 4) * 0x9E3779B97F4A7C15u >> 44) & (LIVE_SLOTS - 1);
}

/* Add p to the table of the library's live blocks (when the library made it). */
static void live_add(void *p, const void *caller)
{
    if (!p || !from_library(caller)) return;
    pthread_mutex_lock(&live_lock);
    size_t h = live_slot((uintptr_t)p);
    while (live[h]) h = (h + 1) & (LIVE_SLOTS - 1);
    live[h] = (uintptr_t)p, nlive++;
    pthread_mutex_unlock(&live_lock);
}

/* Drop p from the table, if there, shifting back the entries after it. */
static void live_drop(void *p)
{
    if (!p) return;
    pthread_mutex_lock(&live_lock);
    size_t h = live_slot((uintptr_t)p);
    while (live[h] && live[h] != (uintptr_t)p) h = (h + 1) & (LIVE_SLOTS - 1);
    if (live[h]) {
        live[h] = 0, nlive--;
        for (size_t j = (h + 1) & (LIVE_SLOTS - 1); live[j]; j = (j + 1) & (LIVE_SLOTS - 1)) {
            size_t home = live_slot(live[j]);
            if (((j - home) & (LIVE_SLOTS - 1)) >= ((j - h) & (LIVE_SLOTS - 1)))
                live[h] = live[j], live[j] = 0, h = j;
        }
    }
    pthread_mutex_unlock(&live_lock);
}

void *malloc(size_t n)
{
    void *caller = __builtin_return_address(0);
    if (fails(FAULT_ALLOC, caller)) return NULL;
    void *p = __libc_malloc(n);
    live_add(p, caller);
    return p;
}

void *calloc(size_t n, size_t size)
{
    void *caller = __builtin_return_address(0);
    if (fails(FAULT_ALLOC, caller)) return NULL;
    void *p = __libc_calloc(n, size);
    live_add(p, caller);
    return p;
}

void *realloc(void *old, size_t n)
{
    void *caller = __builtin_return_address(0);
    if (fails(FAULT_ALLOC, caller)) return NULL;
    void *p = __libc_realloc(old, n);
    if (p || n == 0) live_drop(old);
    live_add(p, caller);
    return p;
}

void free(void *p)
{
    live_drop(p);
    __libc_free(p);
}

void *aligned_alloc(size_t align, size_t n)
{
    void *caller = __builtin_return_address(0);
    if (fails(FAULT_ALLOC, caller)) return NULL;
    void *p = __libc_memalign(align, n);
    live_add(p, caller);
    return p;
}

int posix_memalign(void **out, size_t align, size_t n)
{
    void *caller = __builtin_return_address(0);
    if (fails(FAULT_ALLOC, caller)) return ENOMEM;
    void *p = __libc_memalign(align, n);
    live_add(p, caller);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

#ifdef HSP_HAVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

/* The loader's function name, found at its first use. */
#define REAL(name) static __typeof__(name) *real; if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)
/* The wrapper of an OpenCL call returning cl_int: fail, or pass it on. */
#define FAILING(name, params, args) \
    cl_int name params \
    { \
        REAL(name); \
        return fails(FAULT_OPENCL, __builtin_return_address(0)) ? CL_OUT_OF_RESOURCES : real args; \
    }

FAILING(clEnqueueWriteBuffer, (cl_command_queue q, cl_mem m, cl_bool b, size_t at, size_t n, const void *p, cl_uint ne,
                               const cl_event *w, cl_event *e), (q, m, b, at, n, p, ne, w, e))
FAILING(clEnqueueReadBuffer, (cl_command_queue q, cl_mem m, cl_bool b, size_t at, size_t n, void *p, cl_uint ne,
                              const cl_event *w, cl_event *e), (q, m, b, at, n, p, ne, w, e))
FAILING(clEnqueueCopyBuffer, (cl_command_queue q, cl_mem x, cl_mem y, size_t a, size_t b, size_t n, cl_uint ne,
                              const cl_event *w, cl_event *e), (q, x, y, a, b, n, ne, w, e))
FAILING(clEnqueueNDRangeKernel, (cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o, const size_t *g,
                                 const size_t *l, cl_uint ne, const cl_event *w, cl_event *e), (q, k, d, o, g, l, ne, w, e))
FAILING(clSetKernelArg, (cl_kernel k, cl_uint i, size_t n, const void *v), (k, i, n, v))
FAILING(clSetKernelArgSVMPointer, (cl_kernel k, cl_uint i, const void *v), (k, i, v))
/* A wait fails after waiting, as a device reports an error once its work
 * has ended (failing before would leave kernels running on freed memory,
 * which no device does). */
#define FAILING_WAIT(name, params, args) \
    cl_int name params \
    { \
        REAL(name); \
        cl_int err = real args; \
        return fails(FAULT_OPENCL, __builtin_return_address(0)) ? CL_OUT_OF_RESOURCES : err; \
    }

FAILING_WAIT(clFinish, (cl_command_queue q), (q))
FAILING_WAIT(clWaitForEvents, (cl_uint n, const cl_event *e), (n, e))
FAILING(clBuildProgram, (cl_program p, cl_uint n, const cl_device_id *d, const char *o,
                         void (CL_CALLBACK *f)(cl_program, void *), void *u), (p, n, d, o, f, u))

cl_mem clCreateBuffer(cl_context c, cl_mem_flags flags, size_t n, void *host, cl_int *err)
{
    REAL(clCreateBuffer);
    void *caller = __builtin_return_address(0);
    if (fails(FAULT_OPENCL, caller)) {
        if (err) *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    cl_mem m = real(c, flags, n, host, err);
    if (m && from_library(caller)) atomic_fetch_add(&live_cl, 1);
    return m;
}

void *clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool b, cl_map_flags f, size_t at, size_t n, cl_uint ne,
                         const cl_event *w, cl_event *e, cl_int *err)
{
    REAL(clEnqueueMapBuffer);
    if (fails(FAULT_OPENCL, __builtin_return_address(0))) {
        if (err) *err = CL_MAP_FAILURE;
        return NULL;
    }
    return real(q, m, b, f, at, n, ne, w, e, err);
}

void *clSVMAlloc(cl_context c, cl_svm_mem_flags flags, size_t n, cl_uint align)
{
    REAL(clSVMAlloc);
    void *caller = __builtin_return_address(0);
    if (fails(FAULT_OPENCL, caller)) return NULL;
    void *p = real(c, flags, n, align);
    if (p && from_library(caller)) atomic_fetch_add(&live_cl, 1);
    return p;
}

void clSVMFree(cl_context c, void *p)
{
    REAL(clSVMFree);
    if (p && from_library(__builtin_return_address(0))) atomic_fetch_sub(&live_cl, 1);
    real(c, p);
}

cl_int clReleaseMemObject(cl_mem m)
{
    REAL(clReleaseMemObject);
    if (m && from_library(__builtin_return_address(0))) atomic_fetch_sub(&live_cl, 1);
    return real(m);
}
#endif

/* Find the loaded segments of the object holding hsp_multiply. */
static int find_library(struct dl_phdr_info *info, size_t size, void *data)
{
    uintptr_t target = (uintptr_t)data, lo = UINTPTR_MAX, hi = 0;
    (void)size;
    for (int k = 0; k < info->dlpi_phnum; k++) {
        if (info->dlpi_phdr[k].p_type != PT_LOAD) continue;
        uintptr_t a = info->dlpi_addr + info->dlpi_phdr[k].p_vaddr;
        lo = a < lo ? a : lo;
        hi = a + info->dlpi_phdr[k].p_memsz > hi ? a + info->dlpi_phdr[k].p_memsz : hi;
    }
    if (target < lo || target >= hi) return 0;
    lib_lo = lo, lib_hi = hi;
    return 1;
}

/* Count the library's calls of a kind of fault from now on, failing the n-th. */
static void arm(int kind, long n)
{
    atomic_store(&made, 0);
    atomic_store(&fail_at, n);
    atomic_store(&armed, kind + 1);
}

/* Stop counting; the calls counted since arming. */
static long disarm(void)
{
    atomic_store(&armed, 0);
    return atomic_load(&made);
}

static long live_blocks(void)
{
    pthread_mutex_lock(&live_lock);
    long n = nlive + atomic_load(&live_cl);
    pthread_mutex_unlock(&live_lock);
    return n;
}

/* The fault points a walk tries: all with HSPGEMM_FAULTS=all (those of
 * this run's part with HSPGEMM_TEST_SHARD: make check-faults runs two at
 * once), else a sample. */
enum { FIRST_POINTS = 3, SAMPLED_POINTS = 9 };

static int all_points(void)
{
    const char *all = getenv("HSPGEMM_FAULTS");
    return all && !strcmp(all, "all");
}

/* The first point from n on that this run walks. */
static long point_from(long n)
{
    while (all_points() && !ref_shard((int)n)) n++;
    return n;
}

/* The point after n of a walk over about total points: n + 1 for the first
 * ones (and all of them with HSPGEMM_FAULTS=all), then spread evenly. */
static long next_point(long n, long total)
{
    if (all_points() || n < FIRST_POINTS) return point_from(n + 1);
    return n + (total - FIRST_POINTS) / SAMPLED_POINTS + 1;
}

/* ---- the calls under test ------------------------------------------------------------ */

/* The operands every call reads, and copies of them to check they are untouched. */
typedef struct {
    hsp_csr *A, *B, *P, *S, *G; /* A*B has long rows; P tall for R = P^T; S square for AMG; G
                                   aggregates S's rows (one pass of hsp_rap) */
    hsp_csr *W;             /* SpMM's A: rows long enough for a GPU's pieces (ref_long_rows) */
    hsp_csr *copy[6];
    hsp_dense X, Y;         /* SpMM's B: X column-major, Y row-major of 8 columns */
    hsp_dense dense_copy[2];
    char path[64];          /* a Matrix Market file with duplicates and unsorted rows */
} fixture;

/* A call under test: *out gets a matrix to compare with the run without
 * failures (NULL when the call failed); the call frees all else it made. */
typedef hsp_status (*call_fn)(hsp_context *ctx, const fixture *f, hsp_csr **out);

static hsp_status call_read(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    (void)ctx;
    return hsp_mm_read(f->path, HSP_DOUBLE, 0, out);
}

static hsp_status call_read_float(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    (void)ctx;
    return hsp_mm_read(f->path, HSP_FLOAT, 0, out);
}

static hsp_status call_write(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    char path[80];
    snprintf(path, sizeof path, "%s.out", f->path);
    (void)ctx;
    hsp_status s = hsp_mm_write(path, f->A);
    disarm(); /* reading it back is not under test */
    if (s == HSP_OK) hsp_mm_read(path, HSP_DOUBLE, 0, out);
    unlink(path);
    return s;
}

static hsp_status call_transpose(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    (void)ctx;
    return hsp_transpose(f->A, out);
}

static hsp_status call_convert(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    (void)ctx;
    return hsp_csr_convert(f->A, HSP_FLOAT, out);
}

static hsp_status call_generate(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    (void)ctx, (void)f;
    return hsp_generate("rmat:8,4", 3, HSP_DOUBLE, out);
}

static hsp_status call_multiply(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    return hsp_multiply(ctx, f->A, f->B, out, NULL);
}

static hsp_status call_plan_reuse(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    hsp_plan *plan = NULL;
    hsp_status s = hsp_multiply_plan(ctx, f->A, f->B, out, &plan, NULL);
    if (s == HSP_OK) s = hsp_multiply_reuse(ctx, plan, f->A, f->B, *out);
    if (s != HSP_OK) hsp_csr_free(*out), *out = NULL;
    hsp_plan_free(plan);
    return s;
}

/* A*B by bitmap blocks: both blocked, multiplied, C back in CSR. */
static hsp_status call_bitmap(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    hsp_bitmap *a = NULL, *b = NULL, *c = NULL;
    hsp_status s = hsp_bitmap_from_csr(f->A, &a);
    if (s == HSP_OK) s = hsp_bitmap_from_csr(f->B, &b);
    if (s == HSP_OK) s = hsp_bitmap_multiply(ctx, a, b, &c, NULL);
    if (s == HSP_OK) s = hsp_bitmap_to_csr(c, out);
    hsp_bitmap_free(a), hsp_bitmap_free(b), hsp_bitmap_free(c);
    return s;
}

static hsp_status call_rap(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    hsp_plan *plan = NULL;
    hsp_status s = hsp_rap(ctx, NULL, f->S, f->P, HSP_RAP_RA_P, out, &plan, NULL);
    if (s == HSP_OK) s = hsp_rap_reuse(ctx, plan, NULL, f->S, f->P, *out);
    if (s != HSP_OK) hsp_csr_free(*out), *out = NULL;
    hsp_plan_free(plan);
    return s;
}

static hsp_status call_rap_aggregate(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    return hsp_rap(ctx, NULL, f->S, f->G, HSP_RAP_R_AP, out, NULL, NULL);
}

static hsp_status call_amg(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    hsp_amg_options o;
    hsp_amg *amg = NULL;
    hsp_amg_options_init(&o);
    o.coarse_size = 20;
    hsp_status s = hsp_amg_setup(ctx, f->S, &o, &amg);
    if (s == HSP_OK) s = hsp_amg_resetup(ctx, amg, f->S);
    disarm(); /* the copy of the coarsest level is not under test */
    if (s == HSP_OK) hsp_csr_convert(amg->level[amg->nlevels - 1].A, HSP_DOUBLE, out);
    hsp_amg_free(amg);
    return s;
}

/* A dense nrows x ncols of order, from values (NULL: zeros); the test's own memory. */
static hsp_dense dense(int32_t nrows, int32_t ncols, hsp_order order, const double *values)
{
    size_t n = (size_t)nrows * (size_t)ncols;
    hsp_dense M = {nrows, ncols, order == HSP_ROW_MAJOR ? ncols : nrows, order, HSP_DOUBLE, calloc(n, sizeof(double))};
    if (M.values && values) memcpy(M.values, values, n * sizeof(double));
    return M;
}

/* The entries of C[0] and C[1] (as many rows), C[1]'s columns after C[0]'s, as CSR. */
static hsp_csr *side_by_side(const hsp_dense C[2])
{
    int32_t n0 = C[0].ncols, n1 = C[1].ncols;
    hsp_csr *M = NULL;
    if (hsp_csr_create(C[0].nrows, n0 + n1, (int64_t)C[0].nrows * (n0 + n1), HSP_DOUBLE, &M) != HSP_OK) return NULL;
    for (int32_t i = 0, at = 0; i < C[0].nrows; i++) {
        for (int32_t j = 0; j < n0 + n1; j++, at++) {
            const hsp_dense *c = &C[j >= n0];
            int64_t jj = j >= n0 ? j - n0 : j, k = c->order == HSP_ROW_MAJOR ? i * c->ld + jj : jj * c->ld + i;
            M->colidx[at] = j;
            ((double *)M->values)[at] = ((const double *)c->values)[k];
        }
        M->rowptr[i + 1] = at;
    }
    return M;
}

/* C = W X by hsp_ellr_from_csr and hsp_spmm_ellr (column-major X: on the
 * CPU threads read from a row-major copy; long rows: pieces on a GPU), and
 * W Y with Y and C resident (hsp_place_dense, hsp_spmm_resident,
 * hsp_dense_resident_home); *out holds both Cs' entries. */
static hsp_status call_spmm(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    hsp_ellr *E = NULL;
    hsp_dense_resident *RY = NULL, *RC = NULL;
    hsp_dense C[2] = {dense(f->W->nrows, f->X.ncols, HSP_COL_MAJOR, NULL),
                      dense(f->W->nrows, f->Y.ncols, HSP_ROW_MAJOR, NULL)};
    hsp_status s = C[0].values && C[1].values ? hsp_ellr_from_csr(ctx, f->W, &E) : HSP_ERR_NOMEM;
    if (s == HSP_OK) s = hsp_spmm_ellr(ctx, 1.0, E, &f->X, 0.0, &C[0], NULL);
    if (s == HSP_OK) s = hsp_place_dense(ctx, &f->Y, &RY);
    if (s == HSP_OK) s = hsp_place_dense(ctx, &C[1], &RC);
    if (s == HSP_OK) s = hsp_spmm_resident(ctx, 1.0, E, RY, 0.0, RC, NULL);
    if (s == HSP_OK) s = hsp_dense_resident_home(RC, &C[1]);
    hsp_dense_resident_free(RY), hsp_dense_resident_free(RC), hsp_ellr_free(E);
    disarm(); /* the copy into *out is not under test */
    if (s == HSP_OK) *out = side_by_side(C);
    free(C[0].values), free(C[1].values);
    return s;
}

/* C = S Z by hsp_spmm, Z column-major (X's first 144 rows) copied by slabs of
 * C's rows (HSPGEMM_SPMM_SLABS=always: S's columns are near, its slabs fit;
 * on the CPU threads). */
static hsp_status call_spmm_slabs(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    hsp_dense Z = {f->S->ncols, f->X.ncols, f->X.ld, HSP_COL_MAJOR, HSP_DOUBLE, f->X.values};
    hsp_dense C[2] = {dense(f->S->nrows, Z.ncols, HSP_COL_MAJOR, NULL), dense(f->S->nrows, 1, HSP_ROW_MAJOR, NULL)};
    setenv("HSPGEMM_SPMM_SLABS", "always", 1);
    hsp_status s = C[0].values && C[1].values ? hsp_spmm(ctx, 1.0, f->S, &Z, 0.0, &C[0], NULL) : HSP_ERR_NOMEM;
    unsetenv("HSPGEMM_SPMM_SLABS");
    disarm(); /* the copy into *out is not under test */
    if (s == HSP_OK) *out = side_by_side(C);
    free(C[0].values), free(C[1].values);
    return s;
}

/* A context on the opencl device (its kernels built or loaded), and a product on it. */
static hsp_status call_context(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    hsp_options o;
    hsp_options_init(&o);
    o.device = "opencl", o.threads = 2, o.small_nnz = -1, o.deterministic = 1;
    (void)ctx;
    hsp_status s = hsp_context_create(&o, &ctx);
    if (s == HSP_OK) s = hsp_multiply(ctx, f->A, f->B, out, NULL);
    hsp_context_free(ctx);
    return s;
}

/* ---- walking the failures ------------------------------------------------------------ */

/* A context on device with options for long rows that grow (NULL when none). */
static hsp_context *context(const char *device, hsp_grow grow)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = device, o.threads = 2, o.grow = grow, o.grow_start = 8, o.small_nnz = -1;
    o.deterministic = 1; /* the same bits each run, on a GPU too */
    return hsp_context_create(&o, &ctx) == HSP_OK ? ctx : NULL;
}

static int operands_intact(const fixture *f)
{
    const hsp_csr *M[6] = {f->A, f->B, f->P, f->S, f->G, f->W};
    const hsp_dense *D[2] = {&f->X, &f->Y};
    for (int k = 0; k < 6; k++)
        if (!ref_identical(M[k], f->copy[k])) return 0;
    for (int k = 0; k < 2; k++)
        if (memcmp(D[k]->values, f->dense_copy[k].values, (size_t)D[k]->nrows * (size_t)D[k]->ncols * sizeof(double)))
            return 0;
    return 1;
}

/* The message of an error made on purpose before each run, which a failed
 * run must replace with its own. */
static char before_run[256];

/* Why a run with a fault of kind went wrong (s, its result out), or "". */
static void judge(int kind, hsp_status s, const hsp_csr *out, const hsp_csr *clean, const fixture *f, char *why,
                  size_t len)
{
    int expected = s == HSP_ERR_NOMEM || (kind == FAULT_OPENCL && s == HSP_ERR_DEVICE);
    why[0] = 0;
    if (s == HSP_OK && !ref_identical(out, clean)) snprintf(why, len, "succeeded with another result");
    else if (s != HSP_OK && !expected) snprintf(why, len, "returned %s: %s", hsp_strerror(s), hsp_errmsg());
    else if (s != HSP_OK && (!*hsp_errmsg() || !strcmp(hsp_errmsg(), before_run)))
        snprintf(why, len, "%s without a message of its own", hsp_strerror(s));
    else if (!operands_intact(f)) snprintf(why, len, "changed an operand");
}

/* Why the same call again on ctx, without faults, went wrong, or "". */
static void again(call_fn call, hsp_context *ctx, const fixture *f, const hsp_csr *clean, char *why, size_t len)
{
    hsp_csr *out = NULL;
    hsp_status s = call(ctx, f, &out);
    disarm();
    if (s != HSP_OK) snprintf(why, len, "the context failed the next call: %s", hsp_errmsg());
    else if (!ref_identical(out, clean)) snprintf(why, len, "the context's next call gave another result");
    hsp_csr_free(out);
}

/* Fail each call of a kind of fault made by call in turn and judge each
 * run, on a context of device when device is not NULL: for allocations a
 * fresh one each run, freed before the leak check; for OpenCL calls (whose
 * contexts take long to make) one for the whole walk, freed before the leak
 * check at its end.  After a fault, the context must serve the same call
 * again, rightly. */
static void walk(int kind, const char *name, call_fn call, const fixture *f, const char *device, hsp_grow grow)
{
    hsp_csr *clean = NULL, *out = NULL;
    long start = live_blocks();
    hsp_context *ctx = device ? context(device, grow) : NULL;
    if (device && !ctx) {
        tap_skip("the device does not open here", "%s", name);
        return;
    }
    int fresh = kind == FAULT_ALLOC;
    arm(kind, 0); /* counting alone */
    hsp_status s = call(ctx, f, &clean); /* the result, and the context's workspaces made */
    long total = disarm();
    if (fresh) hsp_context_free(ctx), ctx = NULL;
    if (!tap_ok(s == HSP_OK && clean, "%s without failures: %s", name, s == HSP_OK ? "ok" : hsp_errmsg())) {
        hsp_context_free(ctx);
        return;
    }
    long n, points = 0, failed = 0, other_way = 0;
    char why[256] = "";
    for (n = point_from(1); !why[0]; n = next_point(n, total)) {
        hsp_release_memory();
        long before = live_blocks();
        if (device && fresh && !(ctx = context(device, grow))) {
            snprintf(why, sizeof why, "no context: %s", hsp_errmsg());
            break;
        }
        hsp_csr_check(NULL);
        snprintf(before_run, sizeof before_run, "%s", hsp_errmsg());
        arm(kind, n);
        s = call(ctx, f, &out);
        long count = disarm();
        judge(kind, s, out, clean, f, why, sizeof why);
        hsp_csr_free(out), out = NULL;
        if (!why[0] && ctx) again(call, ctx, f, clean, why, sizeof why);
        if (fresh) hsp_context_free(ctx), ctx = NULL;
        hsp_release_memory();
        long leaked = live_blocks() - before;
        if (!why[0] && fresh && leaked) snprintf(why, sizeof why, "left %ld blocks or OpenCL buffers", leaked);
        if (count < n) break; /* no call n: the whole call ran */
        points++;
        failed += s != HSP_OK;
        other_way += s == HSP_OK;
    }
    hsp_context_free(ctx);
    hsp_csr_free(clean);
    hsp_release_memory();
    if (!why[0] && live_blocks() != start)
        snprintf(why, sizeof why, "%ld blocks or OpenCL buffers left after the walk", live_blocks() - start);
    tap_ok(!why[0], "%s: %ld runs, each failing one of its %ss (%ld in a run without failures): %ld errors with a "
           "message, %ld done another way; operands intact, %snothing leaked", name, points, fault_name[kind], total,
           failed, other_way, device ? "the context then right, " : "");
    if (why[0]) tap_diag("when %s %ld failed: %s", fault_name[kind], n, why);
}

/* The calls that run on a device, faults of kind in turn on device. */
static void walk_device_calls(int kind, const char *device, const fixture *f)
{
    static const struct {
        const char *name;
        call_fn call;
    } calls[] = {{"hsp_multiply_plan and hsp_multiply_reuse", call_plan_reuse},
                 {"hsp_rap and hsp_rap_reuse", call_rap},
                 {"hsp_rap of an aggregating P", call_rap_aggregate},
                 {"hsp_amg_setup and hsp_amg_resetup", call_amg},
                 {"hsp_bitmap_from_csr, hsp_bitmap_multiply and hsp_bitmap_to_csr", call_bitmap},
                 {"hsp_ellr_from_csr, hsp_spmm_ellr and hsp_spmm_resident", call_spmm},
                 {"hsp_spmm of column-major B by slabs", call_spmm_slabs}};
    char name[128];
    for (int g = 0; g < 2; g++) {
        snprintf(name, sizeof name, "hsp_multiply on %s, grow=%s", device, g ? "copy" : "realloc");
        walk(kind, name, call_multiply, f, device, g ? HSP_GROW_COPY : HSP_GROW_REALLOC);
    }
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
        snprintf(name, sizeof name, "%s on %s", calls[c].name, device);
        walk(kind, name, calls[c].call, f, device, HSP_GROW_REALLOC);
    }
}

/* A file of A's entries in reverse order, each split into two that sum to it. */
static int write_file(const fixture *f, char *path)
{
    snprintf(path, 64, "/tmp/t_faults_%d.mtx", (int)getpid());
    FILE *out = fopen(path, "w");
    if (!out) return 0;
    const hsp_csr *A = f->A;
    const double *v = A->values;
    fprintf(out, "%%%%MatrixMarket matrix coordinate real general\n%d %d %lld\n", A->nrows, A->ncols,
            2 * (long long)A->nnz);
    for (int32_t i = A->nrows - 1; i >= 0; i--)
        for (int64_t p = A->rowptr[i + 1] - 1; p >= A->rowptr[i]; p--)
            fprintf(out, "%d %d 0.25\n%d %d %.17g\n", i + 1, A->colidx[p] + 1, i + 1, A->colidx[p] + 1, v[p] - 0.25);
    return fclose(out) == 0;
}

int main(void)
{
    dl_iterate_phdr(find_library, (void *)(uintptr_t)&hsp_multiply);
    if (!tap_ok(lib_hi > lib_lo, "libhspgemm's segments found")) return tap_done();
    fixture f = {0};
    f.A = ref_random(120, 90, 0, 30, HSP_DOUBLE, 11);   /* rows of up to 30 x 30 products: long ones */
    f.B = ref_random(90, 100, 0, 30, HSP_DOUBLE, 12);
    hsp_generate("poisson2d5:12", 1, HSP_DOUBLE, &f.S); /* 144 rows */
    f.P = ref_random(144, 40, 1, 3, HSP_DOUBLE, 13);
    f.G = ref_random(144, 40, 0, 1, HSP_DOUBLE, 14);
    f.W = ref_long_rows(40, 600, HSP_DOUBLE);
    const hsp_csr *M[6] = {f.A, f.B, f.P, f.S, f.G, f.W};
    for (int k = 0; k < 6; k++) hsp_csr_convert(M[k], HSP_DOUBLE, &f.copy[k]);
    hsp_csr *values = ref_random(1, 600 * 9, 600 * 9, 600 * 9, HSP_DOUBLE, 15); /* one full row: 5400 values */
    f.X = dense(600, 9, HSP_COL_MAJOR, values->values), f.Y = dense(600, 8, HSP_ROW_MAJOR, values->values);
    f.dense_copy[0] = dense(600, 9, HSP_COL_MAJOR, f.X.values);
    f.dense_copy[1] = dense(600, 8, HSP_ROW_MAJOR, f.Y.values);
    hsp_csr_free(values);
    if (!tap_ok(f.S && f.copy[3] && write_file(&f, f.path), "operands and their file made")) return tap_done();
    walk(FAULT_ALLOC, "hsp_mm_read", call_read, &f, NULL, HSP_GROW_REALLOC);
    walk(FAULT_ALLOC, "hsp_mm_read in float", call_read_float, &f, NULL, HSP_GROW_REALLOC);
    walk(FAULT_ALLOC, "hsp_mm_write", call_write, &f, NULL, HSP_GROW_REALLOC);
    walk(FAULT_ALLOC, "hsp_transpose", call_transpose, &f, NULL, HSP_GROW_REALLOC);
    walk(FAULT_ALLOC, "hsp_csr_convert", call_convert, &f, NULL, HSP_GROW_REALLOC);
    walk(FAULT_ALLOC, "hsp_generate", call_generate, &f, NULL, HSP_GROW_REALLOC);
    static const char *const devices[] = {"cpu", "opencl"};
    for (int d = 0; d < 2; d++) walk_device_calls(FAULT_ALLOC, devices[d], &f);
#ifdef HSP_HAVE_OPENCL
    static const char *const cl_devices[] = {"opencl", "opencl,nosvm"}; /* SVM where offered; buffers */
    for (int d = 0; d < 2; d++) walk_device_calls(FAULT_OPENCL, cl_devices[d], &f);
    walk(FAULT_OPENCL, "hsp_context_create on opencl and a product", call_context, &f, NULL, HSP_GROW_REALLOC);
#endif
    unlink(f.path);
    for (int k = 0; k < 6; k++) hsp_csr_free(f.copy[k]), hsp_csr_free((hsp_csr *)M[k]);
    free(f.X.values), free(f.Y.values), free(f.dense_copy[0].values), free(f.dense_copy[1].values);
    return tap_done();
}
#endif
