/* t_allocfail.c: every allocation the library makes, made to fail in turn.
 *
 * This program replaces malloc, calloc, realloc, free, aligned_alloc and
 * posix_memalign (glibc lets a program do so) with wrappers over glibc's own
 * allocator.  They count the calls made from libhspgemm's code and, once
 * armed with n, fail the n-th.  For each call of the API under test, n walks
 * 1, 2, ... until a run makes fewer than n allocations.  Every run must
 * either succeed with the result of a run without failures (where the
 * library has another way, e.g. two passes when a region is refused) or
 * return HSP_ERR_NOMEM with a message; it must leave its operands bit for
 * bit as they were; and once its outputs and context are freed, no block the
 * library allocated may be left (the wrappers keep a table of them).
 *
 * AddressSanitizer and ThreadSanitizer replace the allocator themselves, so
 * under them this test skips; the other tests run under them there. */
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
static atomic_int armed;                  /* counting the library's allocations */
static atomic_long made;                  /* the library's allocations since arming */
static atomic_long fail_at;               /* fail the allocation of this number; 0: none */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t live[LIVE_SLOTS];        /* the library's blocks not yet freed (0: empty) */
static long nlive;

static int from_library(const void *caller)
{
    return (uintptr_t)caller >= lib_lo && (uintptr_t)caller < lib_hi;
}

/* Should the library's allocation now being made fail? */
static int fails(const void *caller)
{
    if (!atomic_load(&armed) || !from_library(caller)) return 0;
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
    if (fails(caller)) return NULL;
    void *p = __libc_malloc(n);
    live_add(p, caller);
    return p;
}

void *calloc(size_t n, size_t size)
{
    void *caller = __builtin_return_address(0);
    if (fails(caller)) return NULL;
    void *p = __libc_calloc(n, size);
    live_add(p, caller);
    return p;
}

void *realloc(void *old, size_t n)
{
    void *caller = __builtin_return_address(0);
    if (fails(caller)) return NULL;
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
    if (fails(caller)) return NULL;
    void *p = __libc_memalign(align, n);
    live_add(p, caller);
    return p;
}

