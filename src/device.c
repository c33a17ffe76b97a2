/* device.c: choosing a device by name.  "auto" tries the hsa device, then
 * a GPU through OpenCL, then cpu; the device it takes carries a note of what
 * it passed over and why. */
#include <stdio.h>
#include <string.h>
#include "device.h"
#include "internal.h"
#ifdef HSP_HAVE_OPENCL
#include "opencl.h"
#define OPENCL_NAMES ", opencl[:N]"
#else
#define OPENCL_NAMES ""
#endif
#ifdef HSP_HAVE_HSA
#define HSA_NAMES ", hsa[:N]"
#else
#define HSA_NAMES ""
#endif
#define DEVICES "auto, cpu" OPENCL_NAMES HSA_NAMES

/* Is name the device prefix, alone or followed by ':' or ','? */
static int names(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    return !strncmp(name, prefix, n) && (!name[n] || name[n] == ':' || name[n] == ',');
}

/* Open a device named explicitly. */
static hsp_status open_named(const char *name, hsp_pool *pool, hsp_device **out)
{
    if (!strcmp(name, "cpu")) return hsp_device_cpu_open(pool, out);
#ifdef HSP_HAVE_OPENCL
    if (names(name, "opencl")) return hsp_device_opencl_open(name, pool, out);
#endif
#ifdef HSP_HAVE_HSA
    if (names(name, "hsa")) return hsp_device_hsa_open(name, out);
#endif
    if (names(name, "opencl") || names(name, "hsa"))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "device '%s' is not built into this version of hspgemm "
                        "(devices: " DEVICES "; see README for the packages)", name);
    return hsp_fail(HSP_ERR_ARG, "unknown device '%s' (devices: " DEVICES ")", name);
}

/* "auto": the first of hsa, an OpenCL GPU and cpu that opens. */
static hsp_status open_auto(hsp_pool *pool, hsp_device **out)
{
    char note[sizeof (*out)->note] = "";
    hsp_status s = HSP_ERR_DEVICE;
#ifdef HSP_HAVE_HSA
    s = hsp_device_hsa_open("hsa", out);
    if (s != HSP_OK) snprintf(note, sizeof note, "auto passed over hsa: %s", hsp_errmsg());
#endif
#ifdef HSP_HAVE_OPENCL
    if (s != HSP_OK && ocl_first_gpu() >= 0) s = hsp_device_opencl_open("opencl", pool, out);
#endif
    if (s != HSP_OK) s = hsp_device_cpu_open(pool, out);
    if (s == HSP_OK) {
        memcpy((*out)->note, note, sizeof note);
        hsp_clear_error();
    }
    return s;
}

hsp_status hsp_device_open(const char *name, hsp_pool *pool, hsp_device **out)
{
    *out = NULL;
    return !name || !strcmp(name, "auto") ? open_auto(pool, out) : open_named(name, pool, out);
}
