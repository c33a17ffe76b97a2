/* cmd_rap.c: `hspgemm rap [R] A P`: the Galerkin product C = R*A*P. */
#include <string.h>
#include "cli.h"

static const char usage_rap[] =
    "usage: hspgemm rap R A P [-o C.mtx] [OPTIONS]\n"
    "       hspgemm rap A P [-o C.mtx] [OPTIONS]        (R = P^T)\n"
    "C = R*A*P as two products, in the order --order gives. Matrices are Matrix Market files\n"
    "or --gen=KIND:ARG[,ARG].\n\n"
    "  -o, --output=FILE     write C as a Matrix Market file (-: to stdout, the figures to stderr)\n"
    "  --order=r-ap|ra-p     R*(A*P) (default) or (R*A)*P\n"
    "  --precision=float|double   values are read and computed in this (default double)\n"
    "  --drop-zeros          leave out the entries of C that are exactly 0, as scipy does\n"
    "  --nonfinite=warn|fail|ignore   C holds inf or nan: as for 'hspgemm multiply'\n"
    "  --stats[=table|json]  the time of each product; json: one line on stdout\n"
    "  --repeat=N            compute C N times; times are median and minimum\n"
    "  --resident            place R (or P^T), A and P on the device first; both products stay\n"
    "                        there (hsp_rap_resident): the times are the device's alone\n"
    "  --seed=N              seed of generated matrices (default 1)\n"
    "  --quiet               no progress display\n";

static const char allowed[] = "o,output,order,device,threads,precision,methods,profile,grow,stats,repeat,seed,quiet,gen,"
                              "small-nnz,device-timeout,mem-limit,resident,drop-zeros,deterministic,nonfinite";

static void report(const cli_args *a, const cli_rap_result *r)
{
    const char *device = r->device[0], *second = r->device[1];
    const char *first = a->amg.order == HSP_RAP_R_AP ? "A*P" : "R*A";
    FILE *out = a->report;
    if (a->stats == 2)
        fprintf(out, "{\"order\":\"%s\",\"rows\":%d,\"cols\":%d,\"nnz_c\":%lld,\"ms_median\":%.4f,\"ms_min\":%.4f,"
                "\"ms_products\":[%.4f,%.4f],\"device\":\"%s\",\"device_second\":\"%s\",\"resident\":%s}\n",
                cli_order_name(a->amg.order), r->rows, r->cols, (long long)r->nnz_c, r->t.median, r->t.min,
                r->ms_product[0], r->ms_product[1], device, second, a->resident ? "true" : "false");
    else
        fprintf(out, "C = %s: %d x %d, nnz %lld, %.3f ms (median of %d)%s",
                a->amg.order == HSP_RAP_R_AP ? "R*(A*P)" : "(R*A)*P", r->rows, r->cols, (long long)r->nnz_c,
                r->t.median, a->repeat, a->stats ? "" : "\n");
    if (!a->stats && (cli_small_product(device) || cli_small_product(second)))
        fprintf(out, "(%s ran on the CPU threads: %s)\n",
                cli_small_product(device) && cli_small_product(second) ? "both products" : "one product",
                CLI_SMALL_NOTE);
    if (a->stats == 1)
        fprintf(out, "; %s %.3f ms, then %.3f ms (last run), device %s%s%s\n", first, r->ms_product[0],
                r->ms_product[1], device, strcmp(device, second) ? ", then " : "",
                strcmp(device, second) ? second : "");
}

int cmd_rap(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(argc, argv, allowed, usage_rap, &a);
    if (rc) return rc == 1 ? 0 : rc;
    if (!a.repeat) a.repeat = 1;
    if (a.noperands != 2 && a.noperands != 3)
        return cli_usage_error(a.name, "takes R A P or A P, %d matrices given", a.noperands);
    int64_t rows = 0, cols = 0; /* those of the first product's left operand: A, R, or P^T */
    int left = a.amg.order == HSP_RAP_R_AP ? a.noperands - 2 : a.noperands == 3 ? 0 : 1;
    cli_declared_shape(&a, left, &rows, &cols);
    if (cli_check_rows(&a, "rap", a.amg.order == HSP_RAP_RA_P && a.noperands == 2 ? cols : rows, 0)) return 1;
    hsp_csr *M[3] = {NULL, NULL, NULL};
    for (int k = 0; k < a.noperands && !rc; k++) rc = cli_load(&a, k, &M[k]);
    hsp_csr *R = a.noperands == 3 ? M[0] : NULL, *A = M[a.noperands - 2], *P = M[a.noperands - 1], *C = NULL;
    hsp_context *ctx = NULL;
    cli_rap_result r = {0};
    hsp_status s = HSP_OK;
    if (!rc) rc = cli_context(&a, &ctx);
    if (!rc && (s = cli_time_rap(ctx, R, A, P, a.amg.order, 0, a.repeat, a.resident,
                                 a.output || a.nonfinite != CLI_NONFINITE_IGNORE ? &C : NULL, &r)) != HSP_OK)
        rc = cli_error("rap", s);
    if (!rc) report(&a, &r);
    if (!rc && C) rc = cli_check_finite(&a, C);
    if (!rc && a.output && (s = hsp_mm_write(a.output, C)) != HSP_OK) rc = cli_error(a.output, s);
    hsp_csr_free(C), hsp_context_free(ctx);
    for (int k = 0; k < 3; k++) hsp_csr_free(M[k]);
    return rc;
}
