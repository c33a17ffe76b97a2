/* cmd_multiply.c: `hspgemm multiply A B` and `hspgemm square A`. */
#include <stdint.h>
#include <string.h>
#include "cli.h"

static const char usage_multiply[] =
    "usage: hspgemm multiply A B [-o C.mtx] [OPTIONS]\n"
    "       hspgemm square A [-o C.mtx] [OPTIONS]      (C = A*A)\n"
    "A and B are Matrix Market files or --gen=KIND:ARG[,ARG] (see 'hspgemm gen --help').\n\n"
    "  -o, --output=FILE     write C as a Matrix Market file (-: to stdout, the figures to stderr)\n"
    "  --precision=float|double   values are read and computed in this (default double)\n"
    "  --stats[=table|json]  print the figures: a table, or one JSON line on stdout\n"
    "  --repeat=N            multiply N times; the figures give median and minimum\n"
    "  --resident            place A and B on the device first and leave C there: the times\n"
    "                        are the device's alone; placing and bringing C home are timed apart\n"
    "  --digest              print a 64-bit digest of C's shape, row pointers, columns and\n"
    "                        values (of the last run): equal digests, the same bits\n"
    "  --nonfinite=warn|fail|ignore   C holds inf or nan (a sum overflowed): warn on stderr and\n"
    "                        write them as inf and nan (default), fail (exit 1, C not written),\n"
    "                        or say nothing\n"
    "  --seed=N              seed of generated matrices (default 1; B uses N+1)\n"
    "  --quiet               no progress display\n";

static const char allowed[] = "o,output,device,threads,grow,precision,methods,profile,stats,repeat,seed,"
                              "wavefront,local-mem,grow-start,mem-limit,small-nnz,device-timeout,quiet,gen,resident,"
                              "unsorted,drop-zeros,pattern,deterministic,digest,nonfinite";

/* Fold n bytes at p into the digest h, eight at a time (the last word zero-padded). */
static uint64_t fold(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t k = 0; k < n; k += 8) {
        uint64_t w = 0;
        memcpy(&w, b + k, n - k < 8 ? n - k : 8);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    return h;
}

/* A digest of C's shape, precision and arrays: equal bits, equal digests. */
static uint64_t digest(const hsp_csr *C)
{
    int64_t shape[4] = {C->nrows, C->ncols, C->nnz, C->precision};
    uint64_t h = fold(0xcbf29ce484222325ULL, shape, sizeof shape);
    h = fold(h, C->rowptr, ((size_t)C->nrows + 1) * sizeof *C->rowptr);
    h = fold(h, C->colidx, (size_t)C->nnz * sizeof *C->colidx);
    return fold(h, C->values, (size_t)C->nnz * (C->precision == HSP_DOUBLE ? sizeof(double) : sizeof(float)));
}

/* Multiply with the parsed options and report. */
static int run(cli_args *a, const hsp_csr *A, const hsp_csr *B)
{
    hsp_context *ctx = NULL;
    hsp_csr *C = NULL;
    cli_result r = {0};
    int rc = cli_context(a, &ctx);
    if (rc) return rc;
    int keep = a->output || a->digest || a->nonfinite != CLI_NONFINITE_IGNORE;
    hsp_status s = cli_time_multiply(ctx, A, B, a->repeat, !a->quiet, a->resident, keep ? &C : NULL, &r);
    if (s != HSP_OK) {
        hsp_context_free(ctx);
        return cli_error(a->name, s);
    }
    if (a->stats == 1) cli_report_table(a->report, ctx, &r);
    if (a->stats == 2) cli_report_json(a->report, &r);
    if (a->stats == 0)
        fprintf(a->report, "C: %lld x %lld, nnz %lld, %.3f ms\n", (long long)r.nrows, (long long)r.ncols,
                (long long)r.stats.nnz_c, r.ms_median);
    if (a->stats == 0 && cli_small_product(r.stats.device))
        fprintf(a->report, "(ran on the CPU threads: %s)\n", CLI_SMALL_NOTE);
    if (a->stats == 0 && r.resident)
        fprintf(a->report, "resident: operands placed in %.3f ms, C brought home in %.3f ms (not in the time above)\n",
                r.ms_place, r.ms_home);
    if (a->digest) fprintf(a->report, "digest of C: %016llx\n", (unsigned long long)digest(C));
    rc = C && cli_check_finite(a, C);
    if (!rc && a->output && (s = hsp_mm_write(a->output, C)) != HSP_OK) rc = cli_error(a->output, s);
    hsp_csr_free(C);
    hsp_context_free(ctx);
    return rc;
}

int cmd_multiply(int argc, char **argv, int square)
{
    cli_args a;
    int rc = cli_parse(argc, argv, allowed, usage_multiply, &a);
    if (rc) return rc == 1 ? 0 : rc;
    int want = square ? 1 : 2;
    if (!a.repeat) a.repeat = 1;
    if (a.noperands != want)
        return cli_usage_error(a.name, "takes %d matri%s, %d given", want, want == 1 ? "x" : "ces", a.noperands);
    int64_t rows = 0, cols;
    cli_declared_shape(&a, 0, &rows, &cols);
    if (cli_check_rows(&a, a.name, rows, 0)) return 1;
    hsp_csr *A = NULL, *B = NULL;
    rc = cli_load(&a, 0, &A);
    if (!rc && !square) rc = cli_load(&a, 1, &B);
    if (!rc && square && A->nrows != A->ncols) {
        fprintf(stderr, "hspgemm: square: A is %d x %d: squaring needs a square matrix (use multiply A B)\n",
                A->nrows, A->ncols);
        rc = 1;
    }
    if (!rc) rc = run(&a, A, square ? A : B);
    hsp_csr_free(A);
    hsp_csr_free(B);
    return rc;
}
