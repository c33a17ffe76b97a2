/* amg.h: what the two setups of a hierarchy share (private). */
#ifndef HSP_AMG_H
#define HSP_AMG_H
#include "hspgemm.h"
#include "spgemm/spgemm.h"

struct hsp_device;

/* What a level keeps for a re-setup: on the host (hsp_amg_setup, and
 * hsp_amg_setup_resident where the device uses host arrays in place), or
 * on a device with memory of its own (hsp_amg_setup_resident there). */
typedef struct {
    int64_t *diag;    /* where A's diagonal is, per row */
    int32_t *agg;     /* the aggregate of each row */
    hsp_csr *T;       /* the tentative prolongator */
    int64_t *t_entry; /* where T's entry of each row is in P */
    hsp_plan *smooth; /* A*T into P */
    hsp_plan *rap;    /* R*A*P into the next A; it holds R */
    hsp_resident *rT, *rmid; /* on the device: T, and the first product of R*A*P */
    double rho;       /* rho(D^-1 A) that smoothed P (host set-ups; 0 where unknown), for the solve */
} level_state;

struct hsp_amg_state {
    hsp_amg_options options;
    int on_device;    /* the levels are the device's: no host matrices but those brought home */
    hsp_pattern fine; /* on the host: a copy of the caller's A's pattern, for a re-setup to check
                         (the plans keep none: the other levels are the hierarchy's own) */
    hsp_csr fine_float;  /* options.float_levels over a double A: A's pattern and fine_values, */
    float *fine_values;  /* its values in float: the levels' source, the cycles' level 0; else NULL */
    level_state level[HSP_AMG_MAX_LEVELS];
    struct hsp_amg_solve_data *solve; /* what the solves keep (amg/solve.h); NULL until the first,
                                         and again after a re-setup */
};

/* o's aggregation, AUTO resolved: PARALLEL where a device with memory of its own aggregates. */
static inline hsp_aggregation hsp_aggregation_of(const hsp_amg_options *o, int on_device)
{
    if (o->aggregation != HSP_AGGREGATION_AUTO) return o->aggregation;
    return on_device ? HSP_AGGREGATION_PARALLEL : HSP_AGGREGATION_GREEDY;
}
/* A square A (nrows x ncols) and options in range, else an error naming fn. */
hsp_status hsp_amg_check(const char *fn, int32_t nrows, int32_t ncols, const hsp_amg_options *o);
/* *rho = rho(D^-1 A), estimated by Lanczos steps on the CPU threads, at most
 * Gershgorin's bound (diag: where A's diagonal is, per row). */
hsp_status hsp_radius_estimate(hsp_context *ctx, const hsp_csr *A, const int64_t *diag, double *rho);
/* *rho lowered to the Lanczos estimate of rho(D^-1 A) where it is below,
 * by dev's passes over A, which it holds in held (its diagonal checked). */
hsp_status hsp_radius_held(struct hsp_device *dev, const hsp_csr *A, void *held, double *rho);
/* Level l's diagonal (s->diag), aggregates (s->agg), T (s->T) and the next
 * level's candidates (*Bc), its A and candidates B given (B NULL: the
 * constant), its nodes of block rows, as hsp_amg_setup makes them on the
 * host (ctx's CPU threads); *naggs 0 when it does not coarsen. */
hsp_status hsp_amg_aggregate_level(hsp_context *ctx, const hsp_csr *A, const hsp_amg_options *o, int l,
                                   int32_t block, const double *B, level_state *s, int32_t *naggs, double **Bc);
/* Add the device's and the CPU threads' times of n products (stats) to v's. */
void hsp_amg_sides(hsp_amg_level *v, const hsp_stats *stats, int n);
/* hsp_amg_resetup of a hierarchy whose levels are host matrices. */
hsp_status hsp_amg_resetup_host(hsp_context *ctx, hsp_amg *amg, const hsp_csr *A);

#endif
