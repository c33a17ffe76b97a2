/* status.c: status names, this thread's last error message, and the clock. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "core/internal.h"

static _Thread_local char last_error[512];

const char *hsp_strerror(hsp_status status)
{
    switch (status) {
    case HSP_OK: return "success";
    case HSP_ERR_ARG: return "invalid argument";
    case HSP_ERR_NOMEM: return "out of memory";
    case HSP_ERR_SHAPE: return "shape mismatch";
    case HSP_ERR_INVALID_CSR: return "invalid CSR matrix";
    case HSP_ERR_OVERFLOW: return "count overflow";
    case HSP_ERR_IO: return "input/output error";
    case HSP_ERR_PARSE: return "malformed Matrix Market file";
    case HSP_ERR_DEVICE: return "device error";
    case HSP_ERR_UNSUPPORTED: return "not supported";
    }
    return "unknown status";
}

const char *hsp_errmsg(void)
{
    return last_error;
}

hsp_status hsp_fail(hsp_status status, const char *fmt, ...)
{
    char message[sizeof last_error]; /* an argument may be last_error itself */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    memcpy(last_error, message, sizeof message);
    return status;
}

void hsp_clear_error(void)
{
    last_error[0] = '\0';
}

double hsp_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}
