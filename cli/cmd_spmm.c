/* cmd_spmm.c: hspgemm spmm, a sparse matrix times a dense one (hsp_spmm):
 * B from a Matrix Market array file or generated (--cols), C written as
 * one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const char usage_spmm[] =
    "usage: hspgemm spmm A [B.mtx] [-o C.mtx] [OPTIONS]\n"
    "C = A*B for a sparse A (a Matrix Market coordinate file or --gen=KIND:ARG) and a dense B:\n"
    "a Matrix Market array file, or with --cols=L an ncols(A) x L matrix of values uniform\n"
    "in [-1, 1) from --seed.  C is written as an array file.  Runs on the CPU threads,\n"
    "or on a GPU device given by --device (a work-item one or two entries of C; A in CSR or\n"
    "ELLPACK-R, whichever that device reads faster for B's layout).\n\n"
    "  -o, --output=FILE     write C (nrows(A) x L) as a Matrix Market array file (-: stdout)\n"
    "  --cols=L              generate B with L columns (instead of B.mtx)\n"
    "  --layout=row|col      B's (generated) and C's storage: row-major (default) or column-major\n"
    "  --format=ellr|csr     ellr (default): A prepared once (hsp_ellr_from_csr: CSR on the CPU\n"
    "                        threads; on a GPU ELLPACK-R, or CSR where its padding passes twice\n"
    "                        its entries), then multiplied;\n"
    "                        csr: A as given, checked in every product (hsp_spmm)\n"
    "  --device=NAME         cpu (default), or a GPU device: opencl[:N], hsa[:N] (see 'hspgemm devices')\n"
    "  --resident            A prepared and B and C placed on the device first (hsp_spmm_resident):\n"
    "                        the times are the device's alone; C comes home after the last run\n"
    "  --blocks=N            on a device reached by transfers (opencl buffers), B and C the host's:\n"
    "                        C made in N blocks of rows (row-major) or columns, the transfers of\n"
    "                        each beside the others' launches; 1 (default): none, B sent whole,\n"
    "                        C brought back whole (faster on an H100: doc/library.md)\n"
    "  --cpu-share=S|auto    on a device that reads host memory (system SVM, an APU): the CPU threads\n"
    "                        make this share of B's columns while the device makes the rest, at once;\n"
    "                        0 (default): the device alone, 1: the CPU threads alone; auto: the\n"
    "                        product timed first on each side alone and split by their rates,\n"
    "                        t_device / (t_device + t_cpu) to the CPU (--repeat runs each), and\n"
    "                        the fastest of the three kept\n"
    "  --threads=N           CPU threads (default: one per CPU the process may run on)\n"
    "  --precision=float|double   values are read and computed in this (default double)\n"
    "  --repeat=N            multiply N times; the figures give median and minimum\n"
    "  --stats[=table|json]  print the figures: a table, or one JSON line on stdout\n"
    "  --seed=N              seed of generated matrices (default 1; B uses N+1)\n"
    "  --nonfinite=warn|fail|ignore   C holds inf or nan: as for 'hspgemm multiply'\n"
    "  --mem-limit=SIZE      refuse, before reading them, A, B and C that need more memory\n"
    "                        (bytes, or 512M, 4G; default: the memory available)\n"
    "  --quiet               no progress display\n"
    "environment: HSPGEMM_CPU_VECTORS=256|128 caps the CPU threads' vectors at that many bits\n"
    "(default: the widest the CPU runs: 512 with AVX-512, 256 with AVX2 and FMA, else 128);\n"
    "HSPGEMM_SPMM_SLABS=always|never: column-major B on the CPU threads copied by slabs of C's\n"
    "rows wherever they fit, or never (default: where a copy of all of B would pass a third\n"
    "of the last-level cache); HSPGEMM_SPMM_STREAM=always|never: C stored past the caches\n"
    "wherever its cache lines allow, or never (default: where C is more than half the\n"
    "last-level cache); HSPGEMM_SPMM_ROW_LANES=always|never: a GPU reads one column of C from\n"
    "the CSR copy of A prepared in ELLPACK-R, several work-items a row, or never (default:\n"
    "where A has fewer than 256 rows a compute unit and more than 16 entries a row on average);\n"
    "HSPGEMM_SPMM_BY_LENGTH=always|never: the CPU threads keep a copy of prepared A's rows by\n"
    "length, read for C of 1 to 16 columns, or never (default: where the rows' lengths vary and\n"
    "a row shares few columns with the rows before it)\n";

/* A dense nrows x ncols matrix in layout, packed, its values zero, starting
 * on a cache line (shared with bench --suite=spmm, whose peers' start so
 * too: B 16 bytes past a line, as a large malloc gives it, took up to half
 * as long again, for MKL as well: doc/benchmark.md). */
