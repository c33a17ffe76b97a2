/* device_cpu.c: the cpu device.  It computes every row on the context's
 * thread pool, straight into C (direct.c). */
#include <stdio.h>
#include <stdlib.h>
#include "device/device.h"
#include "spgemm/device_cpu.h"
#include "spgemm/spgemm_device.h"
#include "core/internal.h"

static void cpu_destroy(hsp_device *dev)
{
    free(dev->spgemm);
    free(dev);
}

/* Every method on every group, each exact (a row a thread), dense by default. */
static void cpu_methods(hsp_spgemm_device *d)
{
    d->medium_max = 1024; /* rows up to u = 1024 are medium (doc/design.md: a long row's buffer cost
                             poisson3d27:30, u = 729, a third of its time) */
    d->direct = 1;
    for (int g = 0; g < HSP_NMETHODGROUPS; g++) {
        d->default_method[g] = HSP_METHOD_DENSE;
        d->methods[g] = d->exact[g] = ((1u << (HSP_METHOD_AUTO + 1)) - 1) & ~1u;
    }
}

hsp_status hsp_device_cpu_open(hsp_pool *pool, hsp_device **out)
{
    hsp_device *dev = calloc(1, sizeof *dev);
    hsp_spgemm_device *d = calloc(1, sizeof *d);
    (void)pool;
    if (!dev || !d) {
        free(dev), free(d);
        return hsp_fail(HSP_ERR_NOMEM, "no memory for the cpu device");
    }
    dev->name = "cpu";
    snprintf(dev->description, sizeof dev->description, "cpu");
    dev->wavefront = 32;       /* the paper's layout: 38 bins, */
    dev->local_mem = 48 << 10; /* a core's L1 data cache is of this order, but medium_max below */
    dev->host_realloc = 1;
    cpu_methods(d);
    dev->spgemm = d;
    dev->destroy = cpu_destroy;
    *out = dev;
    return HSP_OK;
}
