/* opencl_launch.c: what one kernel launch and its wait cost on an OpenCL
 * device, by the kernel's arguments and the way the host waits; the
 * floor under every product hspgemm's opencl device makes, whatever its
 * work.  Each kernel is one work-group whose first work-item adds one to a
 * value, and touches every other array only where a value it is given is
 * nonzero (it is 0), so that none of them is an unused argument the
 * compiler could drop.  Not a peer: it times OpenCL itself, not hspgemm. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "peer.h"

static const char usage[] =
    "usage: opencl-launch [--platform=P] [--device=D] [--repeat=R]\n"
    "Times R launches (default 2000, after 50 untimed) of one-work-group kernels on OpenCL device\n"
    "D (default 0) of platform P (default 0), each launch alone: the microseconds in\n"
    "clEnqueueNDRangeKernel, in the wait, and in all, their medians and quartiles, by the kernel's\n"
    "arguments and the way of waiting; then the kernel's own time by profiling events.\n";

/* A kernel's arguments, one letter each: b an array (a buffer), n an array
 * given as NULL, i an int, l a long, d a double, s local memory; the first
 * is the array the kernel writes, the last int says whether it touches the
 * others (0: never). */
typedef struct {
    const char *what, *args;
} launch_case;

static const launch_case cases[] = {
    {"1 array", "bi"},
    {"1 array, 21 values", "biillilliiillllllddili"},
    {"7 arrays, 15 values, local (as hsp_spmm_lanes)", "biillilbbbbllblldiillbis"},
    {"the same, 2 of its arrays NULL", "biillilnbbbllblldiillnis"},
    {"12 arrays, 19 values, local (as hsp_spmm_both)", "biillilbbbbllblldiillbilbbbbbiis"},
};
enum { NCASES = sizeof cases / sizeof cases[0], MOST_ARGS = 40 };

/* Ways of waiting for a launch. */
typedef enum { WAIT_FINISH, WAIT_EVENT, WAIT_READ } wait_way;
static const char *const wait_names[] = {"clFinish", "clWaitForEvents", "a blocking read of 8 bytes"};

typedef struct {
    cl_context context;
    cl_device_id id;
    cl_command_queue queue;
    cl_mem arrays[MOST_ARGS];
    int repeat;
} bench;

static double now_us(void)
{
    return peer_now_ms() * 1e3;
}

/* x sorted, and its median and quartiles into q (bench/peer.c's). */
static void quartiles(double *x, int n, double q[3])
{
    q[1] = peer_median(x, n), q[0] = peer_quantile(x, n, 0.25), q[2] = peer_quantile(x, n, 0.75);
}

/* The OpenCL C of kernel k with the arguments of args (see launch_case). */
static void kernel_source(const char *args, char *src, size_t size)
{
    static const char *const type[128] = {['b'] = "__global double *", ['n'] = "__global double *",
                                          ['i'] = "int ", ['l'] = "long ", ['d'] = "double ",
                                          ['s'] = "__local double *"};
    size_t at = (size_t)snprintf(src, size, "__kernel void k(");
    int last_int = (int)(strrchr(args, 'i') - args);
    for (int j = 0; args[j]; j++) at += (size_t)snprintf(src + at, size - at, "%s%sa%d", j ? ", " : "", type[(int)args[j]], j);
    at += (size_t)snprintf(src + at, size - at, ") {\n  if (get_global_id(0) != 0) return;\n  a0[0] += 1;\n");
    for (int j = 1; args[j]; j++)
        if (args[j] == 'b' || args[j] == 'n')
            at += (size_t)snprintf(src + at, size - at, "  if (a%d) a%d[0] = 0;\n", last_int, j);
    snprintf(src + at, size - at, "}\n");
}

