/* cmd_bench.c: `hspgemm bench`: square a suite of generated matrices with
 * hspgemm and with the peer programs of bench/ (GraphBLAS, scipy, cuSPARSE, oneMKL)
 * in the same run, and print and save the times and speedups. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static const char usage_bench[] =
    "usage: hspgemm bench [--suite=default|paper|quick|galerkin|galerkin-paper|realloc] [--repeat=N]\n"
    "                     [--threads=N]\n"
    "                     [--peers=graphblas,scipy,cusparse,mkl,pyamg|none] [--csv=FILE] [--precision=P]\n"
    "                     [--device=NAME] [--methods=M] [--small-nnz=N] [--device-timeout=S]\n"
    "                     [--mem-limit=BYTES]\n"
    "                     [--resident] [--unsorted] [--gen=SPEC ...]\n"
    "Squares each matrix of a suite (or the --gen matrices given) with hspgemm and with\n"
    "each peer found, and prints the median time of N runs (default 5) after a warm-up,\n"
    "GFlop/s, nnz(C), the speedup over each peer, and, for matrices with long rows,\n"
    "grow=realloc against grow=copy.  Writes the table as CSV (default bench.csv).\n"
    "Times are host to host (operands in host memory, C back in host memory), but with\n"
    "--resident: hspgemm's operands are then placed on the device before the timing and C\n"
    "stays there (hsp_multiply_resident), so that its times are device-only.  hspgemm's C has\n"
    "sorted rows, the peers' (scipy, MKL) not; with --unsorted hspgemm leaves them unsorted\n"
    "too (hsp_options.unsorted; the check sorts the warm-up's C first).  The cuSPARSE\n"
    "peer (built when CUDA is found) also reports its time with the operands already on\n"
    "the GPU (cusp-dev) and its peak GPU memory, shown beside hspgemm's.  A peer's column\n"
    "shows when it ran.\n"
    "suites:\n"
    "  default  regular and irregular matrices of 0.4M+ nonzeros (a few minutes)\n"
    "  paper    the paper's AMG problems: poisson2d5:1024, poisson2d9:1024,\n"
    "           poisson3d7:101, poisson3d27:101 (large: minutes and GiBs)\n"
    "  quick    tiny matrices, to check the set-up\n"
    "  galerkin the Galerkin products R*A*P of smoothed-aggregation hierarchies (see\n"
    "           'hspgemm amg-setup'; --theta, --omega, --coarse, --levels) of poisson2d5:256,\n"
    "           poisson2d9:256, poisson3d7:40, poisson3d27:40 (or the --gen problems), per\n"
    "           level in both orders, against each peer's two products on the same R, A, P\n"
    "           (peers run with --rap); CSV default bench-galerkin.csv\n"
    "  galerkin-paper  the same for the paper's sizes: 1024^2 and 101^3 (minutes, GiBs)\n"
    "  realloc  grow=realloc against grow=copy (the paper's section 5.6): rmat:13,8,\n"
    "           rmat:14,8, rmat:14,16, rmat:15,4, rmat:15,8 (or the matrices given, files\n"
    "           or --gen), each squared in float and double, the modes alternating run by\n"
    "           run, every product on the device (default: the first with system SVM, else\n"
    "           auto); the mean and largest speedup per precision beside the paper's;\n"
    "           CSV default bench-realloc.csv\n"
    "  amg      'hspgemm amg-setup' (--theta, --omega, --coarse, --levels) against PyAMG's\n"
    "           smoothed_aggregation_solver with the same options (bench/peer_pyamg.py, run by a\n"
    "           python3 with pyamg) on poisson2d5:1024, poisson2d9:1024, poisson3d7:101,\n"
    "           poisson3d27:101 (or the --gen problems): setup times, levels and operator\n"
    "           complexities; CSV default bench-amg.csv\n"
    "Peers run from bench/ in the build tree, $HSPGEMM_PEER_DIR, or the install's\n"
    "libexec directory; scipy runs under $HSPGEMM_PYTHON, python3 or /usr/bin/python3.\n";

static const char *const suite_default[] = {
    "poisson2d5:400", "poisson2d9:300", "poisson3d7:60", "poisson3d27:30",
    "band:100000,4",  "random:100000,8", "rmat:16,8",    NULL};
static const char *const suite_paper[] = {"poisson2d5:1024", "poisson2d9:1024", "poisson3d7:101",
                                          "poisson3d27:101", NULL};
static const char *const suite_quick[] = {"poisson2d5:30", "poisson3d27:8", "rmat:9,8", NULL};

enum { NPEERS = CLI_NPEERS, CUSPARSE = CLI_CUSPARSE };

/* One row of the table. */
typedef struct {
    const char *name;
    cli_result ours, copy;
    int has_copy;
    cli_peer_result peer[NPEERS];
    int right;      /* C of the warm-up passed cli_check_product */
    int unsorted;   /* C's rows were left unsorted */
    char why[192];  /* else what it found */
} bench_row;

