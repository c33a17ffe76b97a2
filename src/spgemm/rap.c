/* rap.c: Galerkin products C = R*A*P as two products, R*(A*P) or (R*A)*P,
 * with R = P^T formed once when not given (for R*(A*P) on a thread of its
 * own while A*P runs); on a device with memory of its own both products are
 * resident ones, the intermediate kept there for the second; with a plan,
 * the values of a later product of the same patterns are computed alone
 * (AMG re-setup). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "device/context.h"
#include "core/internal.h"
#include "spgemm/plan.h"
#include "spgemm/spgemm.h"
#include "spgemm/rap.h"
#include "spgemm/engine.h"
#include "core/transpose.h"

/* The two products of an order: first X*Y into mid, then the second. */
static void operands(hsp_rap_order order, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, const hsp_csr *mid,
                     const hsp_csr *op[4])
{
    op[0] = order == HSP_RAP_R_AP ? A : R, op[1] = order == HSP_RAP_R_AP ? P : A;
    op[2] = order == HSP_RAP_R_AP ? R : mid, op[3] = order == HSP_RAP_R_AP ? mid : P;
}

/* One product, with a plan (keeping copies of the patterns or not) when plan
 * is not NULL. */
static hsp_status product(hsp_context *ctx, const hsp_csr *X, const hsp_csr *Y, hsp_csr **Z, int copies,
                          hsp_plan **plan, hsp_stats *stats)
{
    return plan ? hsp_multiply_planned(ctx, X, Y, Z, copies, plan, stats) : hsp_multiply_sorted(ctx, X, Y, Z, stats);
}

static hsp_status check_args(hsp_context *ctx, const hsp_csr *A, const hsp_csr *P, hsp_rap_order order, const void *C)
{
    if (!ctx || !A || !P || !C) return hsp_fail(HSP_ERR_ARG, "hsp_rap: ctx, A, P or C is NULL");
    if (order != HSP_RAP_R_AP && order != HSP_RAP_RA_P)
        return hsp_fail(HSP_ERR_ARG, "hsp_rap: unknown order %d", (int)order);
    return HSP_OK;
}

/* Are R (NULL: P^T), A and P valid (checked on ctx's threads, once: the
 * products skip it), of one precision, and of shapes that multiply?  The
 * error names the operands. */
