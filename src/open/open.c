/* open.c: making a context: its device opened by name
 * (and, beside a device that works with the CPU threads, a cpu device for
 * small products), the bin layout and methods that follow from the device
 * and its profile (the options themselves checked by core/options.c);
 * the hand-over of "auto" to its next device when the first fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spgemm/bins.h"
#include "device/context.h"
#include "open/devices.h"
#include "spgemm/device_cpu.h"
#include "spgemm/spgemm_device.h"
#include "spgemm/engine.h"
#include "core/internal.h"
#include "spgemm/spgemm.h"
#include "spgemm/profile.h"

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
/* Group g's method on dev when options do not name one: the device's
 * default, or where the sums must be exact and it is not, RMerge, else ESC,
 * else the first exact one the group runs (none: the default, which the
 * caller refuses).  RMerge was faster than ESC on the stencils and band
 * matrices on an H100, even without warp shuffles (doc/devices.md: The opencl device). */
static hsp_method default_method(const hsp_device *dev, int g, int deterministic)
{
    unsigned exact = dev->spgemm->exact[g] & dev->spgemm->methods[g];
    if (!deterministic || exact & 1u << dev->spgemm->default_method[g]) return dev->spgemm->default_method[g];
    if (exact & 1u << HSP_METHOD_RMERGE) return HSP_METHOD_RMERGE;
    if (exact & 1u << HSP_METHOD_ESC) return HSP_METHOD_ESC;
    for (hsp_method m = HSP_METHOD_HEAP; m < HSP_NMETHODS; m++)
        if (exact & 1u << m) return m;
    return dev->spgemm->default_method[g];
}

/* The error for method m, not exact on group g of dev, with the ones that are. */
static hsp_status not_exact(const hsp_device *dev, int g, hsp_method m)
{
    char list[96] = "";
    for (int k = HSP_METHOD_HEAP; k < HSP_NMETHODS; k++)
        if (dev->spgemm->exact[g] & dev->spgemm->methods[g] & 1u << k)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "",
                     hsp_method_name((hsp_method)k));
    return hsp_fail(HSP_ERR_UNSUPPORTED, "method %s adds the %s rows of device %s in an order that varies from "
                    "run to run; deterministic takes %s", hsp_method_name(m), hsp_group_name(g + 2),
                    dev->description, list);
}

/* The products' state for dev under options o: the bin layout, each
 * group's method, the profile's methods and, for a device that works beside
 * the CPU threads, a cpu device for small products. */
static hsp_status engine_for(const hsp_options *o, hsp_pool *pool, hsp_device *dev, hsp_engine *e)
{
    hsp_status s = hsp_bins_layout(o->wavefront ? o->wavefront : dev->wavefront,
                                   o->local_mem ? o->local_mem : dev->local_mem,
                                   o->wavefront || o->local_mem ? 0 : dev->spgemm->medium_max, &e->bins);
    if (s == HSP_OK && dev->async && o->small_nnz > 0 && (s = hsp_device_cpu_open(pool, &e->cpu)) == HSP_OK)
        snprintf(e->cpu->description, sizeof e->cpu->description, "cpu (a small product)");
    for (int g = 0; g < HSP_NMETHODGROUPS && s == HSP_OK; g++) {
        if (e->cpu) e->cpu_method[g] = o->method[g] ? o->method[g] : e->cpu->spgemm->default_method[g];
        e->method[g] = o->method[g] ? o->method[g] : default_method(dev, g, o->deterministic);
        if (!(dev->spgemm->methods[g] & 1u << e->method[g]))
            s = hsp_fail(HSP_ERR_UNSUPPORTED, "method %s cannot run on the %s rows of device %s",
                         hsp_method_name(e->method[g]), hsp_group_name(g + 2), dev->description);
        else if (o->deterministic && !(dev->spgemm->exact[g] & 1u << e->method[g]))
            s = not_exact(dev, g, e->method[g]);
    }
    return s == HSP_OK ? hsp_profile_load(o, dev, &e->bins, &e->profile) : s;
}

/* Make dev the context's device, with its engine (engine_for).  On failure
 * the context is as it was and dev is not taken. */
static hsp_status take_device(hsp_context *ctx, hsp_device *dev)
{
    hsp_engine *e = calloc(1, sizeof *e);
    hsp_status s = e ? engine_for(&ctx->options, ctx->pool, dev, e) : hsp_fail(HSP_ERR_NOMEM, "no memory for a context");
    if (s != HSP_OK) {
        hsp_engine_free(e, 0);
        return s;
    }
    dev->deterministic = ctx->options.deterministic;
    ctx->device = dev, ctx->engine = e, ctx->options.device = dev->name;
    return HSP_OK;
}
/* The device "auto" chose failed its first product (with the error of
 * hsp_errmsg()): close it and make the next candidate that opens the
 * context's device, its note saying what failed and why. */
static hsp_status hand_over(hsp_context *ctx)
{
    hsp_device *failed = ctx->device, *dev;
    hsp_engine *old = ctx->engine;
    char note[sizeof failed->note];
    int next;
    snprintf(note, sizeof note, "%s", failed->note);
    hsp_note_passed(note, sizeof note, failed->name);
    hsp_status s = hsp_device_open_auto(ctx->auto_next, note, ctx->pool, &dev, &next);
    if (s == HSP_OK && (s = take_device(ctx, dev)) != HSP_OK) dev->destroy(dev);
    if (s != HSP_OK) return s;
    hsp_engine_free(old, failed->lost); /* a lost device may still write the job's arrays: left */
    failed->destroy(failed);
    ctx->auto_next = next;
    return HSP_OK;
}

hsp_status hsp_context_create(const hsp_options *o, hsp_context **out)
{
    hsp_options taken;
    if (!out) return hsp_fail(HSP_ERR_ARG, "hsp_context_create: out is NULL");
    *out = NULL;
    hsp_status s = hsp_options_take(o, &taken);
    double timeout = taken.device_timeout;
    if (s == HSP_OK && !timeout) s = default_timeout(&timeout);
    hsp_context *ctx = NULL;
    if (s == HSP_OK) s = hsp_context_new(&taken, timeout, &ctx);
    if (s != HSP_OK) return s;
    ctx->hand_over = hand_over;
    hsp_device *dev = NULL;
    s = hsp_device_open(ctx->options.device, ctx->pool, &dev, &ctx->auto_next);
    if (s == HSP_OK && (s = take_device(ctx, dev)) != HSP_OK) dev->destroy(dev);
    if (s != HSP_OK) {
        hsp_context_free(ctx);
        return s;
    }
    *out = ctx;
    return HSP_OK;
}

void hsp_context_free(hsp_context *ctx)
{
    if (!ctx) return;
    hsp_engine_free(ctx->engine, ctx->device && ctx->device->lost);
    if (ctx->device) ctx->device->destroy(ctx->device);
    hsp_context_release(ctx);
}
