/* aggregate.h: strength, aggregation and the tentative prolongator of
 * smoothed aggregation (private). */
#ifndef HSP_AGGREGATE_H
#define HSP_AGGREGATE_H

#include "hspgemm.h"

/* where[i]: the entry of A's diagonal in row i, on ctx's CPU threads; HSP_ERR_ARG naming the
 * first row without a nonzero one. */
hsp_status hsp_diagonal(hsp_context *ctx, const hsp_csr *A, int64_t *where);

/* The strong connections between the nodes of a level (a node: block
 * consecutive rows), row by row: node i's are col[rowptr[i] .. rowptr[i + 1]). */
typedef struct {
    int32_t n;
    int64_t *rowptr;
    int32_t *col;
} hsp_graph;

/* S: the strong connections of A's nodes of block rows (nrows a multiple of
 * block) by o's strength and theta.  Symmetric (PyAMG's): node j != i is
 * strong for i when |A_ij|^2 >= theta^2 |A_ii| |A_jj|, |A_ij| the Frobenius
 * norm of the block of A (|a_ij| when block is 1); with zeros, every block A
 * stores counts (its zeros too: strong at theta 0, as PyAMG takes a
 * matrix's stored entries), else only a nonzero one (a product's exact
 * zeros, which scipy's products leave out).  Classical (PyAMG's, norm
 * "abs"): when |A_ij| >= theta max_{k != i} |A_ik| and A_ij != 0, |A_ij| the
 * largest |entry| of the block.  On ctx's CPU threads where block is 1
 * (diag: hsp_diagonal's entries), else on one. */
hsp_status hsp_strength(hsp_context *ctx, const hsp_csr *A, const int64_t *diag, const hsp_amg_options *o,
                        int32_t block, int zeros, hsp_graph *S);
void hsp_graph_free(hsp_graph *S);
/* Row i of a graph by the rule arg: its count of columns, and where col is not NULL, the
 * columns into it. */
typedef int64_t (*hsp_graph_row)(const void *arg, int32_t i, int32_t *col);
/* S's columns by row on ctx's threads, S->n rows, S->rowptr the caller's (n + 1 long,
 * rowptr[0] = 0): the counts, their sums, then the columns (malloc'd into S->col). */
hsp_status hsp_graph_fill(hsp_context *ctx, hsp_graph *S, hsp_graph_row row, const void *arg);

/* The aggregate of a node in no aggregate: one without strong connections. */
enum { HSP_AGG_NONE = -1 };
/* agg[i]: the aggregate of node i (0 .. *naggregates - 1, or HSP_AGG_NONE)
 * over the strong connections S, by PyAMG's standard aggregation, its roots
 * in the nodes' order, or with parallel in the order of a hash of the nodes
 * (HSP_AGGREGATION_PARALLEL: the device's aggregates where S is symmetric);
 * where nothing is strong, one aggregate of no node (PyAMG's). */
hsp_status hsp_aggregate(const hsp_graph *S, int parallel, int32_t *agg, int32_t *naggregates);

/* T, (nnodes * block) x (naggregates * k), and *Bc, the next level's
 * candidates ((naggregates * k) x k, row by row), from the candidates B
 * (nnodes * block rows of k, row by row): on each aggregate, the rows of its
 * nodes (in order) of B orthonormalized by modified Gram-Schmidt into T's k
 * columns of the aggregate, R into Bc's k rows (PyAMG's fit_candidates, a
 * column dropped where it falls below 1e-10 of its norm); a row of no
 * aggregate is empty. */
hsp_status hsp_tentative(const int32_t *agg, int32_t nnodes, int32_t block, int32_t naggregates, const double *B,
                         int32_t k, hsp_precision precision, hsp_csr **T, double **Bc);

#endif
