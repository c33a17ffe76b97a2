/* gpu_mem.c: the arrays of a GPU device.  Where host arrays are used in
 * place they are passed as they are; otherwise arrays are the back end's,
 * kept between jobs and grown when short, and filled by memcpy where the
 * host sees them or by the back end's transfers.  Freed ones are kept as
 * spares for the next (a resident product's C takes the arrays of the C
 * freed before it).  Their bytes are counted for the device memory figures. */
#include <stdlib.h>
#include <string.h>
#include "device/gpu.h"
#include "core/internal.h"

/* Room for at least this many bytes, so that no array is empty. */
enum { MIN_BYTES = 64 };

static void count_bytes(gpu *g, int64_t delta)
{
    g->device_bytes += delta;
    if (g->device_bytes > g->peak_device_bytes) g->peak_device_bytes = g->device_bytes;
}

/* The smallest spare of at least bytes and at most twice that, or -1. */
static int spare_for(const gpu *g, size_t bytes)
{
    int best = -1;
    for (int k = 0; k < GPU_SPARES; k++) {
        size_t have = g->spare[k].bytes;
        if (have >= bytes && have / 2 <= bytes && (best < 0 || have < g->spare[best].bytes)) best = k;
    }
    return best;
}

/* Take a spare for an array of bytes into x; 0 when none fits.  The host
 * writes one it sees at once, so the queue must be done with it first. */
static int take_spare(gpu *g, gpu_array *x, size_t bytes)
{
    int k = spare_for(g, bytes);
    if (k < 0 || (g->spare[k].ptr && g->ops->finish(g) != HSP_OK)) return 0;
    *x = g->spare[k];
    memset(&g->spare[k], 0, sizeof g->spare[k]);
    return 1;
}

/* Free the array x of the back end (the queue done with it). */
static void free_array(gpu *g, gpu_array *x)
{
    g->ops->free(g, x);
    count_bytes(g, -(int64_t)x->bytes);
    memset(x, 0, sizeof *x);
}

/* Is a spare kept? */
static int any_spare(const gpu *g)
{
    for (int k = 0; k < GPU_SPARES; k++)
        if (g->spare[k].bytes) return 1;
    return 0;
}

void gpu_spares_free(gpu *g)
{
    for (int k = 0; k < GPU_SPARES; k++)
        if (g->spare[k].bytes) free_array(g, &g->spare[k]);
}

/* Keep the back end's array x as a spare, in place of the one kept longest
 * ago when all are taken (freed after the queue ran); 0 when x is not kept.
 * The spares follow the sizes of the latest products: an AMG set-up's first
 * levels left arrays that no coarse level's product could take, and each
 * coarse product allocated its own (half as slow again: doc/performance.md,
 * "Figures behind the code"). */
static int keep_spare(gpu *g, const gpu_array *x)
{
    int k = 0;
    for (int j = 1; j < GPU_SPARES && g->spare[k].bytes; j++)
        if (!g->spare[j].bytes || g->spare_kept[j] < g->spare_kept[k]) k = j;
    if (g->spare[k].bytes && g->ops->finish(g) != HSP_OK) return 0;
    if (g->spare[k].bytes) free_array(g, &g->spare[k]);
    g->spare[k] = *x;
    g->spare_kept[k] = ++g->spares_kept;
    return 1;
}

/* A new array of the back end's in x, after freeing the spares when memory is short. */
static hsp_status alloc_array(gpu *g, gpu_array *x, size_t bytes)
{
    hsp_status s = g->ops->alloc(g, x, bytes);
    if (s == HSP_OK || !any_spare(g) || g->ops->finish(g) != HSP_OK) return s;
    gpu_spares_free(g);
    memset(x, 0, sizeof *x);
    return g->ops->alloc(g, x, bytes);
}

