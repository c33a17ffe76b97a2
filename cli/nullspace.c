/* nullspace.c: the near-nullspace candidates B of an AMG set-up from the
 * command line (amg-setup, amg-solve, bench --suite=amg|solve): --nullspace=B.mtx
 * (a dense Matrix Market array file, A's rows x k), --block=K, and by default
 * for a --gen=elasticity2d:N operand the rigid-body modes of its grid, the B
 * PyAMG's linear_elasticity returns. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* The side N of an "elasticity2d:N" spec, or 0 when spec is none. */
static long elasticity_side(const char *spec)
{
    const char *kind = "elasticity2d:";
    char *end;
    if (strncmp(spec, kind, strlen(kind))) return 0;
    long n = strtol(spec + strlen(kind), &end, 10);
    return *end ? 0 : n;
}

/* The rigid-body modes of elasticity2d:N's interior nodes (x fast, 2 rows a
 * node) row by row: x translation, y translation and the rotation (-y, x) about
 * the grid's centre, node (x, y) at (x + 1 - (N + 1) / 2, y + 1 - (N + 1) / 2),
 * as PyAMG places it. */
static double *rigid_body_modes(long n)
{
    double *B = calloc((size_t)(2 * n * n * 3), sizeof *B), half = (double)(n + 1) / 2;
    for (long node = 0; B && node < n * n; node++) {
        double x = (double)(node % n) + 1 - half, y = (double)(node / n) + 1 - half;
        double *ux = B + node * 6, *uy = ux + 3;
        ux[0] = 1, ux[2] = -y;
        uy[1] = 1, uy[2] = x;
    }
    return B;
}

/* B of --nullspace=path, checked against A's rows, row by row into *B. */
static int read_candidates(const char *path, int32_t rows, const char *command, double **B, int32_t *k)
{
    hsp_dense D = {0};
    char what[64];
    hsp_status s = hsp_mm_read_dense(path, HSP_DOUBLE, &D);
    snprintf(what, sizeof what, "%s: --nullspace", command);
    if (s != HSP_OK) return cli_error(what, s);
    if (D.nrows != rows || D.ncols < 1 || D.ncols > HSP_AMG_MAX_NULLSPACE) {
        fprintf(stderr, "hspgemm: %s: --nullspace=%s is %d x %d: give A's %d rows and 1 to %d columns\n", command,
                path, D.nrows, D.ncols, rows, HSP_AMG_MAX_NULLSPACE);
        hsp_dense_free(&D);
        return 1;
    }
    *k = D.ncols;
    *B = malloc((size_t)rows * (size_t)D.ncols * sizeof **B);
    const double *v = D.values;
    for (int64_t i = 0; *B && i < rows; i++)
        for (int64_t j = 0; j < D.ncols; j++) (*B)[i * D.ncols + j] = v[j * D.ld + i]; /* column-major in */
    hsp_dense_free(&D);
    return *B ? 0 : cli_error(command, HSP_ERR_NOMEM);
}

int cli_nullspace(const cli_args *a, const char *spec, const hsp_csr *A, const char *command, hsp_amg_options *o,
                  double **B, char *note, size_t len)
{
    long side = spec ? elasticity_side(spec) : 0;
    int32_t k = 1, block = a->block ? a->block : 1;
    int rc = 0;
    *B = NULL;
    snprintf(note, len, "near-nullspace: the constant vector");
    if (a->nullspace && strcmp(a->nullspace, "none")) {
        rc = read_candidates(a->nullspace, A->nrows, command, B, &k);
        if (!rc) snprintf(note, len, "near-nullspace: %d candidates from %s", k, a->nullspace);
    } else if (!a->nullspace && side > 0 && (int64_t)A->nrows == 2 * side * side
               && o->coarsening == HSP_COARSEN_AGGREGATION) { /* classical AMG takes none */
        k = 3, block = a->block ? a->block : 2;
        if (!(*B = rigid_body_modes(side))) return cli_error(command, HSP_ERR_NOMEM);
        snprintf(note, len, "near-nullspace: the 3 rigid-body modes of %s (--nullspace=none: the constant vector)",
                 spec);
    }
    if (!rc && A->nrows % block) {
        fprintf(stderr, "hspgemm: %s: --block=%d does not divide A's %d rows\n", command, block, A->nrows);
        rc = 2;
    }
    if (rc) return free(*B), *B = NULL, rc;
    o->B = *B, o->nullspace = k, o->block = block;
    if (block > 1) snprintf(note + strlen(note), len - strlen(note), ", %d rows a node", block);
    return 0;
}

int cli_write_nullspace(const char *path, const hsp_amg_options *o, int32_t rows)
{
    hsp_dense D = {rows, o->nullspace, o->nullspace, HSP_ROW_MAJOR, HSP_DOUBLE, (void *)o->B};
    return hsp_mm_write_dense(path, &D) == HSP_OK ? 0 : -1;
}
