/* opencl_build.c: building the kernels for a device, with an on-disk cache
 * of the built binaries keyed by the device, the driver, the build options
 * and the kernel source, so that a second run does not compile again.  The
 * cache lives in $HSPGEMM_CACHE_DIR, else $XDG_CACHE_HOME/hspgemm, else
 * ~/.cache/hspgemm; HSPGEMM_CACHE_DIR=off turns it off. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/internal.h"
#include "device/opencl/opencl.h"

extern const char hsp_kernel_source[];

/* 64-bit FNV-1a hash of s, continuing from h. */
static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* The cache directory (created), or 0 when there is none. */
static int cache_dir(char *dir, size_t len)
{
    const char *env = getenv("HSPGEMM_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (env && !strcmp(env, "off")) return 0;
    if (env && *env) snprintf(dir, len, "%s", env);
    else if (xdg && *xdg) snprintf(dir, len, "%s/hspgemm", xdg);
    else if (home && *home) snprintf(dir, len, "%s/.cache/hspgemm", home);
    else return 0;
    for (char *p = dir + 1; *p; p++) { /* mkdir -p */
        if (*p != '/') continue;
        *p = 0;
        mkdir(dir, 0755);
        *p = '/';
    }
    return mkdir(dir, 0755) == 0 || errno == EEXIST;
}

/* The cache file of options on st's device. */
static int cache_path(ocl_state *st, const char *options, char *path, size_t len)
{
    char dir[1024], buf[256];
    if (!cache_dir(dir, sizeof dir)) return 0;
    uint64_t h = hash_str(0xcbf29ce484222325ULL, hsp_kernel_source);
    h = hash_str(h, options);
    const cl_device_info what[] = {CL_DEVICE_NAME, CL_DEVICE_VENDOR, CL_DRIVER_VERSION, CL_DEVICE_VERSION};
    for (int k = 0; k < 4; k++) {
        memset(buf, 0, sizeof buf);
        clGetDeviceInfo(st->id, what[k], sizeof buf - 1, buf, NULL);
        h = hash_str(h, buf);
    }
    snprintf(path, len, "%s/kernels-%016llx.bin", dir, (unsigned long long)h);
    return 1;
}

/* A program from the cached binary at path, built; NULL when absent or stale. */
static cl_program load_cached(ocl_state *st, const char *path, const char *options)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *bin = NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size > 0 && fseek(f, 0, SEEK_SET) == 0 && (bin = malloc((size_t)size)) &&
        fread(bin, 1, (size_t)size, f) != (size_t)size)
        size = -1;
    fclose(f);
    cl_program prog = NULL;
    cl_int err = CL_INVALID_BINARY, bin_status;
    size_t len = (size_t)size;
    if (bin && size > 0)
        prog = clCreateProgramWithBinary(st->context, 1, &st->id, &len, (const unsigned char **)&bin,
                                         &bin_status, &err);
    free(bin);
    if (prog && (err != CL_SUCCESS || clBuildProgram(prog, 1, &st->id, options, NULL, NULL) != CL_SUCCESS)) {
        clReleaseProgram(prog);
        prog = NULL;
    }
    return prog;
}

/* Write prog's binary to path (through a temporary file and a rename). */
static void store_cached(ocl_state *st, cl_program prog, const char *path)
{
    size_t size = 0;
    char tmp[1200];
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || !size)
        return;
    unsigned char *bin = malloc(size);
    (void)st;
    if (bin && clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS) {
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
        FILE *f = fopen(tmp, "wb");
        int ok = f && fwrite(bin, 1, size, f) == size;
        if (f && fclose(f) != 0) ok = 0;
        if (ok) rename(tmp, path);
        else remove(tmp);
    }
    free(bin);
}

