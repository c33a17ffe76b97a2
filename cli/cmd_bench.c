/* cmd_bench.c: `hspgemm bench`: square a suite of generated matrices with
 * hspgemm and with the peer programs of bench/ (GraphBLAS, scipy, cuSPARSE, oneMKL)
 * in the same run, and print and save the times, their spread and the speedups;
 * the checks made before the first product, for every suite. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static const char usage_bench[] =
"usage: hspgemm bench [--suite=default|paper|quick|graph|galerkin|galerkin-paper|realloc|amg|spmm|solve|\n"
    "                     solve-quick] [--repeat=N]\n"
    "                     [--threads=N] [--peers=auto|none|LIST] [--csv=FILE] [--precision=P]\n"
    "                     [--device=NAME] [--methods=M] [--profile=FILE] [--small-nnz=N] [--device-timeout=S]\n"
    "                     [--mem-limit=SIZE]  [--resident] [--unsorted] [--deterministic]\n"
    "                     [--cols=L] [--layout=row|col|both] [--blocks=N] [--gen=SPEC ...]\n"
    "                     [--tol=X] [--maxiter=N] [--smoother=S] [--cycle=C] [--pre=N] [--post=N]\n"
    "                     [--jacobi-omega=X] [--degree=N] [--chebyshev-lower=X] [--sweep=S]\n"
    "                     [--nullspace=B.mtx|none] [--block=K] [--float-levels=yes|no] [--aggregation=A]\n"
    "Squares each matrix of a suite (or the --gen matrices given) with hspgemm and with\n"
    "each peer, and prints for each the median, least and largest time of N runs (default\n"
    "7) after a warm-up, their spread, nnz(C), GFlop/s, the ratio to hspgemm's time, and,\n"
    "for matrices with long rows, grow=copy beside grow=realloc.  hspgemm's runs are split\n"
    "around the peers' (half before, half after), so that what a peer leaves behind shows\n"
    "in the spread: (q3 - q1) / median, the middle half of the runs, marked '!' above 20%.\n"
    "Writes the table as CSV (default bench.csv; an empty field where a figure is missing)\n"
    "and beside it a JSON file (bench.json) that describes the run: version and commit,\n"
    "command line, date, CPU, memory, device and its software versions, options, run\n"
    "counts, peers' versions.  Times are host to host (operands in host memory, C back in\n"
    "host memory), but with --resident: hspgemm's operands are then placed on the device\n"
    "before the timing and C stays there (hsp_multiply_resident), so that its times are\n"
    "device-only.\n"
    "hspgemm's C has sorted rows, the peers' (scipy, MKL) not; with --unsorted hspgemm\n"
    "leaves them unsorted too (hsp_options.unsorted; the check sorts the warm-up's C first).\n"
    "--peers: auto (the default) runs each peer of the suite that can run here; none; or a\n"
    "list (graphblas,scipy,cusparse,mkl; pyamg for --suite=amg; scipy,cusparse,mkl for --suite=spmm;\n"
    "pyamg,hypre,gamg for --suite=solve),\n"
    "each of which must run here (cuSPARSE needs a CUDA GPU).  Arguments, peers, files and\n"
    "the output paths are\n"
    "checked before the first product (exit status 2 on a mistake); a failure later keeps\n"
    "the rows before it in the table and the CSV (exit status 1).\n"
    "suites:\n"
    "  default  regular and irregular matrices of 0.4M+ nonzeros (a few minutes)\n"
    "  paper    the paper's AMG problems: poisson2d5:1024, poisson2d9:1024,\n"
    "           poisson3d7:101, poisson3d27:101 (large: minutes and GiBs)\n"
    "  quick    tiny matrices, to check the set-up\n"
    "  graph    graphs: rmat:14,8, rmat:15,4, rmat:15,16, rmat:16,8, random:100000,6 and\n"
    "           band:100000,4 (or the --gen ones and Matrix Market files given), each also\n"
    "           by the bitmap method (8x8 blocks, on the GPU device or the CPU threads:\n"
    "           --methods=bitmap) on a context of its own\n"
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
    "           no peers; CSV default bench-realloc.csv\n"
    "  spmm     sparse times dense, C = A B (A prepared: hsp_spmm_ellr on the CPU threads or\n"
    "           --device; with --resident B and C placed first, hsp_spmm_resident), B of L = 1,\n"
    "           4, 8, 16, 32 and 64 columns (or --cols=L), for each matrix of the default\n"
    "           suite (or the --gen ones and Matrix Market files given), against MKL\n"
    "           (mkl_sparse_?_mm after its inspector), scipy (A @ X) and cuSPARSE\n"
    "           (cusparseSpMM, its fastest CSR algorithm: device-only against --resident, else\n"
    "           host to host); B and C row-major, or with --layout=col column-major (a Matrix\n"
    "           Market array file's order, numpy's Fortran order), or --layout=both: each L\n"
    "           in both, a row each; every peer gets the same layout (MKL\n"
    "           SPARSE_LAYOUT_COLUMN_MAJOR, scipy a Fortran-ordered X, cuSPARSE\n"
    "           CUSPARSE_ORDER_COL); each C checked against a plain product; the geometric\n"
    "           mean over each peer and the faster one per L and layout; CSV default\n"
    "           bench-spmm.csv (its last column the layout).  With --blocks=N host to host\n"
    "           on a device reached by transfers, C is made in N blocks (as by 'hspgemm\n"
    "           spmm'), and each product is also timed without them and resident: the gain\n"
    "           of the overlap and the share of the transfers it hid\n"
    "  amg      'hspgemm amg-setup' (--theta, --omega, --coarse, --levels) against PyAMG's\n"
    "           smoothed_aggregation_solver with the same options (bench/peer_pyamg.py, run by a\n"
    "           python3 with pyamg) on poisson2d5:1024, poisson2d9:1024, poisson3d7:101,\n"
    "           poisson3d27:101 (or the --gen problems): setup times (default 5 setups),\n"
    "           levels and operator complexities; CSV default bench-amg.csv.  --nullspace,\n"
    "           --block and --aggregation as for amg-setup (elasticity2d: its rigid-body modes),\n"
    "           for each problem\n"
    "  solve    time to solution: 'hspgemm amg-setup' + 'amg-solve' (CG preconditioned by one\n"
    "           cycle, b = ones, x0 = 0, to --tol (default 1e-8) or --maxiter (default 200,\n"
    "           the solve peers' default: aniso2d:1024 takes 122 iterations);\n"
    "           --smoother, --sweep, --cycle, --pre, --post, --jacobi-omega, --degree,\n"
    "           --chebyshev-lower, --coarsening as for amg-solve (with --coarsening=classical\n"
    "           pyamg-ours is PyAMG's ruge_stuben_solver), --float-levels as for amg-solve (default yes,\n"
    "           but no with --resident),\n"
    "           these and --tol, --maxiter refused with the other suites; with --resident the set-up\n"
    "           and solve on the device, A placed before the timing) on poisson2d5:1024,\n"
    "           poisson2d9:1024, poisson3d7:101, poisson3d27:101, aniso2d:1024 and\n"
    "           elasticity2d:512 (or the --gen problems; --nullspace, --block and --aggregation as\n"
    "           for amg-setup, for each problem), against the solve peers run with --solve:\n"
    "           PyAMG twice (pyamg: its default smoothed_aggregation_solver; pyamg-ours: our\n"
    "           set-up options, no improvement of the candidates, a Cholesky coarse solve),\n"
    "           hypre BoomerAMG (bench/peer_hypre) and PETSc GAMG (bench/peer_gamg), each with\n"
    "           PCG to the same tol: per program the setup, solve and total medians (default\n"
    "           3 runs after a warm-up), the spread of the totals, iterations, the relative\n"
    "           residual (ours computed by a plain product on the host) and total / ours; the\n"
    "           geometric mean over each peer; CSV default bench-solve.csv, a row a program\n"
    "           and problem (column program; a problem where hspgemm fails gets a row\n"
    "           saying why, and the exit status is 1 at the end)\n"
    "  solve-quick  the same on poisson2d5:128, poisson2d9:128, poisson3d7:24, poisson3d27:24,\n"
    "           aniso2d:128 and elasticity2d:64 (seconds)\n"
    "Peers run from bench/ in the build tree, $HSPGEMM_PEER_DIR, or the install's\n"
    "libexec directory; scipy and PyAMG under $HSPGEMM_PYTHON, /opt/hspgemm-python/bin/python3,\n"
    "python3 or /usr/bin/python3.\n";

static const char *const suite_default[] = {
    "poisson2d5:400", "poisson2d9:300", "poisson3d7:60", "poisson3d27:30",
    "band:100000,4",  "random:100000,8", "rmat:16,8",    NULL};
static const char *const suite_paper[] = {"poisson2d5:1024", "poisson2d9:1024", "poisson3d7:101",
                                          "poisson3d27:101", NULL};
static const char *const suite_quick[] = {"poisson2d5:30", "poisson3d27:8", "rmat:9,8", NULL};
static const char *const suite_graph[] = {"rmat:14,8", "rmat:15,4", "rmat:15,16", "rmat:16,8", "random:100000,6",
                                          "band:100000,4", NULL};

enum { NPEERS = CLI_NPEERS, CUSPARSE = CLI_CUSPARSE, MKL = CLI_MKL };

/* One row of the table. */
typedef struct {
    const char *name;
    cli_result ours, copy, bitmap; /* the stats of a run of each grow mode, and of the bitmap method */
    cli_times ours_t, copy_t, bitmap_t;
    int has_copy, has_bitmap;
    cli_peer_result peer[NPEERS];
    int right;      /* C of the warm-up passed cli_check_product */
    int unsorted;   /* C's rows were left unsorted */
    char why[192];  /* else what it found */
} bench_row;

