/* gpu_solve.c: the AMG solve's steps on a GPU with memory of its own, for a
 * resident hierarchy (kernels/solve.cl): a level's matrix times a vector,
 * the vectors held as one array each. */
#include "device/gpu.h"
#include "amg/gpu_amg.h"

hsp_status gpu_spmv(hsp_device *dev, const hsp_csr *A, void *held_a, double alpha, void *held_x, double beta,
                    void *held_y)
{
    gpu *g = dev->state;
    int dbl = A->precision == HSP_DOUBLE;
    const gpu_held *a = held_a, *x = held_x, *y = held_y;
    int64_t m = A->nrows;
    gpu_vt_value va, vb;
    gpu_arg args[] = {gpu_val(&m, sizeof m),    gpu_array_arg(&a->a[0]), gpu_array_arg(&a->a[1]),
                      gpu_array_arg(&a->a[2]),  gpu_array_arg(&x->a[0]), gpu_vt(dbl, alpha, &va),
                      gpu_vt(dbl, beta, &vb),   gpu_array_arg(&y->a[0])};
    return gpu_noted(dev, gpu_launch_items(g, dbl, GK_SPMV, args, 8, m));
}
