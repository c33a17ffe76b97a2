/* cli.h: the hspgemm command-line tool: shared option parsing, operand
 * loading and reporting for its subcommands. */
#ifndef HSP_CLI_H
#define HSP_CLI_H

#include <stdio.h>
#include "hspgemm.h"

enum { CLI_MAX_OPERANDS = 64 }; /* matrices on one command line: a bench takes a list */
/* --nonfinite: what a C holding inf or nan gets (nonfinite.c). */
typedef enum { CLI_NONFINITE_WARN, CLI_NONFINITE_FAIL, CLI_NONFINITE_IGNORE } cli_nonfinite;

/* Options common to the subcommands. */
typedef struct {
    const char *name;     /* the command: "multiply", "square", ... */
    hsp_options lib;
    hsp_precision precision;
    const char *operand[CLI_MAX_OPERANDS]; /* a path or a generator spec */
    int operand_is_gen[CLI_MAX_OPERANDS];
    int noperands;
    const char *output;   /* -o FILE ("-": stdout) */
    FILE *report;         /* where the figures go: stdout, or stderr where C goes to stdout (-o -) */
    const char *csv;      /* bench: --csv=FILE */
    const char *suite;    /* bench: --suite=NAME */
    const char *peers;    /* bench: --peers=LIST */
    hsp_amg_options amg;  /* rap, amg-setup: --order, --strength, --theta, --omega, --levels, --coarse */
    int theta_given;      /* --theta was given (else --strength=symmetric's is 0, PyAMG's) */
    int float_levels_given; /* --float-levels was given (a solve's default: cli_solve_float_levels) */
    const char *write_levels; /* amg-setup: --write-levels DIR */
    int resetup;          /* amg-setup: --resetup */
    hsp_amg_solve_options solve; /* amg-solve: --tol, --maxiter, --cycle, --smoother, ... */
    const char *rhs;      /* amg-solve: --rhs=FILE */
    int maxiter_given;    /* --maxiter was given (bench --suite=solve's default is 200, the peers') */
    const char *nullspace; /* amg-setup, amg-solve, bench: --nullspace=B.mtx or none (NULL when not given) */
    int32_t block;        /* the same: --block=K, rows a node (0 when not given) */
    int stats;            /* 0 none, 1 table, 2 json */
    int repeat;           /* 0 when not given */
    int64_t rows;         /* tune: --rows=N, 0 when not given */
    int32_t cols;         /* spmm: --cols=L, columns of a generated B (0 when not given) */
    hsp_order layout;     /* spmm: --layout=row|col, of a generated B and of C */
    int layout_both;      /* bench --suite=spmm: --layout=both, each layout in turn */
    int csr;              /* spmm: --format=csr (A as given, checked each call), else A prepared */
    int quiet;
    int build;            /* devices: --build */
    int resident;         /* --resident: operands placed on the device before the timing, C left there */
    int cpu_share_auto;   /* spmm --cpu-share=auto: the share from both sides' times alone */
    int digest;           /* --digest: print a digest of C's bits */
    cli_nonfinite nonfinite; /* --nonfinite=warn|fail|ignore */
    uint64_t seed;
    int mem_default;      /* no --mem-limit: lib.mem_limit is the memory available when the command started */
    char command[1024];   /* the command line as given, for the bench's description of its run */
} cli_args;

/* Parse argv (argv[0] the subcommand) into a; prints the error (with a line
 * pointing to --help) and returns 2 on bad usage, 1 after --help (usage
 * printed), 0 when parsed.  allowed lists the option names the subcommand
 * takes, e.g. "o,device,threads". */
int cli_parse(int argc, char **argv, const char *allowed, const char *usage, cli_args *a);
/* The --help lines of the library's options (options.def) that allowed lists
 * and usage, a command's own text, does not describe itself. */
void cli_options_help(FILE *f, const char *allowed, const char *usage);
/* Bytes of a usage error's message. */
enum { CLI_MSG = 256 };
/* Load operand k (file or generator) in a's precision into *M; prints
 * errors and returns the exit status: 0, 2 for a generator spec the library
 * refuses (bad usage), else 1. */
int cli_load(const cli_args *a, int k, hsp_csr **M);
/* The memory limit a file is read within: --mem-limit, else 0 (the reader's
 * default, the memory available when it reads). */
int64_t cli_read_limit(const cli_args *a);
/* The shape file operand k declares in its size line, read before the file
 * itself: 1 for a coordinate file, 2 for an array file (a dense matrix); 0
 * for a generator, what is not a regular file (a pipe read twice would lose
 * its start) or a size line the reader will refuse. */