hsp_status gpu_array_new(gpu *g, gpu_array *x, size_t bytes)
{
    memset(x, 0, sizeof *x);
    if (bytes < MIN_BYTES) bytes = MIN_BYTES;
    if (!g->host_arrays && take_spare(g, x, bytes)) return HSP_OK;
    if (g->host_arrays) x->ptr = hsp_alloc(bytes);
    hsp_status s = g->host_arrays ? HSP_OK : alloc_array(g, x, bytes);
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
    if (x->owned && g->host_arrays) {
        if (g->ops->unmap_host) g->ops->unmap_host(g, x->ptr);
        free(x->ptr);
        count_bytes(g, -(int64_t)x->bytes);
    } else if (x->owned && !keep_spare(g, x)) {
        free_array(g, x);
    }
    memset(x, 0, sizeof *x);
}

hsp_status gpu_arrays_new(gpu *g, gpu_array *x, const size_t *bytes, int n)
{
    hsp_status s = HSP_OK;
    for (int k = 0; k < n && s == HSP_OK; k++) s = gpu_array_new(g, &x[k], bytes[k]);
    if (s != HSP_OK) gpu_arrays_free(g, x, n);
    return s;
}

void gpu_arrays_free(gpu *g, gpu_array *x, int n)
{
    for (int k = 0; k < n; k++) gpu_array_free(g, &x[k]);
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

hsp_status gpu_put(gpu *g, int which, size_t offset, const void *host, size_t bytes)
{
    g->moved[0] += (int64_t)bytes;
    g->host_wrote = 1;
    return bytes ? g->ops->put(g, &g->a[which], offset, host, bytes) : HSP_OK;
}

hsp_status gpu_get(gpu *g, int which, size_t offset, void *host, size_t bytes)
{
    g->moved[1] += (int64_t)bytes;
    return bytes ? g->ops->get(g, &g->a[which], offset, host, bytes) : HSP_OK;
}

hsp_status gpu_download(gpu *g, int which, void *host, size_t bytes)
{
    return gpu_array_read(g, &g->a[which], host, bytes);
}

hsp_status gpu_array_read(gpu *g, gpu_array *x, void *host, size_t bytes)
{
    return gpu_array_read_at(g, x, 0, host, bytes);
}

hsp_status gpu_array_read_at(gpu *g, gpu_array *x, size_t offset, void *host, size_t bytes)
{
    const unsigned char *from = x->ptr ? (const unsigned char *)x->ptr + offset : NULL;
    if (!bytes) return HSP_OK;
    if (from != host) g->moved[1] += (int64_t)bytes;
    if (!from) return g->ops->read(g, x, offset, host, bytes);
    hsp_status s = g->ops->finish(g);
    if (s == HSP_OK && from != host) memcpy(host, from, bytes);
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

gpu_held *gpu_held_new(gpu *g, const size_t *bytes, int n, hsp_status *s)
{
    gpu_held *h = calloc(1, sizeof *h);
    *s = h ? gpu_arrays_new(g, h->a, bytes, n) : hsp_fail(HSP_ERR_NOMEM, "no memory for a resident matrix");
    if (*s == HSP_OK) return h;
    free(h);
    return NULL;
}

hsp_status gpu_held_result(gpu *g, hsp_status s, gpu_held *h, void **out)
{
    if (s == HSP_OK) *out = h;
    else if (h && !g->lost) gpu_arrays_free(g, h->a, HSP_HELD_MAX), free(h);
    return s;
}

hsp_status gpu_flag_read(gpu *g, gpu_array *x, int32_t n, int32_t *row)
{
    hsp_status s = g->ops->finish(g);
    if (s == HSP_OK) s = gpu_array_read(g, x, row, sizeof *row);
    if (s == HSP_OK && *row < n) return HSP_OK;
    *row = n;
    return s;
}

hsp_status gpu_done(gpu *g, hsp_status s, gpu_array *w, int n)
{
    if (s == HSP_OK) s = g->ops->finish(g);
    if (!g->lost) gpu_arrays_free(g, w, n);
    return s;
}
