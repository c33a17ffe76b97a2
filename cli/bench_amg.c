/* bench_amg.c: `hspgemm bench --suite=amg`: hspgemm's smoothed-aggregation
 * setup (hsp_amg_setup, as `hspgemm amg-setup` runs it) against PyAMG's
 * (bench/peer_pyamg.py) on the same A with the same theta, omega, levels and
 * coarse size: the median setup time of each, their levels and operator
 * complexities. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const char *const suite_amg[] = {"poisson2d5:1024", "poisson2d9:1024", "poisson3d7:101", "poisson3d27:101",
                                        NULL};
enum { MAX_LEVELS = HSP_AMG_MAX_LEVELS };

/* A hierarchy's figures: levels, rows per level, operator complexity, setup times. */
typedef struct {
    int nlevels;
    int64_t rows[MAX_LEVELS], nnz[MAX_LEVELS];
    double complexity;
    cli_times t;
    double first; /* ours: the warm-up's ms, the first setup of its A in this process */
    int failed;   /* the peer ran and failed */
} amg_figures;

typedef struct {
    const char *name;
    amg_figures ours, pyamg; /* pyamg.t.runs 0: it did not run */
    char device[sizeof ((hsp_amg *)0)->device]; /* what ran our products */
} amg_row;

/* The operator complexity: the levels' entries over the finest's. */
static double complexity(const amg_figures *f)
{
    double sum = 0;
    for (int l = 0; l < f->nlevels; l++) sum += (double)f->nnz[l];
    return f->nlevels && f->nnz[0] ? sum / (double)f->nnz[0] : 0;
}

/* Our setup of A with options o repeat times after a warm-up: the times, the levels, the device. */
static hsp_status time_ours(hsp_context *ctx, const hsp_csr *A, const hsp_amg_options *o, const cli_args *a,
                            amg_row *b)
{
    amg_figures *f = &b->ours;
    double *ms = malloc((size_t)a->repeat * sizeof *ms);
    hsp_status s = ms ? HSP_OK : HSP_ERR_NOMEM;
    for (int k = 0; s == HSP_OK && k <= a->repeat; k++) { /* run 0 is the warm-up */
        hsp_amg *amg = NULL;
        s = hsp_amg_setup(ctx, A, o, &amg);
        if (s == HSP_OK && k) ms[k - 1] = amg->ms_total;
        if (s == HSP_OK && !k) f->first = amg->ms_total;
        for (int l = 0; s == HSP_OK && l < amg->nlevels; l++)
            f->rows[l] = amg->level[l].A->nrows, f->nnz[l] = amg->level[l].A->nnz;
        if (s == HSP_OK) f->nlevels = amg->nlevels, memcpy(b->device, amg->device, sizeof b->device);
        hsp_amg_free(amg);
    }
    if (s == HSP_OK) f->t = cli_times_of(ms, a->repeat);
    f->complexity = complexity(f);
    free(ms);
    return s;
}

/* The integers of the JSON array "key":[...] in line into x (at most MAX_LEVELS); their count. */
static int json_array(const char *line, const char *key, int64_t *x)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":[", key);
    const char *p = strstr(line, pattern);
    int n = 0;
    for (p = p ? p + strlen(pattern) : NULL; p && *p != ']' && n < MAX_LEVELS; n++) {
        char *end;
        x[n] = strtoll(p, &end, 10);
        if (end == p) break;
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* PyAMG's figures for A (and o's near-nullspace), by the peer in cmd on A
 * written to a temporary file; f->t.runs stays 0 when it fails. */
static void time_pyamg(const char *cmd, const hsp_csr *A, const hsp_amg_options *o, const char *name,
                       amg_figures *f)
{
    char dir[CLI_TEMP_DIR], files[256], line[4096] = "", *full = NULL;
    if (cli_peer_files(name, A, o, dir, files, sizeof files)) return;
    cli_status_line("bench: %s: pyamg", name);
    if (asprintf(&full, "%s %s", cmd, files) >= 0 && cli_peer_line(full, line, sizeof line) == 0 &&
        strstr(line, "\"ms_median\":")) {
        f->t = cli_json_times(line, "ms");
        f->nlevels = json_array(line, "rows", f->rows);
        if (json_array(line, "nnz", f->nnz) != f->nlevels) f->nlevels = 0;
        f->complexity = complexity(f);
    } else {
        fprintf(stderr, "\nhspgemm: bench: pyamg failed on %s\n", name);
        f->failed = 1;
    }
    free(full);
    cli_peer_files_remove(dir);
}

/* "65536/11008/1237" into buf: the rows of each level. */
static const char *level_rows(const amg_figures *f, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int l = 0; l < f->nlevels && at < len; l++)
        at += (size_t)snprintf(buf + at, len - at, "%s%lld", l ? "/" : "", (long long)f->rows[l]);
    return f->nlevels ? buf : "-";
}

