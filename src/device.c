/* device.c: choosing a device by name. */
#include <string.h>
#include "device.h"
#include "internal.h"
#ifdef HSP_HAVE_OPENCL
#include "opencl.h"
#endif

hsp_status hsp_device_open(const char *name, hsp_pool *pool, hsp_device **out)
{
    *out = NULL;
#ifdef HSP_HAVE_OPENCL
    if (name && !strcmp(name, "auto") && ocl_first_gpu() >= 0) return hsp_device_opencl_open("opencl", pool, out);
    if (name && !strncmp(name, "opencl", 6) && (!name[6] || name[6] == ':' || name[6] == ','))
        return hsp_device_opencl_open(name, pool, out);
#define DEVICES "auto, cpu, opencl[:N]"
#else
    if (name && !strncmp(name, "opencl", 6))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "device '%s': this hspgemm was built without OpenCL "
                        "(install ocl-icd-opencl-dev and configure again)", name);
#define DEVICES "auto, cpu"
#endif
    if (!name || !strcmp(name, "auto") || !strcmp(name, "cpu")) return hsp_device_cpu_open(pool, out);
#ifdef HSP_HAVE_HSA
    if (!strncmp(name, "hsa", 3) && (!name[3] || name[3] == ':')) return hsp_device_hsa_open(name, out);
#else
    if (!strcmp(name, "hsa"))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "device 'hsa' is not built into this version of hspgemm "
                        "(devices: " DEVICES ")");
#endif
    return hsp_fail(HSP_ERR_ARG, "unknown device '%s' (devices: " DEVICES ")", name);
}
