/* opencl_profile.c: with HSPGEMM_PROFILE set (not "0"), the opencl device
 * times every kernel it launches by OpenCL's event profiling, sums the times
 * per kernel and prints them to stderr when the device closes: where a
 * product's device time goes, on GPUs whose profilers do not see OpenCL. */
#include <stdio.h>
#include <stdlib.h>
#include "device/opencl/opencl.h"

enum { PENDING_MAX = 512 };

struct ocl_profile {
    cl_event event[PENDING_MAX];
    int kernel[PENDING_MAX];
    int pending;
    double ms[GK_COUNT];
    long long launches[GK_COUNT];
};

ocl_profile *ocl_profile_new(void)
{
    const char *v = getenv("HSPGEMM_PROFILE");
    return v && *v && (v[0] != '0' || v[1]) ? calloc(1, sizeof(ocl_profile)) : NULL;
}

/* Add the times of the pending launches, which have ended or end now. */
void ocl_profile_collect(ocl_profile *p)
{
    if (!p || !p->pending) return;
    clWaitForEvents((cl_uint)p->pending, p->event);
    for (int k = 0; k < p->pending; k++) {
        cl_ulong t0 = 0, t1 = 0;
        clGetEventProfilingInfo(p->event[k], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        clGetEventProfilingInfo(p->event[k], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        p->ms[p->kernel[k]] += t1 > t0 ? (double)(t1 - t0) * 1e-6 : 0.0;
        p->launches[p->kernel[k]]++;
        clReleaseEvent(p->event[k]);
    }
    p->pending = 0;
}

void ocl_profile_add(ocl_profile *p, int kernel, cl_event event)
{
    if (p->pending == PENDING_MAX) ocl_profile_collect(p);
    p->kernel[p->pending] = kernel, p->event[p->pending++] = event;
}

void ocl_profile_print(ocl_profile *p, const char *device)
{
    char name[24];
    double total = 0;
    if (!p) return;
    ocl_profile_collect(p);
    for (int k = 0; k < GK_COUNT; k++) total += p->ms[k];
    fprintf(stderr, "hspgemm profile, %s: kernel, feature, launches, ms in all, ms a launch\n", device);
    for (int k = 0; k < GK_COUNT; k++)
        if (p->launches[k])
            fprintf(stderr, "  %-14s %-6s %8lld %12.3f %12.4f\n", gpu_kernel_name(k, name),
                    gpu_feature_name(gpu_kernel_of(k)->feature), p->launches[k], p->ms[k],
                    p->ms[k] / (double)p->launches[k]);
    fprintf(stderr, "  %-14s %-6s %8s %12.3f\n", "all", "", "", total);
    free(p);
}