/* Kernel k for args, its arguments set (values 0, arrays the bench's). */
static cl_kernel make_kernel(bench *b, const char *args)
{
    char src[4096];
    const char *text = src;
    kernel_source(args, src, sizeof src);
    cl_int err;
    cl_program p = clCreateProgramWithSource(b->context, 1, &text, NULL, &err);
    if (err == CL_SUCCESS) err = clBuildProgram(p, 1, &b->id, "", NULL, NULL);
    cl_kernel k = err == CL_SUCCESS ? clCreateKernel(p, "k", &err) : NULL;
    clReleaseProgram(p);
    for (cl_uint j = 0; k && args[j]; j++) {
        long zero = 0;
        char a = args[j];
        size_t bytes = a == 'i' ? sizeof(int) : a == 'b' || a == 'n' ? sizeof(cl_mem) : a == 's' ? 1024 : 8;
        const void *value = a == 'b' ? (const void *)&b->arrays[j] : a == 'n' || a == 's' ? NULL : &zero;
        if (clSetKernelArg(k, j, bytes, value) != CL_SUCCESS) clReleaseKernel(k), k = NULL;
    }
    if (!k) fprintf(stderr, "opencl-launch: kernel \"%s\" not built (%d)\n", args, err);
    return k;
}

/* One launch of k on one work-group, and the wait for it by way: the
 * microseconds of the enqueue in *enq and of the wait in *wait. */
static int launch_once(bench *b, cl_kernel k, wait_way way, double *enq, double *wait)
{
    size_t one = 64;
    cl_event event = NULL;
    double x, t0 = now_us();
    cl_int err = clEnqueueNDRangeKernel(b->queue, k, 1, NULL, &one, &one, 0, NULL, way == WAIT_EVENT ? &event : NULL);
    double t1 = now_us();
    if (err == CL_SUCCESS && way == WAIT_FINISH) err = clFinish(b->queue);
    if (err == CL_SUCCESS && way == WAIT_EVENT) err = clWaitForEvents(1, &event);
    if (err == CL_SUCCESS && way == WAIT_READ)
        err = clEnqueueReadBuffer(b->queue, b->arrays[0], CL_TRUE, 0, sizeof x, &x, 0, NULL, NULL);
    *enq = t1 - t0, *wait = now_us() - t1;
    if (event) clReleaseEvent(event);
    return err;
}

/* The launches of k waited for by way, timed and printed. */
static int time_case(bench *b, cl_kernel k, const char *what, wait_way way)
{
    int r = b->repeat, err = 0;
    double *t = malloc(3 * (size_t)r * sizeof *t), q[3][3];
    if (!t) return 1;
    for (int n = -50; n < r && !err; n++) {
        double enq, wait;
        err = launch_once(b, k, way, &enq, &wait);
        if (n >= 0) t[n] = enq, t[r + n] = wait, t[2 * r + n] = enq + wait;
    }
    for (int s = 0; s < 3 && !err; s++) quartiles(t + s * r, r, q[s]);
    if (!err)
        printf("%-48s %-26s %8.2f %8.2f %8.2f  %.2f-%.2f\n", what, wait_names[way], q[0][1], q[1][1], q[2][1], q[2][0],
               q[2][2]);
    else fprintf(stderr, "opencl-launch: %s: launch failed (%d)\n", what, err);
    free(t);
    return err != 0;
}

/* The first case's kernel time by profiling events (START to END), the
 * floor under the kernel times HSPGEMM_PROFILE=1 prints. */
static int profiled(bench *b, cl_kernel k)
{
    cl_queue_properties on[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(b->context, b->id, on, &err);
    double *t = malloc((size_t)b->repeat * sizeof *t), qs[3];
    for (int n = -50; n < b->repeat && err == CL_SUCCESS && t; n++) {
        size_t one = 64;
        cl_event e;
        cl_ulong t0 = 0, t1 = 0;
        err = clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, &e);
        if (err == CL_SUCCESS) err = clWaitForEvents(1, &e);
        if (err == CL_SUCCESS) clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        if (err == CL_SUCCESS) clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        if (err == CL_SUCCESS) clReleaseEvent(e);
        if (n >= 0) t[n] = (double)(t1 - t0) / 1e3;
    }
    if (err == CL_SUCCESS && t) quartiles(t, b->repeat, qs), printf("kernel time by profiling events, %s: %.2f us (%.2f-%.2f)\n", cases[0].what, qs[1], qs[0], qs[2]);
    if (q) clReleaseCommandQueue(q);
    free(t);
    return err != CL_SUCCESS || !t;
}

