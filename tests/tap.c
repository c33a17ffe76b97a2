/* tap.c: a minimal Test Anything Protocol writer; the plan comes last. */
#include <stdarg.h>
#include <stdio.h>
#include "tap.h"

static int tests_run, tests_failed;

int tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    tests_run++;
    if (!cond) tests_failed++;
    printf("%s %d - ", cond ? "ok" : "not ok", tests_run);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    return cond;
}

void tap_skip(const char *why, const char *fmt, ...)
{
    va_list ap;
    tests_run++;
    printf("ok %d - ", tests_run);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf(" # SKIP %s\n", why);
    fflush(stdout);
}

void tap_diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

int tap_done(void)
{
    printf("1..%d\n", tests_run);
    return tests_failed != 0;
}