static hsp_status check_operands_named(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P)
{
    hsp_status s = hsp_csr_check_named(ctx, A, "A");
    if (s == HSP_OK) s = hsp_csr_check_named(ctx, P, "P");
    if (s == HSP_OK && R) s = hsp_csr_check_named(ctx, R, "R");
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
    int started;    /* on thread, to be joined */
    pthread_t thread;
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

/* Wait for the transpose of t (a transpose_job) if it runs on a thread of
 * its own; its status. */
static hsp_status transpose_join(void *arg)
{
    transpose_job *t = arg;
    if (!t->started) return HSP_OK;
    double start = hsp_now_ms();
    pthread_join(t->thread, NULL);
    t->plan->ms_transpose_wait = hsp_now_ms() - start;
    t->started = 0;
    return t->status == HSP_OK ? HSP_OK : hsp_fail(t->status, "%s", t->error);
}

hsp_status hsp_rap(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_rap_order order,
                   hsp_csr **C, hsp_plan **plan, hsp_stats stats[2])
{
    hsp_status s = check_args(ctx, A, P, order, C);
    if (s != HSP_OK) return s;
    *C = NULL;
    if (plan) *plan = NULL;
    hsp_context_lock(ctx);
    if ((s = check_operands_named(ctx, R, A, P)) != HSP_OK) return hsp_context_unlock(ctx), s;
    if (!plan && hsp_rap_aggregate_fits(ctx, R, A, P)) s = hsp_rap_aggregate(ctx, R, A, P, C, stats);
    else s = hsp_rap_run(ctx, R, A, P, order, C, 1, plan, stats);
    if (s == HSP_OK && !plan && ctx->options.drop_zeros) hsp_csr_drop_zeros(*C, stats ? stats + 1 : NULL);
    hsp_context_unlock(ctx);
    return s;
}

/* Do hsp_rap's products run resident, starting with X*Y?  On a device with
 * memory of its own that "auto" will no longer hand over, unless X*Y is
 * small (then both run as hsp_multiply would run them, on the CPU threads):
 * the middle product then stays on the device for the second. */
static int run_resident(const hsp_context *ctx, const hsp_csr *X, const hsp_csr *Y)
{
    int64_t nnz = X->nnz + (Y == X ? 0 : Y->nnz);
    return ctx->device->hold && ctx->auto_next == HSP_AUTO_NONE && !(ctx->engine->cpu && nnz <= ctx->options.small_nnz);
}

/* Bytes that cross between host and device for M: its three arrays. */
static int64_t crossing_bytes(const hsp_csr *M)
{
    return ((int64_t)M->nrows + 1) * (int64_t)sizeof(int64_t) +
           M->nnz * (int64_t)(sizeof(int32_t) + hsp_value_size(M->precision));
}

/* *Z = X*Y on the device, each operand a host matrix, placed here for the
 * product (stats count the copies), or (rX, rY not NULL) resident already. */
static hsp_status resident_product(hsp_context *ctx, const hsp_csr *X, const hsp_resident *rX, const hsp_csr *Y,
                                   const hsp_resident *rY, hsp_resident **Z, hsp_stats *stats)
{
    hsp_resident *px = NULL, *py = NULL;
    hsp_status s = rX ? HSP_OK : hsp_place(ctx, X, &px);
    if (s == HSP_OK && !rY && !(Y == X && px)) s = hsp_place(ctx, Y, &py);
    if (s == HSP_OK) s = hsp_multiply_resident(ctx, rX ? rX : px, rY ? rY : py ? py : px, Z, stats);
    if (s == HSP_OK && stats) stats->bytes_to_device += (px ? crossing_bytes(X) : 0) + (py ? crossing_bytes(Y) : 0);
    hsp_resident_free(px), hsp_resident_free(py);
    return s;
}

/* A resident product's result brought home into *out (stats count it). */
static hsp_status take_home(hsp_resident *M, hsp_csr **out, hsp_stats *stats)
{
    hsp_status s = hsp_resident_take(M, out);
    if (s == HSP_OK && stats) stats->bytes_to_host += crossing_bytes(*out);
    return s;
}

/* The two products.  The first runs resident where run_resident says, the
 * second too where it says so of it, the middle product then staying on the
 * device between them; else (or for a plan, which reads it) the middle comes
 * home (p->mid), and a product on host operands runs as hsp_multiply runs
 * it.  R is the caller's or NULL (P^T, p->rt, ready once join returns);
 * first_R is what the first product may read of it meanwhile. */
static hsp_status products(hsp_context *ctx, const hsp_csr *R, const hsp_csr *first_R, const hsp_csr *A,
                           const hsp_csr *P, hsp_plan *p, int planned, hsp_csr **C, hsp_stats *stats,
                           hsp_status (*join)(void *), void *joining)
{
    int r_ap = p->order == HSP_RAP_R_AP;
    hsp_stats *second = stats ? stats + 1 : NULL;
    hsp_resident *mid = NULL, *rC = NULL;
    const hsp_csr *op[4];
    operands(p->order, first_R, A, P, NULL, op);
    int first_resident = run_resident(ctx, op[0], op[1]);
    hsp_status s = first_resident ? resident_product(ctx, op[0], NULL, op[1], NULL, &mid, stats)
                                  : product(ctx, op[0], op[1], &p->mid, p->copies, planned ? &p->first : NULL, stats);
    hsp_status joined = join(joining);
    if (s == HSP_OK) s = joined;
    operands(p->order, R ? R : p->rt, A, P, NULL, op);
    const hsp_csr *other = r_ap ? op[2] : op[3]; /* R, or P */
    int second_resident = s == HSP_OK && mid && run_resident(ctx, other, hsp_resident_csr(mid));
    if (second_resident)
        s = r_ap ? resident_product(ctx, other, NULL, NULL, mid, &rC, second)
                 : resident_product(ctx, NULL, mid, other, NULL, &rC, second);
    if (second_resident && s == HSP_OK) s = take_home(rC, C, second), rC = NULL;
    if (s == HSP_OK && mid && (planned || !second_resident)) s = take_home(mid, &p->mid, stats), mid = NULL;
    operands(p->order, R ? R : p->rt, A, P, p->mid, op);
    if (s == HSP_OK && first_resident && planned) s = hsp_plan_of(op[0], op[1], p->mid, p->copies, &p->first);
    if (s == HSP_OK && !second_resident) s = product(ctx, op[2], op[3], C, p->copies, planned ? &p->second : NULL, second);
    else if (s == HSP_OK && planned) s = hsp_plan_of(op[2], op[3], *C, p->copies, &p->second);
    hsp_resident_free(mid), hsp_resident_free(rC);
    return s;
}

hsp_status hsp_rap_run(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_rap_order order,
                       hsp_csr **C, int copies, hsp_plan **plan, hsp_stats *stats)
{
    hsp_plan *p = calloc(1, sizeof *p);
    if (!p) return hsp_fail(HSP_ERR_NOMEM, "no memory for a Galerkin product");
    p->kind = HSP_PLAN_RAP, p->order = order, p->copies = copies;
    transpose_job t = {.P = P, .plan = p, .keep_where = plan != NULL, .status = HSP_OK};
    hsp_status s = HSP_OK;
    if (!R) { /* R*(A*P) needs R only for the second product */
        t.started = order == HSP_RAP_R_AP && pthread_create(&t.thread, NULL, transpose_run, &t) == 0;
        if (!t.started) t.pool = ctx->pool, transpose_run(&t), s = t.status; /* here: its message is this thread's */
    }
    const hsp_csr *first_R = R ? R : t.started ? NULL : p->rt; /* R is the thread's until joined */
    if (s == HSP_OK) s = products(ctx, R, first_R, A, P, p, plan != NULL, C, stats, transpose_join, &t);
    else transpose_join(&t);
    if (s == HSP_OK && plan) *plan = p;
    else hsp_plan_free(p);
    if (s != HSP_OK) hsp_csr_free(*C), *C = NULL;
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

hsp_csr *hsp_rap_transpose(const hsp_plan *plan, double *ms, double *ms_wait)
{
    *ms = plan->ms_transpose, *ms_wait = plan->ms_transpose_wait;
    return plan->rt;
}