/* Time A*A on a context made from lib with grow mode g, after a warm-up
 * whose C is checked when row is not NULL. */
static hsp_status time_ours(const cli_args *a, hsp_grow g, const hsp_csr *A, cli_result *r, bench_row *row)
{
    hsp_options o = a->lib;
    hsp_context *ctx = NULL;
    hsp_csr *C = NULL;
    o.grow = g;
    hsp_status s = hsp_context_create(&o, &ctx);
    if (s == HSP_OK) s = cli_time_multiply(ctx, A, A, 1, 0, a->resident, row ? &C : NULL, r);
    if (s == HSP_OK && row && o.unsorted && hsp_csr_sort(C) != HSP_OK)
        snprintf(row->why, sizeof row->why, "its rows could not be sorted: %s", hsp_errmsg());
    else if (s == HSP_OK && row) row->right = cli_check_product(A, A, C, row->why, sizeof row->why);
    hsp_csr_free(C);
    if (s == HSP_OK) s = cli_time_multiply(ctx, A, A, a->repeat, 0, a->resident, NULL, r);
    hsp_context_free(ctx);
    return s;
}

/* Generate, time ours in both grow modes (copy only with long rows), and the peers. */
static int bench_matrix(const cli_args *a, const char *spec, char cmd[NPEERS][CLI_CMD_LEN],
                        bench_row *row)
{
    hsp_csr *A = NULL;
    memset(row, 0, sizeof *row);
    row->name = spec;
    row->unsorted = a->lib.unsorted && !a->resident;
    cli_status_line("bench: %s: generating", spec);
    hsp_status s = hsp_generate(spec, a->seed, a->precision, &A);
    if (s != HSP_OK) return cli_error(spec, s);
    cli_status_line("bench: %s: hspgemm", spec);
    s = time_ours(a, HSP_GROW_REALLOC, A, &row->ours, row);
    if (s == HSP_OK && row->ours.stats.rows_group[4] > 0) {
        cli_status_line("bench: %s: hspgemm grow=copy", spec);
        s = time_ours(a, HSP_GROW_COPY, A, &row->copy, NULL);
        row->has_copy = 1;
    }
    if (s == HSP_OK) cli_run_peers(spec, (const hsp_csr *const *)&A, 1, "", cmd, row->peer);
    hsp_csr_free(A);
    cli_status_line("%s", "");
    return s == HSP_OK ? 0 : cli_error(spec, s);
}

/* Did peer k run on any row? */
static int peer_ran(const bench_row *rows, int n, int k)
{
    for (int r = 0; r < n; r++)
        if (rows[r].peer[k].ms > 0) return 1;
    return 0;
}

/* Geometric mean of peer k's ms over ours (device-only ms when dev), over
 * the rows where it ran; 0 when none. */
static double geomean_over(const bench_row *rows, int n, int k, int dev)
{
    double logsum = 0;
    int counted = 0;
    for (int r = 0; r < n; r++) {
        double peer = dev ? rows[r].peer[k].dev_ms : rows[r].peer[k].ms;
        if (peer > 0) logsum += log(peer / rows[r].ours.ms_median), counted++;
    }
    return counted ? exp(logsum / counted) : 0.0;
}

