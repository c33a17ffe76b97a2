/* device_opencl.c: the opencl device.  Stage 1 runs the bound kernel; stage
 * 3 queues one kernel launch per non-empty bin (heap, ESC or merge, as the
 * context's methods say) while the CPU threads do bins 0-1; stage 4 copies
 * the device's rows into C with the arrange kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "opencl.h"
#include "stages.h"

/* Set kernel argument index to the n bytes at v; err keeps the first error. */
static void set_arg(cl_kernel k, cl_uint index, size_t n, const void *v, cl_int *err)
{
    cl_int e = clSetKernelArg(k, index, n, v);
    if (*err == CL_SUCCESS) *err = e;
}

static hsp_status arg_error(cl_int err)
{
    return hsp_fail(HSP_ERR_DEVICE, "OpenCL: setting kernel arguments: %s (%d)", ocl_error(err), err);
}

/* Set arrays of the given kinds as arguments first, first + 1, ... */
static hsp_status set_arrays(ocl_state *st, cl_kernel k, cl_uint first, const int *which, int n)
{
    hsp_status s = HSP_OK;
    for (int j = 0; j < n && s == HSP_OK; j++) s = ocl_arg(st, k, first + (cl_uint)j, which[j]);
    return s;
}

/* The work-group size for kernel k: want, or less where k or the device
 * allows less. */
static size_t group_size(ocl_state *st, cl_kernel k, size_t want)
{
    size_t most = st->max_group;
    clGetKernelWorkGroupInfo(k, st->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most, NULL);
    if (want > most) want = most;
    return want > 0 ? want : 1;
}

/* The smallest power of two >= n. */
static int64_t pow2_at_least(int64_t n)
{
    int64_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

/* Set the local-memory and method arguments of the ESC kernel for rows of
 * up to hi products (long ones when islong); *size is its work-group size. */
static hsp_status esc_args(ocl_state *st, hsp_job *job, cl_kernel k, int64_t hi, cl_int islong, size_t *size)
{
    static const int pool[] = {OA_PCOL, OA_PVAL, OA_LROWS};
    cl_int n2 = (cl_int)pow2_at_least(hi), err = CL_SUCCESS;
    *size = group_size(st, k, (size_t)(n2 / 2 < 256 ? n2 / 2 : 256));
    size_t need = (size_t)n2 * (sizeof(int32_t) + job->vsize) + *size * sizeof(int32_t);
    if ((int64_t)need > st->local_mem)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "ESC rows of %lld products need %zu bytes of local memory; "
                        "the device has %lld", (long long)hi, need, (long long)st->local_mem);
    set_arg(k, 13, sizeof n2, &n2, &err);
    set_arg(k, 14, (size_t)n2 * sizeof(int32_t), NULL, &err);
    set_arg(k, 15, (size_t)n2 * job->vsize, NULL, &err);
    set_arg(k, 16, *size * sizeof(int32_t), NULL, &err);
    set_arg(k, 17, sizeof islong, &islong, &err);
    if (err != CL_SUCCESS) return arg_error(err);
    return set_arrays(st, k, 18, pool, 3);
}

/* Set the arguments of the merge kernel (long rows); *size is its
 * work-group size.  Its batch of n2 products, a power of two of at most 1024
 * (its sort is quadratic) and 16 a work-item, fits twice in local memory. */
static hsp_status merge_args(ocl_state *st, hsp_job *job, cl_kernel k, size_t *size)
{
    static const int pool[] = {OA_PCOL, OA_PVAL, OA_LROWS};
    int64_t entry = (int64_t)(sizeof(int32_t) + job->vsize);
    cl_int err = CL_SUCCESS, n2 = 2;
    *size = group_size(st, k, 256);
    size_t scan = *size * sizeof(int32_t);
    while (2 * n2 <= 1024 && 2 * n2 <= 16 * (cl_int)*size &&
           4 * n2 * entry + (int64_t)scan + 256 <= st->local_mem)
        n2 *= 2;
    set_arg(k, 16, sizeof n2, &n2, &err);
    set_arg(k, 17, 2 * (size_t)n2 * sizeof(int32_t), NULL, &err);
    set_arg(k, 18, 2 * (size_t)n2 * job->vsize, NULL, &err);
    set_arg(k, 19, scan, NULL, &err);
    if (err != CL_SUCCESS) return arg_error(err);
    return set_arrays(st, k, 13, pool, 3);
}

