/* bench_spmm.c: `hspgemm bench --suite=spmm`: sparse times dense, C = A B
 * (hsp_spmm_ellr on the CPU threads or --device, A prepared untimed as MKL's
 * inspector is; with --resident, B and C placed on the device untimed and
 * hsp_spmm_resident timed), against MKL (mkl_sparse_?_mm), scipy (A @ X)
 * and cuSPARSE (cusparseSpMM: its device-only time against ours resident,
 * else host to host), for each matrix of the default suite (or the --gen
 * ones and files given) and B of L = 1, 4, 8, 16, 32 and 64 columns (or the
 * --cols=L given), B and C row-major, column-major or each in turn
 * (--layout), the peers given the same.  hspgemm's runs are split around the
 * products' bench; its C of the first run is checked against a plain
 * product.  Host to host on a device reached by transfers, where C was made
 * by blocks whose transfers overlap the launches, the same product is also
 * timed without blocks and with B and C resident: the gain of the overlap,
 * and the share of the transfers it hid (FastSpMM against FastSpMM*). */
#include <math.h>
#include <string.h>
#include "cli.h"

static const int32_t suite_cols[] = {1, 4, 8, 16, 32, 64};
enum { NCOLS = sizeof suite_cols / sizeof suite_cols[0] };

/* One matrix and one L. */
typedef struct {
    const char *name;
    int32_t cols;
    hsp_order layout; /* of B and C, for every program of the row */
    int64_t nrows, nnz_a;
    hsp_spmm_stats stats; /* of hspgemm's last run */
    cli_times ours;
    cli_times serial, device; /* by blocks: without them, and resident (else no runs) */
    cli_peer_result peer[CLI_NPEERS];
    int right;      /* C of the first run matched the plain product */
    char why[160];  /* else where it did not */
} spmm_row;

/* --layout's name of order. */
static const char *layout_name(hsp_order order)
{
    return order == HSP_ROW_MAJOR ? "row" : "col";
}

/* Entry (i, j) of M, in double. */
static double entry(const hsp_dense *M, int32_t i, int32_t j)
{
    int64_t at = M->order == HSP_ROW_MAJOR ? (int64_t)i * M->ld + j : (int64_t)j * M->ld + i;
    return M->precision == HSP_DOUBLE ? ((const double *)M->values)[at] : ((const float *)M->values)[at];
}

/* Is C = A B, entry by entry within the precision's rounding of the sum of
 * |a||b| (a plain product in double)?  1 if so, else 0 with why filled. */
static int check_spmm(const hsp_csr *A, const hsp_dense *B, const hsp_dense *C, char *why, size_t len)
{
    int dbl = A->precision == HSP_DOUBLE;
    double tol = dbl ? 1e-13 : 1e-5;
    for (int32_t i = 0; i < A->nrows; i++)
        for (int32_t k = 0; k < B->ncols; k++) {
            double sum = 0, mag = 0;
            for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
                double a = dbl ? ((const double *)A->values)[p] : ((const float *)A->values)[p];
                double b = entry(B, A->colidx[p], k);
                sum += a * b, mag += fabs(a * b);
            }
            double c = entry(C, i, k);
            if (!(fabs(c - sum) <= tol * mag + 1e-300))
                return snprintf(why, len, "C(%d,%d) is %.17g, the plain product %.17g", (int)i, (int)k, c, sum), 0;
        }
    return 1;
}

/* The operands of one L: B and C on the host, and resident (placed on the
 * device when --resident, else NULL). */
typedef struct {
    const hsp_ellr *A;
    hsp_dense B, C;
    hsp_dense_resident *rB, *rC;
} spmm_operands;

/* runs products C = A B on ctx of A prepared (resident where o->rB), each
 * timed by the clock around the call and appended to ms[*n] (ms NULL: untimed,
 * n unused). */
static hsp_status time_runs(hsp_context *ctx, spmm_operands *o, int runs, double *ms, int *n, spmm_row *row)
{
    hsp_status s = HSP_OK;
    for (int k = 0; k < runs && s == HSP_OK; k++) {
        double t0 = cli_now_ms();
        s = o->rB ? hsp_spmm_resident(ctx, 1, o->A, o->rB, 0, o->rC, &row->stats)
                  : hsp_spmm_ellr(ctx, 1, o->A, &o->B, 0, &o->C, &row->stats);
        if (ms) ms[(*n)++] = cli_now_ms() - t0;
    }
    return s;
}

