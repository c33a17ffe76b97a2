/* device_spec.c: reading a device's name, "prefix[:N][,flag]...", for the
 * back ends that open devices by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device/device.h"
#include "core/internal.h"

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
    return hsp_fail(HSP_ERR_ARG, "bad device '%.*s%s': give %s (N from `hspgemm devices`)", HSP_SHOWN(spec), usage);
}
