/* cmd_info.c: `hspgemm info A`: shape, row lengths, and the bins of A*A. */
#include <stdlib.h>
#include "cli.h"

static const char usage_info[] =
    "usage: hspgemm info A [--precision=float|double] [--wavefront=N --local-mem=BYTES]\n"
    "                      [--mem-limit=SIZE]\n"
    "Prints the shape and nnz of A, a histogram of its row lengths, and how the rows of\n"
    "A*A fall into the bins (by upper bound u, the number of products of the row).\n";

/* Row lengths in power-of-two buckets: 0, 1, 2-3, 4-7, ... */
static void row_histogram(const hsp_csr *A)
{
    int64_t count[40] = {0};
    for (int32_t i = 0; i < A->nrows; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        int b = 0;
        while (len > 0) b++, len >>= 1;
        count[b]++;
    }
    printf("\n%-16s %12s\n", "row length", "rows");
    for (int b = 0; b < 40; b++) {
        if (!count[b]) continue;
        int64_t lo = b ? (int64_t)1 << (b - 1) : 0, hi = b ? ((int64_t)1 << b) - 1 : 0;
        printf("%7lld..%-7lld %12lld\n", (long long)lo, (long long)hi, (long long)count[b]);
    }
}

/* Rows of A*A per bin of the context's layout. */
static void bin_histogram(const hsp_csr *A, const hsp_bins *bins)
{
    int64_t rows[HSP_MAX_BINS] = {0}, flops[HSP_MAX_BINS] = {0}, total = 0;
    for (int32_t i = 0; i < A->nrows; i++) {
        int64_t u = 0;
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            u += A->rowptr[A->colidx[p] + 1] - A->rowptr[A->colidx[p]];
        int b = 0;
        while (u > bins->hi[b]) b++;
        rows[b]++, flops[b] += 2 * u, total += 2 * u;
    }
    printf("\nbins of A*A (flops %lld)\n%-5s %-7s %-16s %12s %7s\n", (long long)total, "bin",
           "group", "u", "rows", "flops%");
    for (int b = 0; b < bins->nbins; b++) {
        if (!rows[b]) continue;
        char range[40];
        if (bins->hi[b] == INT64_MAX) snprintf(range, sizeof range, "> %lld", (long long)bins->lo[b] - 1);
        else snprintf(range, sizeof range, "%lld..%lld", (long long)bins->lo[b], (long long)bins->hi[b]);
        printf("%-5d %-7s %-16s %12lld %6.1f%%\n", b, hsp_group_name(bins->group[b]), range,
               (long long)rows[b], total ? 100.0 * (double)flops[b] / (double)total : 0.0);
    }
}

int cmd_info(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(argc, argv, "precision,wavefront,local-mem,mem-limit,seed,quiet,gen", usage_info, &a);
    if (rc) return rc == 1 ? 0 : rc;
    if (a.noperands != 1) return cli_usage_error(a.name, "takes one matrix, %d given", a.noperands);
    if (cli_check_rows(&a, "info", 0, 0)) return 1;
    hsp_csr *A = NULL;
    if ((rc = cli_load(&a, 0, &A))) return rc;
    printf("%d x %d, nnz %lld, %.2f entries a row\n", A->nrows, A->ncols, (long long)A->nnz,
           A->nrows ? (double)A->nnz / A->nrows : 0.0);
    row_histogram(A);
    hsp_context *ctx = NULL;
    a.lib.threads = 1;
    rc = cli_context(&a, &ctx);
    if (!rc && A->nrows == A->ncols) bin_histogram(A, hsp_context_bins(ctx));
    else if (!rc) printf("\nA is not square: no A*A bins\n");
    hsp_context_free(ctx);
    hsp_csr_free(A);
    return rc;
}
