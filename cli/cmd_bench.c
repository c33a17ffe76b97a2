/* cmd_bench.c: `hspgemm bench`: square a suite of generated matrices with
 * hspgemm and with the peer programs of bench/ (GraphBLAS, scipy, cuSPARSE)
 * in the same run, and print and save the times and speedups. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static const char usage_bench[] =
    "usage: hspgemm bench [--suite=default|paper|quick] [--repeat=N] [--threads=N]\n"
    "                     [--peers=graphblas,scipy,cusparse|none] [--csv=FILE] [--precision=P]\n"
    "                     [--device=NAME] [--methods=M] [--gen=SPEC ...]\n"
    "Squares each matrix of a suite (or the --gen matrices given) with hspgemm and with\n"
    "each peer found, and prints the median time of N runs (default 5) after a warm-up,\n"
    "GFlop/s, nnz(C), the speedup over each peer, and, for matrices with long rows,\n"
    "grow=realloc against grow=copy.  Writes the table as CSV (default bench.csv).\n"
    "Times are host to host: operands in host memory, C back in host memory.  The\n"
    "cuSPARSE peer (built when CUDA is found) also reports its time with the operands\n"
    "already on the GPU (cusp-dev) and its peak GPU memory, shown beside hspgemm's.\n"
    "suites:\n"
    "  default  regular and irregular matrices of 0.4M+ nonzeros (a few minutes)\n"
    "  paper    the paper's AMG problems: poisson2d5:1024, poisson2d9:1024,\n"
    "           poisson3d7:101, poisson3d27:101 (large: minutes and GiBs)\n"
    "  quick    tiny matrices, to check the set-up\n"
    "Peers run from bench/ in the build tree, $HSPGEMM_PEER_DIR, or the install's\n"
    "libexec directory; scipy runs under $HSPGEMM_PYTHON, python3 or /usr/bin/python3.\n";

static const char *const suite_default[] = {
    "poisson2d5:400", "poisson2d9:300", "poisson3d7:60", "poisson3d27:30",
    "band:100000,4",  "random:100000,8", "rmat:16,8",    NULL};
static const char *const suite_paper[] = {"poisson2d5:1024", "poisson2d9:1024", "poisson3d7:101",
                                          "poisson3d27:101", NULL};
static const char *const suite_quick[] = {"poisson2d5:30", "poisson3d27:8", "rmat:9,8", NULL};

enum { NPEERS = 3, CUSPARSE = 2, CMD_LEN = 8192 };
static const char *const peer_name[NPEERS] = {"graphblas", "scipy", "cusparse"};
static const char *const peer_file[NPEERS] = {"peer_graphblas", "peer_scipy.py", "peer_cusparse"};

/* One row of the table. */
typedef struct {
    const char *name;
    cli_result ours, copy;
    int has_copy;
    double peer_ms[NPEERS]; /* 0 when the peer did not run */
    int64_t peer_nnz[NPEERS];
    double peer_dev_ms[NPEERS]; /* operands on the device already (cuSPARSE), or -1 */
    double peer_peak[NPEERS];   /* peak device bytes (cuSPARSE), or -1 */
} bench_row;