int cli_declared_shape(const cli_args *a, int k, int64_t *rows, int64_t *cols);
/* Refuse a command before it reads a matrix when what it needs at once
 * passes the memory limit (--mem-limit, else the memory available): its
 * coordinate files' row pointers (8 bytes a row), its first product's row
 * arrays (28 bytes a row of product_rows, that product's left operand; 0:
 * none) and dense bytes of dense matrices (spmm's B and C), from the size
 * lines alone (issues 28 and 56: a 3-line file of 2147483647 rows read 16
 * GiB before its product was refused, or until the OOM killer came).
 * Prints the error and returns 1 when refused, else 0. */
int cli_check_rows(const cli_args *a, const char *command, int64_t product_rows, double dense);
/* Count C's values that are not finite and do what --nonfinite says: a
 * warning naming the first (default), an error (returns 1: C must not be
 * written), or nothing; 0 to go on. */
int cli_check_finite(const cli_args *a, const hsp_csr *C);
int cli_check_finite_dense(const cli_args *a, const hsp_dense *C);
/* Did a GPU device leave the product that ran on device (hsp_stats.device)
 * to the CPU threads, it being small (--small-nnz)?  What the default
 * output says then (CLI_SMALL_NOTE), not only --stats. */
int cli_small_product(const char *device);
#define CLI_SMALL_NOTE "a product whose A and B hold at most --small-nnz entries (default 262144) costs a GPU " \
                       "more than it takes on them; --small-nnz=-1 runs every product on the device"
/* Print "hspgemm: what: status: detail" to stderr (what cut as cli_shown
 * cuts it) and return 1. */
int cli_error(const char *what, hsp_status s);
/* cli_error for a generator spec hsp_generate refused: its text (an unknown
 * kind, a bad size: HSP_ERR_ARG) is bad usage, status 2; else 1. */
int cli_gen_error(const char *spec, hsp_status s);
/* A context of a's options into *ctx: 0, or the exit status after the
 * error: 2 where the library refuses the command line's text (an unknown
 * device or one of no such number, a bad --wavefront or --local-mem: bad
 * usage), 1 where it fails otherwise (a device that does not open, a
 * malformed profile file). */
int cli_context(const cli_args *a, hsp_context **ctx);
/* Open and close a context of a's options before any work, so that a bad
 * --device is said at once (cli_context's status) where the contexts are
 * made later (spmm makes one a --cpu-share, the bench several); 0 when it
 * opens. */
int cli_check_device(const cli_args *a);
/* Print "hspgemm: COMMAND: message" and a line pointing to the command's
 * --help on stderr; return 2, the status of bad usage. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Characters of a value a message echoes: a longer one is cut, "..." after. */
enum { CLI_SHOWN = 64 };
/* s as a message shows it (buf: CLI_SHOWN + 4 bytes, used where s is cut). */
const char *cli_shown(const char *s, char *buf);
/* Milliseconds of a monotonic clock. */
double cli_now_ms(void);
/* Median, least and largest of n doubles (sorts them). */
void cli_median_min_max(double *x, int n, double *median, double *min, double *max);
/* The figures of a bench's repeated runs of one program (runs 0: it did not
 * run; q1 and q3 0 where only the median, min and max are known, as from a
 * peer), and what the bench flags: a spread of the middle half of the runs,
 * (q3 - q1) / median, above CLI_SPREAD_BOUND, which makes the median
 * uncertain (one slow run among seven moves the max, not the median). */
typedef struct {
    double median, min, max, q1, q3;
    int runs;
} cli_times;
#define CLI_SPREAD_BOUND 0.2
/* A bench's warm-up: untimed runs until CLI_WARM_MS have passed, at least
 * one and at most CLI_WARM_RUNS (cli_warming says whether to run again after
 * runs of them since start): a small product's first runs in a context are
 * slower (2-core VM, poisson2d5:30: 0.085 ms a run for about ten runs, then
 * 0.048), and a GPU idle while the operands were placed (or a peer ran) must
 * be back at its clocks; the cuSPARSE peer warms up alike
 * (bench/peer_cusparse.c). */
#define CLI_WARM_MS 50.0
enum { CLI_WARM_RUNS = 100 };
int cli_warming(double start, int runs);
/* The figures of the n times ms (sorted). */
cli_times cli_times_of(double *ms, int n);
/* (q3 - q1) / median, or (max - min) / median where the quartiles are not
 * known; 0 when it did not run. */
