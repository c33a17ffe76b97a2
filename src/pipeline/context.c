/* context.c: options, contexts (device, thread pool, bin layout, per-thread
 * workspaces), the hand-over of "auto" to its next device, and the names of
 * enums. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bins.h"
#include "context.h"
#include "devices.h"
#include "internal.h"
#include "product.h"
#include "scratch.h"

void hsp_options_init(hsp_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->device = "auto";
    o->grow = HSP_GROW_REALLOC;
}

/* Check the options a context is made from. */
static hsp_status check_options(const hsp_options *o)
{
    if (o->threads < 0 || o->threads > 4096)
        return hsp_fail(HSP_ERR_ARG, "threads = %d: give 0 (one per core) to 4096", o->threads);
    if (o->grow != HSP_GROW_REALLOC && o->grow != HSP_GROW_COPY)
        return hsp_fail(HSP_ERR_ARG, "unknown grow mode %d", (int)o->grow);
    for (int g = 0; g < HSP_NMETHODGROUPS; g++)
        if (o->method[g] < HSP_METHOD_DEFAULT || o->method[g] > HSP_METHOD_AUTO)
            return hsp_fail(HSP_ERR_ARG, "unknown method %d for group %d", (int)o->method[g],
                            g + 3);
    if (o->grow_start < 0 || o->grow_start > (1 << 24))
        return hsp_fail(HSP_ERR_ARG, "grow_start = %lld: give 0 (256) to 2^24",
                        (long long)o->grow_start);
    if (o->mem_limit < 0 || o->local_mem < 0)
        return hsp_fail(HSP_ERR_ARG, "mem_limit and local_mem must not be negative");
    if (o->small_nnz < -1)
        return hsp_fail(HSP_ERR_ARG, "small_nnz = %lld: give -1, 0 or a count", (long long)o->small_nnz);
    if (!(o->device_timeout >= 0 && o->device_timeout <= 1e9))
        return hsp_fail(HSP_ERR_ARG, "device_timeout = %g: give 0 (the default) or seconds up to 1e9",
                        o->device_timeout);
    return HSP_OK;
}

/* The device timeout into *seconds when the options give none:
 * HSPGEMM_DEVICE_TIMEOUT where set (an error unless it is seconds), else
 * HSP_DEVICE_TIMEOUT. */
static hsp_status default_timeout(double *seconds)
{
    const char *text = getenv("HSPGEMM_DEVICE_TIMEOUT");
    char *end;
    *seconds = HSP_DEVICE_TIMEOUT;
    if (!text) return HSP_OK;
    double t = strtod(text, &end);
    if (end == text || *end || !(t > 0 && t <= 1e9))
        return hsp_fail(HSP_ERR_ARG, "HSPGEMM_DEVICE_TIMEOUT='%s': give seconds, more than 0", text);
    *seconds = t;
    return HSP_OK;
}

/* Make dev the context's device, with what follows from it: the bin layout,
 * each group's method and, for a device that works beside the CPU threads, a
 * cpu device for small products.  On failure the context is as it was and
 * dev is not taken. */
static hsp_status take_device(hsp_context *ctx, hsp_device *dev)
{
    const hsp_options *o = &ctx->options;
    hsp_bins bins;
    hsp_device *cpu = NULL;
    hsp_method method[HSP_NMETHODGROUPS], cpu_method[HSP_NMETHODGROUPS] = {HSP_METHOD_DEFAULT};
    hsp_status s = hsp_bins_layout(o->wavefront ? o->wavefront : dev->wavefront,
                                   o->local_mem ? o->local_mem : dev->local_mem,
                                   o->wavefront || o->local_mem ? 0 : dev->medium_max, &bins);
    if (s == HSP_OK && dev->async && o->small_nnz > 0 && (s = hsp_device_cpu_open(ctx->pool, &cpu)) == HSP_OK)
        snprintf(cpu->description, sizeof cpu->description, "cpu (a small product)");
    for (int g = 0; g < HSP_NMETHODGROUPS && s == HSP_OK; g++) {
        if (cpu) cpu_method[g] = o->method[g] ? o->method[g] : cpu->default_method[g];
        method[g] = o->method[g] ? o->method[g] : dev->default_method[g];
        if (!(dev->methods[g] & 1u << method[g]))
            s = hsp_fail(HSP_ERR_UNSUPPORTED, "method %s cannot run on the %s rows of device %s",
                         hsp_method_name(method[g]), hsp_group_name(g + 2), dev->description);
    }
    if (s != HSP_OK) {
        if (cpu) cpu->destroy(cpu);
        return s;
    }
    ctx->device = dev, ctx->cpu = cpu, ctx->bins = bins, ctx->options.device = dev->name;
    memcpy(ctx->method, method, sizeof method);
    memcpy(ctx->cpu_method, cpu_method, sizeof cpu_method);
    return HSP_OK;
}

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

