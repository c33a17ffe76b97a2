/* gpu_plan.c: the values-only steps of resident plans on a GPU with memory
 * of its own (kernels/amg.cl's numeric, same_pattern): C's values over its
 * known pattern, the check of an operand's pattern against the plan's, and
 * the copy of a pattern to check against.  A resident AMG hierarchy's
 * re-setup runs on them too. */
#include <stdlib.h>
#include "device/gpu.h"
#include "core/internal.h"
#include "spgemm/gpu_stages.h"

/* Values-only rows by work-groups of 64 with up to 1024 columns of C in
 * local memory at a time. */
enum { NUMERIC_GROUP = 64, NUMERIC_LOCAL = 1024 };

/* The team of work-items for a row of C = A*B, values only, by the mean
 * products per row: 1 (a row a work-item, hsp_numeric) for few. */
static int numeric_team(const hsp_csr *A, const hsp_csr *B)
{
    double products = (double)A->nnz / (A->nrows ? A->nrows : 1) * ((double)B->nnz / (B->nrows ? B->nrows : 1));
    return products < 32 ? 1 : products < 1024 ? 8 : NUMERIC_GROUP;
}

/* Values only, a row of C a team of work-items (numeric_team) with the row's
 * columns in local memory, where the device adds there; else a row a
 * work-item. */
hsp_status gpu_numeric(hsp_device *dev, const hsp_csr *C, const hsp_csr *A, const hsp_csr *B, void *held_a,
                          void *held_b, void *held_c)
{
    gpu *g = dev->state;
    int dbl = C->precision == HSP_DOUBLE;
    const gpu_held *a = held_a, *b = held_b, *c = held_c;
    int64_t m = C->nrows;
    int32_t team = g->local_add[dbl] && !dev->deterministic ? numeric_team(A, B) : 1; /* teams add by atomics */
    size_t vs = hsp_value_size(C->precision), size = NUMERIC_GROUP, rows = NUMERIC_GROUP / (size_t)team;
    int32_t lcap = NUMERIC_LOCAL / (int32_t)rows;
    gpu_arg args[] = {gpu_val(&m, sizeof m),
                      gpu_val(&team, sizeof team),
                      gpu_array_arg(&a->a[0]),
                      gpu_array_arg(&a->a[1]),
                      gpu_array_arg(&a->a[2]),
                      gpu_array_arg(&b->a[0]),
                      gpu_array_arg(&b->a[1]),
                      gpu_array_arg(&b->a[2]),
                      gpu_array_arg(&c->a[0]),
                      gpu_array_arg(&c->a[1]),
                      gpu_array_arg(&c->a[2]),
                      gpu_val(&lcap, sizeof lcap),
                      gpu_local(rows * (size_t)lcap * sizeof(int32_t)),
                      gpu_local(rows * (size_t)lcap * vs)};
    if (team == 1) {
        args[1] = args[0];
        return gpu_noted(dev, gpu_launch_items(g, dbl, GK_NUMERIC, args + 1, 10, m));
    }
    if (gpu_pow2_group(g, dbl, GK_NUMERIC_ROWS) < size)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "device %s runs work-groups of fewer than %zu items", dev->description,
                        size);
    return gpu_noted(dev, m ? g->ops->launch(g, dbl, GK_NUMERIC_ROWS, args, 14, ((size_t)m + rows - 1) / rows, size)
                            : HSP_OK);
}

hsp_status gpu_same_pattern(hsp_device *dev, const hsp_csr *X, void *held_x, void *held_y, int32_t *row)
{
    gpu *g = dev->state;
    const gpu_held *x = held_x, *y = held_y;
    int64_t n = X->nrows;
    gpu_array bad = {0};
    *row = X->nrows;
    hsp_status s = gpu_array_new(g, &bad, sizeof *row);
    if (s == HSP_OK) s = gpu_array_write(g, &bad, row, sizeof *row);
    gpu_arg a[] = {gpu_val(&n, sizeof n),   gpu_array_arg(&x->a[0]), gpu_array_arg(&x->a[1]),
                   gpu_array_arg(&y->a[0]), gpu_array_arg(&y->a[1]), gpu_array_arg(&bad)};
    if (s == HSP_OK) s = gpu_launch_items(g, X->precision == HSP_DOUBLE, GK_SAME_PATTERN, a, 6, n);
    if (s == HSP_OK) s = gpu_flag_read(g, &bad, X->nrows, row);
    return gpu_noted(dev, gpu_done(g, s, &bad, 1));
}

hsp_status gpu_pattern(hsp_device *dev, const hsp_csr *M, void *held, void **held_pattern)
{
    gpu *g = dev->state;
    const gpu_held *h = held;
    size_t bytes[2] = {((size_t)M->nrows + 1) * sizeof(int64_t), (size_t)M->nnz * sizeof(int32_t)};
    hsp_status s;
    gpu_held *p = gpu_held_new(g, bytes, 2, &s);
    *held_pattern = NULL;
    for (int k = 0; k < 2 && p && s == HSP_OK; k++)
        s = gpu_array_copy(g, &p->a[k], (gpu_array *)&h->a[k], bytes[k]);
    return gpu_noted(dev, gpu_held_result(g, s, p, held_pattern));
}
