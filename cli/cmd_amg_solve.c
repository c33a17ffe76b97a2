/* cmd_amg_solve.c: `hspgemm amg-solve A`: a smoothed-aggregation hierarchy
 * of A, then A x = b solved by it (hsp_amg_solve) on the CPU threads: the
 * set-up's and the solve's times, the iterations, the residual history and
 * the time to solution; x optionally written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const char usage_solve[] =
    "usage: hspgemm amg-solve A [OPTIONS]\n"
    "Builds the AMG hierarchy of A (square, nonzero diagonal; a Matrix Market\n"
    "file or --gen=KIND:ARG) as amg-setup does, then solves A x = b by it on the CPU threads\n"
    "and prints the set-up's and the solve's times, the iterations, the relative residual\n"
    "|b - Ax| / |b| after each and the time to solution (set-up + solve).\n\n"
    "  --rhs=FILE            b, a Matrix Market array file of A's rows (default: ones, so\n"
    "                        that a run is repeatable without a file; PyAMG's examples\n"
    "                        take a random b)\n"
    "  -o FILE               write x there as a Matrix Market array file\n"
    "  --tol=X               stop at |b - Ax| / |b| <= X (default 1e-8)\n"
    "  --maxiter=N           at most N iterations (default 100); not converging is no error\n"
    "  --accel=cg|none       CG preconditioned by one cycle (default), or the cycles alone\n"
    "  --cycle=V|W           (default V)\n"
    "  --smoother=auto|gs|jacobi|l1-jacobi|chebyshev\n"
    "                        auto (default): gs on the CPU threads, chebyshev on a GPU\n"
    "                        (--resident); gs: Gauss-Seidel (--sweep), hybrid between the\n"
    "                        threads' parts of rows; jacobi: weight --jacobi-omega over\n"
    "                        rho(D^-1 A); l1-jacobi; chebyshev: of --degree in D^-1 A\n"
    "  --resident            set the hierarchy up on the device (hsp_amg_setup_resident)\n"
    "                        and, on one with memory of its own, solve there: the vectors\n"
    "                        stay on it, a few numbers an iteration cross\n"
    "  --pre=N, --post=N     sweeps before and after the coarse correction (default 1, 1)\n"
    "  --sweep=forward-backward|symmetric\n"
    "                        gs's sweeps: forward before the coarse correction and backward\n"
    "                        after (default, hypre's cycle), or both ways before and after\n"
    "                        (PyAMG's default: twice the sweeps; doc/amg.md has the figures)\n"
    "  --jacobi-omega=X      in (0, 2) (default 1: PyAMG's 1 / rho)\n"
    "  --degree=N            Chebyshev's degree, 1 to 16 (default 2)\n"
    "  --chebyshev-lower=X   Chebyshev's interval [X rho, 1.1 rho], X in (0, 1.1) (default 0.2;\n"
    "                        PyAMG's 1/30)\n"
    "  --stats=json          one JSON line on stdout instead of the text\n"
    "  --float-levels=yes|no the levels made from a float copy of a double A (amg-setup): the\n"
    "                        cycles read half the bytes of values, CG and the residuals stay\n"
    "                        double on A (default yes, but no with --resident)\n"
    "  --strength, --theta, --aggregation, --omega, --levels, --coarse, --order, --nullspace, --block,\n"
    "  --coarsening          the set-up's, as for amg-setup (elasticity2d: its rigid-body modes,\n"
    "                        but with --coarsening=classical, for anisotropic problems)\n"
    "  --precision=float|double, --seed=N, --quiet     as for 'hspgemm multiply'\n";

static const char allowed[] = "strength,theta,omega,levels,coarse,order,nullspace,block,float-levels,aggregation,"
                              "coarsening,"
                              "device,threads,precision,methods,profile,grow,seed,"
                              "quiet,gen,small-nnz,device-timeout,mem-limit,deterministic,o,output,stats,rhs,tol,"
                              "maxiter,accel,cycle,smoother,sweep,pre,post,jacobi-omega,degree,chebyshev-lower,"
                              "resident";

/* b: --rhs's file (A's rows x 1) or ones, in A's precision, into *b (malloc'd). */
static int right_side(const cli_args *a, const hsp_csr *A, void **b)
{
    size_t size = A->precision == HSP_DOUBLE ? sizeof(double) : sizeof(float);
    hsp_dense B = {0};
    if (a->rhs) {
        hsp_status s = hsp_mm_read_dense(a->rhs, A->precision, &B);
        if (s != HSP_OK) return cli_error(a->rhs, s);
        if (B.nrows != A->nrows || B.ncols != 1) {
            fprintf(stderr, "hspgemm: amg-solve: --rhs=%s is %d x %d: give %d x 1 (A's rows)\n", a->rhs, B.nrows,
                    B.ncols, A->nrows);
            hsp_dense_free(&B);
            return 1;
        }
        *b = B.values; /* column-major, one column: the vector itself */
        return 0;
    }
    *b = malloc((size_t)A->nrows * size + 1);
    if (!*b) return cli_error("amg-solve", HSP_ERR_NOMEM);
    for (int32_t i = 0; i < A->nrows; i++)
        if (A->precision == HSP_DOUBLE) ((double *)*b)[i] = 1;
        else ((float *)*b)[i] = 1;
    return 0;
}

/* Level l's rows (a resident level's shape where it is not home). */
static int32_t level_rows(const hsp_amg *amg, int l)
{
    int32_t rows = 0;
    if (amg->level[l].A) return amg->level[l].A->nrows;
    hsp_resident_shape(amg->level[l].rA, &rows, NULL, NULL);
    return rows;
}

/* Are the levels float below A, a double A (--float-levels)? */
static int floats(const cli_args *a, const hsp_csr *A)
{
    return a->amg.float_levels && A->precision == HSP_DOUBLE;
}