/* Untimed runs on ctx (cli_warming). */
static hsp_status warm_up(const cli_args *a, hsp_context *ctx, const hsp_csr *A, cli_result *r)
{
    double start = cli_now_ms();
    hsp_status s = HSP_OK;
    for (int n = 0; s == HSP_OK && cli_warming(start, n); n++) s = cli_time_multiply(ctx, A, A, 1, 0, a->resident, NULL, r);
    return s;
}

/* The first run, whose C is checked into row, and the warm-up. */
static hsp_status check_and_warm_up(const cli_args *a, hsp_context *ctx, const hsp_csr *A, bench_row *row)
{
    hsp_csr *C = NULL;
    hsp_status s = cli_time_multiply(ctx, A, A, 1, 0, a->resident, &C, &row->ours);
    if (s == HSP_OK && a->lib.unsorted && hsp_csr_sort(C) != HSP_OK)
        snprintf(row->why, sizeof row->why, "its rows could not be sorted: %s", hsp_errmsg());
    else if (s == HSP_OK) row->right = cli_check_product(A, A, C, row->why, sizeof row->why);
    hsp_csr_free(C);
    return s == HSP_OK ? warm_up(a, ctx, A, &row->ours) : s;
}

/* Ours with options o (grow=copy, or the bitmap method) on a context of
 * their own: a warm-up and a->repeat runs into r and t. */
