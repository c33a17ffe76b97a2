/* devices.c: the list of devices of every back end built in. */
#include <stdio.h>
#include <string.h>
#include "core/internal.h"
#include "core/pool.h"
#ifdef HSP_HAVE_OPENCL
#include "device/opencl/opencl.h"
#endif
#ifdef HSP_HAVE_HSA
#include "device/hsa/agents.h"
#include "device/hsa/hsa_gpu.h"
#endif

/* Entry at of list (cleared and named prefix:k, or prefix alone when k < 0),
 * or NULL past max. */
static hsp_device_info *entry(hsp_device_info *list, int max, int at, const char *prefix, int k)
{
    if (at >= max) return NULL;
    hsp_device_info *d = &list[at];
    memset(d, 0, sizeof *d);
    if (k < 0) snprintf(d->name, sizeof d->name, "%s", prefix);
    else snprintf(d->name, sizeof d->name, "%s:%d", prefix, k);
    return d;
}

/* The cpu device's entry. */
static void cpu_info(hsp_device_info *d)
{
    snprintf(d->description, sizeof d->description, "CPU threads (%d cores)", hsp_cpu_count());
    d->wavefront = 32, d->local_mem = 48 << 10, d->fp64 = 1;
    snprintf(d->memory, sizeof d->memory, "host");
    d->usable = 1;
}

hsp_status hsp_devices(hsp_device_info *list, int max, int *count)
{
    if (!count || (max > 0 && !list)) return hsp_fail(HSP_ERR_ARG, "hsp_devices: list or count is NULL");
    *count = 1;
    hsp_device_info *d = entry(list, max, 0, "cpu", -1);
    if (d) cpu_info(d);
#ifdef HSP_HAVE_OPENCL
    ocl_info cl[32];
    int n = 0;
    hsp_status s = ocl_devices(cl, 32, &n);
    if (s != HSP_OK) return s;
    for (int k = 0; k < n && k < 32; k++, ++*count) {
        if (!(d = entry(list, max, *count, "opencl", k))) continue;
        snprintf(d->description, sizeof d->description, "%.80s (%.40s)", cl[k].name, cl[k].platform_name);
        d->is_gpu = cl[k].is_gpu, d->wavefront = cl[k].wavefront, d->fp64 = cl[k].fp64;
        d->local_mem = cl[k].local_mem, d->usable = 1;
        snprintf(d->memory, sizeof d->memory, "%s", ocl_svm_name(cl[k].svm));
        snprintf(d->version, sizeof d->version, "%.63s, driver %.31s", cl[k].platform_version, cl[k].driver_version);
    }
#endif
#ifdef HSP_HAVE_HSA
    hsp_hsa_agent gpu[16];
    char why[256];
    int ngpu = 0;
    hsp_status h = hsp_hsa_agents(gpu, 16, &ngpu, why, sizeof why);
    if (h != HSP_OK) return h;
    for (int k = 0; k < ngpu && k < 16; k++, ++*count) {
        if (!(d = entry(list, max, *count, "hsa", k))) continue;
        d->usable = hsp_code_object_match(gpu[k].isa, 0) != NULL;
        snprintf(d->description, sizeof d->description, "%.20s %.30s (HSA, %s%s)", gpu[k].name, gpu[k].product,
                 gpu[k].shared ? "memory shared with the host" : "own memory",
                 d->usable ? "" : "; no code object for it in this build");
        d->is_gpu = 1, d->wavefront = gpu[k].wavefront, d->local_mem = gpu[k].local_mem, d->fp64 = 1;
        hsa_mem_mode mode = hsa_choose_memory(gpu[k].svm, gpu[k].svm_default, HSA_WANT_DEFAULT);
        snprintf(d->memory, sizeof d->memory, "%s", hsa_memory_name(mode));
        snprintf(d->version, sizeof d->version, "%s", gpu[k].version);
        if (mode == HSA_MEM_POOL) snprintf(d->note, sizeof d->note, "%s", hsa_xnack_hint(gpu[k].name));
    }
#endif
    return HSP_OK;
}
