/* device.c: choosing a device by name. */
#include <string.h>
#include "device.h"
#include "internal.h"

hsp_status hsp_device_open(const char *name, hsp_pool *pool, hsp_device **out)
{
    *out = NULL;
    if (!name || !strcmp(name, "auto") || !strcmp(name, "cpu"))
        return hsp_device_cpu_open(pool, out);
    if (!strcmp(name, "opencl") || !strncmp(name, "opencl:", 7) || !strcmp(name, "hsa"))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "device '%s' is not built into this version "
                        "of hspgemm (devices: auto, cpu)", name);
    return hsp_fail(HSP_ERR_ARG, "unknown device '%s' (devices: auto, cpu)", name);
}
