/* solve.h: the AMG solve's parts (private): what a hierarchy keeps for its
 * solves, the row kernels on the CPU threads, the steps where the vectors
 * are, the smoothers, the cycle and the coarsest level's dense factor.  On
 * the CPU threads vectors are double and a matrix's values are read in its
 * precision; for a hierarchy a device holds, every step but the coarsest
 * level's runs there on vectors of the hierarchy's precision that it holds
 * (void *: a double array, or a held one). */
#ifndef HSP_SOLVE_H
#define HSP_SOLVE_H
#include "hspgemm.h"
#include "core/pool.h"

enum {
    HSP_DENSE_MAX = 5000,      /* a coarsest level of more rows is smoothed, not factored */
    HSP_PART_ENTRIES = 16384   /* entries of a part of rows, at least (but for a level of fewer) */
};

/* Rows of a matrix cut into parts of about equal entries, one a thread. */
typedef struct {
    const hsp_csr *M;
    int64_t nparts;
    int64_t *cut; /* part p: rows cut[p] .. cut[p + 1] - 1 */
    void *held;   /* a device solve: M's arrays the device holds (no parts) */
} hsp_rows;

/* A dense LU or Cholesky factor of the coarsest level's A, its empty rows
 * (row and column all zeros) taken as the identity's and solved as 0: A's
 * pseudo-inverse there, as PyAMG's coarse solver gives (a level of no
 * aggregates is one such row). */
typedef struct {
    int32_t n;      /* 0: none (the level is smoothed) */
    double *f;      /* n x n, row by row: L of A = L L^T, or L\U of P A = L U */
    int32_t *perm;  /* LU's row of each pivot; NULL for Cholesky */
    int32_t nempty; /* A's empty rows: empty[0 .. nempty - 1] */
    int32_t *empty;
} hsp_dense_factor;

/* The solve's sums, kept where its vectors are (a device adds them there and
 * the host reads them all at once: CG's scalars cost one read an iteration):
 * r.r, p.Ap, r.z of this iteration and the next, b.b. */
enum { HSP_S_RR, HSP_S_PQ, HSP_S_RZ0, HSP_S_RZ1, HSP_S_BB, HSP_NSCALARS };

/* A level as the solve uses it. */
typedef struct {
    hsp_rows A, R, P;   /* R, P: none on the coarsest level */
    int32_t *ghost;     /* the rows whose x a part of A's rows other than their own reads, */
    int64_t nghost;     /* ascending: Gauss-Seidel keeps their values from before a sweep */
    void *dinv;         /* 1 / a_ii */
    void *l1inv;        /* 1 / sum_j |a_ij| */
    double rho;         /* rho(D^-1 A): the setup's, else estimated when a smoother needs it; 0 until */
    void *x, *b;        /* the level's iterate and right side (level 0's for hsp_amg_apply) */
    void *t, *d;        /* a residual; Chebyshev's step */
} hsp_solve_level;

/* What the solves of a hierarchy keep, made by the first (amg.h's state holds it). */
typedef struct hsp_amg_solve_data {
    int nlevels, nthreads;
    hsp_context *ctx;   /* of the solve running (its pool) */
    struct hsp_device *dev;  /* the device that holds the levels and runs the steps, or NULL: the
                                CPU threads */
    hsp_precision precision; /* of the caller's vectors (level 0's A), and a device's */
    hsp_rows op;             /* the outer iteration's A: the caller's (level[0].A its float copy where the
                                levels are float, its cut shared), or level[0].A itself */
    hsp_status status;  /* a device's first error in the solve running (solve_ops.c) */
    double scalar[HSP_NSCALARS]; /* the solve's sums (HSP_S_*) on the CPU threads */
    void *parts, *sums;          /* a device's: its steps' parts and sums (amg_device.h's hsp_vec_sums) */
    hsp_solve_level level[HSP_AMG_MAX_LEVELS];
    hsp_dense_factor coarse;
    double *coarse_b;   /* a device solve: the coarsest level's b and x on the host, and room */
    void *coarse_io;    /* for them in the hierarchy's precision */
} hsp_amg_solve_data;

/* ---- row kernels (kernels.c) ---- */
/* Entry k of M's values, M double where dbl (a constant where the caller's loop should be its own). */
static inline double hsp_entry(const hsp_csr *M, int64_t k, int dbl)
{
    return dbl ? ((const double *)M->values)[k] : ((const float *)M->values)[k];
}
/* Row i of M times x. */
static inline double hsp_row_times(const hsp_csr *M, int32_t i, const double *x)
{
    double sum = 0;
    if (M->precision == HSP_DOUBLE) {
        const double *v = M->values;
        for (int64_t k = M->rowptr[i]; k < M->rowptr[i + 1]; k++) sum += v[k] * x[M->colidx[k]];
    } else {
        const float *v = M->values;
        for (int64_t k = M->rowptr[i]; k < M->rowptr[i + 1]; k++) sum += v[k] * x[M->colidx[k]];
    }
    return sum;
}
/* Cut M's rows for ctx's threads (r->cut allocated). */
hsp_status hsp_rows_cut(hsp_context *ctx, const hsp_csr *M, hsp_rows *r);
/* y = c + s M x (c NULL: 0; y may be c) on the threads; returns y.w (w NULL: 0). */
double hsp_rows_spmv(hsp_context *ctx, const hsp_rows *r, const double *x, const double *c, double s, double *y,
                     const double *w);
/* v's dinv and l1inv of its A on the threads; an error naming the first row without a
 * nonzero diagonal entry. */
