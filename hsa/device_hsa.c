/* device_hsa.c: opening the hsa device.  It finds the GPU agents; kernel
 * dispatch (code object loading, kernel arguments, AQL packets) is not built
 * yet, so a machine with an AMD GPU gets a clear "not supported" and the
 * other devices remain. */
#include <stdlib.h>
#include <string.h>
#include "agents.h"
#include "device.h"
#include "internal.h"

hsp_status hsp_device_hsa_open(const char *spec, hsp_device **out)
{
    hsp_hsa_agent list[16];
    char why[256] = "", *end;
    int count = 0, index = 0;
    *out = NULL;
    if (spec[3] == ':') {
        long n = strtol(spec + 4, &end, 10);
        if (end == spec + 4 || *end || n < 0 || n > 1000)
            return hsp_fail(HSP_ERR_ARG, "bad device '%s': give hsa[:N]", spec);
        index = (int)n;
    } else if (spec[3]) {
        return hsp_fail(HSP_ERR_ARG, "bad device '%s': give hsa[:N]", spec);
    }
    hsp_status s = hsp_hsa_agents(list, 16, &count, why, sizeof why);
    if (s != HSP_OK) return s;
    if (index > 0 && index >= count)
        return hsp_fail(HSP_ERR_ARG, "no HSA GPU %d: there are %d%s%s", index, count, *why ? ": " : "", why);
    if (!count) return hsp_fail(HSP_ERR_DEVICE, "device 'hsa': %s", why);
    return hsp_fail(HSP_ERR_UNSUPPORTED, "device 'hsa': found %s (%s), but this version cannot dispatch "
                    "kernels on it yet; use --device=opencl (AMD's OpenCL) or --device=cpu",
                    list[index].name, list[index].product);
}
