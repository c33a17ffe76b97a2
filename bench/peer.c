/* peer.c: the command line, factors, clock, median and errors of the bench peers. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "peer.h"

static const char *peer_name = "peer";

/* Print "NAME: message 'arg'" (arg may be NULL) and the usage on stderr; returns -2. */
static int bad_usage(const peer_args *a, const char *message, const char *arg)
{
    fprintf(stderr, "%s: %s", a->name, message);
    if (arg) fprintf(stderr, " '%s'", arg);
    fprintf(stderr, "\n%s", a->usage);
    return -2;
}

int peer_parse(int argc, char **argv, peer_args *a)
{
    int nfiles = 0;
    peer_name = a->name;
    a->order = PEER_AB;
    for (int k = 1; k < argc; k++) {
        const char *s = argv[k];
        if (!strcmp(s, "--help")) return fputs(a->usage, stdout), -1;
        if (!strcmp(s, "--version")) return PEER_VERSION;
        if (!strncmp(s, "--threads=", 10)) a->threads = atoi(s + 10);
        else if (!strncmp(s, "--repeat=", 9)) a->repeat = atoi(s + 9);
        else if (!strcmp(s, "--precision=float")) a->precision = HSP_FLOAT;
        else if (!strcmp(s, "--precision=double")) a->precision = HSP_DOUBLE;
        else if (!strcmp(s, "--rap=r-ap")) a->order = PEER_R_AP;
        else if (!strcmp(s, "--rap=ra-p")) a->order = PEER_RA_P;
        else if (!strncmp(s, "--spmm=", 7) && a->spmm_cols >= 0) { /* -1: the peer takes no --spmm */
            if ((a->spmm_cols = atoi(s + 7)) < 1) return bad_usage(a, "--spmm=L takes L >= 1, not", s);
        }
        else if ((!strcmp(s, "--layout=row") || !strcmp(s, "--layout=col")) && a->spmm_cols >= 0)
            a->col_major = !strcmp(s, "--layout=col");
        else if (s[0] != '-' && nfiles < 3) a->file[nfiles++] = s;
        else return bad_usage(a, s[0] == '-' ? "bad argument" : "too many files at", s);
    }
    a->nfactors = a->spmm_cols > 0 ? 1 : a->order == PEER_AB ? 2 : 3;
    if (a->spmm_cols > 0 && (nfiles != 1 || a->order != PEER_AB))
        return bad_usage(a, "--spmm=L takes one file, A.mtx", NULL);
    if (a->col_major && !a->spmm_cols) return bad_usage(a, "--layout=col goes with --spmm=L", NULL);
    if (a->order != PEER_AB && nfiles != 3) return bad_usage(a, "--rap takes three files, R.mtx A.mtx P.mtx", NULL);
    if (a->order == PEER_AB && nfiles == 3) return bad_usage(a, "three files need --rap=r-ap or --rap=ra-p", NULL);
    if (!nfiles || a->threads < 1 || a->repeat < 1 || a->repeat > 1000)
        return fprintf(stderr, "%s", a->usage), -2;
    if (nfiles == 1) a->file[1] = a->file[0];
    return 0;
}

const char *peer_factor_name(const peer_args *a, int k)
{
    static const char *const name[2][3] = {{"A", "B"}, {"R", "A", "P"}};
    return name[a->order != PEER_AB][k];
}

/* Fail unless the columns of factor k-1 match the rows of factor k, naming both shapes. */
static int check_shapes(const peer_args *a, hsp_csr **M, int k)
{
    char detail[160];
    if (M[k - 1]->ncols == M[k]->nrows) return 0;
    snprintf(detail, sizeof detail, "%s is %d x %d but %s is %d x %d", peer_factor_name(a, k - 1),
             (int)M[k - 1]->nrows, (int)M[k - 1]->ncols, peer_factor_name(a, k), (int)M[k]->nrows,
             (int)M[k]->ncols);
    return peer_fail("shape mismatch", detail);
}

int peer_shared(hsp_csr **M, int k)
{
    return k && M[k] == M[k - 1];
}

/* Free the first n factors of M, each once (last first: M[k] is compared before M[k-1] is freed). */
static void free_first(hsp_csr **M, int n)
{
    for (int k = n - 1; k >= 0; k--)
        if (!peer_shared(M, k)) hsp_csr_free(M[k]);
}

int peer_read(const peer_args *a, hsp_csr **M)
{
    for (int k = 0; k < a->nfactors; k++) {
        hsp_status s = HSP_OK;
        if (k && a->file[k] == a->file[k - 1]) M[k] = M[k - 1];
        else s = hsp_mm_read(a->file[k], a->precision, 0, &M[k]);
        if (s != HSP_OK) return peer_fail(hsp_strerror(s), hsp_errmsg()), free_first(M, k), 1;
    }
    for (int k = 1; k < a->nfactors; k++)
        if (check_shapes(a, M, k)) return free_first(M, a->nfactors), 1;
    return 0;
}

void peer_free(const peer_args *a, hsp_csr **M)
{
    free_first(M, a->nfactors);
}

const char *peer_order_json(const peer_args *a)
{
    return a->order == PEER_R_AP ? ",\"order\":\"r-ap\"" : a->order == PEER_RA_P ? ",\"order\":\"ra-p\"" : "";
}

void *peer_dense(int64_t nrows, int cols, hsp_precision precision)
{
    size_t n = (size_t)nrows * (size_t)cols, size = precision == HSP_DOUBLE ? 8 : 4;
    void *x = NULL;
    uint64_t seed = 2;
    if (posix_memalign(&x, 64, n ? n * size : 1) != 0) return NULL;
    for (size_t k = 0; x && k < n; k++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        double v = (double)(seed >> 11) / 9007199254740992.0 * 2 - 1;
        if (size == 8) ((double *)x)[k] = v;
        else ((float *)x)[k] = (float)v;
    }
    return x;
}

double peer_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

int peer_warming(double start, int runs)
{
    return runs == 0 || (runs < PEER_WARM_RUNS && peer_now_ms() - start < PEER_WARM_MS);
}

static int compare_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double peer_median(double *ms, int n)
{
    qsort(ms, (size_t)n, sizeof *ms, compare_double);
    return n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
}

double peer_quantile(const double *ms, int n, double q)
{
    double at = q * (n - 1);
    int k = (int)at;
    return k + 1 < n ? ms[k] + (at - k) * (ms[k + 1] - ms[k]) : ms[n - 1];
}

void peer_print_times(const char *key, double *ms, int n)
{
    double median = peer_median(ms, n);
    printf(",\"%s_median\":%.4f,\"%s_min\":%.4f,\"%s_max\":%.4f,\"%s_q1\":%.4f,\"%s_q3\":%.4f", key, median, key,
           ms[0], key, ms[n - 1], key, peer_quantile(ms, n, 0.25), key, peer_quantile(ms, n, 0.75));
}

int peer_fail(const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s%s%s\n", peer_name, what, detail ? ": " : "", detail ? detail : "");
    return 1;
}
