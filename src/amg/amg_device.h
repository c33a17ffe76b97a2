/* amg_device.h: the steps of a resident AMG hierarchy on a device with
 * memory of its own (src/amg/amg_resident.c drives them).  A device's amg
 * member points to one, or is NULL where it uses host arrays in place (the
 * hierarchy is then made on the host). */
#ifndef HSP_AMG_DEVICE_H
#define HSP_AMG_DEVICE_H

#include "device/device.h"

/* Where a solve step's sum goes, on the device: its work-groups' parts into
 * parts (held, of the level's precision: a value for each work-group of
 * the launch), added there into sums[at] (held, likewise); and, where
 * num >= 0, the step's a is sums[num] / sums[den] (CG's alpha and beta,
 * which the host never reads). */
typedef struct hsp_vec_sums {
    void *parts, *sums;
    int at, num, den;
} hsp_vec_sums;

/* On matrices the device holds (held: what dev->hold made, or a product's
 * C): tentative aggregates A's nodes over its strong connections (o's strength and theta;
 * zeros: A's stored zeros count, as level 0's) into *naggs aggregates (0:
 * none would coarsen; nodes of no strong connection in none, and where no
 * node has one, one empty aggregate, as the host's) and holds the tentative
 * prolongator T of *tnnz entries (one a node in an aggregate: the constant
 * candidate at level 0, and on each later level the norms of the one
 * before, held_prev being the T of the level before), with *rho a bound of
 * rho(D^-1 A); radius checks A's diagonal and gives *rho; smooth turns A*T,
 * held as P, into T - (w / a_ii) A*T; transpose holds P^T, its rows
 * unsorted, and transpose_values writes P's values into an R of P^T's
 * pattern; identity holds the n x n identity (a product with it sorts a
 * matrix's rows); lanczos runs one pass (below) of a Lanczos estimate of
 * rho(D^-1 A) (src/amg/radius.c drives them), its vectors held in *work
 * from HSP_LZ_START to HSP_LZ_END.  The device's finish waits for what
 * they launched. */
typedef struct hsp_amg_device {
    hsp_status (*tentative)(hsp_device *dev, const hsp_csr *A, void *held, const hsp_amg_options *o, int zeros,
                            const void *held_prev, void **held_t, int32_t *naggs, int64_t *tnnz, double *rho);
    hsp_status (*radius)(hsp_device *dev, const hsp_csr *A, void *held, double *rho);
    hsp_status (*smooth)(hsp_device *dev, const hsp_csr *A, void *held_a, void *held_t, double w, const hsp_csr *P,
                         void *held_p);
    hsp_status (*transpose)(hsp_device *dev, const hsp_csr *P, void *held_p, void **held_r);
    hsp_status (*transpose_values)(hsp_device *dev, const hsp_csr *P, void *held_p, void *held_r);
    hsp_status (*identity)(hsp_device *dev, int32_t n, hsp_precision precision, void **held);
    hsp_status (*lanczos)(hsp_device *dev, const hsp_csr *A, void *held, void **work, int pass, int step,
                          double *scalars);
    /* The solve's steps, on vectors of the level's precision held as one
     * array each (dev->hold): spmv makes y = c + s M x (c NULL: 0; c may
     * be y) and, where w is not NULL, sums y.w into `into` (below);
     * diagonals holds 1 / a_ii in dinv and 1 / sum_j |a_ij| in l1inv;
     * vector runs step op (HSP_VEC_*, below) over n entries, its sum (where
     * it gives one) into `into`, its a taken there where into->num >= 0.
     * Nothing is read back: the host reads the sums when it needs them. */
    hsp_status (*spmv)(hsp_device *dev, const hsp_csr *M, void *held_m, double s, void *x, void *c, void *y,
                       void *w, const hsp_vec_sums *into);
    hsp_status (*diagonals)(hsp_device *dev, const hsp_csr *A, void *held_a, void *dinv, void *l1inv);
    hsp_status (*vector)(hsp_device *dev, int op, int64_t n, hsp_precision precision, double a, double c,
                         void *const v[4], const hsp_vec_sums *into);
} hsp_amg_device;

/* The solve's vector steps over n entries, v[] the vectors named (the CPU
 * threads run the same on double vectors: solve.h): STEP, v = {x, d, r,
 * dinv}: u = c dinv.r + a d (d read only where a != 0; d NULL where a is
 * 0), d = u where given, x += u; UPDATE, {x, r, p, q}: x += a p, r -= a q,
 * sum r.r; DIRECTION, {p, z}: p = z + a p; DOT, {u, v}: sum u.v;
 * COPY, {y, x}: y = x; ZERO, {x}: x = 0. */
enum { HSP_VEC_STEP, HSP_VEC_UPDATE, HSP_VEC_DIRECTION, HSP_VEC_DOT, HSP_VEC_COPY, HSP_VEC_ZERO };

/* The passes of Lanczos step j on S = |D|^-1/2 A |D|^-1/2 (similar to
 * D^-1 A), over vectors v, w, prev, with scalars alpha (HSP_LZ_ALPHA + j)
 * and norm2 (HSP_LZ_NORM2 + j) kept where the passes run, so that a
 * device's steps need no read until READ: START: w = the start vector
 * (hsp_lanczos_start), v = 0, norm2[0] = |w|^2; ADVANCE j: beta =
 * sqrt(norm2[j]), prev = v, v = w / beta; MULTIPLY j: w = S v, alpha[j] =
 * w.v; ORTHOGONALIZE j: w -= alpha[j] v + beta prev, norm2[j + 1] = |w|^2;
 * READ: the scalars into the caller's array (HSP_LZ_SCALARS of them); END:
 * the vectors freed. */
enum { HSP_LZ_START, HSP_LZ_ADVANCE, HSP_LZ_MULTIPLY, HSP_LZ_ORTHOGONALIZE, HSP_LZ_READ, HSP_LZ_END };
enum { HSP_LZ_STEPS = 15, HSP_LZ_ALPHA = 0, HSP_LZ_NORM2 = HSP_LZ_STEPS, HSP_LZ_SCALARS = 2 * HSP_LZ_STEPS + 1 };

/* The scalar that pass `pass` of step `step` sums into, or -1 (ADVANCE). */
static inline int hsp_lanczos_sum_at(int pass, int step)
{
    return pass == HSP_LZ_START ? HSP_LZ_NORM2 : pass == HSP_LZ_MULTIPLY ? HSP_LZ_ALPHA + step
           : pass == HSP_LZ_ORTHOGONALIZE ? HSP_LZ_NORM2 + step + 1 : -1;
}

/* Entry i of the Lanczos start vector: a hash of i in [-0.5, 0.5), so that
 * every frequency is in it and any device makes it in parallel
 * (kernels/amg.cl's lanczos_start is the same function). */
static inline double hsp_lanczos_start(int64_t i)
{
    uint32_t h = (uint32_t)i * 0x9e3779b1u;
    h ^= h >> 15, h *= 0x85ebca77u, h ^= h >> 13, h *= 0xc2b2ae35u, h ^= h >> 16;
    return h / 4294967296.0 - 0.5;
}

#endif