hsp_status cli_dense_new(int32_t nrows, int32_t ncols, hsp_order layout, hsp_precision prec, hsp_dense *M)
{
    size_t n = (size_t)nrows * (size_t)ncols, bytes = (n ? n : 1) * (prec == HSP_DOUBLE ? 8 : 4);
    void *values = NULL;
    *M = (hsp_dense){nrows, ncols, layout == HSP_ROW_MAJOR ? ncols : nrows, layout, prec, NULL};
    if (M->ld < 1) M->ld = 1;
    if (posix_memalign(&values, 64, bytes) != 0) return HSP_ERR_NOMEM;
    M->values = memset(values, 0, bytes);
    return HSP_OK;
}

/* B of nrows x ncols in layout, values uniform in [-1, 1) from seed. */
hsp_status cli_dense_random(int32_t nrows, int32_t ncols, hsp_order layout, hsp_precision prec, uint64_t seed,
                            hsp_dense *B)
{
    hsp_status s = cli_dense_new(nrows, ncols, layout, prec, B);
    for (size_t k = 0; s == HSP_OK && k < (size_t)nrows * (size_t)ncols; k++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        double v = (double)(seed >> 11) / 9007199254740992.0 * 2 - 1;
        if (prec == HSP_DOUBLE) ((double *)B->values)[k] = v;
        else ((float *)B->values)[k] = (float)v;
    }
    return s;
}

static const char allowed[] = "o,output,cols,layout,format,device,threads,precision,repeat,stats,seed,quiet,gen,"
                              "resident,blocks,cpu-share,mem-limit,nonfinite";

/* B and C placed on ctx's device (--resident), or NULL: the host's are used. */
typedef struct {
    hsp_dense_resident *B, *C;
} placed;

/* One product C = A B: of A prepared (E) or as given, B and C resident where placed. */
static hsp_status multiply(hsp_context *ctx, const hsp_csr *A, const hsp_ellr *E, const hsp_dense *B, hsp_dense *C,
                           const placed *r, hsp_spmm_stats *st)
{
    if (r->B) return hsp_spmm_resident(ctx, 1, E, r->B, 0, r->C, st);
    return E ? hsp_spmm_ellr(ctx, 1, E, B, 0, C, st) : hsp_spmm(ctx, 1, A, B, 0, C, st);
}

/* C = A B timed repeat times into ms on a new context of a's options (A
 * prepared first unless --format=csr, B and C placed first where
 * --resident, C brought home after); A's prepared form in *in and the last
 * run's figures in *st. */
static hsp_status time_product(const cli_args *a, const hsp_csr *A, const hsp_dense *B, hsp_dense *C,
                               hsp_ellr_info *in, hsp_spmm_stats *st, double *ms)
{
    hsp_context *ctx = NULL;
    hsp_ellr *E = NULL;
    placed r = {NULL, NULL};
    hsp_status s = hsp_context_create(&a->lib, &ctx);
    if (s == HSP_OK && !a->csr && (s = hsp_ellr_from_csr(ctx, A, &E)) == HSP_OK) hsp_ellr_describe(E, in);
    if (s == HSP_OK && a->resident && (s = hsp_place_dense(ctx, B, &r.B)) == HSP_OK) s = hsp_place_dense(ctx, C, &r.C);
    for (int k = 0; s == HSP_OK && k < a->repeat; k++) {
        s = multiply(ctx, A, E, B, C, &r, st);
        ms[k] = st->ms;
    }
    if (s == HSP_OK && r.C) s = hsp_dense_resident_home(r.C, C);
    hsp_dense_resident_free(r.B), hsp_dense_resident_free(r.C), hsp_ellr_free(E), hsp_context_free(ctx);
    return s;
}

/* --cpu-share=auto: the product timed on the device alone (alone[0]), on
 * the CPU threads alone (alone[1]) and split at the share of the CPU
 * threads' rate in both rates, t_device / (t_device + t_cpu) (alone[2]),
 * medians; a's share set to the fastest of the three (a side's time need
 * not scale with its columns, and the sides may share cores). */