static hsp_status time_variant(const cli_args *a, const hsp_options *o, const hsp_csr *A, cli_result *r,
                               cli_times *t)
{
    hsp_context *ctx = NULL;
    double ms[a->repeat];
    int n = 0;
    hsp_status s = hsp_context_create(o, &ctx);
    if (s == HSP_OK) s = warm_up(a, ctx, A, r);
    if (s == HSP_OK) s = cli_time_runs(ctx, A, a->repeat, a->resident, ms, &n, r);
    *t = cli_times_of(ms, n);
    hsp_context_free(ctx);
    return s;
}

/* Ours with grow=realloc, half the runs before the peers and half after
 * (each half after a warm-up), grow=copy (with long rows only) and the peers
 * between. */
static hsp_status time_matrix(const cli_args *a, const cli_peers *p, const char *spec, const hsp_csr *A,
                              bench_row *row)
{
    hsp_options o = a->lib;
    hsp_context *ctx = NULL;
    double ms[a->repeat];
    int n = 0, before = cli_peers_any(p) ? (a->repeat + 1) / 2 : a->repeat;
    o.grow = HSP_GROW_REALLOC;
    hsp_status s = hsp_context_create(&o, &ctx);
    cli_status_line("bench: %s: hspgemm", spec);
    if (s == HSP_OK) s = check_and_warm_up(a, ctx, A, row);
    if (s == HSP_OK) s = cli_time_runs(ctx, A, before, a->resident, ms, &n, &row->ours);
    hsp_options variant = a->lib;
    if (s == HSP_OK && row->ours.stats.rows_group[4] > 0) {
        cli_status_line("bench: %s: hspgemm grow=copy", spec);
        variant.grow = HSP_GROW_COPY;
        row->has_copy = (s = time_variant(a, &variant, A, &row->copy, &row->copy_t)) == HSP_OK;
    }
    if (s == HSP_OK && a->suite && !strcmp(a->suite, "graph") && !a->lib.bitmap && !a->resident) {
        cli_status_line("bench: %s: hspgemm bitmap", spec);
        variant = a->lib, variant.bitmap = 1;
        row->has_bitmap = (s = time_variant(a, &variant, A, &row->bitmap, &row->bitmap_t)) == HSP_OK;
    }
    if (s == HSP_OK) cli_run_peers(spec, (const hsp_csr *const *)&A, 1, "", p, row->peer);
    cli_status_line("bench: %s: hspgemm", spec);
    if (s == HSP_OK && before < a->repeat) s = warm_up(a, ctx, A, &row->ours); /* again: the peers ran since */
    if (s == HSP_OK) s = cli_time_runs(ctx, A, a->repeat - before, a->resident, ms, &n, &row->ours);
    row->ours_t = cli_times_of(ms, n);
    hsp_context_free(ctx);
    return s;
}

