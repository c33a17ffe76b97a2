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

#endif