hsp_status ocl_launch_rows(ocl_state *st, hsp_job *job, hsp_method m, int64_t hi, int islong, int rows,
                           int64_t first, int64_t nrows)
{
    static const int operands[] = {OA_ARP, OA_ACOL, OA_AVAL, OA_BRP, OA_BCOL, OA_BVAL};
    static const int outputs[] = {OA_SLOT, OA_TCOL, OA_TVAL, OA_CNT};
    ocl_kernels *ks = &st->k[job->A->precision == HSP_DOUBLE];
    cl_kernel k = m == HSP_METHOD_HEAP ? ks->heap[hi] : m == HSP_METHOD_ESC ? ks->esc : ks->merge;
    size_t size = group_size(st, k, 64), groups = (size_t)nrows;
    cl_long first_l = first, nrows_l = nrows;
    cl_int err = CL_SUCCESS;
    if (!nrows) return HSP_OK;
    hsp_status s = m == HSP_METHOD_ESC     ? esc_args(st, job, k, hi, islong, &size)
                   : m == HSP_METHOD_MERGE ? merge_args(st, job, k, &size)
                                           : HSP_OK;
    if (m == HSP_METHOD_HEAP) groups = (size_t)(nrows + (int64_t)size - 1) / size;
    if (s == HSP_OK) s = set_arrays(st, k, 0, operands, 6);
    if (s == HSP_OK) s = ocl_arg(st, k, 6, rows);
    set_arg(k, 7, sizeof first_l, &first_l, &err);
    set_arg(k, 8, sizeof nrows_l, &nrows_l, &err);
    if (s == HSP_OK && err != CL_SUCCESS) s = arg_error(err);
    if (s == HSP_OK) s = set_arrays(st, k, 9, outputs, 4);
    return s == HSP_OK ? ocl_launch(st, k, groups, size) : s;
}

/* ---- the stages ------------------------------------------------------------------ */

/* Stage 1: A and B to the device, the bound kernel, u back to job->ub. */
static hsp_status ocl_bound(hsp_device *dev, hsp_job *job)
{
    ocl_state *st = dev->state;
    const hsp_csr *A = job->A, *B = job->B;
    int dbl = A->precision == HSP_DOUBLE;
    if (dbl && !st->fp64)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "device %s has no double precision (cl_khr_fp64): "
                        "use float or another device", dev->description);
    clFinish(st->queue);
    st->started = 0;
    st->peak_device_bytes = st->device_bytes;
    size_t m = (size_t)A->nrows, vs = job->vsize;
    hsp_status s = ocl_upload(st, OA_ARP, A->rowptr, (m + 1) * sizeof(int64_t));
    if (s == HSP_OK) s = ocl_upload(st, OA_ACOL, A->colidx, (size_t)A->nnz * sizeof(int32_t));
    if (s == HSP_OK) s = ocl_upload(st, OA_AVAL, A->values, (size_t)A->nnz * vs);
    st->b_is_a = B == A; /* A*A: one copy */
    if (s == HSP_OK && !st->b_is_a) s = ocl_upload(st, OA_BRP, B->rowptr, ((size_t)B->nrows + 1) * sizeof(int64_t));
    if (s == HSP_OK && !st->b_is_a) s = ocl_upload(st, OA_BCOL, B->colidx, (size_t)B->nnz * sizeof(int32_t));
    if (s == HSP_OK && !st->b_is_a) s = ocl_upload(st, OA_BVAL, B->values, (size_t)B->nnz * vs);
    if (s == HSP_OK) s = ocl_upload(st, OA_UB, job->ub, m * sizeof(int64_t));
    cl_kernel k = st->k[dbl].bound;
    cl_long m_l = (cl_long)m;
    cl_int err = CL_SUCCESS;
    static const int args[] = {OA_ARP, OA_ACOL, OA_BRP, OA_UB};
    set_arg(k, 0, sizeof m_l, &m_l, &err);
    if (s == HSP_OK && err != CL_SUCCESS) s = arg_error(err);
    if (s == HSP_OK) s = set_arrays(st, k, 1, args, 4);
    size_t size = group_size(st, k, 256);
    if (s == HSP_OK) s = ocl_launch(st, k, (m + size - 1) / size, size);
    return s == HSP_OK ? ocl_download(st, OA_UB, job->ub, m * sizeof(int64_t)) : s;
}

/* The most products of a long row that ESC takes in local memory (method
 * auto), at most 4096; 0 when long rows all merge. */
