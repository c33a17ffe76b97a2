/* rap.c: Galerkin products C = R*A*P as two products, R*(A*P) or (R*A)*P,
 * with R = P^T formed once when not given (for R*(A*P) on a thread of its
 * own while A*P runs); a GPU device keeps the intermediate product for the
 * second instead of receiving it again; with a plan, the values of a later
 * product of the same patterns are computed alone (AMG re-setup). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "context.h"
#include "internal.h"
#include "plan.h"
#include "stages.h"
#include "transpose.h"

/* The two products of an order: first X*Y into mid, then the second. */
static void operands(hsp_rap_order order, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, const hsp_csr *mid,
                     const hsp_csr *op[4])
{
    op[0] = order == HSP_RAP_R_AP ? A : R, op[1] = order == HSP_RAP_R_AP ? P : A;
    op[2] = order == HSP_RAP_R_AP ? R : mid, op[3] = order == HSP_RAP_R_AP ? mid : P;
}

/* One product, with a plan when plan is not NULL. */
static hsp_status product(hsp_context *ctx, const hsp_csr *X, const hsp_csr *Y, hsp_csr **Z, hsp_plan **plan,
                          hsp_stats *stats)
{
    return plan ? hsp_multiply_plan(ctx, X, Y, Z, plan, stats) : hsp_multiply_sorted(ctx, X, Y, Z, stats);
}

static hsp_status check_args(hsp_context *ctx, const hsp_csr *A, const hsp_csr *P, hsp_rap_order order, const void *C)
{
    if (!ctx || !A || !P || !C) return hsp_fail(HSP_ERR_ARG, "hsp_rap: ctx, A, P or C is NULL");
    if (order != HSP_RAP_R_AP && order != HSP_RAP_RA_P)
        return hsp_fail(HSP_ERR_ARG, "hsp_rap: unknown order %d", (int)order);
    return HSP_OK;
}

/* Is M valid CSR?  The error names it. */
static hsp_status check_named(const hsp_csr *M, const char *name)
{
    char why[512];
    hsp_status s = hsp_csr_check(M);
    if (s == HSP_OK) return s;
    snprintf(why, sizeof why, "%s", hsp_errmsg());
    return hsp_fail(s, "%s: %s", name, why);
}

/* Are R (NULL: P^T), A and P valid, of one precision, and of shapes that
 * multiply?  The error names the operands. */
static hsp_status check_operands_named(const hsp_csr *R, const hsp_csr *A, const hsp_csr *P)
{
    hsp_status s = check_named(A, "A");
    if (s == HSP_OK) s = check_named(P, "P");
    if (s == HSP_OK && R) s = check_named(R, "R");
    if (s != HSP_OK) return s;
    if (A->ncols != P->nrows)
        return hsp_fail(HSP_ERR_SHAPE, "A is %d x %d but P is %d x %d: ncols(A) != nrows(P)", A->nrows, A->ncols,
                        P->nrows, P->ncols);
    if (R && R->ncols != A->nrows)
        return hsp_fail(HSP_ERR_SHAPE, "R is %d x %d but A is %d x %d: ncols(R) != nrows(A)", R->nrows, R->ncols,
                        A->nrows, A->ncols);
    if (!R && P->nrows != A->nrows)
        return hsp_fail(HSP_ERR_SHAPE, "R = P^T is %d x %d but A is %d x %d: ncols(R) != nrows(A)", P->ncols,
                        P->nrows, A->nrows, A->ncols);
    if (A->precision != P->precision || (R && R->precision != A->precision))
        return hsp_fail(HSP_ERR_ARG, "R, A and P must have one precision: convert with hsp_csr_convert");
    return HSP_OK;
}

/* Forming R = P^T for a plan, on a thread of its own or not. */
typedef struct {
    const hsp_csr *P;
    hsp_pool *pool; /* the context's threads, when the product does not run meanwhile */
    hsp_plan *plan;
    int keep_where;
    hsp_status status;
    char error[256];
} transpose_job;

static void *transpose_run(void *arg)
{
    transpose_job *t = arg;
    double start = hsp_now_ms();
    t->status = hsp_transpose_keep(t->P, t->pool, &t->plan->rt, t->keep_where ? &t->plan->rt_where : NULL);
    t->plan->ms_transpose = hsp_now_ms() - start;
    if (t->status != HSP_OK) snprintf(t->error, sizeof t->error, "%s", hsp_errmsg()); /* errors are per thread */
    return NULL;
}

/* Wait for the transpose started on thread (if started); its status. */
static hsp_status transpose_join(pthread_t *thread, int started, transpose_job *t)
{
    if (!started) return HSP_OK;
    pthread_join(*thread, NULL);
    return t->status == HSP_OK ? HSP_OK : hsp_fail(t->status, "%s", t->error);
}

hsp_status hsp_rap(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_rap_order order,
                   hsp_csr **C, hsp_plan **plan, hsp_stats stats[2])
{
    hsp_status s = check_args(ctx, A, P, order, C);
    if (s != HSP_OK) return s;
    *C = NULL;
    if (plan) *plan = NULL;
    if ((s = check_operands_named(R, A, P)) != HSP_OK) return s;
    hsp_context_lock(ctx);
    s = hsp_rap_run(ctx, R, A, P, order, C, plan, stats);
    if (s == HSP_OK && !plan && ctx->options.drop_zeros) hsp_csr_drop_zeros(*C, stats ? stats + 1 : NULL);
    hsp_context_unlock(ctx);
    return s;
}

