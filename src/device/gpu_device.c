/* gpu_device.c: a device over any GPU back end (device/gpu.h): made, closed
 * (a lost one keeps what the GPU was given), its limits, and the arrays it
 * holds of its own (hold, home, drop) where it does not use host arrays in
 * place.  The features' tables are given to it above (src/open). */
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "device/gpu.h"

/* Resident arrays freed (those of a lost device are left to it). */
static void gpu_drop(hsp_device *dev, void *held)
{
    gpu *g = dev->state;
    gpu_held *h = held;
    if (!h || g->lost) return;
    g->ops->finish(g); /* a launch may still read them (an idle queue: products wait for their C) */
    for (int k = 0; k < HSP_HELD_MAX; k++) gpu_array_free(g, &h->a[k]);
    free(h);
}

/* n host arrays into arrays of the device's own. */
static hsp_status gpu_hold(hsp_device *dev, int n, const void *const *host, const size_t *bytes, void **held)
{
    gpu *g = dev->state;
    gpu_held *h = calloc(1, sizeof *h);
    hsp_status s = h ? HSP_OK : hsp_fail(HSP_ERR_NOMEM, "no memory for resident arrays");
    for (int k = 0; k < n && s == HSP_OK; k++) {
        s = gpu_array_new(g, &h->a[k], bytes[k]);
        if (s == HSP_OK && host[k]) s = gpu_array_write(g, &h->a[k], host[k], bytes[k]);
    }
    if (s != HSP_OK) gpu_drop(dev, h), h = NULL;
    *held = h;
    return gpu_noted(dev, s);
}

/* The first n resident arrays into host arrays. */
static hsp_status gpu_home(hsp_device *dev, void *held, int n, void *const *host, const size_t *bytes)
{
    gpu *g = dev->state;
    gpu_held *h = held;
    hsp_status s = HSP_OK;
    for (int k = 0; k < n && s == HSP_OK; k++) s = gpu_array_read(g, &h->a[k], host[k], bytes[k]);
    return gpu_noted(dev, s);
}

/* The first n resident arrays written from host arrays. */
static hsp_status gpu_held_put(hsp_device *dev, void *held, int n, const void *const *host, const size_t *bytes)
{
    gpu *g = dev->state;
    gpu_held *h = held;
    hsp_status s = HSP_OK;
    for (int k = 0; k < n && s == HSP_OK; k++) s = gpu_array_write(g, &h->a[k], host[k], bytes[k]);
    return gpu_noted(dev, s);
}

/* Close the device; a lost one keeps every array and table the GPU was given. */
static void gpu_destroy(hsp_device *dev)
{
    gpu *g = dev->state;
    if (g) {
        if (!g->lost) g->ops->finish(g); /* which may lose it */
        for (int a = 0; a < GA_COUNT && !g->lost; a++) gpu_release(g, a);
        if (!g->lost) gpu_spares_free(g);
        g->ops->close(g);
        if (dev->features_free) dev->features_free(dev);
        if (!g->lost) free(g);
    }
    free(dev);
}

hsp_status gpu_device_new(const gpu_ops *ops, size_t state_bytes, const char *name, hsp_device **dev)
{
    gpu *g = calloc(1, sizeof *g);
    void *backend = calloc(1, state_bytes);
    *dev = calloc(1, sizeof **dev);
    if (!*dev || !g || !backend) {
        free(*dev), free(g), free(backend);
        *dev = NULL;
        return hsp_fail(HSP_ERR_NOMEM, "no memory for the %s device", name);
    }
    g->ops = ops, g->backend = backend, g->timeout_s = HSP_DEVICE_TIMEOUT;
    (*dev)->state = g, (*dev)->destroy = gpu_destroy;
    return HSP_OK;
}

/* Every launched kernel and transfer done. */
static hsp_status gpu_finish(hsp_device *dev)
{
    gpu *g = dev->state;
    return gpu_noted(dev, g->ops->finish(g));
}

void gpu_device_ready(hsp_device *dev)
{
    gpu *g = dev->state;
    dev->local_mem = g->local_mem < (64 << 10) ? g->local_mem : 64 << 10;
    dev->compute_units = g->compute_units;
    dev->host_realloc = g->host_arrays;
    dev->async = 1;
    dev->finish = gpu_finish;
    if (!g->host_arrays) dev->hold = gpu_hold, dev->home = gpu_home, dev->put = gpu_held_put, dev->drop = gpu_drop;
}