/* Generate (or read, a file: --suite=graph) and time one matrix into row;
 * on failure why says what failed. */
static int bench_matrix(const cli_args *a, const char *spec, int is_file, const cli_peers *p, bench_row *row,
                        char *why, size_t len)
{
    hsp_csr *A = NULL;
    const char *base = strrchr(spec, '/');
    memset(row, 0, sizeof *row);
    row->name = is_file && base ? base + 1 : spec;
    row->unsorted = a->lib.unsorted && !a->resident;
    cli_status_line("bench: %s: %s", spec, is_file ? "reading" : "generating");
    hsp_status s = is_file ? hsp_mm_read_limit(spec, a->precision, !a->quiet, cli_read_limit(a), &A)
                           : hsp_generate(spec, a->seed, a->precision, &A);
    if (s == HSP_OK) s = time_matrix(a, p, spec, A, row);
    hsp_csr_free(A);
    cli_status_line("%s", "");
    if (s == HSP_OK) return 0;
    snprintf(why, len, "%s: %s: %s", spec, hsp_strerror(s), hsp_errmsg());
    return cli_error(spec, s);
}

/* Did peer k run on any row? */
static int peer_ran(const bench_row *rows, int n, int k)
{
    for (int r = 0; r < n; r++)
        if (rows[r].peer[k].host.runs > 0) return 1;
    return 0;
}

/* Geometric mean of peer k's median over ours (device-only when dev), over
 * the rows where it ran; 0 when none. */
static double geomean_over(const bench_row *rows, int n, int k, int dev)
{
    double logsum = 0;
    int counted = 0;
    for (int r = 0; r < n; r++) {
        const cli_times *t = dev ? &rows[r].peer[k].device : &rows[r].peer[k].host;
        if (t->runs > 0) logsum += log(t->median / rows[r].ours_t.median), counted++;
    }
    return counted ? exp(logsum / counted) : 0.0;
}

/* What a peer's line says after its figures: failed, or a different nnz(C). */
static const char *peer_note(const cli_peer_result *p, int64_t nnz_c)
{
    return p->failed ? "failed" : p->host.runs > 0 && p->nnz != nnz_c ? "nnz(C) differs" : "";
}

