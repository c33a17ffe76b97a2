/* bench_galerkin.c: `hspgemm bench --suite=galerkin|galerkin-paper`: the
 * Galerkin products of smoothed-aggregation hierarchies of the paper's
 * Poisson problems, per level and in both orders, timed with hspgemm and with
 * each peer's two-product RAP on the same R, A and P in the same run. */
#include <string.h>
#include "cli.h"

static const char *const suite_small[] = {"poisson2d5:256", "poisson2d9:256", "poisson3d7:40", "poisson3d27:40",
                                          NULL};
static const char *const suite_paper[] = {"poisson2d5:1024", "poisson2d9:1024", "poisson3d7:101",
                                          "poisson3d27:101", NULL};

/* One Galerkin product of one level in one order. */
typedef struct {
    const char *problem;
    int level;
    hsp_rap_order order;
    int32_t rows;
    int64_t nnz_a, nnz_c;
    double ms;
    char device[2][sizeof ((hsp_stats *)0)->device]; /* where each product ran */
    cli_peer_result peer[CLI_NPEERS];
} rap_row;

/* The rows of one problem: each level of its hierarchy, both orders. */
static int bench_problem(hsp_context *ctx, const cli_args *a, const char *spec, char cmd[CLI_NPEERS][CLI_CMD_LEN],
                         rap_row *rows, int max, int *n)
{
    hsp_csr *A = NULL;
    hsp_amg *amg = NULL;
    cli_status_line("bench: %s: setting up", spec);
    hsp_status s = hsp_generate(spec, a->seed, a->precision, &A);
    if (s == HSP_OK) s = hsp_amg_setup(ctx, A, &a->amg, &amg);
    for (int l = 0; s == HSP_OK && l + 1 < amg->nlevels; l++)
        for (int order = 0; order < 2 && s == HSP_OK && *n < max; order++) {
            const hsp_amg_level *v = &amg->level[l];
            rap_row *r = &rows[(*n)++];
            const hsp_csr *M[3] = {v->R, v->A, v->P};
            char what[96], extra[32];
            memset(r, 0, sizeof *r);
            r->problem = spec, r->level = l, r->order = (hsp_rap_order)order;
            r->rows = v->A->nrows, r->nnz_a = v->A->nnz;
            snprintf(what, sizeof what, "%s level %d %s", spec, l, cli_order_name(r->order));
            cli_rap_result ours;
            cli_status_line("bench: %s: hspgemm", what);
            s = cli_time_rap(ctx, v->R, v->A, v->P, r->order, 1, a->repeat, a->resident, NULL, &ours);
            r->ms = ours.ms_median, r->nnz_c = ours.nnz_c;
            memcpy(r->device, ours.device, sizeof ours.device);
            snprintf(extra, sizeof extra, "--rap=%s", cli_order_name(r->order));
            if (s == HSP_OK) cli_run_peers(what, M, 3, extra, cmd, r->peer);
        }
    cli_status_line("%s", "");
    hsp_amg_free(amg), hsp_csr_free(A);
    return s == HSP_OK ? 0 : cli_error(spec, s);
}

/* A problem's total over its levels in one order: ours, each peer's, and
 * cuSPARSE's device-only time (peer[CLI_NPEERS]); 0 when a peer missed a level. */
static void totals(const rap_row *rows, int n, const char *problem, int order, double *ours,
                   double peer[CLI_NPEERS + 1])
{
    int missing[CLI_NPEERS + 1] = {0};
    *ours = 0;
    for (int k = 0; k <= CLI_NPEERS; k++) peer[k] = 0;
    for (int r = 0; r < n; r++) {
        if (rows[r].problem != problem || (int)rows[r].order != order) continue;
        *ours += rows[r].ms;
        for (int k = 0; k <= CLI_NPEERS; k++) {
            double ms = k < CLI_NPEERS ? rows[r].peer[k].ms : rows[r].peer[CLI_CUSPARSE].dev_ms;
            if (ms > 0) peer[k] += ms;
            else missing[k] = 1;
        }
    }
    for (int k = 0; k <= CLI_NPEERS; k++)
        if (missing[k]) peer[k] = 0;
}

