/* fuzz.h: what the libFuzzer targets of fuzz/ share.  Each target is one
 * LLVMFuzzerTestOneInput; fuzz/run.sh builds them with clang's
 * -fsanitize=fuzzer,address,undefined over the library's sources and runs
 * each for a given time (make fuzz).  A target aborts, which libFuzzer
 * reports as a crash with the input, when the library breaks its contract. */
#ifndef HSP_FUZZ_H
#define HSP_FUZZ_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "../tests/ref.h"

/* Say why and abort. */
static inline void __attribute__((noreturn, format(printf, 1, 2))) fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

/* A call that returned s and out: success with a matrix, or a failure with
 * no matrix and a message. */
static inline void fuzz_expect_status(hsp_status s, const hsp_csr *out)
{
    if (s == HSP_OK && !out) fuzz_fail("HSP_OK without a matrix");
    if (s != HSP_OK && out) fuzz_fail("%s, yet a matrix", hsp_strerror(s));
    if (s != HSP_OK && !*hsp_errmsg()) fuzz_fail("%s without a message", hsp_strerror(s));
}

/* A rows x cols matrix of the n entries of 3 bytes at e (a row, a column, a
 * value: a signed byte / 16) through hsp_csr_from_triplets (any order,
 * duplicates summed). */
static inline hsp_csr *fuzz_entries_csr(int32_t rows, int32_t cols, const uint8_t *e, int64_t n, hsp_precision p)
{
    int32_t *r = malloc((size_t)(n + 1) * sizeof *r), *c = malloc((size_t)(n + 1) * sizeof *c);
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    hsp_csr *M = NULL;
    if (!r || !c || !v) fuzz_fail("no memory");
    for (int64_t k = 0; k < n; k++)
        r[k] = e[3 * k] % rows, c[k] = e[3 * k + 1] % cols, v[k] = (int8_t)e[3 * k + 2] / 16.0;
    if (hsp_csr_from_triplets(rows, cols, n, r, c, v, p, &M) != HSP_OK)
        fuzz_fail("valid triplets refused: %s", hsp_errmsg());
    free(r), free(c), free(v);
    return M;
}

/* A rows x cols matrix of n entries whose row lengths and columns are the
 * bytes at e as they come (3 bytes an entry: a row length, a column, a
 * value as above); the last row takes the entries left.  Not checked: it
 * may not be CSR. */
static inline hsp_csr *fuzz_raw_csr(int32_t rows, int32_t cols, const uint8_t *e, int64_t n, hsp_precision p)
{
    hsp_csr *M = NULL;
    if (hsp_csr_create(rows, cols, n, p, &M) != HSP_OK) fuzz_fail("no matrix: %s", hsp_errmsg());
    M->rowptr[0] = 0;
    for (int32_t i = 0; i < rows; i++) {
        int64_t end = M->rowptr[i] + (i < n ? e[3 * i] % 8 : 0);
        M->rowptr[i + 1] = end < n ? end : n;
    }
    M->rowptr[rows] = n;
    for (int64_t k = 0; k < n; k++) {
        M->colidx[k] = (int8_t)e[3 * k + 1];
        if (p == HSP_DOUBLE) ((double *)M->values)[k] = (int8_t)e[3 * k + 2] / 16.0;
        else ((float *)M->values)[k] = (float)((int8_t)e[3 * k + 2] / 16.0);
    }
    return M;
}

#endif