hsp_status hsp_context_create(const hsp_options *o, hsp_context **out)
{
    hsp_options defaults;
    if (!out) return hsp_fail(HSP_ERR_ARG, "hsp_context_create: out is NULL");
    *out = NULL;
    if (!o) hsp_options_init(&defaults), o = &defaults;
    double timeout = o->device_timeout;
    hsp_status s = check_options(o);
    if (s == HSP_OK && !timeout) s = default_timeout(&timeout);
    if (s != HSP_OK) return s;
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
    int nthreads = o->threads ? o->threads : hsp_cpu_count();
    hsp_device *dev = NULL;
    s = hsp_pool_create(nthreads, &ctx->pool);
    if (s == HSP_OK) s = hsp_device_open(ctx->options.device, ctx->pool, &dev, &ctx->auto_next);
    if (s == HSP_OK && (s = take_device(ctx, dev)) != HSP_OK) dev->destroy(dev);
    size_t scratch_bytes = (size_t)nthreads * sizeof *ctx->scratch;
    if (s == HSP_OK && !(ctx->scratch = aligned_alloc(_Alignof(hsp_scratch), scratch_bytes)))
        s = hsp_fail(HSP_ERR_NOMEM, "no memory for thread workspaces");
    if (s == HSP_OK) memset(ctx->scratch, 0, scratch_bytes);
    if (s != HSP_OK) {
        hsp_context_free(ctx);
        return s;
    }
    *out = ctx;
    return HSP_OK;
}

hsp_status hsp_context_hand_over(hsp_context *ctx)
{
    hsp_device *failed = ctx->device, *cpu = ctx->cpu, *dev;
    char note[sizeof failed->note];
    int next;
    snprintf(note, sizeof note, "%s", failed->note);
    hsp_note_passed(note, sizeof note, failed->name);
    hsp_status s = hsp_device_open_auto(ctx->auto_next, note, ctx->pool, &dev, &next);
    if (s == HSP_OK && (s = take_device(ctx, dev)) != HSP_OK) dev->destroy(dev);
    if (s != HSP_OK) return s;
    if (failed->lost) memset(&ctx->ws, 0, sizeof ctx->ws); /* it may still write them: left, not freed */
    failed->destroy(failed);
    if (cpu) cpu->destroy(cpu);
    ctx->auto_next = next;
    return HSP_OK;
}

void hsp_context_free(hsp_context *ctx)
{
    if (!ctx) return;
    if (ctx->scratch)
        for (int t = 0; t < hsp_pool_size(ctx->pool); t++) hsp_scratch_free(&ctx->scratch[t]);
    free(ctx->scratch);
    for (int k = 0; k < WS_COUNT && !(ctx->device && ctx->device->lost); k++) free(ctx->ws.block[k]);
    if (ctx->device) ctx->device->destroy(ctx->device);
    if (ctx->cpu) ctx->cpu->destroy(ctx->cpu);
    hsp_pool_free(ctx->pool);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

const hsp_bins *hsp_context_bins(const hsp_context *ctx)
{
    return ctx ? &ctx->bins : NULL;
}

const char *hsp_grow_name(hsp_grow g)
{
    return g == HSP_GROW_COPY ? "copy" : g == HSP_GROW_REALLOC ? "realloc" : "?";
}

const char *hsp_method_name(hsp_method m)
{
    static const char *names[] = {"default", "heap", "esc", "merge", "hash", "dense", "auto"};
    return m >= HSP_METHOD_DEFAULT && m <= HSP_METHOD_AUTO ? names[m] : "?";
}

const char *hsp_group_name(int group)
{
    static const char *names[] = {"empty", "single", "short", "medium", "long"};
    return group >= 0 && group < HSP_NGROUPS ? names[group] : "?";
}
