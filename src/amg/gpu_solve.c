/* gpu_solve.c: the AMG solve's steps on a GPU with memory of its own, for a
 * resident hierarchy (kernels/solve.cl): a level's matrix times a vector,
 * its diagonal's inverses, the smoothers' and CG's vector steps.  Vectors
 * are held as one array each; a step's sum is a part per work-group, added
 * on the device into one value, which alone is read back. */
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

/* The sum of a launch's parts: a work-group's part each, then their sum at
 * part[ngroups] (hsp_lz_sum), read into *out. */
typedef struct {
    gpu_array part;
    int64_t ngroups;
    size_t size; /* the launch's work-group */
} sum_parts;

/* Room for the parts of kernel's launch over n items (none where out is NULL). */
static hsp_status parts_new(gpu *g, int dbl, int kernel, int64_t n, const double *out, sum_parts *p)
{
    p->size = gpu_pow2_group(g, dbl, kernel);
    p->ngroups = (n + (int64_t)p->size - 1) / (int64_t)p->size;
    return out ? gpu_array_new(g, &p->part, ((size_t)p->ngroups + 1) * (dbl ? sizeof(double) : sizeof(float)))
               : HSP_OK;
}

/* *out: the sum of the parts, read back (the parts freed either way). */
static hsp_status parts_sum(gpu *g, int dbl, hsp_status s, sum_parts *p, double *out)
{
    size_t vs = dbl ? sizeof(double) : sizeof(float);
    int64_t at = p->ngroups;
    gpu_vt_value v = {0};
    if (s == HSP_OK && p->ngroups) s = gpu_parts_add(g, dbl, &p->part, p->ngroups, &p->part, at);
    if (s == HSP_OK && p->ngroups) s = g->ops->finish(g);
    if (s == HSP_OK && p->ngroups) s = gpu_array_read_at(g, &p->part, (size_t)at * vs, dbl ? (void *)&v.d : &v.f, vs);
    *out = dbl ? v.d : v.f;
    return gpu_done(g, s, &p->part, 1);
}

/* Vector k's array, or, where it is NULL, the first's (read by no item). */
static gpu_arg vec_arg(void *const v[], int k)
{
    const gpu_held *h = v[k] ? v[k] : v[0];
    return gpu_array_arg(&h->a[0]);
}

/* The work-items a row of M gets: the power of two at most its mean row
 * length, at most 32 and the work-group's size (a warp reads a run of
 * entries in one go where a row a work-item would read 32 runs). */
static int spmv_team(const hsp_csr *M, size_t group)
{
    int64_t mean = M->nrows ? M->nnz / M->nrows : 0;
    int team = 1;
    while (team < 32 && (size_t)team * 2 <= group && team * 2 <= mean) team *= 2;
    return team;
}

hsp_status gpu_spmv(hsp_device *dev, const hsp_csr *M, void *held_m, double s, void *x, void *c, void *y, void *w,
                    double *yw)
{
    gpu *g = dev->state;
    int dbl = M->precision == HSP_DOUBLE, has_c = c != NULL, has_w = w != NULL;
    const gpu_held *a = held_m;
    int team = spmv_team(M, gpu_pow2_group(g, dbl, GK_SPMV));
    int64_t m = M->nrows, items = m * team;
    void *const v[] = {y, x, c, w};
    gpu_vt_value vs;
    sum_parts p = {0};
    hsp_status st = parts_new(g, dbl, GK_SPMV, items, yw, &p);
    if (st != HSP_OK) return gpu_noted(dev, st);
    gpu_arg args[] = {gpu_val(&m, sizeof m),       gpu_array_arg(&a->a[0]),   gpu_array_arg(&a->a[1]),
                      gpu_array_arg(&a->a[2]),     vec_arg(v, 1),             gpu_vt(dbl, s, &vs),
                      vec_arg(v, 2),               gpu_val(&has_c, sizeof has_c), vec_arg(v, 0),
                      vec_arg(v, 3),               gpu_val(&has_w, sizeof has_w), gpu_val(&team, sizeof team),
                      has_w ? gpu_array_arg(&p.part) : vec_arg(v, 0),
                      gpu_local(p.size * (dbl ? sizeof(double) : sizeof(float)))};
    if (m) st = g->ops->launch(g, dbl, GK_SPMV, args, 14, (size_t)p.ngroups, p.size);
    return gpu_noted(dev, yw ? parts_sum(g, dbl, st, &p, yw) : st);
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
                      void *const v[4], double *out)
{
    gpu *g = dev->state;
    int dbl = precision == HSP_DOUBLE, has_v = op != HSP_VEC_STEP || v[1] != NULL;
    int sums = op == HSP_VEC_UPDATE || op == HSP_VEC_DOT;
    void *r[4];
    gpu_vt_value va, vc;
    sum_parts p = {0};
    vec_roles(op, v, r);
    hsp_status s = parts_new(g, dbl, GK_VECTOR, n, sums ? out : NULL, &p);
    if (s != HSP_OK) return gpu_noted(dev, s);
    gpu_arg args[] = {gpu_val(&op, sizeof op), gpu_val(&n, sizeof n), gpu_vt(dbl, a, &va), gpu_vt(dbl, c, &vc),
                      vec_arg(r, 0), vec_arg(r, 1), vec_arg(r, 2), vec_arg(r, 3), gpu_val(&has_v, sizeof has_v),
                      sums ? gpu_array_arg(&p.part) : vec_arg(r, 0),
                      gpu_local(p.size * (dbl ? sizeof(double) : sizeof(float)))};
    if (n) s = g->ops->launch(g, dbl, GK_VECTOR, args, 11, (size_t)p.ngroups, p.size);
    return gpu_noted(dev, sums ? parts_sum(g, dbl, s, &p, out) : s);
}