/* Untimed runs until the clock says warm (cli_warming), as the peers warm
 * up: after the first run, or after the peers ran while this process
 * waited, this VM's products take longer for a few runs (poisson2d5:400,
 * L = 8, two threads, after 300 ms idle: 1.6, 1.4, 1.2 ms, then 0.8-1.0;
 * a plain loop over the arrays as well). */
static hsp_status warm_up(hsp_context *ctx, spmm_operands *o, spmm_row *row)
{
    hsp_status s = HSP_OK;
    double start = cli_now_ms();
    for (int n = 0; s == HSP_OK && cli_warming(start, n); n++) s = time_runs(ctx, o, 1, NULL, NULL, row);
    return s;
}

/* The first run, untimed, and its C checked (brought home where resident). */
static hsp_status first_run(hsp_context *ctx, const hsp_csr *A, spmm_operands *o, spmm_row *row)
{
    int n = 0;
    hsp_status s = time_runs(ctx, o, 1, NULL, &n, row);
    if (s == HSP_OK && o->rC) s = hsp_dense_resident_home(o->rC, &o->C);
    if (s == HSP_OK) row->right = check_spmm(A, &o->B, &o->C, row->why, sizeof row->why);
    return s;
}

/* A product made by blocks (row->stats): its repeat runs after warm_up
 * without blocks (on serial, A prepared there) and with B and C resident
 * (on ctx, E prepared there), into row->serial and row->device. */
static hsp_status time_overlap(const cli_args *a, hsp_context *ctx, hsp_context *serial, const hsp_csr *A,
                               spmm_operands *o, spmm_row *row)
{
    double ms[a->repeat];
    int n = 0;
    hsp_spmm_stats kept = row->stats;
    spmm_operands whole = *o;
    hsp_ellr *E = NULL;
    cli_status_line("bench: %s, L = %d: hspgemm without blocks, then resident", row->name, (int)row->cols);
    hsp_status s = hsp_ellr_from_csr(serial, A, &E);
    whole.A = E;
    if (s == HSP_OK) s = warm_up(serial, &whole, row);
    if (s == HSP_OK) s = time_runs(serial, &whole, a->repeat, ms, &n, row);
    row->serial = cli_times_of(ms, n), n = 0;
    hsp_ellr_free(E);
    if (s == HSP_OK && (s = hsp_place_dense(ctx, &o->B, &o->rB)) == HSP_OK) s = hsp_place_dense(ctx, &o->C, &o->rC);
    if (s == HSP_OK) s = warm_up(ctx, o, row);
    if (s == HSP_OK) s = time_runs(ctx, o, a->repeat, ms, &n, row);
    row->device = cli_times_of(ms, n), row->stats = kept;
    return s;
}

/* One L on matrix A, prepared (untimed, as MKL's inspector is): the
 * checked first run, a warm-up, half the runs, the peers, a warm-up and the
 * other half; then, where C was made by blocks, the runs without them and
 * resident (time_overlap, on ctx[1] and ctx[0]). */
static hsp_status time_cols(const cli_args *a, const cli_peers *p, hsp_context *const ctx2[2], const hsp_csr *A,
                            spmm_row *row)
{
    hsp_context *ctx = ctx2[0];
    spmm_operands o = {0};
    hsp_ellr *E = NULL;
    double ms[a->repeat];
    int n = 0, before = cli_peers_any(p) ? (a->repeat + 1) / 2 : a->repeat;
    char extra[48];
    hsp_status s = cli_dense_random(A->ncols, row->cols, row->layout, A->precision, a->seed + 1, &o.B);
    if (s == HSP_OK) s = cli_dense_new(A->nrows, row->cols, row->layout, A->precision, &o.C);
    if (s == HSP_OK) s = hsp_ellr_from_csr(ctx, A, &E);
    if (s == HSP_OK && a->resident && (s = hsp_place_dense(ctx, &o.B, &o.rB)) == HSP_OK)
        s = hsp_place_dense(ctx, &o.C, &o.rC);
    o.A = E;
    cli_status_line("bench: %s, L = %d: hspgemm", row->name, (int)row->cols);
    if (s == HSP_OK) s = first_run(ctx, A, &o, row);
    if (s == HSP_OK) s = warm_up(ctx, &o, row);
    if (s == HSP_OK) s = time_runs(ctx, &o, before, ms, &n, row);
    snprintf(extra, sizeof extra, "--spmm=%d --layout=%s", (int)row->cols, layout_name(row->layout));
    if (s == HSP_OK) cli_run_peers(row->name, (const hsp_csr *const *)&A, 1, extra, p, row->peer);
    cli_status_line("bench: %s, L = %d: hspgemm", row->name, (int)row->cols);
    if (s == HSP_OK && before < a->repeat) s = warm_up(ctx, &o, row); /* the peers ran since */
    if (s == HSP_OK) s = time_runs(ctx, &o, a->repeat - before, ms, &n, row);
    row->ours = cli_times_of(ms, n);
    if (s == HSP_OK && row->stats.blocks > 1 && ctx2[1]) s = time_overlap(a, ctx, ctx2[1], A, &o, row);
    hsp_dense_resident_free(o.rB), hsp_dense_resident_free(o.rC);
    hsp_dense_free(&o.B), hsp_dense_free(&o.C), hsp_ellr_free(E);
    return s;
}

