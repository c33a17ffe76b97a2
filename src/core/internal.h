/* internal.h: helpers shared by the library's source files (not installed). */
#ifndef HSP_INTERNAL_H
#define HSP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "hspgemm.h"

/* Record status and a printf-style detail as this thread's last error and
 * return status, so that callers can write: return hsp_fail(HSP_ERR_ARG, ...).
 * The detail may take hsp_errmsg() as an argument, to prefix the error a
 * check left: hsp_fail(s, "A: %s", hsp_errmsg()). */
hsp_status hsp_fail(hsp_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Clear this thread's last error. */
void hsp_clear_error(void);
/* A value a message echoes (a device name, a generator spec), cut after 64
 * characters: the arguments of "%.*s%s" (string.h needed). */
#define HSP_SHOWN(s) 64, (s), strlen(s) > 64 ? "..." : ""

/* Bytes per value of a precision. */
static inline size_t hsp_value_size(hsp_precision p)
{
    return p == HSP_DOUBLE ? sizeof(double) : sizeof(float);
}

/* a*b and a+b into *out; return nonzero on int64 overflow. */
static inline int hsp_mul_overflows(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}
static inline int hsp_add_overflows(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_add_overflow(a, b, out);
}

/* malloc for arrays that may be large (huge pages where possible, a block
 * kept by hsp_free_large where one fits); free() or hsp_free_large releases
 * the block. */
void *hsp_alloc(size_t bytes);
/* Advise the whole pages of a block of bytes at p to be huge (fewer misses of
 * the TLB, a few hundred times fewer faults at first touch), where it is
 * large (4 MiB or more) and the system has the advice. */
void hsp_advise_huge(void *p, size_t bytes);
/* The machine's physical memory in bytes (0 if unknown), and the memory
 * limit of options o: its mem_limit, else the machine's memory. */
int64_t hsp_physical_memory(void);
int64_t hsp_memory_limit(const hsp_options *o);
/* free(), but a large block is kept for a later hsp_alloc of about its size
 * (see alloc.c). */
void hsp_free_large(void *p);

/* The options a context takes from given (NULL: the defaults) into *o, whole:
 * the defaults for members past given->size (a caller built against an
 * older hspgemm.h); an error for a size this library does not know, or a
 * value out of its range (options.def). */
hsp_status hsp_options_take(const hsp_options *given, hsp_options *o);

/* Store v as value k of A, whatever its precision (hsp_csr_value's twin). */
void hsp_csr_set_value(hsp_csr *A, int64_t k, double v);

/* The two halves of hsp_csr_check: the header (sizes, arrays, rowptr[0] and
 * rowptr[nrows]), and the rows first..last-1, each checked on its own so that
 * threads can share the work. */
hsp_status hsp_csr_check_header(const hsp_csr *A);
hsp_status hsp_csr_check_rows(const hsp_csr *A, int32_t first, int32_t last);
/* hsp_csr_check but for the order of columns within a row (C of a product
 * with options.unsorted), and, where duplicates_ok, columns repeated in a
 * row (hsp_csr_sort keeps them). */
hsp_status hsp_csr_check_unordered(const hsp_csr *A, int duplicates_ok);
/* hsp_csr_check_rows over all of A's rows, in parts on a pool's threads;
 * the message names the first bad row. */
struct hsp_pool;
hsp_status hsp_csr_check_rows_pooled(struct hsp_pool *pool, const hsp_csr *A);
/* Check a dense matrix's layout (mm_dense.c): a known order and precision,
 * ld that holds its rows or columns, an array whose size fits, values where
 * it has entries; the message names it (who: "hsp_spmm: B"). */
hsp_status hsp_dense_check(const hsp_dense *M, const char *who);
/* The bytes of a checked dense M's array from its first entry to one past
 * its last (0 where it has no entries). */
size_t hsp_dense_bytes(const hsp_dense *M);
/* The strides of M's entries: (i, j) at i step[0] + j step[1]. */
void hsp_dense_steps(const hsp_dense *M, int64_t step[2]);

/* The error of a row with no nonzero diagonal entry, which smoothed
 * aggregation needs (on the host and on a device). */
hsp_status hsp_fail_diagonal(int32_t row);

/* Leave out of C the entries whose value is exactly 0 (options.drop_zeros),
 * in place; stats->nnz_c, when stats is not NULL, follows. */
void hsp_csr_drop_zeros(hsp_csr *C, hsp_stats *stats);
/* Every value of C 1 (options.pattern). */
void hsp_csr_set_ones(hsp_csr *C);

/* hsp_csr_from_triplets for values given in double (duplicates summed in
 * double), the result in precision. */
hsp_status hsp_csr_from_double_triplets(int32_t nrows, int32_t ncols, int64_t nnz,
                                        const int32_t *rows, const int32_t *cols,
                                        const double *values, hsp_precision precision,
                                        hsp_csr **out);

/* Monotonic wall clock in milliseconds. */
double hsp_now_ms(void);

/* The longest wait for a device, in seconds, where neither
 * hsp_options.device_timeout nor HSPGEMM_DEVICE_TIMEOUT says otherwise. */
#define HSP_DEVICE_TIMEOUT 600.0

/* A progress line on stderr, shown only when stderr is a terminal, enabled,
 * and the work has run for more than a second; updates at most 10 times a
 * second.  hsp_progress_done erases the line. */
typedef struct {
    const char *label;
    double start_ms, last_ms;
    int64_t total;
    int enabled, shown;
} hsp_progress;
void hsp_progress_start(hsp_progress *p, const char *label, int64_t total,
                        int enabled);
void hsp_progress_update(hsp_progress *p, int64_t done);
void hsp_progress_done(hsp_progress *p);

/* Tell the hook of hsp_set_build_hook, if any, of a kernel build of device
 * (seconds: its time, at HSP_BUILD_DONE). */
void hsp_build_heard(hsp_build_event event, const char *device, hsp_precision precision, const char *cache,
                     double seconds);

#endif
