/* bench_amg.c: `hspgemm bench --suite=amg`: hspgemm's smoothed-aggregation
 * setup (hsp_amg_setup, as `hspgemm amg-setup` runs it) against PyAMG's
 * (bench/peer_pyamg.py) on the same A with the same theta, omega, levels and
 * coarse size: the median setup time of each, their levels and operator
 * complexities. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static const char *const suite_amg[] = {"poisson2d5:1024", "poisson2d9:1024", "poisson3d7:101", "poisson3d27:101",
                                        NULL};
enum { MAX_LEVELS = HSP_AMG_MAX_LEVELS };

/* A hierarchy's figures: levels, rows per level, operator complexity, median ms. */
typedef struct {
    int nlevels;
    int64_t rows[MAX_LEVELS], nnz[MAX_LEVELS];
    double complexity, ms;
} amg_figures;

typedef struct {
    const char *name;
    amg_figures ours, pyamg; /* pyamg.ms 0: it did not run */
} amg_row;

/* The operator complexity: the levels' entries over the finest's. */
static double complexity(const amg_figures *f)
{
    double sum = 0;
    for (int l = 0; l < f->nlevels; l++) sum += (double)f->nnz[l];
    return f->nlevels && f->nnz[0] ? sum / (double)f->nnz[0] : 0;
}