/* The device of --platform and --device, its context, queue and arrays. */
static int open_bench(int platform, int device, bench *b)
{
    cl_platform_id ps[16];
    cl_device_id ds[16];
    cl_uint np = 0, nd = 0;
    char name[256] = "";
    if (clGetPlatformIDs(16, ps, &np) != CL_SUCCESS || platform >= (int)np ||
        clGetDeviceIDs(ps[platform], CL_DEVICE_TYPE_ALL, 16, ds, &nd) != CL_SUCCESS || device >= (int)nd) {
        fprintf(stderr, "opencl-launch: no device %d on platform %d (%u platforms)\n", device, platform, np);
        return 1;
    }
    b->id = ds[device];
    clGetDeviceInfo(b->id, CL_DEVICE_NAME, sizeof name, name, NULL);
    cl_int err;
    b->context = clCreateContext(NULL, 1, &b->id, NULL, NULL, &err);
    if (err == CL_SUCCESS) b->queue = clCreateCommandQueueWithProperties(b->context, b->id, NULL, &err);
    for (int j = 0; j < MOST_ARGS && err == CL_SUCCESS; j++)
        b->arrays[j] = clCreateBuffer(b->context, CL_MEM_READ_WRITE, 1 << 20, NULL, &err);
    if (err != CL_SUCCESS) fprintf(stderr, "opencl-launch: %s: no context, queue or buffers (%d)\n", name, err);
    else printf("opencl-launch on %s, %d launches each, microseconds\n", name, b->repeat);
    return err != CL_SUCCESS;
}

static void close_bench(bench *b, cl_kernel *k, int n)
{
    for (int c = 0; c < n; c++)
        if (k[c]) clReleaseKernel(k[c]);
    for (int j = 0; j < MOST_ARGS; j++)
        if (b->arrays[j]) clReleaseMemObject(b->arrays[j]);
    if (b->queue) clReleaseCommandQueue(b->queue);
    if (b->context) clReleaseContext(b->context);
}

int main(int argc, char **argv)
{
    int platform = 0, device = 0, bad = 0;
    bench b = {.repeat = 2000};
    for (int k = 1; k < argc; k++) {
        if (!strncmp(argv[k], "--platform=", 11)) platform = atoi(argv[k] + 11);
        else if (!strncmp(argv[k], "--device=", 9)) device = atoi(argv[k] + 9);
        else if (!strncmp(argv[k], "--repeat=", 9)) b.repeat = atoi(argv[k] + 9);
        else return fputs(usage, strcmp(argv[k], "--help") ? stderr : stdout), strcmp(argv[k], "--help") != 0;
    }
    if (b.repeat < 4 || platform < 0 || device < 0) return fputs(usage, stderr), 1;
    if (open_bench(platform, device, &b)) return close_bench(&b, NULL, 0), 1;
    printf("%-48s %-26s %8s %8s %8s  %s\n", "kernel's arguments", "wait", "enqueue", "wait", "all", "all q1-q3");
    cl_kernel k[NCASES];
    for (int c = 0; c < NCASES; c++) k[c] = make_kernel(&b, cases[c].args), bad |= !k[c];
    for (int c = 0; c < NCASES && !bad; c++) bad |= time_case(&b, k[c], cases[c].what, WAIT_FINISH);
    for (wait_way w = WAIT_EVENT; w <= WAIT_READ && !bad; w++) bad |= time_case(&b, k[0], cases[0].what, w);
    if (!bad) bad |= profiled(&b, k[0]);
    close_bench(&b, k, NCASES);
    return bad;
}
