/* cmd_devices.c: `hspgemm devices`: the devices of every back end built in. */
#include <string.h>
#include "cli.h"

static const char usage_devices[] =
    "usage: hspgemm devices\n"
    "Lists the devices --device= takes: cpu, then every OpenCL device of every platform,\n"
    "with the wavefront width and local memory its bins are laid out for, double\n"
    "precision, and the memory it shares with the host (system SVM: the host's own\n"
    "arrays, long rows grow by realloc; buffer SVM or buffers: grow by copy).\n"
    "--device=auto takes the first GPU, else cpu.\n";

int cmd_devices(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(argc, argv, "", usage_devices, &a);
    if (rc) return rc == 1 ? 0 : rc;
    if (a.noperands) {
        fprintf(stderr, "hspgemm: devices takes no arguments\n%s", usage_devices);
        return 2;
    }
    hsp_device_info list[33];
    int count = 0, autodev = 0;
    hsp_status s = hsp_devices(list, 33, &count);
    if (s != HSP_OK) return cli_error("devices", s);
    for (int k = count < 33 ? count - 1 : 32; k > 0; k--)
        if (list[k].is_gpu) autodev = k;
    printf("%-10s %-4s %4s %10s %-5s %-11s %s\n", "device", "gpu", "W", "local mem", "fp64",
           "memory", "description");
    for (int k = 0; k < count && k < 33; k++)
        printf("%-10s %-4s %4d %9lldK %-5s %-11s %s%s\n", list[k].name, list[k].is_gpu ? "yes" : "no",
               list[k].wavefront, (long long)(list[k].local_mem >> 10), list[k].fp64 ? "yes" : "no",
               list[k].memory, list[k].description, k == autodev ? "  [auto]" : "");
    return 0;
}