static int64_t esc_limit(ocl_state *st, hsp_job *job)
{
    int64_t n2 = 1;
    if (job->ctx->method[HSP_GROUP_LONG - HSP_GROUP_SHORT] != HSP_METHOD_AUTO) return 0;
    while (n2 < 4096 && 2 * n2 * (int64_t)(sizeof(int32_t) + job->vsize) + 256 * 4 <= st->local_mem) n2 *= 2;
    return n2 > job->medium_max ? n2 : 0;
}

/* Before the first bin of a job: rows, slots, C~, counts and long rows (or
 * stand-ins for the pool arguments when there are none). */
static hsp_status start_compute(ocl_state *st, hsp_job *job)
{
    size_t m = (size_t)job->A->nrows;
    int64_t *counts = realloc(st->counts, (m ? m : 1) * sizeof *counts);
    if (!counts) return hsp_fail(HSP_ERR_NOMEM, "no memory for the row counts");
    st->counts = counts;
    hsp_status s = ocl_upload(st, OA_ROWS, job->bin_rows, m * sizeof(int32_t));
    if (s == HSP_OK) s = ocl_upload(st, OA_SLOT, job->slot, m * sizeof(int64_t));
    if (s == HSP_OK) s = ocl_upload(st, OA_TCOL, st->svm == OCL_SVM_SYSTEM ? job->tmp_col : NULL,
                                    (size_t)job->nslots * sizeof(int32_t));
    if (s == HSP_OK) s = ocl_upload(st, OA_TVAL, st->svm == OCL_SVM_SYSTEM ? job->tmp_val : NULL,
                                    (size_t)job->nslots * job->vsize);
    if (s == HSP_OK) s = ocl_upload(st, OA_CNT, st->svm == OCL_SVM_SYSTEM ? counts : NULL,
                                    m * sizeof(int64_t));
    if (s == HSP_OK && job->nlong) s = ocl_long_start(st, job, esc_limit(st, job));
    for (int a = OA_PCOL; s == HSP_OK && !job->nlong && a <= OA_LROWS; a++) s = ocl_reserve(st, a, 1);
    st->started = 1;
    return s;
}

/* The long bin with method auto: rows whose products fit in local memory by
 * ESC, one launch per power of two, the rest by merge (OA_LONGROWS holds
 * them in that order). */
static hsp_status launch_long_auto(ocl_state *st, hsp_job *job, int bin)
{
    int64_t first = job->bin_start[bin], n = job->bin_start[bin + 1] - first, limit = esc_limit(st, job);
    int64_t start[14] = {0}; /* rows of ESC class c (n2 = 2^c) start at start[c]; merge at [13] */
    int32_t *rows = realloc(st->longrows, (size_t)(n ? n : 1) * sizeof *rows);
    if (!rows) return hsp_fail(HSP_ERR_NOMEM, "no memory for %lld long rows", (long long)n);
    st->longrows = rows;
    for (int pass = 0; pass < 2; pass++) { /* count, then place */
        for (int64_t k = 0; k < n; k++) {
            int64_t u = job->ub[job->bin_rows[first + k]];
            int c = u <= limit ? 64 - __builtin_clzll((unsigned long long)u - 1) : 13;
            if (pass) rows[start[c]++] = job->bin_rows[first + k];
            else start[c]++;
        }
        for (int c = 0, at = 0; !pass && c < 14; c++) {
            int64_t count = start[c];
            start[c] = at, at += (int)count;
        }
    }
    hsp_status s = ocl_upload(st, OA_LONGROWS, rows, (size_t)n * sizeof *rows);
    for (int c = 0, at = 0; c < 14 && s == HSP_OK; c++) { /* start[c] is now the end of class c */
        s = c < 13 ? ocl_launch_rows(st, job, HSP_METHOD_ESC, (int64_t)1 << c, 1, OA_LONGROWS, at, start[c] - at)
                   : ocl_launch_rows(st, job, HSP_METHOD_MERGE, -1, 1, OA_LONGROWS, at, start[c] - at);
        at = (int)start[c];
    }
    return s;
}

static hsp_status ocl_launch_bin(hsp_device *dev, hsp_job *job, int bin)
{
    ocl_state *st = dev->state;
    hsp_status s = st->started ? HSP_OK : start_compute(st, job);
    int64_t first = job->bin_start[bin];
    int group = job->ctx->bins.group[bin];
    hsp_method m = job->ctx->method[group - HSP_GROUP_SHORT];
    if (s != HSP_OK) return s;
    if (group == HSP_GROUP_LONG && m == HSP_METHOD_AUTO) return launch_long_auto(st, job, bin);
    return ocl_launch_rows(st, job, m, group == HSP_GROUP_LONG ? -1 : job->ctx->bins.hi[bin],
                           group == HSP_GROUP_LONG, OA_ROWS, first, job->bin_start[bin + 1] - first);
}

