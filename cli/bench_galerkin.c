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
    cli_times ours;
    char device[2][sizeof ((hsp_stats *)0)->device]; /* where each product ran */
    cli_peer_result peer[CLI_NPEERS];
} rap_row;

/* Time one level's Galerkin product in one order into r, then the peers. */
static hsp_status bench_level(hsp_context *ctx, const cli_args *a, const cli_peers *p, const char *spec, int level,
                              const hsp_amg_level *v, hsp_rap_order order, rap_row *r)
{
    const hsp_csr *M[3] = {v->R, v->A, v->P};
    char what[96], extra[32];
    cli_rap_result ours;
    memset(r, 0, sizeof *r);
    r->problem = spec, r->level = level, r->order = order;
    r->rows = v->A->nrows, r->nnz_a = v->A->nnz;
    snprintf(what, sizeof what, "%s level %d %s", spec, level, cli_order_name(order));
    cli_status_line("bench: %s: hspgemm", what);
    hsp_status s = cli_time_rap(ctx, v->R, v->A, v->P, order, 1, a->repeat, a->resident, NULL, &ours);
    if (s != HSP_OK) return s;
    r->ours = ours.t;
    r->nnz_c = ours.nnz_c;
    memcpy(r->device, ours.device, sizeof ours.device);
    snprintf(extra, sizeof extra, "--rap=%s", cli_order_name(order));
    cli_run_peers(what, M, 3, extra, p, r->peer);
    return HSP_OK;
}

/* The rows of one problem: each level of its hierarchy, both orders; what
 * failed goes to why. */
static int bench_problem(hsp_context *ctx, const cli_args *a, const cli_peers *p, const char *spec, rap_row *rows,
                         int max, int *n, char *why, size_t len)
{
    hsp_csr *A = NULL;
    hsp_amg *amg = NULL;
    cli_status_line("bench: %s: setting up", spec);
    hsp_status s = hsp_generate(spec, a->seed, a->precision, &A);
    if (s == HSP_OK) s = hsp_amg_setup(ctx, A, &a->amg, &amg);
    for (int l = 0; s == HSP_OK && l + 1 < amg->nlevels; l++)
        for (int order = 0; order < 2 && s == HSP_OK && *n < max; order++)
            if ((s = bench_level(ctx, a, p, spec, l, &amg->level[l], (hsp_rap_order)order, &rows[*n])) == HSP_OK)
                ++*n;
    cli_status_line("%s", "");
    hsp_amg_free(amg), hsp_csr_free(A);
    if (s == HSP_OK) return 0;
    snprintf(why, len, "%s: %s: %s", spec, hsp_strerror(s), hsp_errmsg());
    return cli_error(spec, s);
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
        *ours += rows[r].ours.median;
        for (int k = 0; k <= CLI_NPEERS; k++) {
            const cli_times *t = k < CLI_NPEERS ? &rows[r].peer[k].host : &rows[r].peer[CLI_CUSPARSE].device;
            if (t->runs > 0) peer[k] += t->median;
            else missing[k] = 1;
        }
    }
    for (int k = 0; k <= CLI_NPEERS; k++)
        if (missing[k]) peer[k] = 0;
}

/* Did peer k run on any row? */
static int peer_ran(const rap_row *rows, int n, int k)
{
    for (int r = 0; r < n; r++)
        if (rows[r].peer[k].host.runs > 0) return 1;
    return 0;
}

/* Each level's lines: hspgemm, then each peer that ran in the run. */
static void print_rows(const rap_row *rows, int n)
{
    char lead[96];
    int flagged = 0;
    snprintf(lead, sizeof lead, "%-16s %5s %5s %9s %10s %10s", "problem", "level", "order", "rows", "nnz(A)", "nnz(C)");
    cli_print_times_header(lead);
    for (int r = 0; r < n; r++) {
        const rap_row *b = &rows[r];
        snprintf(lead, sizeof lead, "%-16s %5d %5s %9d %10lld %10lld", b->problem, b->level, cli_order_name(b->order),
                 b->rows, (long long)b->nnz_a, (long long)b->nnz_c);
        cli_print_times(lead, "hspgemm", &b->ours, 0, "");
        flagged += cli_spread(&b->ours) > CLI_SPREAD_BOUND;
        snprintf(lead, sizeof lead, "%-16s %5s %5s %9s %10s %10s", "", "", "", "", "", "");
        for (int k = 0; k < CLI_NPEERS; k++) {
            const cli_peer_result *p = &b->peer[k];
            if (!peer_ran(rows, n, k)) continue;
            cli_print_times(lead, cli_peer_name[k], &p->host, b->ours.median,
                            p->failed ? "failed" : p->host.runs > 0 && p->nnz != b->nnz_c ? "nnz(C) differs" : "");
            if (k == CLI_CUSPARSE && p->device.runs > 0)
                cli_print_times(lead, "cusparse dev", &p->device, b->ours.median, "");
            if (k == CLI_CUSPARSE && p->nopool.runs > 0)
                cli_print_times(lead, "dev nopool", &p->nopool, b->ours.median, "");
        }
    }
    if (flagged)
        printf("%d figure%s of hspgemm spread more than %.0f%% (marked !): run again or raise --repeat\n", flagged,
               flagged > 1 ? "s" : "", 100 * CLI_SPREAD_BOUND);
}