double cli_spread(const cli_times *t);

/* "hspgemm VERSION (commit C)": what `hspgemm --version` prints (version.c). */
const char *cli_version(void);
/* The commit this build is from ("" when unknown). */
const char *cli_commit(void);

/* Timings of repeated multiplies and the stats of the last; resident ones
 * (hsp_multiply_resident) also time placing the operands and bringing the
 * last C home, outside the multiplies' times. */
typedef struct {
    double ms_median, ms_min, ms_max;
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
/* runs squares of A on ctx, their times appended to ms[*n]; the last's
 * figures into r.  Host to host each is timed alone (a bench that interleaves
 * them with other work); resident, A is placed once and, after one product
 * untimed, the runs go back to back (as the cuSPARSE peer's device-only ones). */
hsp_status cli_time_runs(hsp_context *ctx, const hsp_csr *A, int runs, int resident, double *ms, int *n,
                         cli_result *r);
void cli_report_table(FILE *f, const hsp_context *ctx, const cli_result *r);

/* Timings of repeated Galerkin products, with the last run's figures. */
typedef struct {
    cli_times t; /* the timed runs */
    double ms_product[2];
    int64_t nnz_c;
    int32_t rows, cols;
    char device[2][sizeof ((hsp_stats *)0)->device]; /* where each product ran */
} cli_rap_result;

/* C = R*A*P in order, untimed when warm_up (CLI_WARM_MS), then repeat times timed
 * (resident: R or P^T, A and P placed first, hsp_rap_resident); where C is
 * not NULL, *C is the last run's C (resident: of one more run, untimed,
 * brought home). */
hsp_status cli_time_rap(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_rap_order order,
                        int warm_up, int repeat, int resident, hsp_csr **C, cli_rap_result *r);
void cli_report_json(FILE *f, const cli_result *r);

/* Is C = A*B (valid CSR of its shape, and C x = A (B x) for a random x, in
 * the precision's rounding)?  1 if so, else 0 with why filled (check.c). */
int cli_check_product(const hsp_csr *A, const hsp_csr *B, const hsp_csr *C, char *why, size_t len);

/* The bench peers (peers.c).  Each suite takes some: the products and the
 * Galerkin products the first four, the AMG setup PyAMG. */
enum {
    CLI_GRAPHBLAS, CLI_SCIPY, CLI_CUSPARSE, CLI_MKL, CLI_PYAMG, CLI_HYPRE, CLI_GAMG, CLI_NPEERS, CLI_CMD_LEN = 8192
};
#define CLI_PRODUCT_PEERS (1u << CLI_GRAPHBLAS | 1u << CLI_SCIPY | 1u << CLI_CUSPARSE | 1u << CLI_MKL)
#define CLI_AMG_PEERS (1u << CLI_PYAMG)
/* The solve suite's: PyAMG (two variants), hypre BoomerAMG and PETSc GAMG, each run
 * with --solve (bench/README.md: "Solve peers"). */
#define CLI_SOLVE_PEERS (1u << CLI_PYAMG | 1u << CLI_HYPRE | 1u << CLI_GAMG)
#define CLI_SPMM_PEERS (1u << CLI_SCIPY | 1u << CLI_CUSPARSE | 1u << CLI_MKL)
extern const char *const cli_peer_name[CLI_NPEERS];
/* What one peer reported on one matrix: its times host to host, device-only
 * (cuSPARSE: with a memory pool, and nopool: with cudaMalloc) and with C
 * sorted (MKL), its peak device memory (-1: none reported) and nnz(C);
 * failed when it ran and failed. */
typedef struct {
    cli_times host, device, nopool, sorted;
    double peak;
    int64_t nnz;
    int failed;
} cli_peer_result;
/* The peers of a run: each one's command line ("" when it does not run),
 * version and what became of it ("ran", "not asked", "not available: why"). */
typedef struct {
    char cmd[CLI_NPEERS][CLI_CMD_LEN];
    char version[CLI_NPEERS][64];
    char status[CLI_NPEERS][256];
} cli_peers;
/* Choose the peers of a suite (allowed: a mask of 1 << CLI_...) from
 * --peers: none; auto (the default): those that can run here; or a list, each
 * of which must be one of the suite's and able to run (asked by its
 * --version).  Prints the error and returns 2 on a mistake, else 0. */
int cli_peers_choose(const cli_args *a, unsigned allowed, cli_peers *p);
/* Does any peer run? */
int cli_peers_any(const cli_peers *p);
/* The number after "key": in a peer's JSON line, or -1. */
double cli_json_number(const char *line, const char *key);
/* The times "KEY_median", "KEY_min", "KEY_max", "KEY_q1", "KEY_q3" and "runs"
 * of a peer's JSON line (runs 0 when absent). */
cli_times cli_json_times(const char *line, const char *key);
/* The python the set-up installs the peers' packages in (build-aux/install-peer-python.sh). */
#define CLI_PEER_PYTHON "/opt/hspgemm-python/bin/python3"
/* Find peer program file (bench/); 1 when found, its path in path. */
int cli_find_peer(const char *file, char *path, size_t len);
/* A python that imports module: $HSPGEMM_PYTHON, CLI_PEER_PYTHON, python3 or
 * /usr/bin/python3, the first that does; NULL when none. */
const char *cli_find_python(const char *module);
/* Write the n (<= 3) matrices M to a temporary directory and run each peer
 * with the options extra and their files; results into result. */
void cli_run_peers(const char *name, const hsp_csr *const *M, int n, const char *extra, const cli_peers *p,
                   cli_peer_result result[CLI_NPEERS]);
/* Write A (and o's B, when given) to a new temporary directory dir (of
 * CLI_TEMP_DIR bytes) for a peer, and into args its arguments: --block=K
 * where o's block > 1, --nullspace='B.mtx' where o has B, then 'A.mtx';
 * 0, else -1 (nothing left).  cli_peer_files_remove removes them. */
enum { CLI_TEMP_DIR = 32 };
int cli_peer_files(const char *name, const hsp_csr *A, const hsp_amg_options *o, char *dir, char *args, size_t len);
void cli_peer_files_remove(const char *dir);
/* Run a peer's command line, its first line of output into line and its
 * first line of errors said on stderr when it fails; its exit status. */
int cli_peer_line(const char *cmd, char *line, size_t len);
/* A status line on stderr when it is a terminal ("" clears it). */
void cli_status_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The description of a bench run (bench_meta.c). */
typedef struct {
    const char *suite;
    const char *device;  /* hsp_stats.device of a product of the run, or "" */
    int complete;        /* every matrix ran */
    const char *error;   /* why not, or "" */
    const char *profile; /* hsp_stats.profile of a product of the run, or NULL */
} cli_run_info;
/* Refuse, before the first product, an output file (and its .json) that cannot
 * be written: prints why and returns 2, else 0. */
int cli_check_output(const char *csv);
/* Can path be written ("-", stdout; an existing file that may be; a new one
 * in a folder that exists and may be written)?  Else prints why, naming the
 * command, and returns 2; cli_parse checks -o FILE so, before any work. */
int cli_check_writable(const char *command, const char *path);
/* Write the JSON that describes a run beside its CSV (csv's name with .json
 * for .csv): version, commit, command line, date, CPU, memory, device and its
 * versions, options, run counts and the peers' versions; 0 on success. */
int cli_write_meta(const char *csv, const cli_args *a, const cli_peers *p, const cli_run_info *run);
/* s as a JSON string, quotes and control characters escaped. */
void cli_json_string(FILE *f, const char *s);
/* CSV fields ",median,min,max" of t, empty where it did not run. */
void cli_csv_times(FILE *f, const cli_times *t);
/* A CSV field ",x" with fmt, empty when x <= 0 (not measured). */
void cli_csv_number(FILE *f, const char *fmt, double x);
/* One program's line of a bench table: lead (the row's first columns, or
 * blanks), the program, its median, min, max and spread (flagged '!' above
 * CLI_SPREAD_BOUND), then x = its median / ref (ref 0: none) and tail. */
void cli_print_times(const char *lead, const char *program, const cli_times *t, double ref, const char *tail);
/* The header of those lines, after lead's title. */
void cli_print_times_header(const char *lead);

/* The suites of `hspgemm bench` beside the products: each runs with the
 * peers chosen and writes its table to csv and its description beside it;
 * 0, or 1 after a failure (the rows before it kept). */
/* bench --suite=galerkin|galerkin-paper, or the given --gen problems. */
int cli_bench_galerkin(cli_args *a, const char *const *given, const cli_peers *p, const char *csv);
/* bench --suite=realloc (bench_realloc.c): grow=realloc against grow=copy on
 * the matrices given (files or --gen), else its own. */
int cli_bench_realloc(cli_args *a, const cli_peers *p, const char *csv);
/* `hspgemm bench --suite=amg` (bench_amg.c): amg-setup against PyAMG, on the
 * paper's four Poisson problems or the given generator specs. */
int cli_bench_amg(cli_args *a, const char *const *given, const cli_peers *p, const char *csv);

/* `hspgemm bench --suite=solve|solve-quick` (bench_solve.c): time to solution,
 * amg-setup + amg-solve (CG to --tol, b = ones) against the solve peers, on
 * its problems or the given generator specs. */
int cli_bench_solve(cli_args *a, const char *const *given, const cli_peers *p, const char *csv);

/* `hspgemm bench --suite=spmm` (bench_spmm.c): hsp_spmm against MKL and
 * scipy over the matrices given (the default suite) and L columns of B. */
int cli_bench_spmm(cli_args *a, const char *const *specs, const cli_peers *p, const char *csv);
/* Dense matrices of hspgemm spmm and bench --suite=spmm (cmd_spmm.c): a
 * packed nrows x ncols one in layout, zero; one of values uniform in [-1, 1)
 * from seed (HSP_ERR_NOMEM when out of memory). */
hsp_status cli_dense_new(int32_t nrows, int32_t ncols, hsp_order layout, hsp_precision prec, hsp_dense *M);
hsp_status cli_dense_random(int32_t nrows, int32_t ncols, hsp_order layout, hsp_precision prec, uint64_t seed,
                            hsp_dense *B);

int cmd_multiply(int argc, char **argv, int square);
int cmd_gen(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_spmm(int argc, char **argv);
int cmd_rap(int argc, char **argv);
int cmd_amg_setup(int argc, char **argv);
int cmd_amg_solve(int argc, char **argv);
/* hsp_smoother's names, by value, as --smoother takes them (options.c). */
extern const char *const cli_smoother_names[5];
/* A smoother's name for output: gs with its sweeps ("gs forward-backward"). */
const char *cli_smoother_text(hsp_smoother smoother, hsp_sweep sweep);
/* Refuse, before a set-up, an A it cannot take (no rows, a row without a
 * nonzero diagonal entry), the message naming command; 1 when refused. */
int cli_amg_check_matrix(const hsp_csr *A, const char *command);
/* amg-setup's and amg-solve's A and its hierarchy (cmd_amg.c): A's declared
 * rows checked, A loaded and checked, the context made, the hierarchy set up
 * (with --resident: A placed, in *ms_place, and the hierarchy resident);
 * the exit status, the error said as command's. */
int cli_amg_hierarchy(const cli_args *a, const char *command, hsp_csr **A, hsp_context **ctx, hsp_resident **M,
                      hsp_amg **amg, double *ms_place, char *note, size_t len);
/* The near-nullspace of A's set-up into o (nullspace.c): --nullspace=B.mtx
 * (A's rows x 1 to 16, checked), none, or (not given) for spec
 * "elasticity2d:N" the rigid-body modes of its grid (3 candidates, 2 rows a
 * node, as PyAMG's linear_elasticity gives them); --block=K (must divide A's
 * rows).  *B: the candidates (free it after the set-up), NULL when none; note:
 * a line saying which.  0, else the exit status after the error (2: bad usage). */
int cli_nullspace(const cli_args *a, const char *spec, const hsp_csr *A, const char *command, hsp_amg_options *o,
                  double **B, char *note, size_t len);
/* Write o's B (rows x o->nullspace) as a Matrix Market array file: 0, else -1. */
int cli_write_nullspace(const char *path, const hsp_amg_options *o, int32_t rows);
int cmd_options(int argc, char **argv);
/* "r-ap" or "ra-p". */
const char *cli_order_name(hsp_rap_order order);
/* "classical" or "symmetric", as --strength takes them. */
const char *cli_strength_name(hsp_strength_measure strength);
/* "auto", "greedy" or "parallel". */
const char *cli_aggregation_name(hsp_aggregation aggregation);
/* --coarsening's name of a coarsening. */
const char *cli_coarsening_name(hsp_amg_coarsening coarsening);
/* "smoothed aggregation" or "classical AMG", as the commands print a hierarchy's kind. */
const char *cli_coarsening_text(hsp_amg_coarsening coarsening);
/* The set-up's float_levels for a solve (amg-solve, bench --suite=solve, each setting it once):
 * --float-levels's, else 1 but with --resident (a GPU's hierarchy stays in A's precision). */
int cli_solve_float_levels(const cli_args *a);

#endif