/* The lines of one matrix: hspgemm, grow=copy, each peer that ran in the run. */
static void print_matrix(const bench_row *b, const int ran[NPEERS], int *flagged)
{
    char lead[64], tail[160];
    const hsp_stats *st = &b->ours.stats;
    double ours = b->ours_t.median;
    snprintf(lead, sizeof lead, "%-17s %9lld %10lld", b->name, (long long)b->ours.nnz_a, (long long)st->nnz_c);
    snprintf(tail, sizeof tail, "%s, %.2f GFlop/s", !b->right ? "C is WRONG" : "check ok",
             (double)st->flops / (ours * 1e6));
    cli_print_times(lead, "hspgemm", &b->ours_t, 0, tail);
    *flagged += cli_spread(&b->ours_t) > CLI_SPREAD_BOUND;
    if (!b->right) printf("  %s: C is wrong: %s\n", b->name, b->why);
    snprintf(lead, sizeof lead, "%-17s %9s %10s", "", "", "");
    if (b->has_copy) cli_print_times(lead, "grow=copy", &b->copy_t, ours, "");
    if (b->has_bitmap) {
        const hsp_stats *bs = &b->bitmap.stats;
        snprintf(tail, sizeof tail, "%s%.2f entries a block of C", bs->nnz_c != st->nnz_c ? "nnz(C) differs; " : "",
                 bs->blocks_c ? (double)bs->nnz_c / (double)bs->blocks_c : 0.0);
        cli_print_times(lead, "bitmap", &b->bitmap_t, ours, tail);
        *flagged += cli_spread(&b->bitmap_t) > CLI_SPREAD_BOUND;
    }
    for (int k = 0; k < NPEERS; k++) {
        if (!ran[k]) continue;
        const cli_peer_result *p = &b->peer[k];
        cli_print_times(lead, cli_peer_name[k], &p->host, ours, peer_note(p, st->nnz_c));
        *flagged += cli_spread(&p->host) > CLI_SPREAD_BOUND;
        *flagged += (cli_spread(&p->sorted) > CLI_SPREAD_BOUND) + (cli_spread(&p->device) > CLI_SPREAD_BOUND);
        if (k == MKL && p->sorted.runs > 0) cli_print_times(lead, "mkl sorted", &p->sorted, ours, "");
        if (k == CUSPARSE && p->device.runs > 0) {
            snprintf(tail, sizeof tail, "peak device MiB: hspgemm %.1f, cuSPARSE %.1f",
                     (double)st->peak_device_bytes / (1 << 20), p->peak / (1 << 20));
            cli_print_times(lead, "cusparse dev", &p->device, ours, tail);
            *flagged += cli_spread(&p->nopool) > CLI_SPREAD_BOUND;
            if (p->nopool.runs > 0) cli_print_times(lead, "dev nopool", &p->nopool, ours, "");
        }
    }
}

/* Print the table and the geometric mean speedup over the faster peer. */
static void print_table(const cli_args *a, const bench_row *rows, int n)
{
    double logsum = 0;
    int counted = 0, flagged = 0, ran[NPEERS], any = 0;
    char lead[64];
    if (n == 0) return;
    for (int k = 0; k < NPEERS; k++) any |= ran[k] = peer_ran(rows, n, k);
    printf("%s: device %s, %d threads, %s, methods %s,%s,%s%s, %s, rows of C %s\n", cli_version(),
           rows[0].ours.stats.device, rows[0].ours.stats.threads,
           rows[0].ours.precision == HSP_DOUBLE ? "double" : "float", hsp_method_name(rows[0].ours.stats.method[0]),
           hsp_method_name(rows[0].ours.stats.method[1]), hsp_method_name(rows[0].ours.stats.method[2]),
           a->lib.deterministic ? " (deterministic)" : "", rows[0].ours.resident ? "resident (device-only times)" : "host to host",
           rows[0].unsorted ? "unsorted" : "sorted");
    if (*rows[0].ours.stats.profile) printf("methods per bin from the profile %s\n", rows[0].ours.stats.profile);
    printf("runs: %d of each program after a warm-up%s\n", a->repeat,
           any ? " (hspgemm's: half before the peers, half after)" : "");
    snprintf(lead, sizeof lead, "%-17s %9s %10s", "matrix", "nnz(A)", "nnz(C)");
    cli_print_times_header(lead);
    for (int r = 0; r < n; r++) {
        const bench_row *b = &rows[r];
        double best = 0;
        print_matrix(b, ran, &flagged);
        for (int k = 0; k < NPEERS; k++) { /* like with like: cuSPARSE's device-only time against ours resident */
            const cli_times *t = k == CUSPARSE && a->resident ? &b->peer[k].device : &b->peer[k].host;
            if (t->runs > 0 && (best == 0 || t->median < best)) best = t->median;
        }
        if (best > 0) logsum += log(best / b->ours_t.median), counted++;
    }
    if (counted)
        printf("geomean speedup over the faster peer: %.2fx (%d matrices)\n", exp(logsum / counted), counted);
    if (ran[CUSPARSE])
        printf("geomean speedup over cuSPARSE: %.2fx against its host-to-host time, %.2fx against its device-only "
               "time (ours %s)\n", geomean_over(rows, n, CUSPARSE, 0), geomean_over(rows, n, CUSPARSE, 1),
               rows[0].ours.resident ? "resident" : "host to host");
    printf("spread: (q3 - q1) / median, the middle half of the runs; x: the program's median / hspgemm's (grow=copy: "
           "the gain of realloc; bitmap: under 1 where blocks are faster)\n");
    if (flagged)
        printf("%d figure%s spread more than %.0f%% (marked !): the machine was busy or its speed drifted; run "
               "again or raise --repeat\n", flagged, flagged > 1 ? "s" : "", 100 * CLI_SPREAD_BOUND);
}

