/* cmd_devices.c: `hspgemm devices`: the devices of every back end built in. */
#include <string.h>
#include "cli.h"

static const char usage_devices[] =
    "usage: hspgemm devices\n"
    "Lists the devices --device= takes: cpu, then every OpenCL device of every platform,\n"
    "then every AMD GPU the HSA runtime sees, with the wavefront width and local memory\n"
    "its bins are laid out for, double precision, and the memory it shares with the host\n"
    "(system SVM, svm, svm mapped: the host's own arrays, long rows grow by realloc;\n"
    "buffer SVM, buffers, pool: grow by copy); under an hsa device in a pool, what\n"
    "host arrays in place would take on it (XNACK).\n"
    "--device=auto takes the first usable hsa device, else the first GPU, else cpu.\n";

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

int cmd_devices(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(argc, argv, "", usage_devices, &a);
    if (rc) return rc == 1 ? 0 : rc;
    if (a.noperands) return cli_usage_error(a.name, "takes no arguments");
    hsp_device_info list[33];
    int count = 0;
    hsp_status s = hsp_devices(list, 33, &count);
    if (s != HSP_OK) return cli_error("devices", s);
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
