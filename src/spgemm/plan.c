/* plan.c: a product with a plan, and its reuse: C's values from new values
 * of operands with the plan's patterns.  Each thread keeps, per column, its
 * place in the current row of C, so a product a_ik * b_kj is added straight
 * to its entry: no bounds, no binning, no sorting, no allocation. */
#include <stdlib.h>
#include <string.h>
#include "device/context.h"
#include "core/internal.h"
#include "spgemm/plan.h"
#include "spgemm/spgemm.h"

enum { PARTS_PER_THREAD = 8 };

/* ---- patterns ---------------------------------------------------------------- */

hsp_status hsp_pattern_copy(const hsp_csr *M, hsp_pattern *p)
{
    p->nrows = M->nrows, p->ncols = M->ncols, p->nnz = M->nnz;
    p->rowptr = malloc(((size_t)M->nrows + 1) * sizeof *p->rowptr);
    p->colidx = hsp_alloc((size_t)M->nnz * sizeof *p->colidx);
    if (!p->rowptr || !p->colidx) return hsp_fail(HSP_ERR_NOMEM, "no memory for a plan's pattern");
    memcpy(p->rowptr, M->rowptr, ((size_t)M->nrows + 1) * sizeof *p->rowptr);
    if (M->nnz) memcpy(p->colidx, M->colidx, (size_t)M->nnz * sizeof *p->colidx); /* (NULL where none) */
    return HSP_OK;
}

void hsp_pattern_free(hsp_pattern *p)
{
    free(p->rowptr), free(p->colidx);
    memset(p, 0, sizeof *p);
}

hsp_status hsp_pattern_check(const hsp_pattern *p, const hsp_csr *M, const char *name)
{
    if (M->nrows != p->nrows || M->ncols != p->ncols || M->nnz != p->nnz)
        return hsp_fail(HSP_ERR_ARG, "%s is %d x %d with %lld entries; the plan's was %d x %d with %lld", name,
                        M->nrows, M->ncols, (long long)M->nnz, p->nrows, p->ncols, (long long)p->nnz);
    for (int32_t i = 0; i < p->nrows; i++)
        if (M->rowptr[i + 1] != p->rowptr[i + 1] ||
            (p->rowptr[i + 1] > p->rowptr[i] && memcmp(M->colidx + p->rowptr[i], p->colidx + p->rowptr[i],
                   (size_t)(p->rowptr[i + 1] - p->rowptr[i]) * sizeof *p->colidx)))
            return hsp_fail(HSP_ERR_ARG, "%s's pattern differs from the plan's in row %d: a plan computes values "
                            "only, for operands of the same pattern", name, i);
    return HSP_OK;
}

/* ---- values only ------------------------------------------------------------- */

typedef struct {
    const hsp_csr *A, *B;
    hsp_csr *C;
    hsp_plan *plan;
    const int64_t *cut;
} numeric_run;

/* The values of rows first..last-1 of C = A*B, for one value type. */
#define NUMERIC_ROWS(VT, name)                                                                        \
    static void name(const numeric_run *r, int32_t *pos, int32_t first, int32_t last)                \
    {                                                                                                 \
        const VT *av = r->A->values, *bv = r->B->values;                                              \
        VT *cv = r->C->values;                                                                        \
        for (int32_t i = first; i < last; i++) {                                                      \
            int64_t start = r->C->rowptr[i];                                                          \
            VT *row = cv + start;                                                                     \
            for (int64_t k = start; k < r->C->rowptr[i + 1]; k++) pos[r->C->colidx[k]] = (int32_t)(k - start); \
            for (int64_t k = start; k < r->C->rowptr[i + 1]; k++) row[k - start] = 0;                 \
            for (int64_t a = r->A->rowptr[i]; a < r->A->rowptr[i + 1]; a++) {                         \
                int32_t j = r->A->colidx[a];                                                          \
                for (int64_t b = r->B->rowptr[j]; b < r->B->rowptr[j + 1]; b++)                       \
                    row[pos[r->B->colidx[b]]] += av[a] * bv[b];                                       \
            }                                                                                         \
        }                                                                                             \
    }
NUMERIC_ROWS(float, numeric_rows_f)
NUMERIC_ROWS(double, numeric_rows_d)

static void numeric_part(void *arg, int tid, int64_t part)
{
    const numeric_run *r = arg;
    int32_t *pos = r->plan->pos + (size_t)tid * (size_t)r->B->ncols;
    int32_t first = (int32_t)r->cut[part], last = (int32_t)r->cut[part + 1];
    if (r->C->precision == HSP_DOUBLE) numeric_rows_d(r, pos, first, last);
    else numeric_rows_f(r, pos, first, last);
}

hsp_status hsp_plan_numeric(hsp_context *ctx, hsp_plan *plan, const hsp_csr *A, const hsp_csr *B, hsp_csr *C)
{
    int threads = hsp_pool_size(ctx->pool);
    int64_t parts = (int64_t)threads * PARTS_PER_THREAD;
    if (plan->nthreads < threads) {
        int32_t *pos = realloc(plan->pos, (size_t)threads * ((size_t)B->ncols + 1) * sizeof *pos);
        if (!pos) return hsp_fail(HSP_ERR_NOMEM, "no memory for the plan's column places");
        plan->pos = pos, plan->nthreads = threads;
    }
    int64_t *cut = malloc(((size_t)parts + 1) * sizeof *cut);
    if (!cut) return hsp_fail(HSP_ERR_NOMEM, "no memory to split the rows");
    parts = hsp_split_weighted(plan->flops, C->nrows, parts, cut);
    numeric_run r = {A, B, C, plan, cut};
    hsp_pool_chunks(ctx->pool, parts, numeric_part, &r);
    free(cut);
    return HSP_OK;
}

