/* peer.h: what the bench peers share: their command line, reading the factors,
 * the clock, the median of the timed runs, and error messages. */
#ifndef HSP_PEER_H
#define HSP_PEER_H

#include "hspgemm.h"

/* The product timed: C = A*B, or the Galerkin product C = R*A*P as R*(A*P) or (R*A)*P. */
typedef enum { PEER_AB, PEER_R_AP, PEER_RA_P } peer_order;

/* [--threads=N] [--repeat=R] [--precision=float|double] A.mtx [B.mtx]
 * [--threads=N] [--repeat=R] [--precision=float|double] --rap=r-ap|ra-p R.mtx A.mtx P.mtx
 * [--threads=N] [--repeat=R] [--precision=float|double] --spmm=L [--layout=row|col] A.mtx (peers that take it) */
typedef struct {
    const char *name, *usage; /* set by the peer before peer_parse */
    int threads, repeat;      /* defaults set by the peer */
    hsp_precision precision;
    peer_order order;         /* PEER_AB unless --rap is given */
    int spmm_cols;            /* --spmm=L: C = A X for a dense X of L columns (0: not given) */
    int col_major;            /* --layout=col (with --spmm): X and C column-major, else row-major */
    int nfactors;             /* 2 (A, B), 3 (R, A, P), or 1 (A, with --spmm) */
    const char *file[3];      /* the factors' files; file[1] is file[0] when B is not given */
} peer_args;

/* Parse argv into a: 0 when parsed, -1 after --help (usage on stdout), -2 on
 * bad usage (usage on stderr), PEER_VERSION for --version (the peer then
 * prints {"peer":NAME,"version":V} when it can run here, else fails). */
enum { PEER_VERSION = -3 };
int peer_parse(int argc, char **argv, peer_args *a);
/* The name of factor k in messages: A, B or R, A, P. */
const char *peer_factor_name(const peer_args *a, int k);
/* Read the a->nfactors factors into M, checking that their shapes chain; a factor
 * whose file is that of the one before it (B when one file is given) is the same
 * matrix, read once.  1 after an error message, with nothing left allocated. */
int peer_read(const peer_args *a, hsp_csr **M);
/* Whether factor k is the factor before it, read once (B when one file is given): to convert,
 * upload and free once. */
int peer_shared(hsp_csr **M, int k);
/* Free the factors peer_read gave, each once. */
void peer_free(const peer_args *a, hsp_csr **M);
/* The JSON member ,"order":"r-ap" or ,"order":"ra-p" of a Galerkin product; "" for A*B. */
const char *peer_order_json(const peer_args *a);
/* A dense ncols x L matrix, row-major, values uniform in [-1, 1) from a
 * fixed seed, in the precision (8 or 4 bytes a value), starting on a cache
 * line (64 bytes), as hspgemm's in the bench; NULL when out of memory.  The
 * bench's SpMM operand: its values do not change the time, where it starts
 * in a line does (doc/benchmark.md, "Sparse times dense"). */
void *peer_dense(int64_t nrows, int cols, hsp_precision precision);
/* Milliseconds of a monotonic clock. */
double peer_now_ms(void);
/* The peers' warm-up, as hspgemm's bench warms up (cli/cli.h: CLI_WARM_MS):
 * untimed runs until PEER_WARM_MS have passed since start, at least one and
 * at most PEER_WARM_RUNS; whether to run again after runs of them. */
#define PEER_WARM_MS 50.0
enum { PEER_WARM_RUNS = 100 };
int peer_warming(double start, int runs);
/* Sort the n times; their median (ms[0] is then the least). */
double peer_median(double *ms, int n);
/* The q-quantile of the n sorted times, interpolated between neighbours. */
double peer_quantile(const double *ms, int n, double q);
/* The JSON members ,"KEY_median":M,"KEY_min":m,"KEY_max":x,"KEY_q1":a,"KEY_q3":b
 * (the quartiles) of the n times (sorted) on stdout. */
void peer_print_times(const char *key, double *ms, int n);
/* Print "NAME: what: detail" on stderr; returns 1. */
int peer_fail(const char *what, const char *detail);

#endif
