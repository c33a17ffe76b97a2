/* tap.c: a minimal Test Anything Protocol writer; the plan comes last. */
#include <stdarg.h>
#include <stdio.h>
#include "tap.h"

static int tests_run, tests_failed;

/* One test line; a failure counts unless todo names work still to do. */
static int tap_line(int cond, const char *todo, const char *fmt, va_list ap)
{
    tests_run++;
    if (!cond && !todo) tests_failed++;
    printf("%s %d - ", cond ? "ok" : "not ok", tests_run);
    vprintf(fmt, ap);
    if (todo) printf(" # TODO %s", todo);
    printf("\n");
    fflush(stdout);
    return cond;
}

int tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cond = tap_line(cond, NULL, fmt, ap);
    va_end(ap);
    return cond;
}

int tap_todo(int cond, const char *todo, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cond = tap_line(cond, todo, fmt, ap);
    va_end(ap);
    return cond;
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