/* Wait for the queue; finish long rows; the counts of the device's rows. */
static hsp_status ocl_wait(hsp_device *dev, hsp_job *job)
{
    ocl_state *st = dev->state;
    if (!st->started) return HSP_OK;
    cl_int err = clFinish(st->queue);
    if (err != CL_SUCCESS)
        return hsp_fail(HSP_ERR_DEVICE, "OpenCL: kernels failed: %s (%d)", ocl_error(err), err);
    hsp_status s = job->nlong ? ocl_long_finish(st, job) : HSP_OK;
    if (s == HSP_OK) s = ocl_download(st, OA_CNT, st->counts, (size_t)job->A->nrows * sizeof(int64_t));
    for (int64_t k = job->bin_start[2]; s == HSP_OK && k < job->bin_start[job->ctx->bins.nbins]; k++)
        job->C->rowptr[job->bin_rows[k] + 1] = st->counts[job->bin_rows[k]];
    return s;
}

/* Stage 4: the rows of bins 2 and up into C (the host does bins 0-1). */
static hsp_status ocl_arrange(hsp_device *dev, hsp_job *job)
{
    ocl_state *st = dev->state;
    hsp_csr *C = job->C;
    static const int arrays[] = {OA_CRP, OA_UB, OA_SLOT};
    static const int sources[] = {OA_TCOL, OA_TVAL, OA_PCOL, OA_PVAL, OA_LROWS, OA_CCOL, OA_CVAL};
    cl_kernel k = st->k[C->precision == HSP_DOUBLE].arrange;
    cl_long nnz = C->nnz, m = C->nrows, medium = job->medium_max;
    cl_int err = CL_SUCCESS;
    if (!st->started || !nnz) return HSP_OK; /* started: the pool arguments exist */
    hsp_status s = ocl_upload(st, OA_CRP, C->rowptr, ((size_t)m + 1) * sizeof(int64_t));
    int sys = st->svm == OCL_SVM_SYSTEM;
    if (s == HSP_OK) s = ocl_upload(st, OA_CCOL, sys ? C->colidx : NULL, (size_t)nnz * sizeof(int32_t));
    if (s == HSP_OK) s = ocl_upload(st, OA_CVAL, sys ? C->values : NULL, (size_t)nnz * job->vsize);
    set_arg(k, 0, sizeof nnz, &nnz, &err);
    set_arg(k, 1, sizeof m, &m, &err);
    set_arg(k, 5, sizeof medium, &medium, &err);
    if (s == HSP_OK && err != CL_SUCCESS) s = arg_error(err);
    if (s == HSP_OK) s = set_arrays(st, k, 2, arrays, 3);
    if (s == HSP_OK) s = set_arrays(st, k, 6, sources, 7);
    size_t size = group_size(st, k, 256);
    if (s == HSP_OK) s = ocl_launch(st, k, ((size_t)nnz + size - 1) / size, size);
    if (s == HSP_OK) s = ocl_download(st, OA_CCOL, C->colidx, (size_t)nnz * sizeof(int32_t));
    if (s == HSP_OK) s = ocl_download(st, OA_CVAL, C->values, (size_t)nnz * job->vsize);
    job->stats->peak_device_bytes = st->peak_device_bytes;
    return s;
}

/* ---- opening and closing ---------------------------------------------------------- */

static void ocl_destroy(hsp_device *dev)
{
    ocl_state *st = dev->state;
    if (st) {
        if (st->queue) clFinish(st->queue);
        ocl_stage_free(st);
        for (int a = 0; a < OA_COUNT; a++) ocl_release(st, a);
        for (int d = 0; d < 2; d++) ocl_kernels_free(&st->k[d]);
        if (st->queue) clReleaseCommandQueue(st->queue);
        if (st->context) clReleaseContext(st->context);
        free(st->lrows), free(st->relaunch), free(st->counts), free(st->longrows);
        free(st);
    }
    free(dev);
}

