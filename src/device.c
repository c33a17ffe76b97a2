/* device.c: choosing a device by name.  "auto" tries the hsa device, then
 * a GPU through OpenCL, then cpu; the device it takes carries a note of what
 * it passed over and why. */
#include <stdio.h>
#include <stdlib.h>
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

/* The number of the flag that is the len characters at p, or -1. */
static int flag_of(const char *p, size_t len, const char *const *flags, int nflags)
{
    for (int j = 0; j < nflags; j++)
        if (strlen(flags[j]) == len && !strncmp(p, flags[j], len)) return j;
    return -1;
}

hsp_status hsp_device_spec(const char *spec, const char *prefix, const char *const *flags, int nflags, int *index,
                           unsigned *set)
{
    const char *p = spec + strlen(prefix);
    char *end, usage[128];
    int at = snprintf(usage, sizeof usage, "%s[:N]", prefix);
    *index = -1, *set = 0;
    if (*p == ':') {
        long n = strtol(p + 1, &end, 10);
        if (end == p + 1 || n < 0 || n > 1000) goto bad;
        *index = (int)n, p = end;
    }
    while (*p == ',') {
        size_t len = strcspn(p + 1, ",");
        int j = flag_of(p + 1, len, flags, nflags);
        if (j < 0) goto bad;
        *set |= 1u << j, p += 1 + len;
    }
    if (!*p) return HSP_OK;
bad:
    for (int j = 0; j < nflags && at < (int)sizeof usage; j++)
        at += snprintf(usage + at, sizeof usage - at, "[,%s]", flags[j]);
    return hsp_fail(HSP_ERR_ARG, "bad device '%s': give %s (N from `hspgemm devices`)", spec, usage);
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
