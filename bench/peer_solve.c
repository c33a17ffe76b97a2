/* peer_solve.c: the command line, system, runs, true residual and JSON line of the AMG solve peers. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "peer.h"
#include "peer_solve.h"

static const char *solve_name = "peer";

int solve_fail(const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s%s%s\n", solve_name, what, detail ? ": " : "", detail ? detail : "");
    return 1;
}

/* Print "NAME: message 'arg'" and the usage on stderr; returns -2. */
static int bad_usage(const solve_args *a, const char *message, const char *arg)
{
    fprintf(stderr, "%s: %s '%s'\n%s", a->name, message, arg, a->usage);
    return -2;
}

/* The whole of text as a number in [low, high] into *v; 0 when it is one. */
static int parse_number(const char *text, double low, double high, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(text, &end);
    return !*text || *end || errno || !(*v >= low && *v <= high);
}

/* Option s of the form PREFIX=VALUE with VALUE a number in [low, high] into *v: 1 when s has the
 * prefix and the value is good, 0 when s has not the prefix, -2 (after the usage) when bad. */
static int number_option(const solve_args *a, const char *s, const char *prefix, double low, double high,
                         double *v)
{
    size_t length = strlen(prefix);
    if (strncmp(s, prefix, length)) return 0;
    return parse_number(s + length, low, high, v) ? bad_usage(a, "bad value in", s) : 1;
}

/* The options that take a number: 1 when s was one (into a), 0 when not, -2 when its value is bad. */
static int numeric_options(solve_args *a, const char *s)
{
    double v;
    int r;
    if ((r = number_option(a, s, "--tol=", 1e-300, 1, &v)) == 1) a->tol = v;
    else if (!r && (r = number_option(a, s, "--maxiter=", 1, 1e6, &v)) == 1) a->maxiter = (int)v;
    else if (!r && (r = number_option(a, s, "--repeat=", 1, 1000, &v)) == 1) a->repeat = (int)v;
    else if (!r && (r = number_option(a, s, "--threads=", 1, 4096, &v)) == 1) a->threads = (int)v;
    else if (!r && (r = number_option(a, s, "--block=", 1, 64, &v)) == 1) a->block = (int)v;
    if (r == 1 && strncmp(s, "--tol=", 6) && v != (int)v) return bad_usage(a, "a whole number is needed in", s);
    return r;
}

int solve_parse(int argc, char **argv, solve_args *a)
{
    int solve = 0, r;
    solve_name = a->name;
    a->tol = 1e-8, a->maxiter = 200, a->repeat = 3, a->threads = 1, a->block = 1;
    a->nullspace = a->file = NULL;
    for (int k = 1; k < argc; k++) {
        const char *s = argv[k];
        if (!strcmp(s, "--help")) return fputs(a->usage, stdout), -1;
        if (!strcmp(s, "--version")) return SOLVE_VERSION;
        if (!strcmp(s, "--solve")) solve = 1;
        else if ((r = numeric_options(a, s))) {
            if (r < 0) return r;
        } else if (!strncmp(s, "--nullspace=", 12) && s[12]) a->nullspace = s + 12;
        else if (s[0] != '-' && !a->file) a->file = s;
        else return bad_usage(a, s[0] == '-' ? "bad argument" : "one matrix file only, not also", s);
    }
    if (!solve || !a->file) return fprintf(stderr, "%s: --solve and A.mtx are needed\n%s", a->name, a->usage), -2;
    return 0;
}

/* Fail unless A is square, and B (when read) has A's rows, in whole nodes of `block` rows. */
static int check_system(const solve_args *a, const solve_system *s)
{
    char detail[200];
    const hsp_csr *A = s->A;
    if (A->nrows < 1) snprintf(detail, sizeof detail, "A has no rows");
    else if (A->nrows != A->ncols) snprintf(detail, sizeof detail, "A is %d x %d, not square", A->nrows, A->ncols);
    else if (A->nrows % a->block)
        snprintf(detail, sizeof detail, "A's %d rows are no whole number of nodes of %d (--block)", A->nrows, a->block);
    else if (s->B.values && s->B.nrows != A->nrows)
        snprintf(detail, sizeof detail, "B (%s) has %d rows, A %d", a->nullspace, s->B.nrows, A->nrows);
    else return 0;
    return solve_fail("bad system", detail);
}

