/* solve_ops.c: the solve's steps where its vectors are: on the CPU threads
 * (kernels.c, double vectors) or, for a hierarchy a device holds, on the
 * device (amg_device.h: vectors it holds, of the hierarchy's precision,
 * and its sums, which stay there until hsp_solve_read).  A device's first
 * error is kept in the solve data; the steps after it do nothing and the
 * scalars read are 0, and the solve returns it. */
#include <stdlib.h>
#include <string.h>
#include "amg/amg_device.h"
#include "amg/solve.h"
#include "core/internal.h"

/* The device's step status s into sd: the first error is kept. */
static void noted(hsp_amg_solve_data *sd, hsp_status s)
{
    if (sd->status == HSP_OK) sd->status = s;
}

/* Where a device step's sum goes (at), and its coefficient num / den (num -1: none). */
static hsp_vec_sums sums_at(const hsp_amg_solve_data *sd, int at, int num, int den)
{
    return (hsp_vec_sums){sd->parts, sd->sums, at, num, den};
}

/* Vector step op over n entries on sd's device (nothing after an error). */
static void on_device(hsp_amg_solve_data *sd, int op, int32_t n, double a, double c, void *const v[4],
                      hsp_vec_sums into)
{
    if (sd->status == HSP_OK) noted(sd, sd->dev->amg->vector(sd->dev, op, n, sd->precision, a, c, v, &into));
}

void hsp_solve_spmv(hsp_amg_solve_data *sd, const hsp_rows *r, void *x, void *c, double s, void *y, void *w, int at)
{
    hsp_vec_sums into = sums_at(sd, at, -1, 0);
    if (!sd->dev) {
        double yw = hsp_rows_spmv(sd->ctx, r, x, c, s, y, w);
        if (w) sd->scalar[at] = yw;
    } else if (sd->status == HSP_OK) {
        noted(sd, sd->dev->amg->spmv(sd->dev, r->M, r->held, s, x, c, y, w, w ? &into : NULL));
    }
}

void hsp_solve_step(hsp_amg_solve_data *sd, int32_t n, void *x, void *d, void *r, void *dinv, double a, double c)
{
    if (!sd->dev) hsp_vec_step(sd->ctx, n, x, d, r, dinv, a, c);
    else on_device(sd, HSP_VEC_STEP, n, a, c, (void *[]){x, d, r, dinv}, sums_at(sd, 0, -1, 0));
}

void hsp_solve_update(hsp_amg_solve_data *sd, int32_t n, int num, int den, void *p, void *q, void *x, void *r, int at)
{
    if (!sd->dev) sd->scalar[at] = hsp_vec_update(sd->ctx, n, sd->scalar[num] / sd->scalar[den], p, q, x, r);
    else on_device(sd, HSP_VEC_UPDATE, n, 0, 0, (void *[]){x, r, p, q}, sums_at(sd, at, num, den));
}

void hsp_solve_direction(hsp_amg_solve_data *sd, int32_t n, void *z, int num, int den, void *p)
{
    if (!sd->dev) hsp_vec_direction(sd->ctx, n, z, sd->scalar[num] / sd->scalar[den], p);
    else on_device(sd, HSP_VEC_DIRECTION, n, 0, 0, (void *[]){p, z, NULL, NULL}, sums_at(sd, 0, num, den));
}

void hsp_solve_dot(hsp_amg_solve_data *sd, int32_t n, void *u, void *v, int at)
{
    if (!sd->dev) sd->scalar[at] = hsp_vec_dot(sd->ctx, n, u, v);
    else on_device(sd, HSP_VEC_DOT, n, 0, 0, (void *[]){u, v, NULL, NULL}, sums_at(sd, at, -1, 0));
}

void hsp_solve_copy(hsp_amg_solve_data *sd, int32_t n, void *x, void *y)
{
    if (!sd->dev) hsp_vec_copy(sd->ctx, n, x, y);
    else on_device(sd, HSP_VEC_COPY, n, 0, 0, (void *[]){y, x, NULL, NULL}, sums_at(sd, 0, -1, 0));
}

void hsp_solve_zero(hsp_amg_solve_data *sd, int32_t n, void *x)
{
    if (!sd->dev) memset(x, 0, (size_t)n * sizeof(double));
    else on_device(sd, HSP_VEC_ZERO, n, 0, 0, (void *[]){x, NULL, NULL, NULL}, sums_at(sd, 0, -1, 0));
}

hsp_status hsp_solve_vector(hsp_amg_solve_data *sd, int32_t n, const void *from, void **v)
{
    size_t bytes = (size_t)n * (sd->dev ? hsp_value_size(sd->precision) : sizeof(double));
    *v = NULL;
    if (!sd->dev) {
        if (!(*v = calloc(bytes ? bytes : 1, 1))) return hsp_fail(HSP_ERR_NOMEM, "no memory for a solve's vector");
        if (from) hsp_vec_to_double(from, sd->precision, n, *v);
        return HSP_OK;
    }
    hsp_status s = sd->dev->hold(sd->dev, 1, (const void *[]){from}, &bytes, v);
    if (s == HSP_OK && !from && n) s = sd->dev->amg->vector(sd->dev, HSP_VEC_ZERO, n, sd->precision, 0, 0,
                                                           (void *[]){*v, NULL, NULL, NULL}, NULL);
    return s;
}

void hsp_solve_read(hsp_amg_solve_data *sd, double scalar[HSP_NSCALARS])
{
    char held[HSP_NSCALARS * sizeof(double)];
    size_t bytes = HSP_NSCALARS * hsp_value_size(sd->precision);
    memset(scalar, 0, HSP_NSCALARS * sizeof *scalar);
    if (!sd->dev) memcpy(scalar, sd->scalar, sizeof sd->scalar);
    else if (sd->status == HSP_OK) noted(sd, sd->dev->home(sd->dev, sd->sums, 1, (void *[]){held}, &bytes));
    if (sd->dev && sd->status == HSP_OK) hsp_vec_to_double(held, sd->precision, HSP_NSCALARS, scalar);
}
