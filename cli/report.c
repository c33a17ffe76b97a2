/* report.c: timing repeated multiplies and printing their figures as a
 * table or as one line of JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

double cli_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Place A and B (B may be A) on ctx's device, timed into r->ms_place. */
static hsp_status place_operands(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_resident *M[2],
                                 cli_result *r)
{
    double t0 = cli_now_ms();
    hsp_status s = hsp_place(ctx, A, &M[0]);
    if (s == HSP_OK && B != A) s = hsp_place(ctx, B, &M[1]);
    r->ms_place = cli_now_ms() - t0;
    return s;
}

/* Bring the resident C home, timed into r->ms_home; a copy of it to *C when
 * C is not NULL. */
static hsp_status bring_home(hsp_resident *rC, hsp_csr **C, cli_result *r)
{
    const hsp_csr *H = NULL;
    double t0 = cli_now_ms();
    hsp_status s = hsp_resident_host(rC, &H);
    r->ms_home = cli_now_ms() - t0;
    return s == HSP_OK && C ? hsp_csr_convert(H, H->precision, C) : s;
}

/* One product, resident (M holds the operands) or host to host. */
static hsp_status multiply_once(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_resident *const M[2],
                                int last, hsp_csr **C, cli_result *r)
{
    hsp_resident *rC = NULL;
    hsp_csr *out = NULL;
    hsp_status s = M[0] ? hsp_multiply_resident(ctx, M[0], M[1] ? M[1] : M[0], &rC, &r->stats)
                        : hsp_multiply(ctx, A, B, &out, &r->stats);
    if (s == HSP_OK && last && rC) s = bring_home(rC, C, r);
    else if (last && C) *C = out, out = NULL;
    hsp_resident_free(rC), hsp_csr_free(out);
    return s;
}

/* The shape, precision and mode of A*B into r, its placing and homing times zero. */
static void describe(cli_result *r, const hsp_csr *A, const hsp_csr *B, int resident)
{
    r->resident = resident, r->ms_place = r->ms_home = 0;
    r->nrows = A->nrows, r->ncols = B->ncols, r->nnz_a = A->nnz, r->nnz_b = B->nnz;
    r->precision = A->precision;
}

int cli_warming(double start, int runs)
{
    return runs == 0 || (runs < CLI_WARM_RUNS && cli_now_ms() - start < CLI_WARM_MS);
}

hsp_status cli_time_multiply(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, int repeat, int progress,
                             int resident, hsp_csr **C, cli_result *r)
{
    double *ms = malloc((size_t)repeat * sizeof *ms), start = cli_now_ms();
    hsp_resident *M[2] = {NULL, NULL};
    if (!ms) return HSP_ERR_NOMEM;
    progress = progress && isatty(STDERR_FILENO);
    describe(r, A, B, resident);
    hsp_status s = resident ? place_operands(ctx, A, B, M, r) : HSP_OK;
    for (int k = 0; k < repeat && s == HSP_OK; k++) {
        double t0 = cli_now_ms();
        s = multiply_once(ctx, A, B, M, k == repeat - 1, C, r);
        ms[k] = cli_now_ms() - t0 - (k == repeat - 1 ? r->ms_home : 0);
        if (progress && cli_now_ms() - start > 1000.0)
            fprintf(stderr, "\rmultiply: run %d of %d", k + 1, repeat);
    }
    if (progress && cli_now_ms() - start > 1000.0) fprintf(stderr, "\r\033[K");
    if (s == HSP_OK) cli_median_min_max(ms, repeat, &r->ms_median, &r->ms_min, &r->ms_max);
    r->ms_first = ms[0];
    r->runs = repeat;
    hsp_resident_free(M[0]), hsp_resident_free(M[1]);
    free(ms);
    return s;
}