int posix_memalign(void **out, size_t align, size_t n)
{
    void *caller = __builtin_return_address(0);
    if (fails(caller)) return ENOMEM;
    void *p = __libc_memalign(align, n);
    live_add(p, caller);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

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

/* Count the library's allocations from now on, failing the n-th. */
static void arm(long n)
{
    atomic_store(&made, 0);
    atomic_store(&fail_at, n);
    atomic_store(&armed, 1);
}

/* Stop counting; the library's allocations counted since arming. */
static long disarm(void)
{
    atomic_store(&armed, 0);
    return atomic_load(&made);
}

static long live_blocks(void)
{
    pthread_mutex_lock(&live_lock);
    long n = nlive;
    pthread_mutex_unlock(&live_lock);
    return n;
}

/* ---- the calls under test ------------------------------------------------------------ */

/* The operands every call reads, and copies of them to check they are untouched. */
typedef struct {
    hsp_csr *A, *B, *P, *S; /* A*B has long rows; P tall for R = P^T; S square for AMG */
    hsp_csr *copy[4];
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

static hsp_status call_rap(hsp_context *ctx, const fixture *f, hsp_csr **out)
{
    hsp_plan *plan = NULL;
    hsp_status s = hsp_rap(ctx, NULL, f->S, f->P, HSP_RAP_RA_P, out, &plan, NULL);
    if (s == HSP_OK) s = hsp_rap_reuse(ctx, plan, NULL, f->S, f->P, *out);
    if (s != HSP_OK) hsp_csr_free(*out), *out = NULL;
    hsp_plan_free(plan);
    return s;
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

/* ---- walking the failures ------------------------------------------------------------ */

/* A context on device with options for long rows that grow (NULL when none). */
static hsp_context *context(const char *device, hsp_grow grow)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = device, o.threads = 2, o.grow = grow, o.grow_start = 8, o.small_nnz = -1;
    return hsp_context_create(&o, &ctx) == HSP_OK ? ctx : NULL;
}

static int operands_intact(const fixture *f)
{
    const hsp_csr *M[4] = {f->A, f->B, f->P, f->S};
    for (int k = 0; k < 4; k++)
        if (!ref_identical(M[k], f->copy[k])) return 0;
    return 1;
}

/* The message of an error made on purpose before each run, which a failed
 * run must replace with its own. */
static char before_run[256];

/* Why a run failing one allocation went wrong (s, its result out), or "". */
static void judge(hsp_status s, const hsp_csr *out, const hsp_csr *clean, const fixture *f, char *why, size_t len)
{
    why[0] = 0;
    if (s == HSP_OK && !ref_identical(out, clean)) snprintf(why, len, "succeeded with another result");
    else if (s != HSP_OK && s != HSP_ERR_NOMEM) snprintf(why, len, "returned %s: %s", hsp_strerror(s), hsp_errmsg());
    else if (s == HSP_ERR_NOMEM && (!*hsp_errmsg() || !strcmp(hsp_errmsg(), before_run)))
        snprintf(why, len, "HSP_ERR_NOMEM without a message of its own");
    else if (!operands_intact(f)) snprintf(why, len, "changed an operand");
}

/* Fail each allocation of call in turn (on a fresh context of device when
 * device is not NULL) and judge each run. */
static void walk(const char *name, call_fn call, const fixture *f, const char *device, hsp_grow grow)
{
    hsp_csr *clean = NULL, *out = NULL;
    hsp_context *ctx = device ? context(device, grow) : NULL;
    if (device && !ctx) {
        tap_skip("the device does not open here", "%s", name);
        return;
    }
    hsp_status s = call(ctx, f, &clean); /* a warm-up that also gives the result */
    hsp_context_free(ctx);
    if (!tap_ok(s == HSP_OK && clean, "%s without failures: %s", name, s == HSP_OK ? "ok" : hsp_errmsg())) return;
    long n, points = 0, nomem = 0, other_way = 0;
    char why[256] = "";
    for (n = 1; !why[0]; n++) {
        hsp_release_memory();
        long before = live_blocks();
        if (device && !(ctx = context(device, grow))) {
            snprintf(why, sizeof why, "no context: %s", hsp_errmsg());
            break;
        }
        hsp_csr_check(NULL);
        snprintf(before_run, sizeof before_run, "%s", hsp_errmsg());
        arm(n);
        s = call(ctx, f, &out);
        long count = disarm();
        judge(s, out, clean, f, why, sizeof why);
        hsp_csr_free(out), out = NULL;
        hsp_context_free(ctx), ctx = NULL;
        hsp_release_memory();
        long leaked = live_blocks() - before;
        if (!why[0] && leaked) snprintf(why, sizeof why, "left %ld blocks allocated", leaked);
        if (count < n) break; /* no allocation n: the whole call ran */
        points++;
        nomem += s == HSP_ERR_NOMEM;
        other_way += s == HSP_OK;
    }
    tap_ok(!why[0], "%s: each of its %ld allocations failed in turn: %ld HSP_ERR_NOMEM with a message, %ld done "
           "another way; operands intact, nothing leaked", name, points, nomem, other_way);
    if (why[0]) tap_diag("when allocation %ld failed: %s", n, why);
    hsp_csr_free(clean);
}

/* A file of A's entries in reverse order, each split into two that sum to it. */
static int write_file(const fixture *f, char *path)
{
    snprintf(path, 64, "/tmp/t_allocfail_%d.mtx", (int)getpid());
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
    const hsp_csr *M[4] = {f.A, f.B, f.P, f.S};
    for (int k = 0; k < 4; k++) hsp_csr_convert(M[k], HSP_DOUBLE, &f.copy[k]);
    if (!tap_ok(f.S && f.copy[3] && write_file(&f, f.path), "operands and their file made")) return tap_done();
    walk("hsp_mm_read", call_read, &f, NULL, HSP_GROW_REALLOC);
    walk("hsp_mm_read in float", call_read_float, &f, NULL, HSP_GROW_REALLOC);
    walk("hsp_mm_write", call_write, &f, NULL, HSP_GROW_REALLOC);
    walk("hsp_transpose", call_transpose, &f, NULL, HSP_GROW_REALLOC);
    walk("hsp_csr_convert", call_convert, &f, NULL, HSP_GROW_REALLOC);
    walk("hsp_generate", call_generate, &f, NULL, HSP_GROW_REALLOC);
    static const char *const devices[] = {"cpu", "opencl"};
    for (int d = 0; d < 2; d++) {
        char name[96];
        for (int g = 0; g < 2; g++) {
            snprintf(name, sizeof name, "hsp_multiply on %s, grow=%s", devices[d], g ? "copy" : "realloc");
            walk(name, call_multiply, &f, devices[d], g ? HSP_GROW_COPY : HSP_GROW_REALLOC);
        }
        snprintf(name, sizeof name, "hsp_multiply_plan and hsp_multiply_reuse on %s", devices[d]);
        walk(name, call_plan_reuse, &f, devices[d], HSP_GROW_REALLOC);
        snprintf(name, sizeof name, "hsp_rap and hsp_rap_reuse on %s", devices[d]);
        walk(name, call_rap, &f, devices[d], HSP_GROW_REALLOC);
        snprintf(name, sizeof name, "hsp_amg_setup and hsp_amg_resetup on %s", devices[d]);
        walk(name, call_amg, &f, devices[d], HSP_GROW_REALLOC);
    }
    unlink(f.path);
    for (int k = 0; k < 4; k++) hsp_csr_free(f.copy[k]), hsp_csr_free((hsp_csr *)M[k]);
    return tap_done();
}
#endif