/* The solve's figures as text. */
static void print_text(const cli_args *a, const hsp_csr *A, const hsp_amg *amg, const hsp_amg_solve_info *info,
                       int len)
{
    const hsp_amg_solve_options *o = &a->solve;
    printf("%s: %d levels%s, rows", cli_coarsening_text(a->amg.coarsening), amg->nlevels,
           floats(a, A) ? " (float but A)" : "");
    for (int l = 0; l < amg->nlevels; l++) printf(" %d", level_rows(amg, l));
    printf("; set-up %.2f ms\n", amg->ms_total);
    printf("%s %c(%d,%d) cycles, smoother %s, tol %g, b %s; on %s\n", o->accel == HSP_ACCEL_CG
           ? "CG preconditioned by" : "stationary", o->cycle == HSP_CYCLE_W ? 'W' : 'V', o->pre, o->post,
           cli_smoother_text(info->smoother, o->sweep), o->tol, a->rhs ? a->rhs : "ones",
           info->on_device ? amg->device : "the CPU threads");
    printf("iteration  |b - Ax| / |b|\n");
    for (int k = 0; k < len; k++) printf("%9d  %.3e\n", k, info->history[k]);
    printf("%s after %d iterations: |b - Ax| / |b| = %.3e\n", info->converged ? "converged" : "NOT converged",
           info->iterations, info->residual);
    printf("solve %.2f ms (%.2f ms an iteration); time to solution %.2f ms (set-up + solve)\n", info->ms_solve,
           info->iterations ? info->ms_solve / info->iterations : 0.0, amg->ms_total + info->ms_solve);
}

/* The solve's figures as one JSON line. */
static void print_json(const cli_args *a, const hsp_csr *A, const hsp_amg *amg, const hsp_amg_solve_info *info,
                       int len, const char *note)
{
    const hsp_amg_solve_options *o = &a->solve;
    printf("{\"command\":\"amg-solve\",\"rows\":%d,\"nnz\":%lld,\"precision\":\"%s\",\"levels\":%d,", A->nrows,
           (long long)A->nnz, A->precision == HSP_DOUBLE ? "double" : "float", amg->nlevels);
    printf("\"accel\":\"%s\",\"cycle\":\"%c\",\"smoother\":\"%s\",\"pre\":%d,\"post\":%d,\"tol\":%g,"
           "\"on_device\":%s,", o->accel == HSP_ACCEL_CG ? "cg" : "none", o->cycle == HSP_CYCLE_W ? 'W' : 'V',
           cli_smoother_text(info->smoother, o->sweep), o->pre, o->post, o->tol, info->on_device ? "true" : "false");
    printf("\"coarsening\":\"%s\",\"float_levels\":%s,\"nullspace\":", cli_coarsening_name(a->amg.coarsening),
           floats(a, A) ? "true" : "false");
    cli_json_string(stdout, note), printf(",");
    printf("\"setup_ms\":%.3f,\"solve_ms\":%.3f,\"total_ms\":%.3f,\"iterations\":%d,\"converged\":%s,"
           "\"residual\":%.6e,\"history\":[", amg->ms_total, info->ms_solve, amg->ms_total + info->ms_solve,
           info->iterations, info->converged ? "true" : "false", info->residual);
    for (int k = 0; k < len; k++) printf("%s%.6e", k ? "," : "", info->history[k]);
    printf("]}\n");
}

/* Solve on ctx by amg, print, write x; the exit status. */
static int solve(const cli_args *a, hsp_context *ctx, const hsp_csr *A, hsp_amg *amg, const char *note)
{
    void *b = NULL;
    int rc = right_side(a, A, &b);
    size_t size = A->precision == HSP_DOUBLE ? sizeof(double) : sizeof(float);
    void *x = rc ? NULL : calloc((size_t)A->nrows + 1, size);
    hsp_amg_solve_info info = {0};
    info.history_size = a->solve.maxiter + 1;
    info.history = rc ? NULL : malloc((size_t)info.history_size * sizeof *info.history);
    if (!rc && (!x || !info.history)) rc = cli_error("amg-solve", HSP_ERR_NOMEM);
    hsp_status s = rc ? HSP_OK : hsp_amg_solve(ctx, amg, b, x, &a->solve, &info);
    if (!rc && s != HSP_OK) rc = cli_error("amg-solve", s);
    if (!rc && a->stats == 2) print_json(a, A, amg, &info, info.history_len, note);
    else if (!rc) printf("%s\n", note), print_text(a, A, amg, &info, info.history_len);
    hsp_dense X = {A->nrows, 1, A->nrows, HSP_COL_MAJOR, A->precision, x};
    if (!rc && a->output && (s = hsp_mm_write_dense(a->output, &X)) != HSP_OK) rc = cli_error(a->output, s);
    free(b), free(x), free(info.history);
    return rc;
}

int cmd_amg_solve(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(argc, argv, allowed, usage_solve, &a);
    if (rc) return rc == 1 ? 0 : rc;
    if (a.noperands != 1) return cli_usage_error(a.name, "takes one matrix, %d given", a.noperands);
    a.amg.float_levels = cli_solve_float_levels(&a);
    hsp_csr *A = NULL;
    hsp_context *ctx = NULL;
    hsp_amg *amg = NULL;
    hsp_resident *M = NULL;
    double ms_place = 0;
    char note[CLI_MSG];
    rc = cli_amg_hierarchy(&a, "amg-solve", &A, &ctx, &M, &amg, &ms_place, note, sizeof note);
    if (!rc) rc = solve(&a, ctx, A, amg, note);
    hsp_amg_free(amg), hsp_resident_free(M), hsp_context_free(ctx), hsp_csr_free(A);
    return rc;
}