hsp_status cli_time_runs(hsp_context *ctx, const hsp_csr *A, int runs, int resident, double *ms, int *n,
                         cli_result *r)
{
    if (!resident) {
        hsp_status s = HSP_OK;
        for (int k = 0; k < runs && s == HSP_OK; k++) {
            s = cli_time_multiply(ctx, A, A, 1, 0, 0, NULL, r);
            if (s == HSP_OK) ms[(*n)++] = r->ms_median;
        }
        return s;
    }
    /* resident: A placed once, untimed products (the device warm again after
     * the placing), then the runs back to back, as the cuSPARSE peer times
     * its device-only products */
    hsp_resident *M[2] = {NULL, NULL};
    describe(r, A, A, 1);
    hsp_status s = place_operands(ctx, A, A, M, r);
    double start = cli_now_ms();
    for (int n = 0; s == HSP_OK && cli_warming(start, n); n++) s = multiply_once(ctx, A, A, M, 0, NULL, r);
    for (int k = 0; k < runs && s == HSP_OK; k++) {
        double t0 = cli_now_ms();
        s = multiply_once(ctx, A, A, M, 0, NULL, r);
        if (s == HSP_OK) ms[(*n)++] = cli_now_ms() - t0;
    }
    hsp_resident_free(M[0]);
    return s;
}

/* R (P^T, made here into *PT, when R is NULL), A and P placed on ctx's device. */
static hsp_status place_rap(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P,
                            hsp_resident *M[3], hsp_csr **PT)
{
    hsp_status s = R ? HSP_OK : hsp_transpose(P, PT);
    if (s == HSP_OK) s = hsp_place(ctx, R ? R : *PT, &M[0]);
    if (s == HSP_OK) s = hsp_place(ctx, A, &M[1]);
    return s == HSP_OK ? hsp_place(ctx, P, &M[2]) : s;
}

/* One Galerkin product, resident (M[0] placed) or host to host; its shape
 * into r, and C (brought home, untimed) to *C when C is not NULL. */
static hsp_status rap_once(hsp_context *ctx, const hsp_csr *const op[3], hsp_resident *const M[3],
                           hsp_rap_order order, hsp_csr **C, hsp_stats st[2], cli_rap_result *r)
{
    hsp_csr *out = NULL;
    hsp_resident *rC = NULL;
    const hsp_csr *home = NULL;
    int64_t nnz = 0;
    hsp_status s = M[0] ? hsp_rap_resident(ctx, M[0], M[1], M[2], order, &rC, st)
                        : hsp_rap(ctx, op[0], op[1], op[2], order, &out, NULL, st);
    if (s == HSP_OK && rC) hsp_resident_shape(rC, &r->rows, &r->cols, &nnz), r->nnz_c = nnz;
    if (s == HSP_OK && out) r->nnz_c = out->nnz, r->rows = out->nrows, r->cols = out->ncols;
    if (s == HSP_OK && rC && C) s = hsp_resident_host(rC, &home);
    if (s == HSP_OK && home) s = hsp_csr_convert(home, home->precision, &out);
    if (s == HSP_OK && C) *C = out, out = NULL;
    hsp_csr_free(out), hsp_resident_free(rC);
    return s;
}

hsp_status cli_time_rap(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_rap_order order,
                        int warm_up, int repeat, int resident, hsp_csr **C, cli_rap_result *r)
{
    double *ms = malloc((size_t)(repeat + 1) * sizeof *ms);
    hsp_stats st[2];
    hsp_resident *M[3] = {NULL, NULL, NULL};
    hsp_csr *PT = NULL;
    const hsp_csr *op[3] = {R, A, P};
    hsp_status s = ms ? HSP_OK : HSP_ERR_NOMEM;
    if (s == HSP_OK && resident) s = place_rap(ctx, R, A, P, M, &PT);
    double start = cli_now_ms();
    for (int n = 0; warm_up && s == HSP_OK && cli_warming(start, n); n++) s = rap_once(ctx, op, M, order, NULL, st, r);
    for (int k = 0; k < repeat && s == HSP_OK; k++) {
        double t0 = cli_now_ms();
        s = rap_once(ctx, op, M, order, k == repeat - 1 && !resident ? C : NULL, st, r); /* C kept from the last */
        ms[k] = cli_now_ms() - t0;
    }
    if (s == HSP_OK && C && resident) s = rap_once(ctx, op, M, order, C, st, r); /* once more, untimed, for C home */
    if (s == HSP_OK) {
        r->t = cli_times_of(ms, repeat);
        r->ms_product[0] = st[0].ms_total, r->ms_product[1] = st[1].ms_total;
        memcpy(r->device[0], st[0].device, sizeof r->device[0]);
        memcpy(r->device[1], st[1].device, sizeof r->device[1]);
    }
    for (int k = 0; k < 3; k++) hsp_resident_free(M[k]);
    hsp_csr_free(PT), free(ms);
    return s;
}

