/* plan.h: symbolic reuse (private).  A plan keeps the patterns of a
 * product's operands and result; a later product whose operands have the same
 * patterns computes C's values only, row by row into C's known pattern. */
#ifndef HSP_PLAN_H
#define HSP_PLAN_H

#include "hspgemm.h"
#include "spgemm/spgemm.h"

typedef enum { HSP_PLAN_MULTIPLY, HSP_PLAN_RAP } hsp_plan_kind;

struct hsp_plan {
    hsp_plan_kind kind;
    /* a product C = A*B */
    hsp_pattern a, b, c;     /* empty where the plan keeps no copies */
    int copies;              /* a, b and c are kept, for a reuse to check operands against;
                                else the caller changes its operands' values only */
    int b_is_a;
    int64_t *flops;          /* prefix of the products per row of C */
    int32_t *pos;            /* per thread: a column's place in the row of C */
    int nthreads;
    /* a Galerkin product, as two products */
    hsp_rap_order order;
    hsp_csr *rt;             /* R = P^T, when the plan formed it */
    double ms_transpose;     /* forming it (beside A*P in the order R*(A*P)) */
    double ms_transpose_wait; /* beside A*P: the wait for it after A*P */
    int64_t *rt_where;       /* where each entry of P went in rt */
    hsp_csr *mid;            /* A*P or R*A */
    hsp_plan *first, *second;
    /* a product of resident matrices (hsp_multiply_plan_resident) */
    hsp_resident *held_pattern[3]; /* the patterns of A, B (NULL when B is A) and C, held
                                      by a device with memory of its own (else NULL:
                                      a, b and c hold them) */
};

/* A plan of C = A*B: row weights, and the three patterns when copies. */
hsp_status hsp_plan_of(const hsp_csr *A, const hsp_csr *B, const hsp_csr *C, int copies, hsp_plan **plan);
#endif
