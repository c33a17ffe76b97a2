/* device.c: choosing a device by name.  "auto" tries the hsa device, then
 * a GPU through OpenCL, then cpu; the device it takes carries a note of what
 * it passed over and why, and the context may hand over to the next of them
 * (hsp_context_hand_over). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "open/devices.h"
#include "spgemm/device_cpu.h"
#include "core/internal.h"
#ifdef HSP_HAVE_OPENCL
#include "device/opencl/opencl.h"
#define OPENCL_NAMES ", opencl[:N]"
#else
#define OPENCL_NAMES ""
#endif
#ifdef HSP_HAVE_HSA
#include "device/hsa/device_hsa.h"
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

/* A GPU back end's device (s its opening's status) given the features'
 * tables (device_gpu.c); closed again where that fails. */
static hsp_status with_features(hsp_status s, hsp_device **out)
{
    if (s != HSP_OK) return s;
    if ((s = gpu_device_init(*out)) != HSP_OK) {
        (*out)->destroy(*out);
        *out = NULL;
    }
    return s;
}

/* Open a device named explicitly. */
static hsp_status open_named(const char *name, hsp_pool *pool, hsp_device **out)
{
    if (!strcmp(name, "cpu")) return hsp_device_cpu_open(pool, out);
#ifdef HSP_HAVE_OPENCL
    if (names(name, "opencl")) return with_features(hsp_device_opencl_open(name, pool, out), out);
#endif
#ifdef HSP_HAVE_HSA
    if (names(name, "hsa")) return with_features(hsp_device_hsa_open(name, out), out);
#endif
    if (names(name, "opencl") || names(name, "hsa"))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "device '%.*s%s' is not built into this version of hspgemm "
                        "(devices: " DEVICES "; see doc/getting-started.md for the packages)", HSP_SHOWN(name));
    return hsp_fail(HSP_ERR_ARG, "unknown device '%.*s%s' (devices: " DEVICES ")", HSP_SHOWN(name));
}

/* Open candidate c of "auto" (HSP_AUTO_*); *tried is 0 where it is absent
 * (not built in, or no OpenCL GPU): passed over without a word. */
static hsp_status open_candidate(int c, hsp_pool *pool, hsp_device **out, int *tried)
{
    *tried = 1;
#ifdef HSP_HAVE_HSA
    if (c == HSP_AUTO_HSA) return with_features(hsp_device_hsa_open("hsa", out), out);
#endif
#ifdef HSP_HAVE_OPENCL
    if (c == HSP_AUTO_OPENCL && ocl_first_gpu() >= 0)
        return with_features(hsp_device_opencl_open("opencl", pool, out), out);
#endif
    if (c == HSP_AUTO_CPU) return hsp_device_cpu_open(pool, out);
    *tried = 0;
    return HSP_ERR_UNSUPPORTED;
}

void hsp_note_passed(char *note, size_t size, const char *name)
{
    size_t at = strlen(note);
    snprintf(note + at, size - at, "%sauto passed over %s: %s", at ? "; " : "", name, hsp_errmsg());
}

hsp_status hsp_device_open_auto(int from, const char *note, hsp_pool *pool, hsp_device **out, int *next)
{
    static const char *const name[] = {NULL, "hsa", "opencl", "cpu"};
    char passed[sizeof (*out)->note];
    hsp_status s = HSP_ERR_DEVICE;
    snprintf(passed, sizeof passed, "%s", note);
    for (int c = from; c <= HSP_AUTO_CPU; c++) {
        int tried;
        if ((s = open_candidate(c, pool, out, &tried)) == HSP_OK) {
            memcpy((*out)->note, passed, sizeof passed);
            *next = c < HSP_AUTO_CPU ? c + 1 : HSP_AUTO_NONE;
            hsp_clear_error();
            return HSP_OK;
        }
        if (tried) hsp_note_passed(passed, sizeof passed, name[c]);
    }
    return s;
}

hsp_status hsp_device_open(const char *name, hsp_pool *pool, hsp_device **out, int *next)
{
    *out = NULL, *next = HSP_AUTO_NONE;
    return !name || !strcmp(name, "auto") ? hsp_device_open_auto(HSP_AUTO_HSA, "", pool, out, next)
                                          : open_named(name, pool, out);
}
