/* peer.c: the command line, clock, median and errors of the bench peers. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "peer.h"

static const char *peer_name = "peer";

int peer_parse(int argc, char **argv, peer_args *a)
{
    int nfiles = 0;
    peer_name = a->name;
    for (int k = 1; k < argc; k++) {
        const char *s = argv[k];
        if (!strcmp(s, "--help")) return fputs(a->usage, stdout), -1;
        if (!strncmp(s, "--threads=", 10)) a->threads = atoi(s + 10);
        else if (!strncmp(s, "--repeat=", 9)) a->repeat = atoi(s + 9);
        else if (!strcmp(s, "--precision=float")) a->precision = HSP_FLOAT;
        else if (!strcmp(s, "--precision=double")) a->precision = HSP_DOUBLE;
        else if (s[0] != '-' && nfiles < 2) a->file[nfiles++] = s;
        else return fprintf(stderr, "%s: bad argument '%s'\n%s", a->name, s, a->usage), -2;
    }
    if (!nfiles || a->threads < 1 || a->repeat < 1 || a->repeat > 1000)
        return fprintf(stderr, "%s", a->usage), -2;
    if (nfiles == 1) a->file[1] = a->file[0];
    return 0;
}

int peer_read(const peer_args *a, hsp_csr **A, hsp_csr **B)
{
    hsp_status s = hsp_mm_read(a->file[0], a->precision, 0, A);
    *B = *A;
    if (s == HSP_OK && a->file[1] != a->file[0]) s = hsp_mm_read(a->file[1], a->precision, 0, B);
    if (s != HSP_OK) return peer_fail(hsp_strerror(s), hsp_errmsg());
    if ((*A)->ncols != (*B)->nrows) return peer_fail("shape mismatch", NULL);
    return 0;
}

double peer_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
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

int peer_fail(const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s%s%s\n", peer_name, what, detail ? ": " : "", detail ? detail : "");
    return 1;
}