/* The "failed" field of a row: the peers that failed on it, ';' between. */
static void csv_failed(FILE *f, const bench_row *b)
{
    int first = 1;
    fputc(',', f);
    for (int k = 0; k < NPEERS; k++)
        if (b->peer[k].failed) fprintf(f, "%s%s", first ? "" : ";", cli_peer_name[k]), first = 0;
}

/* Write the table as CSV; a missing figure is an empty field. */
static int write_csv(const char *path, const cli_args *a, const cli_peers *p, const bench_row *rows, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) return perror(path), 1;
    fprintf(f, "matrix,rows,nnz_a,nnz_c,flops,threads,device,grow,resident,unsorted,runs,ms,ms_min,ms_max,gflops,"
               "spread,copy_ms,copy_ms_min,copy_ms_max,peer_runs,graphblas_ms,graphblas_ms_min,graphblas_ms_max,"
               "scipy_ms,scipy_ms_min,scipy_ms_max,cusparse_ms,cusparse_ms_min,cusparse_ms_max,cusparse_device_ms,"
               "cusparse_device_ms_min,cusparse_device_ms_max,cusparse_nopool_ms,cusparse_nopool_ms_min,"
               "cusparse_nopool_ms_max,mkl_ms,mkl_ms_min,mkl_ms_max,mkl_sorted_ms,"
               "mkl_sorted_ms_min,mkl_sorted_ms_max,peak_device_bytes,cusparse_peak_device_bytes,check,failed,"
               "bitmap_ms,bitmap_ms_min,bitmap_ms_max,bitmap_blocks_c\n");
    for (int r = 0; r < n; r++) {
        const bench_row *b = &rows[r];
        const hsp_stats *st = &b->ours.stats;
        fprintf(f, "\"%s\",%lld,%lld,%lld,%lld,%d,\"%s\",%s,%d,%d,%d", b->name, (long long)b->ours.nrows,
                (long long)b->ours.nnz_a, (long long)st->nnz_c, (long long)st->flops, st->threads, st->device,
                hsp_grow_name(st->grow), b->ours.resident, b->unsorted, b->ours_t.runs);
        cli_csv_times(f, &b->ours_t);
        fprintf(f, ",%.4f,%.4f", (double)st->flops / (b->ours_t.median * 1e6), cli_spread(&b->ours_t));
        cli_csv_times(f, &b->copy_t);
        cli_csv_number(f, "%.0f", cli_peers_any(p) ? a->repeat : 0);
        for (int k = 0; k < CLI_PYAMG; k++) {
            cli_csv_times(f, &b->peer[k].host);
            if (k == CUSPARSE) cli_csv_times(f, &b->peer[k].device), cli_csv_times(f, &b->peer[k].nopool);
            if (k == MKL) cli_csv_times(f, &b->peer[k].sorted);
        }
        cli_csv_number(f, "%.0f", (double)st->peak_device_bytes);
        cli_csv_number(f, "%.0f", b->peer[CUSPARSE].device.runs > 0 ? b->peer[CUSPARSE].peak : 0);
        fprintf(f, ",%s", !b->right ? "wrong" : "ok");
        csv_failed(f, b);
        cli_csv_times(f, &b->bitmap_t);
        cli_csv_number(f, "%.0f", b->has_bitmap ? (double)b->bitmap.stats.blocks_c : 0);
        fputc('\n', f);
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
    if (!strcmp(a->suite, "graph")) return suite_graph;
    if (!strcmp(a->suite, "spmm")) return suite_default;
    return NULL;
}