/* The cuSPARSE columns of a row: device-only ms and peak memory of both. */
static void print_cusparse(const bench_row *b)
{
    if (b->peer[CUSPARSE].ms <= 0) {
        printf(" %9s %7s %9s %9s", "-", "-", "-", "-");
        return;
    }
    printf(" %9.2f %6.2fx %9.1f %9.1f", b->peer[CUSPARSE].dev_ms, b->peer[CUSPARSE].dev_ms / b->ours.ms_median,
           (double)b->ours.stats.peak_device_bytes / (1 << 20), b->peer[CUSPARSE].peak / (1 << 20));
}

/* Print the table and the geometric mean speedup over the faster peer. */
static void print_table(const bench_row *rows, int n)
{
    double logsum = 0;
    int counted = 0, cusp = peer_ran(rows, n, CUSPARSE);
    if (n > 0)
        printf("hspgemm: device %s, %d threads, %s, grow=%s (copy ms: grow=copy), methods "
               "%s,%s,%s, %s, rows of C %s\n", rows[0].ours.stats.device, rows[0].ours.stats.threads,
               rows[0].ours.precision == HSP_DOUBLE ? "double" : "float",
               hsp_grow_name(rows[0].ours.stats.grow), hsp_method_name(rows[0].ours.stats.method[0]),
               hsp_method_name(rows[0].ours.stats.method[1]),
               hsp_method_name(rows[0].ours.stats.method[2]),
               rows[0].ours.resident ? "resident (device-only times)" : "host to host",
               rows[0].unsorted ? "unsorted" : "sorted");
    printf("%-17s %9s %10s %10s %6s %9s %7s", "matrix", "nnz(A)", "nnz(C)", "ms", "GF/s", "copy ms", "re/co");
    int ran[NPEERS];
    for (int k = 0; k < NPEERS; k++)
        if ((ran[k] = peer_ran(rows, n, k))) printf(" %9s %7s", cli_peer_name[k], "x");
    if (cusp) printf(" %9s %7s %9s %9s", "cusp-dev", "x", "MiB ours", "MiB cusp");
    printf(" %7s\n", "check");
    for (int r = 0; r < n; r++) {
        const bench_row *b = &rows[r];
        const hsp_stats *st = &b->ours.stats;
        double best = 0;
        int nnz_agree = 1;
        printf("%-17s %9lld %10lld %10.2f %6.2f", b->name, (long long)b->ours.nnz_a,
               (long long)st->nnz_c, b->ours.ms_median,
               (double)st->flops / (b->ours.ms_median * 1e6));
        if (b->has_copy) printf(" %9.2f %7.2f", b->copy.ms_median, b->ours.ms_median / b->copy.ms_median);
        else printf(" %9s %7s", "-", "-");
        for (int k = 0; k < NPEERS; k++) {
            if (!ran[k]) continue;
            if (b->peer[k].ms <= 0) {
                printf(" %9s %7s", "-", "-");
                continue;
            }
            printf(" %9.2f %6.2fx", b->peer[k].ms, b->peer[k].ms / b->ours.ms_median);
            if (best == 0 || b->peer[k].ms < best) best = b->peer[k].ms;
            nnz_agree &= b->peer[k].nnz == st->nnz_c;
        }
        if (cusp) print_cusparse(b);
        printf(" %7s\n", !b->right ? "wrong" : nnz_agree ? "ok" : "nnz!=");
        if (!b->right) printf("  %s: C is wrong: %s\n", b->name, b->why);
        if (best > 0) logsum += log(best / b->ours.ms_median), counted++;
    }
    if (counted)
        printf("geomean speedup over the faster peer: %.2fx (%d matrices)\n", exp(logsum / counted),
               counted);
    if (cusp)
        printf("geomean speedup over cuSPARSE: %.2fx against its host-to-host time, %.2fx against its device-only "
               "time (ours %s)\n", geomean_over(rows, n, CUSPARSE, 0), geomean_over(rows, n, CUSPARSE, 1),
               n && rows[0].ours.resident ? "resident" : "host to host");
    printf("ms: median of the runs; re/co: ms with grow=realloc / ms with grow=copy;"
           " x: peer ms / hspgemm ms\n");
}

