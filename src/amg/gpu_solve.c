/* gpu_solve.c: the AMG solve's steps on a GPU with memory of its own, for a
 * resident hierarchy (kernels/solve.cl): a level's matrix times a vector,
 * its diagonal's inverses, the smoothers' and CG's vector steps.  Vectors
 * are held as one array each; a step's sum is a part per work-group, added
 * on the device into the solve's sums, which the host reads when it needs
 * them (amg_device.h's hsp_vec_sums). */
#include "device/gpu.h"
#include "core/internal.h"
#include "amg/gpu_amg.h"

hsp_status gpu_parts_add(gpu *g, int dbl, gpu_array *part, int64_t nparts, gpu_array *into, int64_t at)
{
    size_t size = gpu_pow2_group(g, dbl, GK_LZ_SUM);
    gpu_arg a[] = {gpu_val(&nparts, sizeof nparts), gpu_array_arg(part), gpu_array_arg(into), gpu_val(&at, sizeof at),
                   gpu_local(size * (dbl ? sizeof(double) : sizeof(float)))};
    return g->ops->launch(g, dbl, GK_LZ_SUM, a, 5, 1, size);
}

/* The work-groups of a launch of kernel over n items, and their size. */
static int64_t groups(gpu *g, int dbl, int kernel, int64_t n, size_t *size)
{
    *size = gpu_pow2_group(g, dbl, kernel);
    return (n + (int64_t)*size - 1) / (int64_t)*size;
}

/* The parts of into (NULL: none), or an error where ngroups do not fit. */
static hsp_status parts_fit(const hsp_vec_sums *into, int64_t ngroups, int dbl)
{
    const gpu_held *p = into ? into->parts : NULL;
    if (!p || (size_t)ngroups * (dbl ? sizeof(double) : sizeof(float)) <= p->a[0].bytes) return HSP_OK;
    return hsp_fail(HSP_ERR_DEVICE, "the solve's parts hold %zu bytes, not a part of each of %lld work-groups",
                    p->a[0].bytes, (long long)ngroups);
}

/* The launch's ngroups parts added into into->sums[into->at], on the device. */
static hsp_status parts_into(gpu *g, int dbl, hsp_status s, const hsp_vec_sums *into, int64_t ngroups)
{
    gpu_held *p = into->parts, *sums = into->sums;
    return s == HSP_OK ? gpu_parts_add(g, dbl, &p->a[0], ngroups, &sums->a[0], into->at) : s;
}

/* Vector k's array, or, where it is NULL, the first's (read by no item). */
static gpu_arg vec_arg(void *const v[], int k)
{
    const gpu_held *h = v[k] ? v[k] : v[0];
    return gpu_array_arg(&h->a[0]);
}

/* The work-items a row of M gets: the largest power of two t with t per at
 * most its mean row length (1 to 8, and at most the work-group), per 3.4 in
 * double (a 7-point stencil's 6.9 entries a row take 2, a 27-point one's
 * 26.5 take 4) and 6 in float.  On an H200 (bench/solve-kernels;
 * doc/performance.md) one a row is fastest up to 5 entries a row (9 in
 * float), a team of 2 to 8 from 7 to 65: more items share a row's run of
 * entries, fewer leave too little to do each. */
static int spmv_team(const hsp_csr *M, int dbl, size_t group)
{
    double mean = M->nrows ? (double)M->nnz / M->nrows : 0, per = dbl ? 3.4 : 6;
    int team = 1;
    while (team < 8 && (size_t)team * 2 <= group && team * 2 * per <= mean) team *= 2;
    return team;
}