/* The first file operand, or a->noperands where none is a file. */
static int files_at(const cli_args *a)
{
    int k = 0;
    while (k < a->noperands && a->operand_is_gen[k]) k++;
    return k;
}

/* The command line into a->command, each argument quoted where a shell would need it. */
static void keep_command(int argc, char **argv, cli_args *a)
{
    size_t at = (size_t)snprintf(a->command, sizeof a->command, "hspgemm bench");
    for (int k = 1; k < argc && at < sizeof a->command; k++) {
        int plain = argv[k][strspn(argv[k], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=:,./+")] == '\0';
        at += (size_t)snprintf(a->command + at, sizeof a->command - at, plain ? " %s" : " '%s'", argv[k]);
    }
}

/* Each file operand can be read: else say which and return 2. */
static int check_files(const cli_args *a)
{
    for (int k = 0; k < a->noperands; k++) {
        FILE *f = a->operand_is_gen[k] ? NULL : fopen(a->operand[k], "r");
        if (!a->operand_is_gen[k] && !f)
            return fprintf(stderr, "hspgemm: bench: %s: %s\n", a->operand[k], strerror(errno)), 2;
        if (f) fclose(f);
    }
    return 0;
}

/* Each file operand fits in memory with the row arrays of its square, from
 * its size line (the bench takes one matrix at a time): else say why and
 * return 1. */
static int check_rows(const cli_args *a)
{
    cli_args one = *a;
    one.noperands = 1;
    for (int k = 0; k < a->noperands; k++) {
        int64_t rows = 0, cols;
        one.operand[0] = a->operand[k], one.operand_is_gen[0] = a->operand_is_gen[k];
        cli_declared_shape(&one, 0, &rows, &cols);
        if (cli_check_rows(&one, "bench", rows, 0)) return 1;
    }
    return 0;
}

/* Refuse the solve's options (--tol, --smoother, --float-levels, --coarsening, ...) but with --suite=solve, and
 * --nullspace, --block and --aggregation but with it or --suite=amg: 2 after saying so, else 0. */
static int amg_options_used(const cli_args *a, int amg, int solve)
{
    hsp_amg_solve_options defaults;
    memset(&defaults, 0, sizeof defaults);
    hsp_amg_solve_options_init(&defaults);
    if (!solve && memcmp(&defaults, &a->solve, sizeof defaults))
        return cli_usage_error(a->name, "--tol, --maxiter, --smoother, --sweep, --cycle, --pre, --post, "
                               "--jacobi-omega, --degree and --chebyshev-lower are options of --suite=solve");
    if (!solve && a->float_levels_given)
        return cli_usage_error(a->name, "--float-levels is an option of --suite=solve");
    if (!solve && a->amg.coarsening != HSP_COARSEN_AGGREGATION)
        return cli_usage_error(a->name, "--coarsening is an option of --suite=solve (the other suites' peers "
                               "build smoothed-aggregation hierarchies)");
    if (!solve && !amg && (a->nullspace || a->block || a->amg.aggregation != HSP_AGGREGATION_AUTO))
        return cli_usage_error(a->name, "--nullspace, --block and --aggregation are options of --suite=solve and "
                               "--suite=amg");
    return 0;
}

/* The products suites (default, paper, quick, or --gen matrices). */
static int bench_products(const cli_args *a, const char *const *specs, const cli_peers *p, const char *csv)
{
    static bench_row rows[CLI_MAX_OPERANDS];
    char why[512] = "";
    int n = 0, rc = 0;
    for (; specs[n] && n < CLI_MAX_OPERANDS && rc == 0; n++)
        rc = bench_matrix(a, specs[n], a->noperands && !a->operand_is_gen[n], p, &rows[n], why, sizeof why);
    n -= rc != 0; /* the failed matrix has no row */
    print_table(a, rows, n);
    cli_run_info run = {a->suite ? a->suite : "default", n ? rows[0].ours.stats.device : "", rc == 0, why,
                        n ? rows[0].ours.stats.profile : NULL};
    if (write_csv(csv, a, p, rows, n) || cli_write_meta(csv, a, p, &run)) return 1;
    printf("wrote %s and its description beside it (.json)%s\n", csv, rc ? "; the run stopped early" : "");
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    cli_args a;
    cli_peers peers;
    int rc = cli_parse(argc, argv,
                       "suite,repeat,threads,peers,csv,precision,device,methods,profile,seed,gen,quiet,strength,theta,"
                       "omega,coarse,levels,small-nnz,device-timeout,mem-limit,resident,unsorted,deterministic,cols,"
                       "layout,blocks,tol,maxiter,smoother,sweep,cycle,pre,post,jacobi-omega,degree,chebyshev-lower,"
                       "nullspace,block,float-levels,aggregation,coarsening",
                       usage_bench, &a);
    if (rc) return rc == 1 ? 0 : rc;
    keep_command(argc, argv, &a);
    int galerkin = a.suite && (!strcmp(a.suite, "galerkin") || !strcmp(a.suite, "galerkin-paper"));
    int realloc_suite = a.suite && !strcmp(a.suite, "realloc"), amg = a.suite && !strcmp(a.suite, "amg");
    int spmm = a.suite && !strcmp(a.suite, "spmm");
    int solve = a.suite && (!strcmp(a.suite, "solve") || !strcmp(a.suite, "solve-quick"));
    int graph = a.suite && !strcmp(a.suite, "graph"), files = files_at(&a) < a.noperands;
    const char *const *specs = suite_specs(&a);
    char shown[CLI_SHOWN + 4];
    if (!specs && !galerkin && !realloc_suite && !amg && !solve)
        return cli_usage_error(a.name, "unknown suite '%s' (the suites: default, paper, quick, graph, galerkin, "
                               "galerkin-paper, realloc, amg, spmm, solve, solve-quick)", cli_shown(a.suite, shown));
    if ((rc = amg_options_used(&a, amg, solve))) return rc;
    if (files && !realloc_suite && !graph && !spmm)
        return cli_usage_error(a.name, "--suite=%s takes no file (%s): files go with --suite=graph, realloc or spmm; "
                               "the "
                               "others take --gen=SPEC", a.suite ? a.suite : "default",
                               cli_shown(a.operand[files_at(&a)], shown));
    if (realloc_suite && a.peers && strcmp(a.peers, "none") && strcmp(a.peers, "auto"))
        return cli_usage_error(a.name, "--suite=realloc runs no peers (it times hspgemm's two grow modes)");
    int layout_given = a.layout_both || a.layout != HSP_ROW_MAJOR;
    if ((a.cols || a.lib.spmm_blocks || layout_given) && !spmm)
        return cli_usage_error(a.name, "--%s is an option of --suite=spmm",
                               a.cols ? "cols=L" : a.lib.spmm_blocks ? "blocks=N" : "layout");
    if (!a.repeat) a.repeat = amg ? 5 : solve ? 3 : 7;
    if (solve && !a.maxiter_given) a.solve.maxiter = 200; /* the solve peers' default (bench/README.md) */
    if (solve) a.amg.float_levels = cli_solve_float_levels(&a); /* amg-solve's default */
    if (!a.lib.threads) a.lib.threads = hsp_cpu_count();
    const char *csv = a.csv ? a.csv : galerkin ? "bench-galerkin.csv" : realloc_suite ? "bench-realloc.csv"
                                    : amg      ? "bench-amg.csv"
                                    : spmm     ? "bench-spmm.csv"
                                    : solve    ? "bench-solve.csv"
                                               : "bench.csv";
    if ((rc = check_files(&a)) || (rc = cli_check_output(csv)) || (rc = check_rows(&a)) || (rc = cli_check_device(&a)))
        return rc;
    unsigned allowed = realloc_suite ? 0 : amg ? CLI_AMG_PEERS : spmm ? CLI_SPMM_PEERS : solve ? CLI_SOLVE_PEERS
                                                                                           : CLI_PRODUCT_PEERS;
    if ((rc = cli_peers_choose(&a, allowed, &peers))) return rc;
    if (galerkin) return cli_bench_galerkin(&a, a.noperands ? specs : NULL, &peers, csv);
    if (realloc_suite) return cli_bench_realloc(&a, &peers, csv);
    if (amg) return cli_bench_amg(&a, a.noperands ? specs : NULL, &peers, csv);
    if (spmm) return cli_bench_spmm(&a, specs, &peers, csv);
    if (solve) return cli_bench_solve(&a, a.noperands ? specs : NULL, &peers, csv);
    return bench_products(&a, specs, &peers, csv);
}