static hsp_status choose_share(cli_args *a, const hsp_csr *A, const hsp_dense *B, hsp_dense *C, double *ms,
                               double alone[3])
{
    hsp_ellr_info in;
    hsp_spmm_stats st;
    hsp_status s = HSP_OK;
    double share[3] = {0, 1, 0};
    for (int k = 0; k < 3 && s == HSP_OK; k++) {
        if (k == 2) share[2] = alone[0] + alone[1] > 0 ? alone[0] / (alone[0] + alone[1]) : 0;
        a->lib.spmm_cpu_share = share[k];
        if ((s = time_product(a, A, B, C, &in, &st, ms)) == HSP_OK) alone[k] = cli_times_of(ms, a->repeat).median;
    }
    int best = alone[2] < alone[0] && alone[2] < alone[1] ? 2 : alone[1] < alone[0];
    a->lib.spmm_cpu_share = share[best];
    return s;
}

/* Time C = A B repeat times on a context of a's options (the share chosen
 * first where --cpu-share=auto), print the figures, write C. */
static int run(cli_args *a, const hsp_csr *A, const hsp_dense *B)
{
    FILE *out = a->report;
    hsp_ellr_info in = {0};
    hsp_dense C = {0};
    hsp_spmm_stats st;
    double alone[3] = {0, 0, 0};
    double *ms = malloc((size_t)a->repeat * sizeof *ms);
    hsp_status s = ms ? cli_dense_new(A->nrows, B->ncols, a->layout, A->precision, &C) : HSP_ERR_NOMEM;
    if (s == HSP_OK && a->cpu_share_auto) s = choose_share(a, A, B, &C, ms, alone);
    if (s == HSP_OK) s = time_product(a, A, B, &C, &in, &st, ms);
    if (s != HSP_OK) {
        free(ms), hsp_dense_free(&C);
        return cli_error("spmm", ms ? s : HSP_ERR_NOMEM);
    }
    cli_times t = cli_times_of(ms, a->repeat);
    double gflops = t.median > 0 ? (double)st.flops / t.median / 1e6 : 0;
    if (a->stats == 2)
        fprintf(out, "{\"nrows\":%d,\"ncols\":%d,\"nnz_a\":%lld,\"cols_b\":%d,\"precision\":\"%s\",\"layout\":\"%s\","
                "\"format\":\"%s\",\"threads\":%d,\"device\":\"%s\",\"runs\":%d,\"ms_median\":%.4f,\"ms_min\":%.4f,"
                "\"ms_max\":%.4f,\"flops\":%lld,\"gflops\":%.3f,\"width\":%d,\"height\":%d,\"slots\":%lld,"
                "\"bytes_a\":%lld,\"csr_bytes_a\":%lld,\"copy_bytes_a\":%lld,\"resident\":%s,\"blocks\":%d,"
                "\"cpu_share\":%.4f,\"cpu_cols\":%d,\"ms_device_alone\":%.4f,\"ms_cpu_alone\":%.4f,"
                "\"ms_split_by_rates\":%.4f}\n",
                A->nrows, A->ncols, (long long)A->nnz, B->ncols, A->precision == HSP_DOUBLE ? "double" : "float",
                a->layout == HSP_ROW_MAJOR ? "row" : "col", st.format, st.threads, st.device, t.runs, t.median,
                t.min, t.max, (long long)st.flops, gflops, in.width, in.height, (long long)in.slots,
                (long long)in.bytes, (long long)in.csr_bytes, (long long)in.copy_bytes,
                a->resident ? "true" : "false", st.blocks, a->lib.spmm_cpu_share, st.cpu_cols, alone[0], alone[1],
                alone[2]);
    else if (a->stats == 1) {
        fprintf(out, "C = A*B: %d x %d (nnz(A) %lld) times %d x %d, %s, %s-major\n%s, A read as %s\n",
                A->nrows, A->ncols, (long long)A->nnz, B->nrows, B->ncols,
                A->precision == HSP_DOUBLE ? "double" : "float", a->layout == HSP_ROW_MAJOR ? "row" : "column",
                st.device, st.format);
        if (!a->csr && in.height)
            fprintf(out, "A prepared: longest row %d, slices of %d rows, %lld slots for %lld entries (%.2fx), "
                    "%.1f MiB against %.1f in CSR\n", in.width, in.height, (long long)in.slots, (long long)in.nnz,
                    in.nnz ? (double)in.slots / (double)in.nnz : 1.0, in.bytes / 1048576.0, in.csr_bytes / 1048576.0);
        if (in.copy_bytes && !strcmp(st.device, "cpu"))
            fprintf(out, "A prepared in CSR, longest row %d, and a copy of its rows by length (%.1f MiB), which "
                    "the CPU threads read for C of 1 to 16 columns (row-major past 1)\n", in.width,
                    in.copy_bytes / 1048576.0);
        else if (in.copy_bytes)
            fprintf(out, "and a copy in CSR%s (%.1f MiB), which the GPU reads for row-major B of several columns\n",
                    in.height ? "" : " of its rows by length", in.copy_bytes / 1048576.0);
        else if (!a->csr && !in.height && !strcmp(st.device, "cpu"))
            fprintf(out, "A prepared in CSR, which the CPU threads read: longest row %d\n", in.width);
        else if (!a->csr && !in.height)
            fprintf(out, "A prepared in CSR: longest row %d, its padding would pass %g times the entries\n", in.width,
                    HSP_ELLR_MAX_PADDING);
        if (a->cpu_share_auto)
            fprintf(out, "device alone %.3f ms, CPU threads alone %.3f ms, split by their rates %.3f ms (medians): "
                    "the CPU threads take %.2f\n", alone[0], alone[1], alone[2], a->lib.spmm_cpu_share);
        if (st.cpu_cols && st.cpu_cols < B->ncols)
            fprintf(out, "the CPU threads made %d of B's %d columns beside the device\n", st.cpu_cols, B->ncols);
        if (st.blocks > 1)
            fprintf(out, "C made in %d blocks, their transfers beside the other blocks' launches\n", st.blocks);
        fprintf(out, "flops %lld; %d runs: median %.3f ms, min %.3f ms, max %.3f ms, %.3f GFlop/s\n",
                (long long)st.flops, t.runs, t.median, t.min, t.max, gflops);
    }
    else fprintf(out, "C: %d x %d, %.3f ms\n", C.nrows, C.ncols, t.median);
    int rc = cli_check_finite_dense(a, &C);
    if (!rc && a->output && (s = hsp_mm_write_dense(a->output, &C)) != HSP_OK) rc = cli_error(a->output, s);
    free(ms), hsp_dense_free(&C);
    return rc;
}