/* The layouts of the run (--layout: row, col, or both in turn); their number. */
static int run_layouts(const cli_args *a, hsp_order *layouts)
{
    layouts[0] = a->layout_both ? HSP_ROW_MAJOR : a->layout, layouts[1] = HSP_COL_MAJOR;
    return a->layout_both ? 2 : 1;
}

/* The L of the run: --cols, else the suite's; their number. */
static int run_cols(const cli_args *a, int32_t *cols)
{
    if (a->cols) return cols[0] = a->cols, 1;
    memcpy(cols, suite_cols, sizeof suite_cols);
    return NCOLS;
}

/* Matrix spec (a generator, or a file where is_file) at every L and layout
 * into rows[*n..]; on failure why says what failed. */
static int bench_matrix(const cli_args *a, const char *spec, int is_file, const cli_peers *p,
                        hsp_context *const ctx[2], spmm_row *rows, int *n, char *why, size_t len)
{
    int32_t cols[NCOLS];
    hsp_order layouts[2];
    int ncols = run_cols(a, cols), nlayouts = run_layouts(a, layouts);
    const char *base = strrchr(spec, '/');
    hsp_csr *A = NULL;
    cli_status_line("bench: %s: %s", spec, is_file ? "reading" : "generating");
    hsp_status s = is_file ? hsp_mm_read_limit(spec, a->precision, !a->quiet, cli_read_limit(a), &A)
                           : hsp_generate(spec, a->seed, a->precision, &A);
    for (int c = 0; c < ncols * nlayouts && s == HSP_OK; c++) {
        spmm_row *row = &rows[*n];
        *row = (spmm_row){.name = is_file && base ? base + 1 : spec, .cols = cols[c / nlayouts],
                          .layout = layouts[c % nlayouts], .nrows = A->nrows, .nnz_a = A->nnz};
        if ((s = time_cols(a, p, ctx, A, row)) == HSP_OK) ++*n;
    }
    hsp_csr_free(A);
    cli_status_line("%s", "");
    if (s == HSP_OK) return 0;
    snprintf(why, len, "%s: %s: %s", spec, hsp_strerror(s), hsp_errmsg());
    return cli_error(spec, s);
}

/* Peer k's times on row to set against ours: cuSPARSE's device-only ones
 * where ours are resident (like with like), else host to host. */
static const cli_times *peer_times(const cli_args *a, const spmm_row *row, int k)
{
    return k == CLI_CUSPARSE && a->resident ? &row->peer[k].device : &row->peer[k].host;
}

/* Peer k's median on row (k < 0: the fastest peer's), 0 when none ran. */
static double peer_median(const cli_args *a, const spmm_row *row, int k)
{
    double best = 0;
    for (int j = k < 0 ? 0 : k; j < (k < 0 ? CLI_NPEERS : k + 1); j++) {
        const cli_times *t = peer_times(a, row, j);
        if (t->runs > 0 && t->median > 0 && (best == 0 || t->median < best)) best = t->median;
    }
    return best;
}

/* For each L and layout, the geometric mean over the matrices of peer k's
 * median over hspgemm's and the least such ratio (k < 0: the fastest
 * peer's). */