hsp_status hsp_rap_run(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_rap_order order,
                       hsp_csr **C, hsp_plan **plan, hsp_stats *stats)
{
    hsp_status s = HSP_OK;
    hsp_plan *p = calloc(1, sizeof *p);
    if (!p) return hsp_fail(HSP_ERR_NOMEM, "no memory for a Galerkin product");
    p->kind = HSP_PLAN_RAP, p->order = order;
    transpose_job t = {P, NULL, p, plan != NULL, HSP_OK, ""};
    pthread_t thread;
    int started = 0;
    if (!R) { /* R*(A*P) needs R only for the second product */
        started = order == HSP_RAP_R_AP && pthread_create(&thread, NULL, transpose_run, &t) == 0;
        if (!started) t.pool = ctx->pool, transpose_run(&t), s = t.status; /* here: its message is this thread's */
    }
    const hsp_csr *op[4];
    operands(order, R ? R : started ? NULL : p->rt, A, P, NULL, op); /* R is the thread's until joined */
    ctx->keep = !plan; /* mid is for the second product alone: the device need not send it back */
    if (s == HSP_OK) s = product(ctx, op[0], op[1], &p->mid, plan ? &p->first : NULL, stats);
    ctx->keep = 0;
    hsp_status joined = transpose_join(&thread, started, &t);
    if (s == HSP_OK) s = joined;
    operands(order, R ? R : p->rt, A, P, p->mid, op);
    ctx->resident = order == HSP_RAP_R_AP ? HSP_RESIDENT_B : HSP_RESIDENT_A; /* mid, as the device left it */
    if (s == HSP_OK) s = product(ctx, op[2], op[3], C, plan ? &p->second : NULL, stats ? stats + 1 : NULL);
    ctx->resident = HSP_RESIDENT_NONE;
    if (ctx->device->fetch) ctx->device->fetch(ctx->device, 1); /* mid, if still kept, is freed here */
    if (s == HSP_OK && plan) *plan = p;
    else hsp_plan_free(p);
    return s;
}

/* The pattern sub-plan q keeps of its operand `second` (B) or first (A). */
static const hsp_pattern *kept(const hsp_plan *q, int second)
{
    return second && !q->b_is_a ? &q->b : &q->a;
}

/* Are R (when given), A, P and C of one precision and the plan's patterns?
 * The error names them. */
static hsp_status check_operands(const hsp_plan *plan, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P,
                                 const hsp_csr *C)
{
    int r_ap = plan->order == HSP_RAP_R_AP;
    if (A->precision != C->precision || P->precision != C->precision || (R && R->precision != C->precision))
        return hsp_fail(HSP_ERR_ARG, "hsp_rap_reuse: R, A, P and C must have one precision");
    hsp_status s = hsp_pattern_check(kept(plan->first, !r_ap), A, "A");
    if (s == HSP_OK) s = hsp_pattern_check(r_ap ? kept(plan->first, 1) : kept(plan->second, 1), P, "P");
    if (s == HSP_OK && R) s = hsp_pattern_check(r_ap ? kept(plan->second, 0) : kept(plan->first, 0), R, "R");
    if (s == HSP_OK) s = hsp_pattern_check(&plan->second->c, C, "C");
    return s;
}

hsp_status hsp_rap_numeric(hsp_context *ctx, hsp_plan *plan, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P,
                           hsp_csr *C)
{
    const hsp_csr *op[4];
    if (plan->rt) hsp_transpose_values(P, plan->rt_where, plan->rt);
    operands(plan->order, R ? R : plan->rt, A, P, plan->mid, op);
    hsp_status s = hsp_plan_numeric(ctx, plan->first, op[0], op[1], plan->mid);
    return s == HSP_OK ? hsp_plan_numeric(ctx, plan->second, op[2], op[3], C) : s;
}

hsp_status hsp_rap_reuse(hsp_context *ctx, hsp_plan *plan, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P,
                         hsp_csr *C)
{
    hsp_status s = check_args(ctx, A, P, HSP_RAP_R_AP, C);
    if (s == HSP_OK && (!plan || plan->kind != HSP_PLAN_RAP))
        s = hsp_fail(HSP_ERR_ARG, "hsp_rap_reuse: %s", plan ? "the plan is of a single product; use hsp_multiply_reuse"
                                                            : "plan is NULL");
    if (s == HSP_OK && !R != !!plan->rt)
        s = hsp_fail(HSP_ERR_ARG, "hsp_rap_reuse: the plan was made with %s", plan->rt ? "R = P^T (pass R = NULL)"
                                                                                 : "R given (pass it)");
    if (s == HSP_OK) s = check_operands(plan, R, A, P, C);
    if (s != HSP_OK) return s;
    hsp_context_lock(ctx);
    s = hsp_rap_numeric(ctx, plan, R, A, P, C);
    hsp_context_unlock(ctx);
    return s;
}