static void print_rows(const rap_row *rows, int n)
{
    printf("%-16s %5s %5s %9s %10s %10s %9s", "problem", "level", "order", "rows", "nnz(A)", "nnz(C)", "ms");
    for (int k = 0; k < CLI_NPEERS; k++) printf(" %9s %7s", cli_peer_name[k], "x");
    printf(" %9s %6s\n", "cusp-dev", "check");
    for (int r = 0; r < n; r++) {
        const rap_row *b = &rows[r];
        int check = 1;
        printf("%-16s %5d %5s %9d %10lld %10lld %9.2f", b->problem, b->level, cli_order_name(b->order), b->rows,
               (long long)b->nnz_a, (long long)b->nnz_c, b->ms);
        for (int k = 0; k < CLI_NPEERS; k++) {
            if (b->peer[k].ms <= 0) printf(" %9s %7s", "-", "-");
            else printf(" %9.2f %6.2fx", b->peer[k].ms, b->peer[k].ms / b->ms);
            check &= b->peer[k].ms <= 0 || b->peer[k].nnz == b->nnz_c;
        }
        if (b->peer[CLI_CUSPARSE].dev_ms > 0) printf(" %9.2f", b->peer[CLI_CUSPARSE].dev_ms);
        else printf(" %9s", "-");
        printf(" %6s\n", check ? "ok" : "nnz!=");
    }
}

/* Per problem and order: the sum over the levels, and the speedups. */
static void print_totals(const rap_row *rows, int n, const char *const *specs)
{
    printf("\nall levels of a problem (ms, and peer ms / hspgemm ms):\n%-16s %5s %9s", "problem", "order", "hspgemm");
    for (int k = 0; k < CLI_NPEERS; k++) printf(" %9s %7s", cli_peer_name[k], "x");
    printf(" %9s %7s\n", "cusp-dev", "x");
    for (int p = 0; specs[p]; p++)
        for (int order = 0; order < 2; order++) {
            double ours, peer[CLI_NPEERS + 1];
            totals(rows, n, specs[p], order, &ours, peer);
            if (ours <= 0) continue;
            printf("%-16s %5s %9.2f", specs[p], cli_order_name((hsp_rap_order)order), ours);
            for (int k = 0; k <= CLI_NPEERS; k++)
                if (peer[k] > 0) printf(" %9.2f %6.2fx", peer[k], peer[k] / ours);
                else printf(" %9s %7s", "-", "-");
            printf("\n");
        }
}

static int write_csv(const char *path, const rap_row *rows, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) return perror(path), 1;
    fprintf(f, "problem,level,order,rows,nnz_a,nnz_c,device,ms,graphblas_ms,scipy_ms,cusparse_ms,cusparse_device_ms,"
               "second_device,mkl_ms\n");
    for (int r = 0; r < n; r++) {
        const rap_row *b = &rows[r];
        fprintf(f, "\"%s\",%d,%s,%d,%lld,%lld,\"%s\",%.4f,%.4f,%.4f,%.4f,%.4f,\"%s\",%.4f\n", b->problem, b->level,
                cli_order_name(b->order), b->rows, (long long)b->nnz_a, (long long)b->nnz_c, b->device[0], b->ms,
                b->peer[0].ms, b->peer[1].ms, b->peer[2].ms, b->peer[2].dev_ms > 0 ? b->peer[2].dev_ms : 0.0,
                b->device[1], b->peer[3].ms);
    }
    return fclose(f) != 0;
}

int cli_bench_galerkin(cli_args *a, const char *const *given)
{
    const char *const *specs = given ? given : !strcmp(a->suite, "galerkin-paper") ? suite_paper : suite_small;
    char cmd[CLI_NPEERS][CLI_CMD_LEN];
    hsp_context *ctx = NULL;
    rap_row rows[256];
    int n = 0, rc = 0;
    hsp_status s = hsp_context_create(&a->lib, &ctx);
    if (s != HSP_OK) return cli_error("context", s);
    cli_peer_commands(a, cmd);
    for (int p = 0; specs[p] && rc == 0; p++) rc = bench_problem(ctx, a, specs[p], cmd, rows, 256, &n);
    hsp_context_free(ctx);
    if (rc) return rc;
    printf("hspgemm Galerkin products: device %s (each product's in the CSV), %d threads, %s, smoothed aggregation "
           "(theta %g, omega %g)\n",
           n ? rows[0].device[0] : "-", a->lib.threads, a->precision == HSP_DOUBLE ? "double" : "float", a->amg.theta,
           a->amg.omega);
    print_rows(rows, n);
    print_totals(rows, n, specs);
    printf("ms: median of %d runs of both products, %s; cusp-dev: cuSPARSE's two products with R, A and P on the "
           "GPU; x: peer ms / hspgemm ms\n",
           a->repeat, a->resident ? "resident (R, A and P placed before the timing)" : "host to host");
    const char *csv = a->csv ? a->csv : "bench-galerkin.csv";
    if (write_csv(csv, rows, n)) return 1;
    printf("wrote %s\n", csv);
    return 0;
}