/* Write the table as CSV. */
static int write_csv(const char *path, const bench_row *rows, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    fprintf(f, "matrix,rows,nnz_a,nnz_c,flops,threads,device,grow,resident,ms,gflops,copy_ms,"
               "graphblas_ms,scipy_ms,cusparse_ms,cusparse_device_ms,peak_device_bytes,"
               "cusparse_peak_device_bytes,mkl_ms\n");
    for (int r = 0; r < n; r++) {
        const bench_row *b = &rows[r];
        const hsp_stats *st = &b->ours.stats;
        fprintf(f, "\"%s\",%lld,%lld,%lld,%lld,%d,\"%s\",%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%lld,%.0f,%.4f\n",
                b->name,
                (long long)b->ours.nrows, (long long)b->ours.nnz_a, (long long)st->nnz_c,
                (long long)st->flops, st->threads, st->device, hsp_grow_name(st->grow), b->ours.resident,
                b->ours.ms_median, (double)st->flops / (b->ours.ms_median * 1e6),
                b->has_copy ? b->copy.ms_median : 0.0, b->peer[0].ms, b->peer[1].ms, b->peer[2].ms,
                b->peer[2].dev_ms > 0 ? b->peer[2].dev_ms : 0.0, (long long)st->peak_device_bytes,
                b->peer[2].peak > 0 ? b->peer[2].peak : 0.0, b->peer[3].ms);
    }
    return fclose(f) != 0;
}

/* The matrices to run: the --gen ones, else the suite's. */
static const char *const *suite_specs(const cli_args *a)
{
    static const char *given[CLI_MAX_OPERANDS + 1];
    if (a->noperands) {
        for (int k = 0; k < a->noperands; k++) given[k] = a->operand[k];
        given[a->noperands] = NULL;
        return given;
    }
    if (!a->suite || !strcmp(a->suite, "default")) return suite_default;
    if (!strcmp(a->suite, "paper")) return suite_paper;
    if (!strcmp(a->suite, "quick")) return suite_quick;
    return NULL;
}

int cmd_bench(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(argc, argv,
                       "suite,repeat,threads,peers,csv,precision,device,methods,seed,gen,quiet,theta,omega,coarse,"
                       "levels,small-nnz,device-timeout,mem-limit,resident,unsorted",
                       usage_bench, &a);
    if (rc) return rc == 1 ? 0 : rc;
    int galerkin = a.suite && (!strcmp(a.suite, "galerkin") || !strcmp(a.suite, "galerkin-paper"));
    int realloc_suite = a.suite && !strcmp(a.suite, "realloc"), amg = a.suite && !strcmp(a.suite, "amg");
    const char *const *specs = suite_specs(&a);
    if ((!specs && !galerkin && !realloc_suite && !amg) || (a.noperands && !a.operand_is_gen[0] && !realloc_suite)) {
        fprintf(stderr, "hspgemm: bench: unknown suite '%s' (default, paper, quick, galerkin, galerkin-paper, realloc, "
                        "amg) or a file given: bench takes --gen=SPEC (files only with --suite=realloc)\n",
                a.suite ? a.suite : "");
        return 2;
    }
    if (!a.repeat) a.repeat = 5;
    if (!a.lib.threads) a.lib.threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (galerkin) return cli_bench_galerkin(&a, a.noperands ? specs : NULL);
    if (realloc_suite) return cli_bench_realloc(&a);
    if (amg) return cli_bench_amg(&a, a.noperands ? specs : NULL);
    char cmd[NPEERS][CLI_CMD_LEN];
    cli_peer_commands(&a, cmd);
    bench_row rows[CLI_MAX_OPERANDS];
    int n = 0;
    for (; specs[n] && n < CLI_MAX_OPERANDS && rc == 0; n++) rc = bench_matrix(&a, specs[n], cmd, &rows[n]);
    if (rc) return rc;
    print_table(rows, n);
    const char *csv = a.csv ? a.csv : "bench.csv";
    if (write_csv(csv, rows, n)) return 1;
    printf("wrote %s\n", csv);
    return 0;
}
