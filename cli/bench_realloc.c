/* bench_realloc.c: `hspgemm bench --suite=realloc`: how much growing long
 * rows by a host realloc gains over allocate + copy + free (section 5.6 of
 * the paper: 1.2x on average, up to 1.8x, on an A10-7850K APU).  Each matrix
 * is squared in float and in double with grow=realloc and grow=copy, the two
 * modes alternating run by run on contexts made once, on the device given
 * (default: the first with system SVM, where the kernels use host arrays and
 * growth is a host realloc, as on an APU; else auto). */
#include <string.h>
#include "cli.h"

/* Power-law matrices whose long rows outgrow their first buffers. */
static const char *const suite_realloc[] = {"rmat:13,8", "rmat:14,8", "rmat:14,16", "rmat:15,4", "rmat:15,8", NULL};

/* One matrix in one precision: both grow modes. */
typedef struct {
    const char *name;
    hsp_precision precision;
    cli_result mode[2]; /* HSP_GROW_REALLOC, HSP_GROW_COPY: the stats of a run */
    cli_times t[2];     /* their times */
} realloc_row;

/* The device to run on: the one given, else the first with system SVM, else
 * auto; name holds it (32 bytes). */
static const char *pick_device(const char *given, char *name)
{
    hsp_device_info list[33];
    int count = 0;
    if (strcmp(given, "auto") || hsp_devices(list, 33, &count) != HSP_OK) return given;
    for (int k = 0; k < count && k < 33; k++)
        if (!strcmp(list[k].memory, "system SVM")) return strcpy(name, list[k].name);
    return given;
}

/* Square A with both grow modes on ctx[mode], a warm-up each, then repeat
 * runs of each in turn (realloc, copy, realloc, ...); each mode's median. */
static hsp_status time_modes(hsp_context *ctx[2], const hsp_csr *A, int repeat, realloc_row *row)
{
    double ms[2][repeat];
    int n[2] = {0, 0};
    hsp_status s = HSP_OK;
    for (int g = 0; g < 2 && s == HSP_OK; g++) s = cli_time_multiply(ctx[g], A, A, 1, 0, 0, NULL, &row->mode[g]);
    for (int k = 0; k < repeat && s == HSP_OK; k++)
        for (int g = 0; g < 2 && s == HSP_OK; g++) s = cli_time_runs(ctx[g], A, 1, 0, ms[g], &n[g], &row->mode[g]);
    for (int g = 0; g < 2 && s == HSP_OK; g++) row->t[g] = cli_times_of(ms[g], n[g]);
    return s;
}

/* Both precisions of matrix k (a generator spec or a file) into rows; the
 * rows done are counted in *n, what failed goes to why. */
static int bench_matrix(const cli_args *a, int k, const char *spec, hsp_context *ctx[2][2], realloc_row rows[2],
                        int *n, char *why, size_t len)
{
    for (int p = 0; p < 2; p++) {
        cli_args one = *a;
        one.precision = (hsp_precision)p;
        rows[p].name = spec, rows[p].precision = (hsp_precision)p;
        cli_status_line("bench: %s, %s: realloc and copy", spec, p ? "double" : "float");
        hsp_csr *A = NULL;
        if (a->noperands && !a->operand_is_gen[k] && cli_load(&one, k, &A)) /* cli_load said why */
            return snprintf(why, len, "%s: %s", spec, hsp_errmsg()), 1;
        hsp_status s = A ? HSP_OK : hsp_generate(spec, a->seed, one.precision, &A);
        if (s == HSP_OK) s = time_modes(ctx[p], A, a->repeat, &rows[p]);
        hsp_csr_free(A);
        cli_status_line("%s", "");
        if (s != HSP_OK) return snprintf(why, len, "%s: %s: %s", spec, hsp_strerror(s), hsp_errmsg()), cli_error(spec, s);
        ++*n;
    }
    return 0;
}

/* Print the table, then the mean and largest speedup per precision over the
 * rows whose long rows grew. */
