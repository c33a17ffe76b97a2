/* cli.h: the hspgemm command-line tool: shared option parsing, operand
 * loading and reporting for its subcommands. */
#ifndef HSP_CLI_H
#define HSP_CLI_H

#include <stdio.h>
#include "hspgemm.h"

enum { CLI_MAX_OPERANDS = 64 }; /* matrices on one command line: a bench takes a list */

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
    int resident;         /* --resident: operands placed on the device before the timing, C left there */
    uint64_t seed;
} cli_args;

/* Parse argv (after the subcommand) into a; prints the error and returns 2
 * on bad usage, 1 after --help (usage printed), 0 when parsed.  allowed lists
 * the option names the subcommand takes, e.g. "o,device,threads". */
int cli_parse(int argc, char **argv, const char *allowed, const char *usage, cli_args *a);
/* Load operand k (file or generator) in a's precision; prints errors. */
hsp_csr *cli_load(const cli_args *a, int k);
/* The shape file operand k declares in its size line, read before the file
 * itself: 1 if known; 0 for a generator, what is not a regular file (a pipe
 * read twice would lose its start) or a size line the reader will refuse. */
int cli_declared_shape(const cli_args *a, int k, int64_t *rows, int64_t *cols);
/* Refuse a command before it reads a matrix when the row arrays it needs at
 * once pass the memory limit: its file operands' row pointers (8 bytes a
 * row) and its first product's row arrays (28 bytes a row of product_rows,
 * that product's left operand; 0: none), from the size lines alone (issue
 * 28: a 3-line file of 2147483647 rows read 16 GiB before its product was
 * refused).  Prints the error and returns 1 when refused, else 0. */
int cli_check_rows(const cli_args *a, const char *command, int64_t product_rows);
/* Print "hspgemm: what: status: detail" to stderr and return 1. */
int cli_error(const char *what, hsp_status s);
/* Milliseconds of a monotonic clock. */
double cli_now_ms(void);
/* Median and minimum of n doubles (sorts them). */
void cli_median_min(double *x, int n, double *median, double *min);

/* Timings of repeated multiplies and the stats of the last; resident ones
 * (hsp_multiply_resident) also time placing the operands and bringing the
 * last C home, outside the multiplies' times. */
typedef struct {
    double ms_median, ms_min;
    double ms_first; /* the first multiply, in a context that has done none: its memory is new */
    int runs;
    int resident;
    double ms_place, ms_home;
    hsp_stats stats;
    int64_t nrows, ncols, nnz_a, nnz_b;
    hsp_precision precision;
} cli_result;

/* Multiply A*B repeat times on ctx, timing each call (resident: operands
 * placed first, each C left on the device, the last brought home); C of the
 * last run goes to *C when C is not NULL. */
hsp_status cli_time_multiply(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, int repeat, int progress,
                             int resident, hsp_csr **C, cli_result *r);
void cli_report_table(FILE *f, const hsp_context *ctx, const cli_result *r);

/* Timings of repeated Galerkin products, with the last run's figures. */
typedef struct {
    double ms_median, ms_min, ms_product[2];
    int64_t nnz_c;
    int32_t rows, cols;
    char device[2][sizeof ((hsp_stats *)0)->device]; /* where each product ran */
} cli_rap_result;

/* C = R*A*P in order, once untimed when warm_up, then repeat times timed
 * (resident: R or P^T, A and P placed first, hsp_rap_resident); C of one
 * more run, untimed, goes to *C when C is not NULL. */
hsp_status cli_time_rap(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_rap_order order,
                        int warm_up, int repeat, int resident, hsp_csr **C, cli_rap_result *r);
void cli_report_json(FILE *f, const cli_result *r);

/* Is C = A*B (valid CSR of its shape, and C x = A (B x) for a random x, in
 * the precision's rounding)?  1 if so, else 0 with why filled (check.c). */
int cli_check_product(const hsp_csr *A, const hsp_csr *B, const hsp_csr *C, char *why, size_t len);

/* The bench peers (peers.c): what each reported (ms 0 when it did not run;
 * dev_ms and peak -1 when it does not report them). */
enum { CLI_NPEERS = 4, CLI_CUSPARSE = 2, CLI_CMD_LEN = 8192 };
extern const char *const cli_peer_name[CLI_NPEERS];
typedef struct {
    double ms, dev_ms, peak;
    int64_t nnz;
} cli_peer_result;
/* The command lines of the peers that are present and wanted ("" if not). */
void cli_peer_commands(const cli_args *a, char cmd[CLI_NPEERS][CLI_CMD_LEN]);
/* The python the set-up installs the peers' packages in (build-aux/install-peer-python.sh). */
#define CLI_PEER_PYTHON "/opt/hspgemm-python/bin/python3"
/* Find peer program file (bench/); 1 when found, its path in path. */
int cli_find_peer(const char *file, char *path, size_t len);
/* A python that imports module: $HSPGEMM_PYTHON, CLI_PEER_PYTHON, python3 or
 * /usr/bin/python3, the first that does; NULL when none. */
const char *cli_find_python(const char *module);
/* Write the n (<= 3) matrices M to a temporary directory and run each peer
 * command with the options extra and their files; results into result. */
void cli_run_peers(const char *name, const hsp_csr *const *M, int n, const char *extra,
                   char cmd[CLI_NPEERS][CLI_CMD_LEN], cli_peer_result result[CLI_NPEERS]);
/* A status line on stderr when it is a terminal ("" clears it). */
void cli_status_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* bench --suite=galerkin|galerkin-paper, or the given --gen problems. */
int cli_bench_galerkin(cli_args *a, const char *const *given);
/* bench --suite=realloc (bench_realloc.c): grow=realloc against grow=copy on
 * the matrices given (files or --gen), else its own. */
int cli_bench_realloc(cli_args *a);
/* `hspgemm bench --suite=amg` (bench_amg.c): amg-setup against PyAMG, on the
 * paper's four Poisson problems or the given generator specs. */
int cli_bench_amg(cli_args *a, const char *const *given);

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