/* A status line on stderr when it is a terminal. */
static void status_line(const char *fmt, ...)
{
    if (!isatty(STDERR_FILENO)) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\r\033[K");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

/* The directory of this executable, or "." */
static void exe_dir(char *dir, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", dir, len - 1);
    dir[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, len, ".");
}

/* Find peer program file; 1 when found, its path in path. */
static int find_peer(const char *file, char *path, size_t len)
{
    char dir[PATH_MAX];
    const char *env = getenv("HSPGEMM_PEER_DIR");
    exe_dir(dir, sizeof dir);
    const char *fmt[] = {"%s/%s", "%s/bench/%s", "%s/../bench/%s", "%s/%s"};
    const char *base[] = {env, dir, dir, HSP_PKGLIBEXECDIR};
    for (int k = 0; k < 4; k++) {
        if (!base[k]) continue;
        snprintf(path, len, fmt[k], base[k], file);
        if (access(path, X_OK) == 0 || (strstr(file, ".py") && access(path, R_OK) == 0)) return 1;
    }
    return 0;
}

/* A python that imports scipy, or NULL. */
static const char *find_python(void)
{
    static const char *candidates[] = {NULL, "python3", "/usr/bin/python3"};
    static char chosen[256];
    candidates[0] = getenv("HSPGEMM_PYTHON");
    for (int k = 0; k < 3; k++) {
        char cmd[400];
        if (!candidates[k]) continue;
        snprintf(cmd, sizeof cmd, "%s -c 'import scipy' >/dev/null 2>&1", candidates[k]);
        if (system(cmd) == 0) return snprintf(chosen, sizeof chosen, "%s", candidates[k]), chosen;
    }
    return NULL;
}

/* The number after "key": in a JSON line, or -1. */
static double json_number(const char *line, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *p = strstr(line, pattern);
    return p ? strtod(p + strlen(pattern), NULL) : -1.0;
}

/* Run peer k's command; fill its figures in row; 0 on success. */
static int run_peer(const char *cmd, int k, bench_row *row)
{
    char line[1024] = "";
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    int got = fgets(line, sizeof line, p) != NULL;
    int rc = pclose(p);
    row->peer_ms[k] = json_number(line, "ms_median");
    row->peer_nnz[k] = (int64_t)json_number(line, "nnz_c");
    row->peer_dev_ms[k] = json_number(line, "ms_device_median");
    row->peer_peak[k] = json_number(line, "peak_device_bytes");
    return got && rc == 0 && row->peer_ms[k] >= 0 ? 0 : -1;
}

/* The command lines of the peers that are present and wanted. */
static void peer_commands(const cli_args *a, char cmd[NPEERS][CMD_LEN])
{
    for (int k = 0; k < NPEERS; k++) {
        char path[PATH_MAX];
        const char *python = NULL;
        cmd[k][0] = '\0';
        if (a->peers && (!strcmp(a->peers, "none") || !strstr(a->peers, peer_name[k]))) continue;
        if (!find_peer(peer_file[k], path, sizeof path)) {
            fprintf(stderr, "hspgemm: bench: peer %s not found (not built?)\n", peer_name[k]);
            continue;
        }
        if (strstr(peer_file[k], ".py") && !(python = find_python())) {
            fprintf(stderr, "hspgemm: bench: peer %s skipped: no python3 with scipy\n", peer_name[k]);
            continue;
        }
        snprintf(cmd[k], sizeof cmd[k], "%s%s'%s' --threads=%d --repeat=%d --precision=%s",
                 python ? python : "", python ? " " : "", path, a->lib.threads, a->repeat,
                 a->precision == HSP_DOUBLE ? "double" : "float");
    }
}

/* Time A*A on a context made from lib with grow mode g, after a warm-up. */
static hsp_status time_ours(const cli_args *a, hsp_grow g, const hsp_csr *A, cli_result *r)
{
    hsp_options o = a->lib;
    hsp_context *ctx = NULL;
    o.grow = g;
    hsp_status s = hsp_context_create(&o, &ctx);
    if (s == HSP_OK) s = cli_time_multiply(ctx, A, A, 1, 0, NULL, r);
    if (s == HSP_OK) s = cli_time_multiply(ctx, A, A, a->repeat, 0, NULL, r);
    hsp_context_free(ctx);
    return s;
}

/* Run the peers on A, written once to a temporary file. */
static void time_peers(const char *name, const hsp_csr *A, char cmd[NPEERS][CMD_LEN],
                       bench_row *row)
{
    char dir[] = "/tmp/hspgemm-bench-XXXXXX", path[64], *full;
    int any = 0;
    for (int k = 0; k < NPEERS; k++) any |= cmd[k][0] != '\0';
    if (!any || !mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/a.mtx", dir);
    status_line("bench: %s: writing %s", name, path);
    if (hsp_mm_write(path, A) == HSP_OK)
        for (int k = 0; k < NPEERS; k++) {
            if (!cmd[k][0]) continue;
            status_line("bench: %s: %s", name, peer_name[k]);
            if (asprintf(&full, "%s '%s'", cmd[k], path) < 0) continue;
            if (run_peer(full, k, row) != 0) {
                fprintf(stderr, "\nhspgemm: bench: %s failed on %s\n", peer_name[k], name);
                row->peer_ms[k] = 0;
            }
            free(full);
        }
    unlink(path);
    rmdir(dir);
}

/* Generate, time ours in both grow modes (copy only with long rows), and the peers. */
static int bench_matrix(const cli_args *a, const char *spec, char cmd[NPEERS][CMD_LEN],
                        bench_row *row)
{
    hsp_csr *A = NULL;
    memset(row, 0, sizeof *row);
    row->name = spec;
    status_line("bench: %s: generating", spec);
    hsp_status s = hsp_generate(spec, a->seed, a->precision, &A);
    if (s != HSP_OK) return cli_error(spec, s);
    status_line("bench: %s: hspgemm", spec);
    s = time_ours(a, HSP_GROW_REALLOC, A, &row->ours);
    if (s == HSP_OK && row->ours.stats.rows_group[4] > 0) {
        status_line("bench: %s: hspgemm grow=copy", spec);
        s = time_ours(a, HSP_GROW_COPY, A, &row->copy);
        row->has_copy = 1;
    }
    if (s == HSP_OK) time_peers(spec, A, cmd, row);
    hsp_csr_free(A);
    status_line("");
    return s == HSP_OK ? 0 : cli_error(spec, s);
}

/* Did peer k run on any row? */
static int peer_ran(const bench_row *rows, int n, int k)
{
    for (int r = 0; r < n; r++)
        if (rows[r].peer_ms[k] > 0) return 1;
    return 0;
}

/* Geometric mean of peer k's ms over ours (device-only ms when dev), over
 * the rows where it ran; 0 when none. */
static double geomean_over(const bench_row *rows, int n, int k, int dev)
{
    double logsum = 0;
    int counted = 0;
    for (int r = 0; r < n; r++) {
        double peer = dev ? rows[r].peer_dev_ms[k] : rows[r].peer_ms[k];
        if (peer > 0) logsum += log(peer / rows[r].ours.ms_median), counted++;
    }
    return counted ? exp(logsum / counted) : 0.0;
}

/* The cuSPARSE columns of a row: device-only ms and peak memory of both. */
static void print_cusparse(const bench_row *b)
{
    if (b->peer_ms[CUSPARSE] <= 0) {
        printf(" %9s %7s %9s %9s", "-", "-", "-", "-");
        return;
    }
    printf(" %9.2f %6.2fx %9.1f %9.1f", b->peer_dev_ms[CUSPARSE], b->peer_dev_ms[CUSPARSE] / b->ours.ms_median,
           (double)b->ours.stats.peak_device_bytes / (1 << 20), b->peer_peak[CUSPARSE] / (1 << 20));
}

/* Print the table and the geometric mean speedup over the faster peer. */
static void print_table(const bench_row *rows, int n)
{
    double logsum = 0;
    int counted = 0, cusp = peer_ran(rows, n, CUSPARSE);
    if (n > 0)
        printf("hspgemm: device %s, %d threads, %s, grow=%s (copy ms: grow=copy), methods "
               "%s,%s,%s\n", rows[0].ours.stats.device, rows[0].ours.stats.threads,
               rows[0].ours.precision == HSP_DOUBLE ? "double" : "float",
               hsp_grow_name(rows[0].ours.stats.grow), hsp_method_name(rows[0].ours.stats.method[0]),
               hsp_method_name(rows[0].ours.stats.method[1]),
               hsp_method_name(rows[0].ours.stats.method[2]));
    printf("%-17s %9s %10s %10s %6s %9s %7s", "matrix", "nnz(A)", "nnz(C)", "ms", "GF/s", "copy ms", "re/co");
    for (int k = 0; k < NPEERS; k++)
        if (k != CUSPARSE || cusp) printf(" %9s %7s", peer_name[k], "x");
    if (cusp) printf(" %9s %7s %9s %9s", "cusp-dev", "x", "MiB ours", "MiB cusp");
    printf(" %7s\n", "check");
    for (int r = 0; r < n; r++) {
        const bench_row *b = &rows[r];
        const hsp_stats *st = &b->ours.stats;
        double best = 0;
        int check = 1;
        printf("%-17s %9lld %10lld %10.2f %6.2f", b->name, (long long)b->ours.nnz_a,
               (long long)st->nnz_c, b->ours.ms_median,
               (double)st->flops / (b->ours.ms_median * 1e6));
        if (b->has_copy) printf(" %9.2f %7.2f", b->copy.ms_median, b->ours.ms_median / b->copy.ms_median);
        else printf(" %9s %7s", "-", "-");
        for (int k = 0; k < NPEERS; k++) {
            if (k == CUSPARSE && !cusp) continue;
            if (b->peer_ms[k] <= 0) {
                printf(" %9s %7s", "-", "-");
                continue;
            }
            printf(" %9.2f %6.2fx", b->peer_ms[k], b->peer_ms[k] / b->ours.ms_median);
            if (best == 0 || b->peer_ms[k] < best) best = b->peer_ms[k];
            check &= b->peer_nnz[k] == st->nnz_c;
        }
        if (cusp) print_cusparse(b);
        printf(" %7s\n", check ? "ok" : "nnz!=");
        if (best > 0) logsum += log(best / b->ours.ms_median), counted++;
    }
    if (counted)
        printf("geomean speedup over the faster peer: %.2fx (%d matrices)\n", exp(logsum / counted),
               counted);
    if (cusp)
        printf("geomean speedup over cuSPARSE: %.2fx host to host, %.2fx against its device-only time\n",
               geomean_over(rows, n, CUSPARSE, 0), geomean_over(rows, n, CUSPARSE, 1));
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
    fprintf(f, "matrix,rows,nnz_a,nnz_c,flops,threads,device,grow,ms,gflops,copy_ms,"
               "graphblas_ms,scipy_ms,cusparse_ms,cusparse_device_ms,peak_device_bytes,"
               "cusparse_peak_device_bytes\n");
    for (int r = 0; r < n; r++) {
        const bench_row *b = &rows[r];
        const hsp_stats *st = &b->ours.stats;
        fprintf(f, "\"%s\",%lld,%lld,%lld,%lld,%d,\"%s\",%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%lld,%.0f\n", b->name,
                (long long)b->ours.nrows, (long long)b->ours.nnz_a, (long long)st->nnz_c,
                (long long)st->flops, st->threads, st->device, hsp_grow_name(st->grow),
                b->ours.ms_median, (double)st->flops / (b->ours.ms_median * 1e6),
                b->has_copy ? b->copy.ms_median : 0.0, b->peer_ms[0], b->peer_ms[1], b->peer_ms[2],
                b->peer_dev_ms[2] > 0 ? b->peer_dev_ms[2] : 0.0, (long long)st->peak_device_bytes,
                b->peer_peak[2] > 0 ? b->peer_peak[2] : 0.0);
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
    int rc = cli_parse(argc, argv, "suite,repeat,threads,peers,csv,precision,device,methods,seed,gen,quiet",
                       usage_bench, &a);
    if (rc) return rc == 1 ? 0 : rc;
    const char *const *specs = suite_specs(&a);
    if (!specs || (a.noperands && !a.operand_is_gen[0])) {
        fprintf(stderr, "hspgemm: bench: unknown suite '%s' (default, paper, quick) or a file "
                        "given: bench takes --gen=SPEC\n", a.suite ? a.suite : "");
        return 2;
    }
    if (!a.repeat) a.repeat = 5;
    if (!a.lib.threads) a.lib.threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    char cmd[NPEERS][CMD_LEN];
    peer_commands(&a, cmd);
    bench_row rows[16];
    int n = 0;
    for (; specs[n] && n < 16 && rc == 0; n++) rc = bench_matrix(&a, specs[n], cmd, &rows[n]);
    if (rc) return rc;
    print_table(rows, n);
    const char *csv = a.csv ? a.csv : "bench.csv";
    if (write_csv(csv, rows, n)) return 1;
    printf("wrote %s\n", csv);
    return 0;
}
