/* gpu_launch.c: launching a kernel on a GPU device, whatever the feature:
 * work-group sizes the kernel allows, a grid over n items, a span of rows
 * a work-group, and the prefix sum of row counts into row pointers
 * (kernels/bins.cl's three-kernel scan, no global atomic). */
#include "core/internal.h"
#include "device/gpu.h"

size_t gpu_group_size(gpu *g, int dbl, int kernel, size_t want)
{
    size_t most = g->ops->group_limit(g, dbl, kernel);
    if (want > most) want = most;
    return want > 0 ? want : 1;
}

size_t gpu_pow2_group(gpu *g, int dbl, int kernel)
{
    size_t most = g->ops->group_limit(g, dbl, kernel), size = GPU_ITEMS_GROUP;
    while (size > most && size > 1) size /= 2;
    return size;
}

hsp_status gpu_launch_items(gpu *g, int dbl, int kernel, const gpu_arg *a, int na, int64_t n)
{
    size_t size = gpu_pow2_group(g, dbl, kernel);
    return n ? g->ops->launch(g, dbl, kernel, a, na, ((size_t)n + size - 1) / size, size) : HSP_OK;
}

int64_t gpu_span_groups(gpu *g, int dbl, int kernel, int64_t m, size_t *size)
{
    size_t most = g->ops->group_limit(g, dbl, kernel);
    *size = GPU_SPAN_GROUP;
    while (*size > most) *size /= 2;
    int64_t span = GPU_SPAN_ROWS * (int64_t)*size;
    return (m + span - 1) / span;
}

hsp_status gpu_scan(gpu *g, int dbl, const gpu_array *cnt, gpu_array *crp, int64_t m, int64_t *total)
{
    size_t size, part_size = gpu_group_size(g, dbl, GK_PART_SCAN, GPU_SPAN_GROUP);
    int64_t ngroups = gpu_span_groups(g, dbl, GK_ROW_SCAN, m, &size), zero = 0;
    hsp_status s = gpu_reserve(g, GA_PART_SUM, (size_t)(ngroups + 1) * sizeof(int64_t));
    gpu_arg sums[] = {gpu_val(&m, sizeof m), {GPU_ARG_ARRAY, cnt, NULL, 0}, gpu_arr(g, GA_PART_SUM),
                      gpu_local(size * sizeof(int64_t))};
    gpu_arg part[] = {gpu_val(&ngroups, sizeof ngroups), gpu_arr(g, GA_PART_SUM),
                      gpu_local(part_size * sizeof(int64_t))};
    gpu_arg scan[] = {gpu_val(&m, sizeof m), {GPU_ARG_ARRAY, cnt, NULL, 0}, gpu_arr(g, GA_PART_SUM),
                      {GPU_ARG_ARRAY, crp, NULL, 0}, gpu_local(size * sizeof(int64_t))};
    if (total) *total = 0;
    if (s != HSP_OK || !m) return s == HSP_OK ? gpu_array_write(g, crp, &zero, sizeof zero) : s; /* crp[0] = 0 */
    s = g->ops->launch(g, dbl, GK_ROW_SUMS, sums, 4, (size_t)ngroups, size);
    if (s == HSP_OK) s = g->ops->launch(g, dbl, GK_PART_SCAN, part, 3, 1, part_size);
    if (s == HSP_OK) s = g->ops->launch(g, dbl, GK_ROW_SCAN, scan, 5, (size_t)ngroups, size);
    return s == HSP_OK && total ? gpu_array_read_at(g, crp, (size_t)m * sizeof(int64_t), total, sizeof *total) : s;
}

gpu_arg gpu_vt(int dbl, double x, gpu_vt_value *store)
{
    if (dbl) store->d = x;
    else store->f = (float)x;
    return dbl ? gpu_val(&store->d, sizeof store->d) : gpu_val(&store->f, sizeof store->f);
}