static void print_rows(const amg_row *rows, int n)
{
    char lead[32], tail[600], ours[256], peer[256];
    double logsum = 0;
    int counted = 0, flagged = 0;
    snprintf(lead, sizeof lead, "%-17s", "problem");
    cli_print_times_header(lead);
    for (int r = 0; r < n; r++) {
        const amg_row *b = &rows[r];
        snprintf(lead, sizeof lead, "%-17s", b->name);
        snprintf(tail, sizeof tail, "levels %s, complexity %.2f, first %.0f ms (%.2fx)",
                 level_rows(&b->ours, ours, sizeof ours), b->ours.complexity, b->ours.first,
                 b->ours.first / b->ours.t.median);
        cli_print_times(lead, "hspgemm", &b->ours.t, 0, tail);
        snprintf(tail, sizeof tail, "levels %s, complexity %.2f", level_rows(&b->pyamg, peer, sizeof peer),
                 b->pyamg.complexity);
        snprintf(lead, sizeof lead, "%-17s", "");
        if (b->pyamg.t.runs > 0 || b->pyamg.failed)
            cli_print_times(lead, "pyamg", &b->pyamg.t, b->ours.t.median, b->pyamg.failed ? "failed" : tail);
        flagged += (cli_spread(&b->ours.t) > CLI_SPREAD_BOUND) + (cli_spread(&b->pyamg.t) > CLI_SPREAD_BOUND);
        if (b->pyamg.t.runs > 0) logsum += log(b->pyamg.t.median / b->ours.t.median), counted++;
    }
    if (counted) printf("geomean speedup over PyAMG's setup: %.2fx (%d problems)\n", exp(logsum / counted), counted);
    if (flagged)
        printf("%d figure%s spread more than %.0f%% (marked !): run again or raise --repeat\n", flagged,
               flagged > 1 ? "s" : "", 100 * CLI_SPREAD_BOUND);
}

static int write_csv(const char *path, const cli_args *a, const amg_row *rows, int n)
{
    char ours[256], peer[256];
    FILE *f = fopen(path, "w");
    if (!f) return perror(path), 1;
    fprintf(f, "problem,device,threads,precision,theta,omega,coarse,max_levels,runs,ms,ms_min,ms_max,spread,"
               "pyamg_runs,pyamg_ms,pyamg_ms_min,pyamg_ms_max,levels,pyamg_levels,complexity,pyamg_complexity,rows,"
               "pyamg_rows,first_ms\n");
    for (int r = 0; r < n; r++) {
        const amg_row *b = &rows[r];
        fprintf(f, "\"%s\",\"%s\",%d,double,%g,%g,%d,%d,%d", b->name, b->device, a->lib.threads, a->amg.theta,
                a->amg.omega, a->amg.coarse_size, a->amg.max_levels, b->ours.t.runs);
        cli_csv_times(f, &b->ours.t);
        fprintf(f, ",%.4f", cli_spread(&b->ours.t));
        cli_csv_number(f, "%.0f", b->pyamg.t.runs);
        cli_csv_times(f, &b->pyamg.t);
        fprintf(f, ",%d", b->ours.nlevels);
        cli_csv_number(f, "%.0f", b->pyamg.nlevels);
        fprintf(f, ",%.4f", b->ours.complexity);
        cli_csv_number(f, "%.4f", b->pyamg.complexity);
        fprintf(f, ",%s,%s,%.3f\n", level_rows(&b->ours, ours, sizeof ours),
                b->pyamg.nlevels ? level_rows(&b->pyamg, peer, sizeof peer) : "", b->ours.first);
    }
    return fclose(f) != 0;
}

int cli_bench_amg(cli_args *a, const char *const *given, const cli_peers *p, const char *csv)
{
    const char *const *specs = given ? given : suite_amg;
    static amg_row rows[CLI_MAX_OPERANDS];
    char why[512] = "";
    hsp_context *ctx = NULL;
    int n = 0;
    hsp_status s = hsp_context_create(&a->lib, &ctx);
    if (s != HSP_OK) return cli_error("context", s);
    for (int q = 0; specs[q] && n < CLI_MAX_OPERANDS && s == HSP_OK; q++) {
        hsp_csr *A = NULL;
        hsp_amg_options o = a->amg;
        double *B = NULL;
        char note[CLI_MSG];
        amg_row *b = memset(&rows[n], 0, sizeof rows[n]);
        b->name = specs[q];
        cli_status_line("bench: %s: generating", specs[q]);
        s = hsp_generate(specs[q], a->seed, HSP_DOUBLE, &A);
        if (s == HSP_OK && cli_nullspace(a, specs[q], A, "bench", &o, &B, note, sizeof note)) s = HSP_ERR_ARG;
        if (s == HSP_OK) cli_status_line("bench: %s: hspgemm", specs[q]), s = time_ours(ctx, A, &o, a, b);
        if (s == HSP_OK && p->cmd[CLI_PYAMG][0]) time_pyamg(p->cmd[CLI_PYAMG], A, &o, specs[q], &b->pyamg);
        if (s == HSP_OK) n++;
        else snprintf(why, sizeof why, "%s: %s: %s", specs[q], hsp_strerror(s), hsp_errmsg()), cli_error(specs[q], s);
        free(B), hsp_csr_free(A);
    }
    cli_status_line("%s", "");
    hsp_context_free(ctx);
    printf("%s, amg-setup against PyAMG's smoothed_aggregation_solver: %s strength, theta %g, omega %g, levels %d, "
           "coarse %d, double, device %s, %d threads (PyAMG: one); %d setups of each after a warm-up\n",
           cli_version(), cli_strength_name(a->amg.strength), a->amg.theta, a->amg.omega, a->amg.max_levels,
           a->amg.coarse_size,
           n ? rows[0].device : "-", a->lib.threads, a->repeat);
    print_rows(rows, n);
    printf("spread: (q3 - q1) / median, the middle half of the runs; x: PyAMG ms / hspgemm ms; complexity: operator complexity (the levels' "
           "entries over A's); first: the warm-up, the first setup of that A in this process (the first problem's is "
           "the process's first), and its ratio to the median\n");
    cli_run_info run = {"amg", n ? rows[0].device : "", s == HSP_OK, why, NULL};
    if (write_csv(csv, a, rows, n) || cli_write_meta(csv, a, p, &run)) return 1;
    printf("wrote %s and its description beside it (.json)%s\n", csv, s != HSP_OK ? "; the run stopped early" : "");
    return s == HSP_OK ? 0 : 1;
}