static void print_table(const cli_args *a, const realloc_row *rows, int n)
{
    double sum[2] = {0, 0}, most[2] = {0, 0};
    int counted[2] = {0, 0}, flagged = 0;
    char lead[80], tail[160];
    if (n == 0) return;
    printf("%s: device %s, %d threads, long rows by %s; %d runs of each mode after a warm-up, the modes "
           "alternating\n", cli_version(), rows[0].mode[0].stats.device, rows[0].mode[0].stats.threads,
           hsp_method_name(rows[0].mode[0].stats.method[2]), a->repeat);
    snprintf(lead, sizeof lead, "%-18s %-6s %10s %6s %7s", "matrix", "prec", "nnz(C)", "long", "grows");
    cli_print_times_header(lead);
    for (int r = 0; r < n; r++) {
        const hsp_stats *re = &rows[r].mode[0].stats, *co = &rows[r].mode[1].stats;
        double speedup = rows[r].t[1].median / rows[r].t[0].median;
        int p = rows[r].precision;
        const char *slash = strrchr(rows[r].name, '/'), *name = slash ? slash + 1 : rows[r].name; /* a file's name */
        snprintf(lead, sizeof lead, "%-18s %-6s %10lld %6lld %7lld", name, p ? "double" : "float",
                 (long long)re->nnz_c, (long long)re->rows_group[4], (long long)re->grow_events);
        snprintf(tail, sizeof tail, "%lld moves%s", (long long)re->grow_moves,
                 re->grow == HSP_GROW_REALLOC ? "" : " (no realloc on this device)");
        cli_print_times(lead, "grow=realloc", &rows[r].t[0], 0, tail);
        snprintf(lead, sizeof lead, "%-18s %-6s %10s %6s %7s", "", "", "", "", "");
        snprintf(tail, sizeof tail, "copied %.1f MiB", (double)co->grow_bytes_copied / (1 << 20));
        cli_print_times(lead, "grow=copy", &rows[r].t[1], rows[r].t[0].median, tail);
        flagged += (cli_spread(&rows[r].t[0]) > CLI_SPREAD_BOUND) + (cli_spread(&rows[r].t[1]) > CLI_SPREAD_BOUND);
        if (re->grow_events > 0 && re->grow == HSP_GROW_REALLOC) {
            sum[p] += speedup, counted[p]++;
            if (speedup > most[p]) most[p] = speedup;
        }
    }
    for (int p = 0; p < 2; p++)
        if (counted[p])
            printf("%s: realloc over copy %.2fx on average, up to %.2fx (%d matrices) on %s; the paper measured 1.2x, "
                   "up to %s, on another device: the GPU of an AMD A10-7850K APU\n", p ? "double" : "float",
                   sum[p] / counted[p], most[p], counted[p], rows[0].mode[0].stats.device, p ? "1.8x" : "1.6x");
    printf("x of grow=copy: its median / grow=realloc's, the speedup; spread: (q3 - q1) / median, the middle half of the runs; long: rows of the "
           "long bin; grows: growth events; copied: bytes grow=copy copied; moves: reallocs that moved a block\n");
    if (flagged)
        printf("%d figure%s spread more than %.0f%% (marked !): run again or raise --repeat\n", flagged,
               flagged > 1 ? "s" : "", 100 * CLI_SPREAD_BOUND);
}

/* Write the table as CSV. */
static int write_csv(const char *path, const realloc_row *rows, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    fprintf(f, "matrix,precision,device,threads,long_method,nnz_c,long_rows,grow_events,runs,ms_realloc,ms_realloc_min,"
               "ms_realloc_max,ms_copy,ms_copy_min,ms_copy_max,speedup,spread,bytes_copied_copy,bytes_copied_realloc,"
               "moves_realloc\n");
    for (int r = 0; r < n; r++) {
        const hsp_stats *re = &rows[r].mode[0].stats, *co = &rows[r].mode[1].stats;
        double spread[2] = {cli_spread(&rows[r].t[0]), cli_spread(&rows[r].t[1])};
        fprintf(f, "\"%s\",%s,\"%s\",%d,%s,%lld,%lld,%lld,%d", rows[r].name, rows[r].precision ? "double" : "float",
                re->device, re->threads, hsp_method_name(re->method[2]), (long long)re->nnz_c,
                (long long)re->rows_group[4], (long long)re->grow_events, rows[r].t[0].runs);
        cli_csv_times(f, &rows[r].t[0]);
        cli_csv_times(f, &rows[r].t[1]);
        fprintf(f, ",%.4f,%.4f,%lld,%lld,%lld\n", rows[r].t[1].median / rows[r].t[0].median,
                spread[0] > spread[1] ? spread[0] : spread[1], (long long)co->grow_bytes_copied,
                (long long)re->grow_bytes_copied, (long long)re->grow_moves);
    }
    return fclose(f) != 0;
}

/* Contexts for both precisions' two grow modes (the same but for grow). */
static hsp_status make_contexts(const cli_args *a, const char *device, hsp_context *ctx[2][2])
{
    hsp_status s = HSP_OK;
    for (int p = 0; p < 2; p++)
        for (int g = 0; g < 2 && s == HSP_OK; g++) {
            hsp_options o = a->lib;
            o.device = device, o.grow = (hsp_grow)g, o.small_nnz = -1; /* every product on the device */
            if (o.method[2] == HSP_METHOD_DEFAULT && strcmp(device, "cpu"))
                o.method[2] = HSP_METHOD_MERGE; /* a GPU's long rows grow by merge alone */
            s = hsp_context_create(&o, &ctx[p][g]);
        }
    return s;
}

int cli_bench_realloc(cli_args *a, const cli_peers *p, const char *csv)
{
    hsp_context *ctx[2][2] = {{NULL, NULL}, {NULL, NULL}};
    char name[32], why[512] = "";
    static realloc_row rows[2 * CLI_MAX_OPERANDS + 16];
    int n = 0, rc = 0;
    hsp_status s = make_contexts(a, pick_device(a->lib.device, name), ctx);
    if (s != HSP_OK) rc = cli_error("context", s), snprintf(why, sizeof why, "context: %s", hsp_errmsg());
    for (int k = 0; !rc && (a->noperands ? k < a->noperands : suite_realloc[k] != NULL); k++)
        rc = bench_matrix(a, k, a->noperands ? a->operand[k] : suite_realloc[k], ctx, &rows[n], &n, why, sizeof why);
    for (int q = 0; q < 2; q++) hsp_context_free(ctx[q][0]), hsp_context_free(ctx[q][1]);
    print_table(a, rows, n);
    cli_run_info run = {"realloc", n ? rows[0].mode[0].stats.device : "", rc == 0, why,
                        n ? rows[0].mode[0].stats.profile : NULL};
    if (write_csv(csv, rows, n) || cli_write_meta(csv, a, p, &run)) return 1;
    printf("wrote %s and its description beside it (.json)%s\n", csv, rc ? "; the run stopped early" : "");
    return rc;
}