/* Refuse before reading A when its row pointers, B and C pass the memory
 * limit, from the size lines (B's, or --cols); 1 when refused. */
static int check_memory(const cli_args *a)
{
    int64_t rows = 0, cols = 0, b_rows, L = a->cols;
    cli_declared_shape(a, 0, &rows, &cols);
    if (!L && cli_declared_shape(a, 1, &b_rows, &L) != 2) L = 0;
    double dense = ((double)rows + (double)cols) * (double)L * (a->precision == HSP_DOUBLE ? 8 : 4);
    return cli_check_rows(a, "spmm", 0, dense);
}

int cmd_spmm(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(argc, argv, allowed, usage_spmm, &a);
    if (rc) return rc == 1 ? 0 : rc;
    if (!a.repeat) a.repeat = 1;
    if (a.layout_both) return cli_usage_error(a.name, "--layout takes row or col (both is bench --suite=spmm's)");
    if (a.resident && a.csr)
        return cli_usage_error(a.name, "--resident multiplies a prepared A: not with --format=csr");
    if (a.noperands != (a.cols ? 1 : 2) || (a.noperands == 2 && a.operand_is_gen[1]))
        return cli_usage_error(a.name, "takes A and either B.mtx (a dense array file) or --cols=L");
    if (!strcmp(a.lib.device, "auto")) a.lib.device = "cpu"; /* the CPU threads unless a device is named */
    if (check_memory(&a)) return 1;
    if ((rc = cli_check_device(&a))) return rc;
    hsp_csr *A = NULL;
    hsp_dense B = {0};
    hsp_status s = HSP_OK;
    if ((rc = cli_load(&a, 0, &A))) return rc;
    if (a.cols) s = cli_dense_random(A->ncols, a.cols, a.layout, a.precision, a.seed + 1, &B);
    else s = hsp_mm_read_dense(a.operand[1], a.precision, &B);
    if (s != HSP_OK) rc = cli_error(a.cols ? "B" : a.operand[1], s);
    else if (B.nrows != A->ncols) {
        fprintf(stderr, "hspgemm: spmm: B is %d x %d, A %d x %d: B needs as many rows as A has columns\n", B.nrows,
                B.ncols, A->nrows, A->ncols);
        rc = 1;
    } else rc = run(&a, A, &B);
    hsp_csr_free(A), hsp_dense_free(&B);
    return rc;
}
