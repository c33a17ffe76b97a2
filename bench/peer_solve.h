/* peer_solve.h: what the AMG solve peers of `hspgemm bench --suite=solve` share: their
 * command line, the system read (A, its near-nullspace candidates), the warm-up and timed
 * runs, the true residual and the JSON line.  The clock and quartiles are peer.h's. */
#ifndef HSP_PEER_SOLVE_H
#define HSP_PEER_SOLVE_H

#include "hspgemm.h"

/* --solve [--tol=X] [--maxiter=N] [--repeat=R] [--threads=N] [--block=K] [--nullspace=B.mtx] A.mtx */
typedef struct {
    const char *name, *usage; /* set by the peer before solve_parse */
    double tol;               /* relative 2-norm of the residual; default 1e-8 */
    int maxiter, repeat;      /* defaults 200 and 3 */
    int threads;              /* taken, reported as 1: one MPI rank, one thread */
    int block;                /* rows per node (--block=K); default 1 */
    const char *nullspace;    /* --nullspace=B.mtx, or NULL */
    const char *file;         /* A.mtx */
} solve_args;

/* The system: A (double, square) and, with --nullspace, its candidates (n x k, column-major). */
typedef struct {
    hsp_csr *A;
    hsp_dense B; /* B.values NULL without --nullspace */
} solve_system;

/* What one setup + solve gives back to the driver (levels < 1 or complexity <= 0: not known,
 * left out of the JSON line). */
typedef struct {
    double setup_ms, solve_ms;
    int iterations, levels;
    double complexity; /* operator complexity: the entries of all levels' matrices over A's */
} solve_run;

/* The peer's run: a fresh setup and a solve of A x = ones from x = 0, timed apart, the solution
 * copied into x (n values).  0 when done (converged or not), else 1 after a message (solve_fail). */
typedef int (*solve_fn)(void *peer, double *x, solve_run *run);

/* What the JSON line says of the peer: its name, version and the options it solved with. */
typedef struct {
    const char *peer, *version, *options;
} solve_report;

/* Parse argv into a: 0 when parsed, -1 after --help (usage on stdout), -2 on bad usage (a
 * message and the usage on stderr), SOLVE_VERSION for --version. */
enum { SOLVE_VERSION = -3 };
int solve_parse(int argc, char **argv, solve_args *a);
/* Read A (square) and the candidates (n rows, n a multiple of the block); 1 after a message. */
int solve_read(const solve_args *a, solve_system *s);
void solve_system_free(solve_system *s);
/* The candidates orthonormalized (modified Gram-Schmidt, column-major n x k, in a new array, NULL
 * after a message when out of memory or when a column depends on the others). */
double *solve_orthonormal(const hsp_dense *B);
/* One warm-up run and a->repeat timed runs of fn, then the JSON line (report's fields, the
 * times' medians and quartiles, the iterations, levels, complexity and true relative residual
 * of the last run).
 * 0 when printed, else 1 after a message. */
int solve_bench(const solve_args *a, const hsp_csr *A, solve_fn fn, void *peer, const solve_report *report);
/* Print "NAME: what: detail" (detail may be NULL) on stderr; returns 1. */
int solve_fail(const char *what, const char *detail);

#endif
