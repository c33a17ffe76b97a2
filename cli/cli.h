/* cli.h: the hspgemm command-line tool: shared option parsing, operand
 * loading and reporting for its subcommands. */
#ifndef HSP_CLI_H
#define HSP_CLI_H

#include <stdio.h>
#include "hspgemm.h"

enum { CLI_MAX_OPERANDS = 3 };

/* Options common to the subcommands. */
typedef struct {
    hsp_options lib;
    hsp_precision precision;
    const char *operand[CLI_MAX_OPERANDS]; /* a path or a generator spec */
    int operand_is_gen[CLI_MAX_OPERANDS];
    int noperands;
    const char *output;   /* -o FILE */
    const char *csv;      /* bench: --csv=FILE */
    const char *suite;    /* bench: --suite=NAME */
    const char *peers;    /* bench: --peers=LIST */
    hsp_amg_options amg;  /* rap, amg-setup: --order, --theta, --omega, --levels, --coarse */
    const char *write_levels; /* amg-setup: --write-levels DIR */
    int resetup;          /* amg-setup: --resetup */
    int stats;            /* 0 none, 1 table, 2 json */
    int repeat;           /* 0 when not given */
    int quiet;
    uint64_t seed;
} cli_args;

/* Parse argv (after the subcommand) into a; prints the error and returns 2
 * on bad usage, 1 after --help (usage printed), 0 when parsed.  allowed lists
 * the option names the subcommand takes, e.g. "o,device,threads". */
int cli_parse(int argc, char **argv, const char *allowed, const char *usage, cli_args *a);
/* Load operand k (file or generator) in a's precision; prints errors. */
hsp_csr *cli_load(const cli_args *a, int k);
/* Print "hspgemm: what: status: detail" to stderr and return 1. */
int cli_error(const char *what, hsp_status s);
/* Milliseconds of a monotonic clock. */
double cli_now_ms(void);
/* Median and minimum of n doubles (sorts them). */
void cli_median_min(double *x, int n, double *median, double *min);

/* Timings of repeated multiplies and the stats of the last. */
typedef struct {
    double ms_median, ms_min;
    int runs;
    hsp_stats stats;
    int64_t nrows, ncols, nnz_a, nnz_b;
    hsp_precision precision;
} cli_result;

/* Multiply A*B repeat times on ctx, timing each call; C of the last run goes
 * to *C when C is not NULL. */
hsp_status cli_time_multiply(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, int repeat,
                             int progress, hsp_csr **C, cli_result *r);
void cli_report_table(FILE *f, const hsp_context *ctx, const cli_result *r);
void cli_report_json(FILE *f, const cli_result *r);

int cmd_multiply(int argc, char **argv, int square);
int cmd_gen(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_rap(int argc, char **argv);
int cmd_amg_setup(int argc, char **argv);
/* "r-ap" or "ra-p". */
const char *cli_order_name(hsp_rap_order order);

#endif