/* Our setup of A repeat times after a warm-up: the median and the levels. */
static hsp_status time_ours(hsp_context *ctx, const hsp_csr *A, const cli_args *a, amg_figures *f)
{
    double *ms = malloc((size_t)a->repeat * sizeof *ms);
    hsp_status s = ms ? HSP_OK : HSP_ERR_NOMEM;
    for (int k = 0; s == HSP_OK && k <= a->repeat; k++) { /* run 0 is the warm-up */
        hsp_amg *amg = NULL;
        s = hsp_amg_setup(ctx, A, &a->amg, &amg);
        if (s == HSP_OK && k) ms[k - 1] = amg->ms_total;
        for (int l = 0; s == HSP_OK && l < amg->nlevels; l++)
            f->rows[l] = amg->level[l].A->nrows, f->nnz[l] = amg->level[l].A->nnz;
        if (s == HSP_OK) f->nlevels = amg->nlevels;
        hsp_amg_free(amg);
    }
    double least;
    if (s == HSP_OK) cli_median_min(ms, a->repeat, &f->ms, &least);
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

/* PyAMG's figures for A, by the peer in cmd on A written to a temporary file;
 * f->ms stays 0 when it fails. */
static void time_pyamg(const char *cmd, const hsp_csr *A, const char *name, amg_figures *f)
{
    char dir[] = "/tmp/hspgemm-amg-XXXXXX", path[64], line[4096] = "", *full = NULL;
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/A.mtx", dir);
    cli_status_line("bench: %s: writing %s", name, path);
    FILE *p = NULL;
    if (hsp_mm_write(path, A) == HSP_OK && asprintf(&full, "%s '%s'", cmd, path) >= 0) {
        cli_status_line("bench: %s: pyamg", name);
        p = popen(full, "r");
    }
    int got = p && fgets(line, sizeof line, p) != NULL;
    if (p && pclose(p) == 0 && got && strstr(line, "\"ms_median\":")) {
        f->ms = strtod(strstr(line, "\"ms_median\":") + 12, NULL);
        f->nlevels = json_array(line, "rows", f->rows);
        if (json_array(line, "nnz", f->nnz) != f->nlevels) f->nlevels = 0;
        f->complexity = complexity(f);
    } else {
        fprintf(stderr, "\nhspgemm: bench: pyamg failed on %s\n", name);
    }
    free(full), unlink(path), rmdir(dir);
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
    char ours[256], peer[256];
    double logsum = 0;
    int counted = 0;
    printf("%-17s %10s %10s %6s %6s %s\n", "problem", "ms", "pyamg ms", "x", "cx", "levels: rows (ours | pyamg), cx");
    for (int r = 0; r < n; r++) {
        const amg_row *b = &rows[r];
        printf("%-17s %10.2f", b->name, b->ours.ms);
        if (b->pyamg.ms > 0) printf(" %10.2f %5.2fx", b->pyamg.ms, b->pyamg.ms / b->ours.ms);
        else printf(" %10s %6s", "-", "-");
        printf(" %6.2f %s | %s, %.2f\n", b->ours.complexity, level_rows(&b->ours, ours, sizeof ours),
               level_rows(&b->pyamg, peer, sizeof peer), b->pyamg.complexity);
        if (b->pyamg.ms > 0) logsum += log(b->pyamg.ms / b->ours.ms), counted++;
    }
    if (counted) printf("geomean speedup over PyAMG's setup: %.2fx (%d problems)\n", exp(logsum / counted), counted);
}

static int write_csv(const char *path, const amg_row *rows, int n)
{
    char ours[256], peer[256];
    FILE *f = fopen(path, "w");
    if (!f) return perror(path), 1;
    fprintf(f, "problem,ms,pyamg_ms,levels,pyamg_levels,complexity,pyamg_complexity,rows,pyamg_rows\n");
    for (int r = 0; r < n; r++) {
        const amg_row *b = &rows[r];
        fprintf(f, "\"%s\",%.4f,%.4f,%d,%d,%.4f,%.4f,%s,%s\n", b->name, b->ours.ms, b->pyamg.ms, b->ours.nlevels,
                b->pyamg.nlevels, b->ours.complexity, b->pyamg.complexity, level_rows(&b->ours, ours, sizeof ours),
                level_rows(&b->pyamg, peer, sizeof peer));
    }
    return fclose(f) != 0;
}

/* The PyAMG peer's command line without the file, or "" (why on stderr). */
static void pyamg_command(const cli_args *a, char *cmd, size_t len)
{
    char path[PATH_MAX];
    const char *python = NULL;
    cmd[0] = '\0';
    if (a->peers && (!strcmp(a->peers, "none") || !strstr(a->peers, "pyamg"))) return;
    if (!cli_find_peer("peer_pyamg.py", path, sizeof path))
        fprintf(stderr, "hspgemm: bench: peer pyamg not found\n");
    else if (!(python = cli_find_python("pyamg")))
        fprintf(stderr, "hspgemm: bench: peer pyamg skipped: no python3 with pyamg "
                        "(build-aux/install-peer-python.sh)\n");
    else
        snprintf(cmd, len, "%s '%s' --theta=%.17g --omega=%.17g --levels=%d --coarse=%d --repeat=%d", python, path,
                 a->amg.theta, a->amg.omega, a->amg.max_levels, a->amg.coarse_size, a->repeat);
}

int cli_bench_amg(cli_args *a, const char *const *given)
{
    const char *const *specs = given ? given : suite_amg;
    char cmd[CLI_CMD_LEN];
    amg_row rows[CLI_MAX_OPERANDS];
    hsp_context *ctx = NULL;
    int n = 0;
    hsp_status s = hsp_context_create(&a->lib, &ctx);
    if (s != HSP_OK) return cli_error("context", s);
    pyamg_command(a, cmd, sizeof cmd);
    for (int p = 0; specs[p] && n < CLI_MAX_OPERANDS && s == HSP_OK; p++) {
        hsp_csr *A = NULL;
        amg_row *b = memset(&rows[n], 0, sizeof rows[n]);
        b->name = specs[p];
        cli_status_line("bench: %s: generating", specs[p]);
        s = hsp_generate(specs[p], a->seed, HSP_DOUBLE, &A);
        if (s == HSP_OK) cli_status_line("bench: %s: hspgemm", specs[p]), s = time_ours(ctx, A, a, &b->ours);
        if (s == HSP_OK && cmd[0]) time_pyamg(cmd, A, specs[p], &b->pyamg);
        if (s == HSP_OK) n++;
        else cli_error(specs[p], s);
        hsp_csr_free(A);
    }
    cli_status_line("%s", "");
    hsp_context_free(ctx);
    if (s != HSP_OK) return 1;
    printf("hspgemm amg-setup against PyAMG's smoothed_aggregation_solver: theta %g, omega %g, levels %d, coarse %d, "
           "double, %d threads (PyAMG: one)\n",
           a->amg.theta, a->amg.omega, a->amg.max_levels, a->amg.coarse_size, a->lib.threads);
    print_rows(rows, n);
    printf("ms: median of %d setups after a warm-up; x: PyAMG ms / hspgemm ms; cx: operator complexity (the levels' "
           "entries over A's)\n", a->repeat);
    const char *csv = a->csv ? a->csv : "bench-amg.csv";
    if (write_csv(csv, rows, n)) return 1;
    printf("wrote %s\n", csv);
    return 0;
}