static void print_speedups(const cli_args *a, const spmm_row *rows, int n, int k)
{
    int32_t cols[NCOLS];
    hsp_order layouts[2];
    for (int c = 0, ncols = run_cols(a, cols), nl = run_layouts(a, layouts); c < ncols * nl; c++) {
        double logsum = 0, least = 0;
        int counted = 0;
        for (int r = 0; r < n; r++) {
            double theirs = peer_median(a, &rows[r], k);
            if (rows[r].cols != cols[c / nl] || rows[r].layout != layouts[c % nl] || theirs <= 0) continue;
            double x = theirs / rows[r].ours.median;
            logsum += log(x), counted++;
            if (least == 0 || x < least) least = x;
        }
        if (counted)
            printf("L = %d: geomean speedup over %s%s, %s-major: %.2fx, least %.2fx (%d matrices)\n",
                   (int)cols[c / nl], k < 0 ? "the faster peer" : cli_peer_name[k],
                   k == CLI_CUSPARSE && a->resident ? " (device-only)" : "",
                   layouts[c % nl] == HSP_ROW_MAJOR ? "row" : "column", exp(logsum / counted), least, counted);
    }
}

/* Of the transfers (the product without blocks less its resident time),
 * the share the blocks hid: (without - with) / (without - resident), 0 where
 * there is nothing to hide. */
static double hidden_share(const spmm_row *row)
{
    double moving = row->serial.median - row->device.median;
    return moving > 0 ? (row->serial.median - row->ours.median) / moving : 0;
}

/* The table, then per L and peer the geometric mean of its median over
 * hspgemm's and the least such ratio. */
static void print_table(const cli_args *a, const spmm_row *rows, int n)
{
    char lead[80], tail[120];
    int flagged = 0, wrong = 0;
    if (!n) return;
    printf("%s: C = A B, B and C of L columns (layout: row- or column-major, the peers' the same), %s; device %s, "
           "%d threads, A prepared untimed, %s; %d runs after a warm-up\n", cli_version(),
           a->precision == HSP_DOUBLE ? "double" : "float", rows[0].stats.device,
           rows[0].stats.threads, a->resident ? "B and C resident (device-only times)" : "host to host", a->repeat);
    snprintf(lead, sizeof lead, "%-17s %4s %6s %9s", "matrix", "L", "layout", "nnz(A)");
    cli_print_times_header(lead);
    for (int r = 0; r < n; r++) {
        const spmm_row *row = &rows[r];
        snprintf(lead, sizeof lead, "%-17s %4d %6s %9lld", row->name, (int)row->cols, layout_name(row->layout),
                 (long long)row->nnz_a);
        snprintf(tail, sizeof tail, "%s, A read as %s, %.2f GFlop/s", row->right ? "check ok" : "C is WRONG",
                 row->stats.format, (double)row->stats.flops / (row->ours.median * 1e6));
        cli_print_times(lead, "hspgemm", &row->ours, 0, tail);
        if (!row->right) printf("  %s, L = %d: C is wrong: %s\n", row->name, (int)row->cols, row->why), wrong++;
        flagged += cli_spread(&row->ours) > CLI_SPREAD_BOUND;
        snprintf(lead, sizeof lead, "%-17s %4s %6s %9s", "", "", "", "");
        if (row->serial.runs > 0) {
            snprintf(tail, sizeof tail, "C in %d blocks above; their transfers %.0f%% hidden", row->stats.blocks,
                     100 * hidden_share(row));
            cli_print_times(lead, "no blocks", &row->serial, row->ours.median, tail);
            cli_print_times(lead, "resident", &row->device, row->ours.median, "B and C on the device");
            flagged += (cli_spread(&row->serial) > CLI_SPREAD_BOUND) + (cli_spread(&row->device) > CLI_SPREAD_BOUND);
        }
        for (int k = 0; k < CLI_NPEERS; k++) {
            const cli_peer_result *pr = &row->peer[k];
            const cli_times *t = peer_times(a, row, k);
            if (t->runs <= 0 && !pr->failed) continue;
            cli_print_times(lead, cli_peer_name[k], t, row->ours.median, pr->failed ? "failed" : "");
            flagged += cli_spread(t) > CLI_SPREAD_BOUND;
        }
    }
    for (int k = 0; k < CLI_NPEERS; k++) print_speedups(a, rows, n, k);
    print_speedups(a, rows, n, -1);
    printf("spread: (q3 - q1) / median, the middle half of the runs; x: the peer's median / hspgemm's\n");
    if (flagged)
        printf("%d figure%s spread more than %.0f%% (marked !): run again or raise --repeat\n", flagged,
               flagged > 1 ? "s" : "", 100 * CLI_SPREAD_BOUND);
    if (wrong) printf("%d product%s WRONG\n", wrong, wrong > 1 ? "s" : "");
}

