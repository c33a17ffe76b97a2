/* solve_ops.c: the solve's steps where its vectors are: on the CPU threads
 * (kernels.c, double vectors) or, for a hierarchy a device holds, on the
 * device (amg_device.h: vectors it holds, of the hierarchy's precision).
 * A device's first error is kept in the solve data; the steps after it do
 * nothing and give 0, and the solve returns it. */
#include <string.h>
#include "amg/amg_device.h"
#include "amg/solve.h"

/* The device's step status s into sd: the first error is kept. */
static void noted(hsp_amg_solve_data *sd, hsp_status s)
{
    if (sd->status == HSP_OK) sd->status = s;
}

/* Vector step op over n entries on sd's device (nothing after an error); its sum. */
static double on_device(hsp_amg_solve_data *sd, int op, int32_t n, double a, double c, void *v0, void *v1,
                        void *v2, void *v3)
{
    double out = 0;
    void *const v[4] = {v0, v1, v2, v3};
    if (sd->status == HSP_OK) noted(sd, sd->dev->amg->vector(sd->dev, op, n, sd->precision, a, c, v, &out));
    return out;
}

double hsp_solve_spmv(hsp_amg_solve_data *sd, const hsp_rows *r, void *x, void *c, double s, void *y, void *w)
{
    double yw = 0;
    if (!sd->dev) return hsp_rows_spmv(sd->ctx, r, x, c, s, y, w);
    if (sd->status == HSP_OK) noted(sd, sd->dev->amg->spmv(sd->dev, r->M, r->held, s, x, c, y, w, w ? &yw : NULL));
    return yw;
}

void hsp_solve_step(hsp_amg_solve_data *sd, int32_t n, void *x, void *d, void *r, void *dinv, double a, double c)
{
    if (!sd->dev) hsp_vec_step(sd->ctx, n, x, d, r, dinv, a, c);
    else on_device(sd, HSP_VEC_STEP, n, a, c, x, d, r, dinv);
}

double hsp_solve_update(hsp_amg_solve_data *sd, int32_t n, double a, void *p, void *q, void *x, void *r)
{
    if (!sd->dev) return hsp_vec_update(sd->ctx, n, a, p, q, x, r);
    return on_device(sd, HSP_VEC_UPDATE, n, a, 0, x, r, p, q);
}

void hsp_solve_direction(hsp_amg_solve_data *sd, int32_t n, void *z, double beta, void *p)
{
    if (!sd->dev) hsp_vec_direction(sd->ctx, n, z, beta, p);
    else on_device(sd, HSP_VEC_DIRECTION, n, beta, 0, p, z, NULL, NULL);
}

double hsp_solve_dot(hsp_amg_solve_data *sd, int32_t n, void *u, void *v)
{
    if (!sd->dev) return hsp_vec_dot(sd->ctx, n, u, v);
    return on_device(sd, HSP_VEC_DOT, n, 0, 0, u, v, NULL, NULL);
}

void hsp_solve_copy(hsp_amg_solve_data *sd, int32_t n, void *x, void *y)
{
    if (!sd->dev) hsp_vec_copy(sd->ctx, n, x, y);
    else on_device(sd, HSP_VEC_COPY, n, 0, 0, y, x, NULL, NULL);
}

void hsp_solve_zero(hsp_amg_solve_data *sd, int32_t n, void *x)
{
    if (!sd->dev) memset(x, 0, (size_t)n * sizeof(double));
    else on_device(sd, HSP_VEC_ZERO, n, 0, 0, x, NULL, NULL, NULL);
}