static double gflops(const cli_result *r)
{
    return r->ms_median > 0 ? (double)r->stats.flops / (r->ms_median * 1e6) : 0.0;
}

/* The flops and the runs' times. */
static void report_runs(FILE *f, const cli_result *r)
{
    fprintf(f, "flops %lld; %d run%s: median %.3f ms, min %.3f ms, max %.3f ms, first %.3f ms, %.3f GFlop/s\n",
            (long long)r->stats.flops, r->runs, r->runs > 1 ? "s" : "", r->ms_median, r->ms_min, r->ms_max,
            r->ms_first, gflops(r));
}

void cli_report_table(FILE *f, const hsp_context *ctx, const cli_result *r)
{
    static const char *stage[4] = {"1 upper bound", "2 binning", "3 compute", "4 arrange"};
    const hsp_stats *st = &r->stats;
    const hsp_bins *bins = hsp_context_bins(ctx);
    fprintf(f, "C = A*B: %lld x %lld, nnz(A) %lld, nnz(B) %lld, nnz(C) %lld, %s\n",
            (long long)r->nrows, (long long)r->ncols, (long long)r->nnz_a, (long long)r->nnz_b,
            (long long)st->nnz_c, r->precision == HSP_DOUBLE ? "double" : "float");
    fprintf(f, "device %s, %d threads, grow=%s, methods short=%s medium=%s long=%s\n",
            st->device, st->threads, hsp_grow_name(st->grow), hsp_method_name(st->method[0]),
            hsp_method_name(st->method[1]), hsp_method_name(st->method[2]));
    if (st->device_note[0]) fprintf(f, "(%s)\n", st->device_note);
    if (st->bitmap) {
        fprintf(f, "method bitmap: C in %lld blocks of 8x8 (%.2f entries a block); the times include blocking A "
                "and B and C's conversion to CSR\n", (long long)st->blocks_c,
                st->blocks_c ? (double)st->nnz_c / (double)st->blocks_c : 0.0);
        report_runs(f, r);
        return;
    }
    if (st->profile[0]) fprintf(f, "methods per bin from the profile %s\n", st->profile);
    fprintf(f, "\n%-16s %10s\n", "stage (last run)", "ms");
    for (int k = 0; k < 4; k++) fprintf(f, "%-16s %10.3f\n", stage[k], st->ms_stage[k]);
    fprintf(f, "%-16s %10.3f\n", "outside them", st->ms_other);
    fprintf(f, "%-16s %10.3f\n", "total", st->ms_total);
    fprintf(f, "stage 3: device %.3f ms, CPU threads (bins 0-1) %.3f ms, both at once %.3f ms\n",
            st->ms_device, st->ms_host, st->ms_overlap);
    if (r->resident)
        fprintf(f, "resident: operands placed in %.3f ms, C brought home in %.3f ms (not in the times above)\n",
                r->ms_place, r->ms_home);
    fprintf(f, "\n%-8s %6s %12s %14s %7s\n", "group", "bins", "rows", "flops", "flops%");
    for (int g = 0; g < HSP_NGROUPS; g++) {
        int nb = 0;
        for (int b = 0; b < bins->nbins; b++) nb += bins->group[b] == g;
        fprintf(f, "%-8s %6d %12lld %14lld %6.1f%%\n", hsp_group_name(g), nb,
                (long long)st->rows_group[g], (long long)st->flops_group[g],
                st->flops ? 100.0 * (double)st->flops_group[g] / (double)st->flops : 0.0);
    }
    fprintf(f, "\nnon-empty bins (bin:u range:rows:method):");
    for (int b = 0, n = 0; b < bins->nbins; b++) {
        if (!st->rows_bin[b]) continue;
        if (n++ % 4 == 0) fprintf(f, "\n ");
        if (bins->lo[b] == bins->hi[b]) fprintf(f, " %2d:%lld:%lld", b, (long long)bins->lo[b], (long long)st->rows_bin[b]);
        else if (bins->hi[b] == INT64_MAX) fprintf(f, " %2d:>%lld:%lld", b, (long long)bins->lo[b] - 1, (long long)st->rows_bin[b]);
        else fprintf(f, " %2d:%lld-%lld:%lld", b, (long long)bins->lo[b], (long long)bins->hi[b], (long long)st->rows_bin[b]);
        if (st->bin_method[b]) fprintf(f, ":%s", hsp_method_name(st->bin_method[b]));
    }
    fprintf(f, "\n");
    fprintf(f, "\ngrow events %lld, bytes copied by growth %lld, realloc moves %lld\n",
            (long long)st->grow_events, (long long)st->grow_bytes_copied,
            (long long)st->grow_moves);
    fprintf(f, "peak temporary memory %.1f MiB, peak device memory %.1f MiB\n",
            (double)st->peak_temp_bytes / 1048576.0, (double)st->peak_device_bytes / 1048576.0);
    fprintf(f, "copied to the device %.1f MiB, back to the host %.1f MiB\n",
            (double)st->bytes_to_device / 1048576.0, (double)st->bytes_to_host / 1048576.0);
    report_runs(f, r);
}