/* Write the table as CSV. */
static int write_csv(const char *path, const spmm_row *rows, int n, int resident)
{
    FILE *f = fopen(path, "w");
    if (!f) return perror(path), 1;
    fprintf(f, "matrix,cols,rows,nnz_a,flops,threads,device,format,runs,ms,ms_min,ms_max,gflops,spread,"
               "scipy_ms,scipy_ms_min,scipy_ms_max,mkl_ms,mkl_ms_min,mkl_ms_max,cusparse_ms,cusparse_ms_min,"
               "cusparse_ms_max,cusparse_device_ms,cusparse_device_ms_min,cusparse_device_ms_max,resident,check,"
               "blocks,no_blocks_ms,no_blocks_ms_min,no_blocks_ms_max,resident_ms,resident_ms_min,resident_ms_max,"
               "hidden,layout\n");
    for (int r = 0; r < n; r++) {
        const spmm_row *row = &rows[r];
        fprintf(f, "\"%s\",%d,%lld,%lld,%lld,%d,\"%s\",%s,%d", row->name, (int)row->cols, (long long)row->nrows,
                (long long)row->nnz_a, (long long)row->stats.flops, row->stats.threads, row->stats.device, row->stats.format,
                row->ours.runs);
        cli_csv_times(f, &row->ours);
        fprintf(f, ",%.4f,%.4f", (double)row->stats.flops / (row->ours.median * 1e6), cli_spread(&row->ours));
        cli_csv_times(f, &row->peer[CLI_SCIPY].host);
        cli_csv_times(f, &row->peer[CLI_MKL].host);
        cli_csv_times(f, &row->peer[CLI_CUSPARSE].host);
        cli_csv_times(f, &row->peer[CLI_CUSPARSE].device);
        fprintf(f, ",%d,%s,%d", resident, row->right ? "ok" : "wrong", row->stats.blocks);
        cli_csv_times(f, &row->serial);
        cli_csv_times(f, &row->device);
        fprintf(f, ",%.4f,%s\n", row->serial.runs > 0 ? hidden_share(row) : 0, layout_name(row->layout));
    }
    return fclose(f) != 0;
}

int cli_bench_spmm(cli_args *a, const char *const *specs, const cli_peers *p, const char *csv)
{
    static spmm_row rows[(CLI_MAX_OPERANDS + 16) * NCOLS * 2]; /* 2: both layouts */
    hsp_options o = a->lib;
    hsp_context *ctx[2] = {NULL, NULL}; /* the run's, and one without blocks (host to host) */
    char why[512] = "";
    int n = 0, rc = 0;
    if (!strcmp(o.device, "auto")) o.device = "cpu"; /* the CPU threads unless --device names a device */
    hsp_status s = hsp_context_create(&o, &ctx[0]);
    o.spmm_blocks = 1;
    if (s == HSP_OK && !a->resident && a->lib.spmm_blocks > 1) s = hsp_context_create(&o, &ctx[1]);
    if (s != HSP_OK) rc = cli_error("context", s), snprintf(why, sizeof why, "context: %s", hsp_errmsg());
    for (int k = 0; !rc && specs[k]; k++)
        rc = bench_matrix(a, specs[k], a->noperands && !a->operand_is_gen[k], p, ctx, rows, &n, why, sizeof why);
    hsp_context_free(ctx[0]), hsp_context_free(ctx[1]);
    print_table(a, rows, n);
    int wrong = 0;
    for (int r = 0; r < n; r++) wrong += !rows[r].right;
    cli_run_info run = {"spmm", n ? rows[0].stats.device : "", rc == 0, why, NULL};
    if (write_csv(csv, rows, n, a->resident) || cli_write_meta(csv, a, p, &run)) return 1;
    printf("wrote %s and its description beside it (.json)%s\n", csv, rc ? "; the run stopped early" : "");
    return rc ? rc : wrong ? 1 : 0;
}