hsp_status hsp_rows_diagonals(hsp_context *ctx, hsp_solve_level *v);
/* u = c dinv.r + a d (d read only where a != 0; d NULL: a is 0, else d = u), x += u, over n rows. */
void hsp_vec_step(hsp_context *ctx, int32_t n, double *x, double *d, const double *r, const double *dinv, double a,
                  double c);
/* x += a p, r -= a q; returns r.r. */
double hsp_vec_update(hsp_context *ctx, int32_t n, double a, const double *p, const double *q, double *x, double *r);
/* p = z + beta p. */
void hsp_vec_direction(hsp_context *ctx, int32_t n, const double *z, double beta, double *p);
/* u.v. */
double hsp_vec_dot(hsp_context *ctx, int32_t n, const double *u, const double *v);
/* y = x. */
void hsp_vec_copy(hsp_context *ctx, int32_t n, const double *x, double *y);
/* n values of precision p at v as doubles into out; and n doubles into v, of precision p. */
void hsp_vec_to_double(const void *v, hsp_precision p, int32_t n, double *out);
void hsp_vec_from_double(const double *in, hsp_precision p, int32_t n, void *v);

/* ---- the steps where the vectors are (solve_ops.c): the CPU threads' above, or the device's ---- */
/* Their sums go to the scalar at (HSP_S_*); a step's coefficient from the
 * scalars is num / den.  hsp_solve_read gives all the scalars (a device's:
 * one read, after its steps so far). */
void hsp_solve_spmv(hsp_amg_solve_data *sd, const hsp_rows *r, void *x, void *c, double s, void *y, void *w, int at);
void hsp_solve_step(hsp_amg_solve_data *sd, int32_t n, void *x, void *d, void *r, void *dinv, double a, double c);
/* x += (num / den) p, r -= (num / den) q; r.r at at. */
void hsp_solve_update(hsp_amg_solve_data *sd, int32_t n, int num, int den, void *p, void *q, void *x, void *r, int at);
/* p = z + (num / den) p. */
void hsp_solve_direction(hsp_amg_solve_data *sd, int32_t n, void *z, int num, int den, void *p);
void hsp_solve_dot(hsp_amg_solve_data *sd, int32_t n, void *u, void *v, int at);
void hsp_solve_copy(hsp_amg_solve_data *sd, int32_t n, void *x, void *y);
void hsp_solve_zero(hsp_amg_solve_data *sd, int32_t n, void *x);
void hsp_solve_read(hsp_amg_solve_data *sd, double scalar[HSP_NSCALARS]);
/* *v: n values where the vectors are, from (the caller's, of the hierarchy's precision), or zeros
 * where from is NULL (made there: nothing crosses to a device). */
hsp_status hsp_solve_vector(hsp_amg_solve_data *sd, int32_t n, const void *from, void **v);

/* ---- smoothers (smooth.c) ---- */
/* The smoother o asks for, AUTO resolved: Gauss-Seidel on the CPU threads, Chebyshev on a device. */
static inline hsp_smoother hsp_smoother_of(const hsp_amg_solve_options *o, const hsp_amg_solve_data *sd)
{
    if (o->smoother != HSP_SMOOTHER_AUTO) return o->smoother;
    return sd->dev ? HSP_SMOOTHER_CHEBYSHEV : HSP_SMOOTHER_GAUSS_SEIDEL;
}
/* Where in the cycle a smoothing is: before the coarse correction, after it, or alone (a
 * coarsest level too large to factor): o->sweep's forward-backward Gauss-Seidel sweeps
 * forward before, backward after, and both ways alone. */
typedef enum { HSP_SMOOTH_PRE, HSP_SMOOTH_POST, HSP_SMOOTH_ALONE } hsp_smooth_at;
/* sweeps of the smoother on level v's A x = b (x zero where zero is nonzero: first sweep shortened). */
void hsp_smooth(hsp_amg_solve_data *sd, const hsp_amg_solve_options *o, hsp_solve_level *v, void *x, void *b,
                int sweeps, int zero, hsp_smooth_at at);
/* One forward Gauss-Seidel sweep on level v's A x = b from x = 0 (on the CPU threads), and the
 * residual r = b - A x after it from A's entries right of the diagonal and those of other parts
 * alone (the sweep made the rest of each row's sum b_i): of each row, the sweep reads the half
 * left of the diagonal and the residual the other, where a sweep and a product read it twice. */
void hsp_smooth_from_zero(hsp_amg_solve_data *sd, hsp_solve_level *v, double *x, const double *b, double *r);

/* ---- the cycle and the hierarchy's solve data (cycle.c) ---- */
/* amg's solve data for ctx and o (made or completed; kept in amg's state). */
hsp_status hsp_solve_data(hsp_context *ctx, hsp_amg *amg, const hsp_amg_solve_options *o, hsp_amg_solve_data **out);
/* Free sd (NULL: nothing). */
void hsp_solve_data_free(hsp_amg_solve_data *sd);
/* One cycle on level 0's A x = b, x improved in place (zero: x is 0 on entry). */
void hsp_cycle_run(hsp_amg_solve_data *sd, const hsp_amg_solve_options *o, void *x, void *b, int zero);

/* ---- the coarsest level (coarse.c) ---- */
/* A's dense factor: Cholesky (on the pool's threads), else LU with partial pivoting; an error where
 * A is singular. */
hsp_status hsp_dense_factorize(hsp_pool *pool, const hsp_csr *A, hsp_dense_factor *f);
/* x = A^-1 b by f (x may be b). */
void hsp_dense_solve(const hsp_dense_factor *f, const double *b, double *x);
void hsp_dense_factor_free(hsp_dense_factor *f);

#endif