hsp_status gpu_spmv(hsp_device *dev, const hsp_csr *M, void *held_m, double s, void *x, void *c, void *y, void *w,
                    const hsp_vec_sums *into)
{
    gpu *g = dev->state;
    int dbl = M->precision == HSP_DOUBLE, has_c = c != NULL, has_w = w != NULL;
    const gpu_held *a = held_m;
    size_t size;
    int team = spmv_team(M, dbl, gpu_pow2_group(g, dbl, GK_SPMV));
    int64_t m = M->nrows, ngroups = groups(g, dbl, GK_SPMV, m * team, &size);
    void *const v[] = {y, x, c, w, has_w ? into->parts : y};
    gpu_vt_value vs;
    hsp_status st = parts_fit(has_w ? into : NULL, ngroups, dbl);
    gpu_arg args[] = {gpu_val(&m, sizeof m),       gpu_array_arg(&a->a[0]),   gpu_array_arg(&a->a[1]),
                      gpu_array_arg(&a->a[2]),     vec_arg(v, 1),             gpu_vt(dbl, s, &vs),
                      vec_arg(v, 2),               gpu_val(&has_c, sizeof has_c), vec_arg(v, 0),
                      vec_arg(v, 3),               gpu_val(&has_w, sizeof has_w), gpu_val(&team, sizeof team),
                      vec_arg(v, 4),               gpu_local(size * (dbl ? sizeof(double) : sizeof(float)))};
    if (st == HSP_OK && m) st = g->ops->launch(g, dbl, GK_SPMV, args, 14, (size_t)ngroups, size);
    return gpu_noted(dev, has_w && m ? parts_into(g, dbl, st, into, ngroups) : st);
}

hsp_status gpu_diagonals(hsp_device *dev, const hsp_csr *A, void *held_a, void *dinv, void *l1inv)
{
    gpu *g = dev->state;
    const gpu_held *a = held_a, *d = dinv, *l = l1inv;
    int64_t n = A->nrows;
    gpu_arg args[] = {gpu_val(&n, sizeof n),   gpu_array_arg(&a->a[0]), gpu_array_arg(&a->a[1]),
                      gpu_array_arg(&a->a[2]), gpu_array_arg(&d->a[0]), gpu_array_arg(&l->a[0])};
    return gpu_noted(dev, gpu_launch_items(g, A->precision == HSP_DOUBLE, GK_DIAGONALS, args, 6, n));
}

/* The kernel's vectors u, v, w, z for op's v[] (amg_device.h's HSP_VEC_*). */
static void vec_roles(int op, void *const v[4], void *r[4])
{
    static const int role[][4] = {[HSP_VEC_STEP] = {0, 1, 2, 3},
                                  [HSP_VEC_UPDATE] = {0, 1, 2, 3},
                                  [HSP_VEC_DIRECTION] = {0, -1, 1, -1},
                                  [HSP_VEC_DOT] = {-1, -1, 0, 1},
                                  [HSP_VEC_COPY] = {0, -1, 1, -1},
                                  [HSP_VEC_ZERO] = {0, -1, -1, -1}};
    for (int k = 0; k < 4; k++) r[k] = role[op][k] >= 0 ? v[role[op][k]] : NULL;
    if (!r[0]) r[0] = v[0]; /* DOT writes no u: any array serves */
}

hsp_status gpu_vector(hsp_device *dev, int op, int64_t n, hsp_precision precision, double a, double c,
                      void *const v[4], const hsp_vec_sums *into)
{
    gpu *g = dev->state;
    int dbl = precision == HSP_DOUBLE, has_v = op != HSP_VEC_STEP || v[1] != NULL;
    int sums = op == HSP_VEC_UPDATE || op == HSP_VEC_DOT, num = into ? into->num : -1, den = into ? into->den : 0;
    void *r[6];
    size_t size;
    int64_t ngroups = groups(g, dbl, GK_VECTOR, n, &size);
    gpu_vt_value va, vc;
    vec_roles(op, v, r);
    r[4] = sums ? into->parts : r[0], r[5] = into ? into->sums : r[0];
    hsp_status s = parts_fit(sums ? into : NULL, ngroups, dbl);
    gpu_arg args[] = {gpu_val(&op, sizeof op), gpu_val(&n, sizeof n), gpu_vt(dbl, a, &va), gpu_vt(dbl, c, &vc),
                      vec_arg(r, 0), vec_arg(r, 1), vec_arg(r, 2), vec_arg(r, 3), gpu_val(&has_v, sizeof has_v),
                      vec_arg(r, 4), vec_arg(r, 5), gpu_val(&num, sizeof num), gpu_val(&den, sizeof den),
                      gpu_local(size * (dbl ? sizeof(double) : sizeof(float)))};
    if (s == HSP_OK && n) s = g->ops->launch(g, dbl, GK_VECTOR, args, 14, (size_t)ngroups, size);
    return gpu_noted(dev, sums && n ? parts_into(g, dbl, s, into, ngroups) : s);
}
