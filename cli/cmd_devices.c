/* cmd_devices.c: `hspgemm devices`: the devices of every back end built in. */
#include <string.h>
#include "cli.h"

static const char usage_devices[] =
    "usage: hspgemm devices [--build [--device=NAME]] [--quiet]\n"
    "Lists the devices --device= takes: cpu, then every OpenCL device of every platform,\n"
    "then every AMD GPU the HSA runtime sees, with the wavefront width and local memory\n"
    "its bins are laid out for, double precision, and the memory it shares with the host\n"
    "(system SVM, svm, svm mapped: the host's own arrays, long rows grow by realloc;\n"
    "buffer SVM, buffers, pool: grow by copy); under an hsa device in a pool, what\n"
    "host arrays in place would take on it (XNACK).\n"
    "--device=auto takes the first usable hsa device, else the first GPU, else cpu.\n"
    "--build: opens each usable OpenCL device (or --device's), which builds its kernels in\n"
    "both precisions where they are not in the on-disk cache yet (about 10 s on an NVIDIA\n"
    "GPU, 20 s on Intel's CPU runtime, minutes on PoCL; a line while it builds, unless\n"
    "--quiet), so that a later first product does not wait; a line a device. Exit status 1\n"
    "where one failed. The hsa device's kernels are built with the library.\n";

/* The entry device auto takes: the first usable hsa agent, else the first
 * GPU, else cpu (entry 0). */
static int auto_entry(const hsp_device_info *list, int n)
{
    for (int k = 0; k < n; k++)
        if (list[k].usable && !strncmp(list[k].name, "hsa", 3)) return k;
    for (int k = 0; k < n; k++)
        if (list[k].usable && list[k].is_gpu) return k;
    return 0;
}

/* Is entry e one --build opens: a usable OpenCL device, the one named (--device; NULL: any)? */
static int to_build(const char *named, const hsp_device_info *e)
{
    size_t n = strlen(e->name);
    if (!e->usable || strncmp(e->name, "opencl", 6)) return 0;
    return !named || (!strncmp(named, e->name, n) && (!named[n] || named[n] == ','));
}

/* --build: each device to_build takes opened and closed, its kernels built
 * (or found in the cache); a line each; 1 where one failed. */
static int build_kernels(const cli_args *a, const hsp_device_info *list, int n)
{
    const char *named = a->lib.device && strcmp(a->lib.device, "auto") ? a->lib.device : NULL;
    int failed = 0, opened = 0;
    for (int k = 0; k < n; k++) {
        if (!to_build(named, &list[k])) continue;
        hsp_options o = a->lib;
        hsp_context *ctx = NULL;
        o.device = named ? named : list[k].name;
        double start = cli_now_ms();
        hsp_status s = hsp_context_create(&o, &ctx);
        printf("%-10s %s: %s (%.1f s)\n", list[k].name, list[k].description,
               s == HSP_OK ? "kernels ready" : hsp_errmsg(), (cli_now_ms() - start) / 1e3);
        hsp_context_free(ctx);
        failed |= s != HSP_OK, opened++;
    }
    if (!opened && named) return cli_usage_error("devices", "--build --device=%s: no usable OpenCL device of that name "
                                                 "(cpu and hsa have no kernels to build)", named);
    if (!opened) fprintf(stderr, "hspgemm: devices --build: no usable OpenCL device here: nothing to build\n");
    return failed;
}

int cmd_devices(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(argc, argv, "build,device,quiet", usage_devices, &a);
    if (rc) return rc == 1 ? 0 : rc;
    if (a.noperands) return cli_usage_error(a.name, "takes no arguments");
    hsp_device_info list[33];
    int count = 0;
    hsp_status s = hsp_devices(list, 33, &count);
    if (s != HSP_OK) return cli_error("devices", s);
    if (a.build) return build_kernels(&a, list, count < 33 ? count : 33);
    int autodev = auto_entry(list, count < 33 ? count : 33);
    printf("%-10s %-4s %4s %10s %-5s %-11s %s\n", "device", "gpu", "W", "local mem", "fp64",
           "memory", "description");
    for (int k = 0; k < count && k < 33; k++) {
        printf("%-10s %-4s %4d %9lldK %-5s %-11s %s%s\n", list[k].name, list[k].is_gpu ? "yes" : "no",
               list[k].wavefront, (long long)(list[k].local_mem >> 10), list[k].fp64 ? "yes" : "no",
               list[k].memory, list[k].description, k == autodev ? "  [auto]" : "");
        if (*list[k].note) printf("%-10s %s\n", "", list[k].note);
    }
    return 0;
}