/* ---- plans of one product ----------------------------------------------------- */

/* The prefix of the products of each row of A*B. */
static hsp_status row_flops(const hsp_csr *A, const hsp_csr *B, int64_t **out)
{
    int64_t *f = malloc(((size_t)A->nrows + 1) * sizeof *f);
    if (!f) return hsp_fail(HSP_ERR_NOMEM, "no memory for a plan's row weights");
    f[0] = 0;
    for (int32_t i = 0; i < A->nrows; i++) {
        int64_t u = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            u += B->rowptr[A->colidx[k] + 1] - B->rowptr[A->colidx[k]];
        f[i + 1] = f[i] + u;
    }
    *out = f;
    return HSP_OK;
}

void hsp_plan_free(hsp_plan *plan)
{
    if (!plan) return;
    hsp_pattern_free(&plan->a), hsp_pattern_free(&plan->b), hsp_pattern_free(&plan->c);
    free(plan->flops), free(plan->pos), free(plan->rt_where);
    hsp_csr_free(plan->rt), hsp_csr_free(plan->mid);
    hsp_plan_free(plan->first), hsp_plan_free(plan->second);
    for (int k = 0; k < 3; k++) hsp_resident_free(plan->held_pattern[k]);
    free(plan);
}

hsp_status hsp_plan_of(const hsp_csr *A, const hsp_csr *B, const hsp_csr *C, int copies, hsp_plan **plan)
{
    hsp_status s = HSP_OK;
    hsp_plan *p = calloc(1, sizeof *p);
    if (!p) s = hsp_fail(HSP_ERR_NOMEM, "no memory for a plan");
    if (s == HSP_OK) p->kind = HSP_PLAN_MULTIPLY, p->b_is_a = B == A, p->copies = copies;
    if (s == HSP_OK && copies) s = hsp_pattern_copy(A, &p->a);
    if (s == HSP_OK && copies && !p->b_is_a) s = hsp_pattern_copy(B, &p->b);
    if (s == HSP_OK && copies) s = hsp_pattern_copy(C, &p->c);
    if (s == HSP_OK) s = row_flops(A, B, &p->flops);
    if (s != HSP_OK) hsp_plan_free(p), p = NULL;
    *plan = p;
    return s;
}

hsp_status hsp_multiply_planned(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_csr **C, int copies,
                                hsp_plan **plan, hsp_stats *stats)
{
    *plan = NULL;
    hsp_context_lock(ctx);
    hsp_status s = hsp_multiply_sorted(ctx, A, B, C, stats);
    hsp_context_unlock(ctx);
    if (s == HSP_OK && (s = hsp_plan_of(A, B, *C, copies, plan)) != HSP_OK) hsp_csr_free(*C), *C = NULL;
    return s;
}

hsp_status hsp_multiply_plan(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_csr **C, hsp_plan **plan,
                             hsp_stats *stats)
{
    if (!ctx || !plan) return hsp_fail(HSP_ERR_ARG, "hsp_multiply_plan: ctx or plan is NULL");
    hsp_context_lock(ctx);
    hsp_status s = hsp_check_caller(ctx, A, B);
    hsp_context_unlock(ctx);
    if (s != HSP_OK) return *plan = NULL, s;
    return hsp_multiply_planned(ctx, A, B, C, 1, plan, stats);
}

hsp_status hsp_multiply_reuse(hsp_context *ctx, hsp_plan *plan, const hsp_csr *A, const hsp_csr *B, hsp_csr *C)
{
    if (!ctx || !plan || !A || !B || !C) return hsp_fail(HSP_ERR_ARG, "hsp_multiply_reuse: an argument is NULL");
    if (plan->kind != HSP_PLAN_MULTIPLY)
        return hsp_fail(HSP_ERR_ARG, "hsp_multiply_reuse: the plan is of a Galerkin product; use hsp_rap_reuse");
    if (plan->held_pattern[0])
        return hsp_fail(HSP_ERR_ARG, "hsp_multiply_reuse: the plan is of matrices a device holds; use "
                        "hsp_multiply_reuse_resident");
    if (A->precision != C->precision || B->precision != C->precision)
        return hsp_fail(HSP_ERR_ARG, "hsp_multiply_reuse: A, B and C must have one precision");
    hsp_status s = hsp_pattern_check(&plan->a, A, "A");
    if (s == HSP_OK) s = hsp_pattern_check(plan->b_is_a ? &plan->a : &plan->b, B, "B");
    if (s == HSP_OK) s = hsp_pattern_check(&plan->c, C, "C");
    if (s != HSP_OK) return s;
    hsp_context_lock(ctx);
    s = hsp_plan_numeric(ctx, plan, A, B, C);
    hsp_context_unlock(ctx);
    return s;
}
