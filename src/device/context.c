/* context.c: what a context holds (options, thread pool, per-thread
 * workspaces, its lock; the device is open/open.c's to open), its freeing,
 * and the names of enums. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "device/context.h"
#include "core/internal.h"
#include "core/scratch.h"

/* A recursive mutex into *lock; nonzero on failure. */
static int init_lock(pthread_mutex_t *lock)
{
    pthread_mutexattr_t attr;
    if (pthread_mutexattr_init(&attr) != 0) return 1;
    int e = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE) || pthread_mutex_init(lock, &attr);
    pthread_mutexattr_destroy(&attr);
    return e;
}

void hsp_context_lock(hsp_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
}

void hsp_context_unlock(hsp_context *ctx)
{
    pthread_mutex_unlock(&ctx->lock);
}

void hsp_context_drop(hsp_context *ctx, void *held)
{
    if (!held || !ctx->device->drop) return;
    hsp_context_lock(ctx);
    ctx->device->drop(ctx->device, held);
    hsp_context_unlock(ctx);
}

/* The largest cache of the calling thread's CPU, in bytes, as sysfs lists
 * them, else sysconf's level 3 or 2, else 32 MiB: glibc's sysconf gives an
 * AMD EPYC's (Zen 4) 320 MiB of L3, where the 32 MiB that sysfs lists are
 * all that its cores share. */
static double last_level_cache(void)
{
    double most = 0;
    int cpu = sched_getcpu();
    for (int k = 0; k < 8; k++) {
        char path[96], unit = 0;
        unsigned long size = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu < 0 ? 0 : cpu, k);
        FILE *f = fopen(path, "r");
        if (!f) break;
        if (fscanf(f, "%lu%c", &size, &unit) >= 1) {
            double bytes = (double)size * (unit == 'K' ? 1024.0 : unit == 'M' ? 1048576.0 : 1.0);
            most = bytes > most ? bytes : most;
        }
        fclose(f);
    }
    long cache = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (cache <= 0) cache = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return most > 0 ? most : cache > 0 ? (double)cache : 32.0 * (1 << 20);
}

/* The last-level cache that the context's threads may count on: at most
 * CACHE_PER_THREAD a thread (AMD's parts with stacked cache have 12 MiB a
 * core).  More means a cache shared with cores the system does not show,
 * as a virtual machine's: this VM's Intel Xeon lists 480 MiB of L3 for its
 * 2 CPUs, so that the SpMM of column-major poisson2d5:400 at L = 32 copied
 * all of B and stored C through the caches: 6.2-6.9 ms, against 4.5-4.7 by
 * slabs and past the caches, as 32 MiB chooses (MKL 5.4;
 * doc/performance.md). */
enum { CACHE_PER_THREAD = 16 << 20 };
static double cache_share(double cache, int threads)
{
    double most = (double)threads * CACHE_PER_THREAD;
    return cache < most ? cache : most;
}

hsp_status hsp_context_new(const hsp_options *o, double timeout, hsp_context **out)
{
    hsp_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return hsp_fail(HSP_ERR_NOMEM, "no memory for a context");
    if (init_lock(&ctx->lock) != 0) {
        free(ctx);
        return hsp_fail(HSP_ERR_NOMEM, "no resources for a context's lock");
    }
    ctx->options = *o;
    if (!ctx->options.device) ctx->options.device = "auto";
    if (!ctx->options.grow_start) ctx->options.grow_start = 256;
    if (!ctx->options.small_nnz) ctx->options.small_nnz = 1 << 18;
    ctx->options.device_timeout = timeout;
    if (o->profile && !(ctx->profile_option = strdup(o->profile))) { /* read again at a hand-over */
        pthread_mutex_destroy(&ctx->lock), free(ctx);
        return hsp_fail(HSP_ERR_NOMEM, "no memory for a context");
    }
    ctx->options.profile = ctx->profile_option;
    int nthreads = o->threads ? o->threads : hsp_cpu_count();
    ctx->cache_bytes = cache_share(last_level_cache(), nthreads);
    size_t scratch_bytes = (size_t)nthreads * sizeof *ctx->scratch;
    hsp_status s = hsp_pool_create(nthreads, o->unbound, &ctx->pool);
    if (s == HSP_OK && !(ctx->scratch = aligned_alloc(_Alignof(hsp_scratch), scratch_bytes)))
        s = hsp_fail(HSP_ERR_NOMEM, "no memory for thread workspaces");
    if (s == HSP_OK) memset(ctx->scratch, 0, scratch_bytes);
    if (s != HSP_OK) {
        hsp_context_release(ctx);
        return s;
    }
    *out = ctx;
    return HSP_OK;
}

void hsp_context_release(hsp_context *ctx)
{
    if (!ctx) return;
    if (ctx->scratch)
        for (int t = 0; t < hsp_pool_size(ctx->pool); t++) hsp_scratch_free(&ctx->scratch[t]);
    free(ctx->scratch);
    hsp_pool_free(ctx->pool);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx->profile_option);
    free(ctx);
}

const char *hsp_grow_name(hsp_grow g)
{
    return g == HSP_GROW_COPY ? "copy" : g == HSP_GROW_REALLOC ? "realloc" : "?";
}

const char *hsp_method_name(hsp_method m)
{
    static const char *names[] = {"default", "heap", "esc", "merge", "hash", "dense", "auto", "rmerge", "hash2"};
    return m >= HSP_METHOD_DEFAULT && m < HSP_NMETHODS ? names[m] : "?";
}

const char *hsp_group_name(int group)
{
    static const char *names[] = {"empty", "single", "short", "medium", "long"};
    return group >= 0 && group < HSP_NGROUPS ? names[group] : "?";
}
