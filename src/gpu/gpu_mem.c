/* gpu_mem.c: the arrays of a GPU device.  Where host arrays are used in
 * place they are passed as they are; otherwise arrays are the back end's,
 * kept between jobs and grown when short, and filled by memcpy where the
 * host sees them or by the back end's transfers.  Their bytes are counted
 * for the device memory figures. */
#include <stdlib.h>
#include <string.h>
#include "gpu.h"
#include "internal.h"

/* Room for at least this many bytes, so that no array is empty. */
enum { MIN_BYTES = 64 };

static void count_bytes(gpu *g, int64_t delta)
{
    g->device_bytes += delta;
    if (g->device_bytes > g->peak_device_bytes) g->peak_device_bytes = g->device_bytes;
}

hsp_status gpu_array_new(gpu *g, gpu_array *x, size_t bytes)
{
    memset(x, 0, sizeof *x);
    if (bytes < MIN_BYTES) bytes = MIN_BYTES;
    if (g->host_arrays) x->ptr = hsp_alloc(bytes);
    hsp_status s = g->host_arrays ? HSP_OK : g->ops->alloc(g, x, bytes);
    if (s == HSP_OK && g->host_arrays && x->ptr && g->ops->map_host) s = g->ops->map_host(g, x->ptr, bytes, 1);
    if (s == HSP_OK && !x->ptr && !x->mem) s = hsp_fail(HSP_ERR_NOMEM, "no memory for %zu bytes", bytes);
    if (s != HSP_OK) {
        if (g->host_arrays) free(x->ptr);
        memset(x, 0, sizeof *x);
        return s;
    }
    x->bytes = bytes, x->owned = 1;
    count_bytes(g, (int64_t)bytes);
    return HSP_OK;
}

void gpu_array_free(gpu *g, gpu_array *x)
{
    if (x->owned) {
        if (g->host_arrays && g->ops->unmap_host) g->ops->unmap_host(g, x->ptr);
        if (g->host_arrays) free(x->ptr);
        else g->ops->free(g, x);
        count_bytes(g, -(int64_t)x->bytes);
    }
    memset(x, 0, sizeof *x);
}

void gpu_release(gpu *g, int which)
{
    gpu_array_free(g, &g->a[which]);
}

hsp_status gpu_reserve(gpu *g, int which, size_t bytes)
{
    gpu_array *x = &g->a[which];
    if (x->owned && bytes <= x->bytes) return HSP_OK;
    gpu_array_free(g, x);
    return gpu_array_new(g, x, bytes);
}

hsp_status gpu_upload(gpu *g, int which, const void *host, size_t bytes)
{
    gpu_array *x = &g->a[which];
    if (g->host_arrays && host && bytes) { /* the host array itself */
        gpu_array_free(g, x);
        hsp_status s = g->ops->map_host ? g->ops->map_host(g, (void *)host, bytes, 0) : HSP_OK;
        g->host_wrote = 1;
        if (s == HSP_OK) x->ptr = (void *)host, x->bytes = bytes;
        return s;
    }
    hsp_status s = gpu_reserve(g, which, bytes);
    return s != HSP_OK || !host ? s : gpu_array_write(g, x, host, bytes);
}

hsp_status gpu_array_write(gpu *g, gpu_array *x, const void *host, size_t bytes)
{
    if (!bytes) return HSP_OK;
    g->moved[0] += (int64_t)bytes;
    g->host_wrote = 1;
    if (x->ptr) {
        memcpy(x->ptr, host, bytes);
        return HSP_OK;
    }
    return g->ops->write(g, x, host, bytes);
}

hsp_status gpu_download(gpu *g, int which, void *host, size_t bytes)
{
    return gpu_array_read(g, &g->a[which], host, bytes);
}

hsp_status gpu_array_read(gpu *g, gpu_array *x, void *host, size_t bytes)
{
    if (!bytes) return HSP_OK;
    if (x->ptr != host) g->moved[1] += (int64_t)bytes;
    if (!x->ptr) return g->ops->read(g, x, host, bytes);
    hsp_status s = g->ops->finish(g);
    if (s == HSP_OK && x->ptr != host) memcpy(host, x->ptr, bytes);
    return s;
}

hsp_status gpu_array_copy(gpu *g, gpu_array *dst, gpu_array *src, size_t bytes)
{
    if (!bytes) return HSP_OK;
    if (!dst->ptr || !src->ptr) return g->ops->copy(g, dst, src, bytes);
    hsp_status s = g->ops->finish(g); /* host-visible memory: what the queue wrote first */
    if (s == HSP_OK) memcpy(dst->ptr, src->ptr, bytes);
    g->host_wrote = 1;
    return s;
}

const gpu_array *gpu_array_of(gpu *g, int which)
{
    if (g->b_is_a && which >= GA_BRP && which <= GA_BVAL) which -= GA_BRP - GA_ARP;
    if (which >= GA_ARP && which <= GA_AVAL && g->held[0]) return &g->held[0][which - GA_ARP];
    if (which >= GA_BRP && which <= GA_BVAL && g->held[1]) return &g->held[1][which - GA_BRP];
    return &g->a[which];
}

hsp_status gpu_grow(gpu *g, int which, size_t bytes, size_t keep, int use_realloc, int64_t *copied, int *moved)
{
    gpu_array *x = &g->a[which], old = *x;
    *moved = 0;
    g->host_wrote = 1;
    if (use_realloc && g->host_arrays && x->owned) {
        if (g->ops->unmap_host) g->ops->unmap_host(g, x->ptr);
        void *p = realloc(x->ptr, bytes);
        if (!p) return hsp_fail(HSP_ERR_NOMEM, "no memory to grow the long-row pool to %zu bytes", bytes);
        *moved = p != x->ptr;
        count_bytes(g, (int64_t)(bytes - x->bytes));
        x->ptr = p, x->bytes = bytes;
        hsp_status s = g->ops->map_host ? g->ops->map_host(g, p, bytes, 1) : HSP_OK;
        if (s != HSP_OK) gpu_array_free(g, x); /* the GPU cannot reach it: no later product may take it */
        return s;
    }
    hsp_status s = gpu_array_new(g, x, bytes);
    if (s != HSP_OK) {
        *x = old;
        return s;
    }
    if (keep && x->ptr) memcpy(x->ptr, old.ptr, keep);
    else if (keep) s = g->ops->copy(g, x, &old, keep);
    gpu_array_free(g, &old);
    *copied += (int64_t)keep;
    return s;
}