/* Per problem and order: the sum over the levels, and the speedups. */
static void print_totals(const rap_row *rows, int n, const char *const *specs)
{
    printf("\nall levels of a problem (the sum of the medians, ms, and peer ms / hspgemm ms):\n%-16s %5s %9s",
           "problem", "order", "hspgemm");
    for (int k = 0; k < CLI_NPEERS; k++)
        if (peer_ran(rows, n, k)) printf(" %9s %7s", cli_peer_name[k], "x");
    if (peer_ran(rows, n, CLI_CUSPARSE)) printf(" %9s %7s", "cusp-dev", "x");
    printf("\n");
    for (int p = 0; specs[p]; p++)
        for (int order = 0; order < 2; order++) {
            double ours, peer[CLI_NPEERS + 1];
            totals(rows, n, specs[p], order, &ours, peer);
            if (ours <= 0) continue;
            printf("%-16s %5s %9.2f", specs[p], cli_order_name((hsp_rap_order)order), ours);
            for (int k = 0; k <= CLI_NPEERS; k++) {
                if (!peer_ran(rows, n, k < CLI_NPEERS ? k : CLI_CUSPARSE)) continue;
                if (peer[k] > 0) printf(" %9.2f %6.2fx", peer[k], peer[k] / ours);
                else printf(" %9s %7s", "-", "-");
            }
            printf("\n");
        }
}

static int write_csv(const char *path, const cli_peers *p, const rap_row *rows, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) return perror(path), 1;
    fprintf(f, "problem,level,order,rows,nnz_a,nnz_c,device,second_device,runs,ms,ms_min,ms_max,spread,peer_runs,"
               "graphblas_ms,graphblas_ms_min,graphblas_ms_max,scipy_ms,scipy_ms_min,scipy_ms_max,cusparse_ms,"
               "cusparse_ms_min,cusparse_ms_max,cusparse_device_ms,cusparse_device_ms_min,cusparse_device_ms_max,"
               "cusparse_nopool_ms,cusparse_nopool_ms_min,cusparse_nopool_ms_max,mkl_ms,mkl_ms_min,mkl_ms_max\n");
    for (int r = 0; r < n; r++) {
        const rap_row *b = &rows[r];
        fprintf(f, "\"%s\",%d,%s,%d,%lld,%lld,\"%s\",\"%s\",%d", b->problem, b->level, cli_order_name(b->order), b->rows,
                (long long)b->nnz_a, (long long)b->nnz_c, b->device[0], b->device[1], b->ours.runs);
        cli_csv_times(f, &b->ours);
        fprintf(f, ",%.4f", cli_spread(&b->ours));
        cli_csv_number(f, "%.0f", cli_peers_any(p) ? b->ours.runs : 0);
        for (int k = 0; k < CLI_PYAMG; k++) {
            cli_csv_times(f, &b->peer[k].host);
            if (k == CLI_CUSPARSE) cli_csv_times(f, &b->peer[k].device), cli_csv_times(f, &b->peer[k].nopool);
        }
        fputc('\n', f);
    }
    return fclose(f) != 0;
}

int cli_bench_galerkin(cli_args *a, const char *const *given, const cli_peers *p, const char *csv)
{
    const char *const *specs = given ? given : !strcmp(a->suite, "galerkin-paper") ? suite_paper : suite_small;
    hsp_context *ctx = NULL;
    static rap_row rows[256];
    char why[512] = "";
    int n = 0, rc = 0;
    hsp_status s = hsp_context_create(&a->lib, &ctx);
    if (s != HSP_OK) return cli_error("context", s);
    for (int q = 0; specs[q] && rc == 0; q++) rc = bench_problem(ctx, a, p, specs[q], rows, 256, &n, why, sizeof why);
    hsp_context_free(ctx);
    printf("%s, Galerkin products: device %s (each product's in the CSV), %d threads, %s, smoothed aggregation "
           "(theta %g, omega %g); %d runs of each program after a warm-up, %s\n",
           cli_version(), n ? rows[0].device[0] : "-", a->lib.threads, a->precision == HSP_DOUBLE ? "double" : "float",
           a->amg.theta, a->amg.omega, a->repeat,
           a->resident ? "resident (R, A and P placed before the timing)" : "host to host");
    print_rows(rows, n);
    print_totals(rows, n, specs);
    printf("a run: both products; cusparse dev: cuSPARSE's two products with R, A and P on the GPU; spread: (q3 - "
           "q1) / median, the middle half of the runs; x: peer ms / hspgemm ms\n");
    cli_run_info run = {a->suite, n ? rows[0].device[0] : "", rc == 0, why, NULL};
    if (write_csv(csv, p, rows, n) || cli_write_meta(csv, a, p, &run)) return 1;
    printf("wrote %s and its description beside it (.json)%s\n", csv, rc ? "; the run stopped early" : "");
    return rc;
}