/* Parse "opencl[:N][,nosvm][,nofp64]"; *index is -1 when N is absent. */
static hsp_status parse_spec(const char *spec, int *index, int *nosvm, int *nofp64)
{
    const char *p = spec + strlen("opencl");
    char *end;
    *index = -1, *nosvm = 0, *nofp64 = 0;
    if (*p == ':') {
        long n = strtol(p + 1, &end, 10);
        if (end == p + 1 || n < 0 || n > 1000) goto bad;
        *index = (int)n, p = end;
    }
    while (*p == ',') {
        size_t len = strcspn(p + 1, ",");
        if (len == 5 && !strncmp(p + 1, "nosvm", 5)) *nosvm = 1;
        else if (len == 6 && !strncmp(p + 1, "nofp64", 6)) *nofp64 = 1;
        else goto bad;
        p += 1 + len;
    }
    if (!*p) return HSP_OK;
bad:
    return hsp_fail(HSP_ERR_ARG, "bad device '%s': give opencl[:N][,nosvm][,nofp64] "
                    "(N from `hspgemm devices`)", spec);
}

/* Context, queue and kernels for device info into st. */
static hsp_status open_state(ocl_state *st, const ocl_info *info, int nosvm, int nofp64)
{
    cl_int err;
    st->id = info->id;
    st->svm = nosvm ? OCL_SVM_NONE : info->svm;
    st->fp64 = info->fp64 && !nofp64;
    st->max_group = info->max_group;
    st->local_mem = info->local_mem;
    st->context = clCreateContext(NULL, 1, &st->id, NULL, NULL, &err);
    if (err == CL_SUCCESS) st->queue = clCreateCommandQueueWithProperties(st->context, st->id, NULL, &err);
    if (err != CL_SUCCESS)
        return hsp_fail(HSP_ERR_DEVICE, "OpenCL: opening %s: %s (%d)", info->name, ocl_error(err), err);
    hsp_status s = ocl_build(st, 0, &st->k[0]);
    return s == HSP_OK && st->fp64 ? ocl_build(st, 1, &st->k[1]) : s;
}

hsp_status hsp_device_opencl_open(const char *spec, hsp_pool *pool, hsp_device **out)
{
    ocl_info list[32];
    int index, nosvm, nofp64, count;
    hsp_status s = parse_spec(spec, &index, &nosvm, &nofp64);
    if (s == HSP_OK) s = ocl_devices(list, 32, &count);
    if (s != HSP_OK) return s;
    if (index >= count || index >= 32)
        return hsp_fail(HSP_ERR_ARG, "no OpenCL device %d: there are %d (see `hspgemm devices`)", index, count);
    if (count == 0)
        return hsp_fail(HSP_ERR_DEVICE, "no OpenCL device found (install an ICD, e.g. pocl-opencl-icd)");
    int gpu = ocl_first_gpu_of(list, count < 32 ? count : 32);
    if (index < 0) index = gpu >= 0 ? gpu : 0;
    hsp_device *dev = calloc(1, sizeof *dev);
    ocl_state *st = calloc(1, sizeof *st);
    if (!dev || !st) {
        free(dev), free(st);
        return hsp_fail(HSP_ERR_NOMEM, "no memory for the opencl device");
    }
    dev->state = st, dev->destroy = ocl_destroy;
    st->pool = pool;
    if ((s = open_state(st, &list[index], nosvm, nofp64)) != HSP_OK) {
        ocl_destroy(dev);
        return s;
    }
    dev->name = "opencl";
    snprintf(dev->description, sizeof dev->description, "opencl:%d %.30s (%.10s)", index % 1000,
             list[index].name, ocl_svm_name(st->svm));
    dev->wavefront = list[index].wavefront;
    dev->local_mem = st->local_mem < (64 << 10) ? st->local_mem : 64 << 10;
    dev->host_realloc = st->svm == OCL_SVM_SYSTEM;
    dev->async = 1;
    dev->default_method[0] = HSP_METHOD_HEAP;
    dev->default_method[1] = HSP_METHOD_ESC;
    dev->default_method[2] = HSP_METHOD_AUTO;
    dev->methods[0] = 1u << HSP_METHOD_HEAP | 1u << HSP_METHOD_ESC;
    dev->methods[1] = 1u << HSP_METHOD_ESC;
    dev->methods[2] = 1u << HSP_METHOD_MERGE | 1u << HSP_METHOD_AUTO;
    dev->bound = ocl_bound;
    dev->launch_bin = ocl_launch_bin;
    dev->wait = ocl_wait;
    dev->arrange = ocl_arrange;
    *out = dev;
    return HSP_OK;
}
