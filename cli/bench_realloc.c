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
    cli_result mode[2]; /* HSP_GROW_REALLOC, HSP_GROW_COPY */
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
    hsp_status s = HSP_OK;
    for (int g = 0; g < 2 && s == HSP_OK; g++) s = cli_time_multiply(ctx[g], A, A, 1, 0, 0, NULL, &row->mode[g]);
    for (int k = 0; k < repeat && s == HSP_OK; k++)
        for (int g = 0; g < 2 && s == HSP_OK; g++) {
            s = cli_time_multiply(ctx[g], A, A, 1, 0, 0, NULL, &row->mode[g]);
            ms[g][k] = row->mode[g].ms_median;
        }
    for (int g = 0; g < 2 && s == HSP_OK; g++) {
        cli_median_min(ms[g], repeat, &row->mode[g].ms_median, &row->mode[g].ms_min);
        row->mode[g].runs = repeat;
    }
    return s;
}

/* Both precisions of matrix k (a generator spec or a file) into rows. */
static int bench_matrix(const cli_args *a, int k, const char *spec, hsp_context *ctx[2][2], realloc_row rows[2])
{
    for (int p = 0; p < 2; p++) {
        cli_args one = *a;
        one.precision = (hsp_precision)p;
        rows[p].name = spec, rows[p].precision = (hsp_precision)p;
        cli_status_line("bench: %s, %s: realloc and copy", spec, p ? "double" : "float");
        hsp_csr *A = a->noperands ? cli_load(&one, k) : NULL;
        if (a->noperands && !A) return 1; /* cli_load said why */
        hsp_status s = A ? HSP_OK : hsp_generate(spec, a->seed, one.precision, &A);
        if (s == HSP_OK) s = time_modes(ctx[p], A, a->repeat, &rows[p]);
        hsp_csr_free(A);
        cli_status_line("%s", "");
        if (s != HSP_OK) return cli_error(spec, s);
    }
    return 0;
}

/* Print the table, then the mean and largest speedup per precision over the
 * rows whose long rows grew. */
static void print_table(const realloc_row *rows, int n)
{
    double sum[2] = {0, 0}, most[2] = {0, 0};
    int counted[2] = {0, 0};
    printf("hspgemm: device %s, %d threads\n", rows[0].mode[0].stats.device, rows[0].mode[0].stats.threads);
    printf("%-18s %-6s %10s %6s %7s %10s %10s %7s %12s %6s\n", "matrix", "prec", "nnz(C)", "long", "grows",
           "ms realloc", "ms copy", "speedup", "copied MiB", "moves");
    for (int r = 0; r < n; r++) {
        const hsp_stats *re = &rows[r].mode[0].stats, *co = &rows[r].mode[1].stats;
        double speedup = rows[r].mode[1].ms_median / rows[r].mode[0].ms_median;
        int p = rows[r].precision;
        const char *slash = strrchr(rows[r].name, '/'), *name = slash ? slash + 1 : rows[r].name; /* a file's name */
        printf("%-18s %-6s %10lld %6lld %7lld %10.2f %10.2f %6.2fx %12.1f %6lld%s\n", name,
               p ? "double" : "float", (long long)re->nnz_c, (long long)re->rows_group[4], (long long)re->grow_events,
               rows[r].mode[0].ms_median, rows[r].mode[1].ms_median, speedup,
               (double)co->grow_bytes_copied / (1 << 20), (long long)re->grow_moves,
               re->grow == HSP_GROW_REALLOC ? "" : "  (no realloc on this device)");
        if (re->grow_events > 0 && re->grow == HSP_GROW_REALLOC) {
            sum[p] += speedup, counted[p]++;
            if (speedup > most[p]) most[p] = speedup;
        }
    }
    for (int p = 0; p < 2; p++)
        if (counted[p])
            printf("%s: realloc over copy %.2fx on average, up to %.2fx (%d matrices; the paper, on an A10-7850K: "
                   "1.2x, up to %s)\n", p ? "double" : "float", sum[p] / counted[p], most[p], counted[p],
                   p ? "1.8x" : "1.6x");
    printf("ms: median of the runs, the modes alternating; speedup: ms copy / ms realloc; long: rows of the long "
           "bin; grows: growth events; copied MiB: bytes grow=copy copied; moves: reallocs that moved a block\n");
}

/* Write the table as CSV. */
static int write_csv(const char *path, const realloc_row *rows, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    fprintf(f, "matrix,precision,device,threads,nnz_c,long_rows,grow_events,ms_realloc,ms_copy,speedup,"
               "bytes_copied_copy,bytes_copied_realloc,moves_realloc\n");
    for (int r = 0; r < n; r++) {
        const hsp_stats *re = &rows[r].mode[0].stats, *co = &rows[r].mode[1].stats;
        fprintf(f, "\"%s\",%s,\"%s\",%d,%lld,%lld,%lld,%.4f,%.4f,%.4f,%lld,%lld,%lld\n", rows[r].name,
                rows[r].precision ? "double" : "float", re->device, re->threads, (long long)re->nnz_c,
                (long long)re->rows_group[4], (long long)re->grow_events, rows[r].mode[0].ms_median,
                rows[r].mode[1].ms_median, rows[r].mode[1].ms_median / rows[r].mode[0].ms_median,
                (long long)co->grow_bytes_copied, (long long)re->grow_bytes_copied, (long long)re->grow_moves);
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

int cli_bench_realloc(cli_args *a)
{
    hsp_context *ctx[2][2] = {{NULL, NULL}, {NULL, NULL}};
    char name[32];
    realloc_row rows[2 * CLI_MAX_OPERANDS + 16];
    int n = 0, rc = 0;
    hsp_status s = make_contexts(a, pick_device(a->lib.device, name), ctx);
    if (s != HSP_OK) rc = cli_error("context", s);
    for (int k = 0; !rc && (a->noperands ? k < a->noperands : suite_realloc[k] != NULL); k++, n += 2)
        rc = bench_matrix(a, k, a->noperands ? a->operand[k] : suite_realloc[k], ctx, &rows[n]);
    for (int p = 0; p < 2; p++) hsp_context_free(ctx[p][0]), hsp_context_free(ctx[p][1]);
    if (rc || !n) return rc;
    print_table(rows, n);
    const char *csv = a->csv ? a->csv : "bench-realloc.csv";
    if (write_csv(csv, rows, n)) return 1;
    printf("wrote %s\n", csv);
    return 0;
}
