/* peer.h: what the bench peers share: their command line, the clock, the
 * median of the timed runs, and error messages. */
#ifndef HSP_PEER_H
#define HSP_PEER_H

#include "hspgemm.h"

/* [--threads=N] [--repeat=R] [--precision=float|double] A.mtx [B.mtx] */
typedef struct {
    const char *name, *usage; /* set by the peer before peer_parse */
    int threads, repeat;      /* defaults set by the peer */
    hsp_precision precision;
    const char *file[2];      /* file[1] is file[0] when B is not given */
} peer_args;

/* Parse argv into a: 0 when parsed, -1 after --help (usage on stdout), -2 on
 * bad usage (usage on stderr). */
int peer_parse(int argc, char **argv, peer_args *a);
/* Read A and B (B is A when one file is given); 1 after an error message. */
int peer_read(const peer_args *a, hsp_csr **A, hsp_csr **B);
/* Milliseconds of a monotonic clock. */
double peer_now_ms(void);
/* Sort the n times; their median (ms[0] is then the least). */
double peer_median(double *ms, int n);
/* Print "NAME: what: detail" on stderr; returns 1. */
int peer_fail(const char *what, const char *detail);

#endif