/* Build prog from source; the build log goes into the error message. */
static hsp_status build_source(ocl_state *st, const char *options, cl_program *out)
{
    const char *src = hsp_kernel_source;
    cl_int err;
    cl_program prog = clCreateProgramWithSource(st->context, 1, &src, NULL, &err);
    if (err != CL_SUCCESS)
        return hsp_fail(HSP_ERR_DEVICE, "OpenCL: creating the kernel program: %s (%d)", ocl_error(err), err);
    err = clBuildProgram(prog, 1, &st->id, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[2048] = "";
        clGetProgramBuildInfo(prog, st->id, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        clReleaseProgram(prog);
        return hsp_fail(HSP_ERR_DEVICE, "OpenCL: building the kernels (%s): %s (%d): %.1500s",
                        options, ocl_error(err), err, log);
    }
    *out = prog;
    return HSP_OK;
}

/* Kernel number j of prog into *k (NULL, with HSP_OK, where the kernel adds
 * locally by atomics and the device has none); the build fails where the
 * source's argument count differs from kernels/kernels.def's. */
static hsp_status get_kernel(cl_program prog, int j, cl_kernel *k)
{
    char buf[24];
    const char *name = gpu_kernel_name(j, buf);
    cl_uint nargs = 0;
    cl_int err;
    *k = clCreateKernel(prog, name, &err);
    if (err != CL_SUCCESS && gpu_kernel_adds_locally(j)) return HSP_OK; /* in double: with 64-bit atomics */
    if (err == CL_SUCCESS) err = clGetKernelInfo(*k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
    if (err != CL_SUCCESS)
        return hsp_fail(HSP_ERR_DEVICE, "OpenCL: kernel %s: %s (%d)", name, ocl_error(err), err);
    if ((int)nargs != gpu_kernel_of(j)->nargs)
        return hsp_fail(HSP_ERR_DEVICE, "OpenCL: kernel %s takes %u arguments; kernels/kernels.def says %d", name,
                        nargs, gpu_kernel_of(j)->nargs);
    return HSP_OK;
}

/* Does st's device reduce a warp's integers in one instruction (redux.sync:
 * NVIDIA GPUs of compute capability 8 and up, asked by the NVIDIA
 * extension; 0 elsewhere)? */
static int warp_redux(ocl_state *st)
{
    cl_uint major = 0;
    return clGetDeviceInfo(st->id, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major, NULL) == CL_SUCCESS &&
           major >= 8;
}

hsp_status ocl_build(ocl_state *st, int dbl, ocl_kernels *k)
{
    char options[64], path[1100];
    snprintf(options, sizeof options, "-cl-std=CL1.2%s%s", dbl ? " -DHSP_DOUBLE" : "",
             warp_redux(st) ? " -DHSP_WARP_REDUX" : "");
    int cached = cache_path(st, options, path, sizeof path);
    memset(k, 0, sizeof *k);
    if (!cached || !(k->program = load_cached(st, path, options))) {
        hsp_precision precision = dbl ? HSP_DOUBLE : HSP_FLOAT;
        char *slash = cached ? strrchr(path, '/') : NULL;
        double start = hsp_now_ms();
        if (slash) *slash = 0; /* the folder, for the hook */
        hsp_build_heard(HSP_BUILD_START, st->name, precision, slash ? path : NULL, 0);
        hsp_status s = build_source(st, options, &k->program);
        hsp_build_heard(HSP_BUILD_DONE, st->name, precision, slash ? path : NULL, (hsp_now_ms() - start) / 1e3);
        if (slash) *slash = '/';
        if (s != HSP_OK) return s;
        if (cached) store_cached(st, k->program, path);
    }
    hsp_status s = HSP_OK;
    for (int j = 0; j < GK_COUNT && s == HSP_OK; j++)
        if (gpu_kernel_exists(j)) s = get_kernel(k->program, j, &k->kernel[j]);
    return s;
}

void ocl_kernels_free(ocl_kernels *k)
{
    for (int j = 0; j < GK_COUNT; j++)
        if (k->kernel[j]) clReleaseKernel(k->kernel[j]);
    if (k->program) clReleaseProgram(k->program);
    memset(k, 0, sizeof *k);
}