int solve_read(const solve_args *a, solve_system *s)
{
    memset(s, 0, sizeof *s);
    hsp_status status = hsp_mm_read(a->file, HSP_DOUBLE, 0, &s->A);
    if (status == HSP_OK && a->nullspace) status = hsp_mm_read_dense(a->nullspace, HSP_DOUBLE, &s->B);
    if (status != HSP_OK) return solve_fail(hsp_strerror(status), hsp_errmsg()), solve_system_free(s), 1;
    if (check_system(a, s)) return solve_system_free(s), 1;
    return 0;
}

void solve_system_free(solve_system *s)
{
    hsp_csr_free(s->A);
    hsp_dense_free(&s->B);
    s->A = NULL;
}

/* The 2-norm of the n values of v. */
static double norm2(const double *v, int64_t n)
{
    double sum = 0;
    for (int64_t i = 0; i < n; i++) sum += v[i] * v[i];
    return sqrt(sum);
}

double *solve_orthonormal(const hsp_dense *B)
{
    int64_t n = B->nrows;
    double *Q = malloc((size_t)(n * B->ncols) * sizeof *Q);
    if (!Q) return solve_fail("out of memory", "the near-nullspace candidates"), NULL;
    for (int j = 0; j < B->ncols; j++) {
        double *q = Q + j * n, before;
        memcpy(q, (const double *)B->values + j * B->ld, (size_t)n * sizeof *q);
        before = norm2(q, n);
        for (int i = 0; i < j; i++) { /* q -= (q . Q_i) Q_i */
            double dot = 0;
            for (int64_t r = 0; r < n; r++) dot += q[r] * Q[i * n + r];
            for (int64_t r = 0; r < n; r++) q[r] -= dot * Q[i * n + r];
        }
        double length = norm2(q, n);
        if (!(length > 1e-10 * before)) return free(Q), solve_fail("bad near-nullspace", "a column of B is zero or "
                                                                   "depends on the columns before it"), NULL;
        for (int64_t r = 0; r < n; r++) q[r] /= length;
    }
    return Q;
}

/* ||b - A x||_2 / ||b||_2 by a plain CSR product, b = ones. */
static double true_relres(const hsp_csr *A, const double *x)
{
    const double *values = A->values;
    double sum = 0;
    for (int32_t i = 0; i < A->nrows; i++) {
        double r = 1;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) r -= values[k] * x[A->colidx[k]];
        sum += r * r;
    }
    return sqrt(sum) / sqrt((double)A->nrows);
}

/* The JSON line of the runs' times (each array of a->repeat, sorted as printed) and the last run. */
static void print_line(const solve_args *a, const solve_report *report, double *ms[3], const solve_run *last,
                       double relres)
{
    printf("{\"peer\":\"%s\",\"version\":\"%s\",\"threads\":1,\"runs\":%d", report->peer, report->version, a->repeat);
    peer_print_times("setup_ms", ms[0], a->repeat);
    peer_print_times("solve_ms", ms[1], a->repeat);
    peer_print_times("total_ms", ms[2], a->repeat);
    printf(",\"iterations\":%d,\"relres\":", last->iterations);
    if (isfinite(relres)) printf("%.6e", relres);
    else fputs("null", stdout); /* JSON has no NaN: a solve that broke down */
    printf(",\"converged\":%s", relres <= a->tol ? "true" : "false");
    if (last->levels > 0) printf(",\"levels\":%d", last->levels);
    if (last->complexity > 0) printf(",\"complexity\":%.6f", last->complexity);
    printf(",\"options\":\"%s\"}\n", report->options);
}

int solve_bench(const solve_args *a, const hsp_csr *A, solve_fn fn, void *peer, const solve_report *report)
{
    size_t runs = (size_t)a->repeat;
    double *x = malloc((size_t)A->nrows * sizeof *x), *times = malloc(3 * runs * sizeof *times);
    double *ms[3] = {times, times + runs, times + 2 * runs};
    solve_run run = {0};
    int failed = !x || !times ? solve_fail("out of memory", NULL) : 0;
    for (int k = -1; !failed && k < a->repeat; k++) { /* k = -1: the warm-up */
        failed = fn(peer, x, &run);
        if (k >= 0) ms[0][k] = run.setup_ms, ms[1][k] = run.solve_ms, ms[2][k] = run.setup_ms + run.solve_ms;
    }
    if (!failed) print_line(a, report, ms, &run, true_relres(A, x));
    free(x), free(times);
    return failed;
}