void cli_report_json(FILE *f, const cli_result *r)
{
    const hsp_stats *st = &r->stats;
    fprintf(f,
            "{\"ms_median\":%.4f,\"ms_min\":%.4f,\"ms_max\":%.4f,\"ms_first\":%.4f,\"runs\":%d,\"gflops\":%.4f,\"nnz_c\":%lld,"
            "\"flops\":%lld,\"device\":\"%s\",\"grow\":\"%s\",\"grow_events\":%lld,"
            "\"grow_bytes_copied\":%lld,\"grow_moves\":%lld,\"threads\":%d,\"passes\":%d,"
            "\"precision\":\"%s\",\"methods\":[\"%s\",\"%s\",\"%s\"],\"rows\":%lld,"
            "\"cols\":%lld,\"nnz_a\":%lld,\"nnz_b\":%lld,\"peak_temp_bytes\":%lld,"
            "\"peak_device_bytes\":%lld,\"bytes_to_device\":%lld,\"bytes_to_host\":%lld,"
            "\"ms_stage\":[%.4f,%.4f,%.4f,%.4f],\"ms_other\":%.4f,\"ms_total\":%.4f,\"ms_device\":%.4f,"
            "\"ms_host\":%.4f,\"ms_overlap\":%.4f,\"resident\":%s,\"ms_place\":%.4f,\"ms_home\":%.4f,"
            "\"device_note\":",
            r->ms_median, r->ms_min, r->ms_max, r->ms_first, r->runs, gflops(r), (long long)st->nnz_c,
            (long long)st->flops, st->device, hsp_grow_name(st->grow),
            (long long)st->grow_events, (long long)st->grow_bytes_copied,
            (long long)st->grow_moves, st->threads, st->passes,
            r->precision == HSP_DOUBLE ? "double" : "float", hsp_method_name(st->method[0]),
            hsp_method_name(st->method[1]), hsp_method_name(st->method[2]), (long long)r->nrows,
            (long long)r->ncols, (long long)r->nnz_a, (long long)r->nnz_b,
            (long long)st->peak_temp_bytes, (long long)st->peak_device_bytes, (long long)st->bytes_to_device,
            (long long)st->bytes_to_host, st->ms_stage[0],
            st->ms_stage[1], st->ms_stage[2], st->ms_stage[3], st->ms_other, st->ms_total, st->ms_device, st->ms_host,
            st->ms_overlap, r->resident ? "true" : "false", r->ms_place, r->ms_home);
    cli_json_string(f, st->device_note);
    fputs(",\"profile\":", f);
    cli_json_string(f, st->profile);
    fprintf(f, ",\"bitmap\":%s,\"blocks_c\":%lld", st->bitmap ? "true" : "false", (long long)st->blocks_c);
    fputs(",\"bin_methods\":{", f); /* "BIN":"METHOD" of each non-empty bin of short to long rows */
    for (int b = 0, n = 0; b < HSP_MAX_BINS; b++)
        if (st->bin_method[b]) fprintf(f, "%s\"%d\":\"%s\"", n++ ? "," : "", b, hsp_method_name(st->bin_method[b]));
    fputs("}}\n", f);
}
