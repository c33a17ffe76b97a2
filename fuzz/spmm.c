/* fuzz/spmm.c: sparse times dense (hsp_spmm, hsp_spmm_ellr) on small
 * operands decoded from the bytes, against the triple loop.
 *
 * Bytes 0-2 give A's rows, A's columns (= B's rows) and C's columns L
 * (1..64, 1..64, 1..40); byte 3 the precision, whether A is taken raw,
 * prepared (hsp_ellr) or not, and B's and C's orders; byte 4 B's and C's
 * padding (ld past the least by 0..3) and (alpha, beta); byte 5 what the
 * environment forces: the copy of column-major B by slabs, C stored past
 * the caches, the width of the CPU's vectors, a prepared A's copy of its
 * rows by length.  The rest are A's entries of
 * 3 bytes (fuzz.h), 512 at most.  B's and C's values are small multiples of
 * 1/4 and A's of 1/16, so that every sum is exact in either precision and C
 * must equal the loop's bit for bit; C's padding must be untouched, and
 * where beta is 0 C's old values are NaN, which must not spread.  An
 * invalid raw A must be refused with C untouched. */
#include <math.h>
#include <string.h>
#include "fuzz.h"

enum { MAX_ROWS = 64, MAX_COLS = 40, MAX_ENTRIES = 512 }; /* entries of A: every sum exact in float */
static const double scales[][2] = {{1, 0}, {2.5, -1}, {0, 1}, {-1, 0.5}, {0.5, 0}, {1, 1}, {-2, 0}, {0, 0}};
static const char *const forced[] = {NULL, "always", "never"};
static const char *const vectors[] = {NULL, "256", "128"};

/* The CPU threads' context: two threads, made at the first use. */
static hsp_context *context(void)
{
    static hsp_context *ctx;
    hsp_options o;
    if (ctx) return ctx;
    hsp_options_init(&o);
    o.device = "cpu", o.threads = 2;
    if (hsp_context_create(&o, &ctx) != HSP_OK) fuzz_fail("no context: %s", hsp_errmsg());
    return ctx;
}

/* name set to value, or unset where value is NULL. */
static void force(const char *name, const char *value)
{
    if (value) setenv(name, value, 1);
    else unsetenv(name);
}

/* The place in M's values of entry (i, j). */
static size_t at(const hsp_dense *M, int64_t i, int64_t j)
{
    return (size_t)(M->order == HSP_ROW_MAJOR ? i * M->ld + j : j * M->ld + i);
}

/* M's value at place k, and (set) a value put there. */
static double get(const hsp_dense *M, size_t k)
{
    return M->precision == HSP_DOUBLE ? ((double *)M->values)[k] : ((float *)M->values)[k];
}

static void set(hsp_dense *M, size_t k, double v)
{
    if (M->precision == HSP_DOUBLE) ((double *)M->values)[k] = v;
    else ((float *)M->values)[k] = (float)v;
}

/* The values M's array holds, the last line's padding included. */
static size_t array_values(const hsp_dense *M)
{
    return (size_t)((M->order == HSP_ROW_MAJOR ? M->nrows : M->ncols) * M->ld);
}

/* The bytes of M's array. */
static size_t array_bytes(const hsp_dense *M)
{
    return array_values(M) * (M->precision == HSP_DOUBLE ? 8 : 4);
}

/* A rows x cols dense matrix in order, ld pad past the least: its entries
 * small multiples of 1/4 from seed (NaN where nan: the old C of beta 0),
 * its padding -7 (checked after). */
static hsp_dense dense(int32_t rows, int32_t cols, hsp_order order, int pad, hsp_precision p, int seed, int nan)
{
    hsp_dense M = {rows, cols, (order == HSP_ROW_MAJOR ? cols : rows) + pad, order, p, NULL};
    if (!(M.values = malloc(array_bytes(&M) + 1))) fuzz_fail("no memory");
    for (size_t k = 0; k < array_values(&M); k++) set(&M, k, -7);
    for (int32_t i = 0; i < rows; i++)
        for (int32_t j = 0; j < cols; j++) set(&M, at(&M, i, j), nan ? NAN : ((i * 7 + j * 13 + seed) % 17 - 8) / 4.0);
    return M;
}

/* C, after alpha A B + beta C0, against the loop (C0 NaN where beta is 0),
 * and C's padding against C0's. */
static void compare(const hsp_csr *A, const hsp_dense *B, const hsp_dense *C0, const hsp_dense *C, double alpha,
                    double beta)
{
    for (int32_t i = 0; i < C->nrows; i++)
        for (int32_t j = 0; j < C->ncols; j++) {
            double sum = 0, want;
            for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
                sum += (A->precision == HSP_DOUBLE ? ((double *)A->values)[p] : ((float *)A->values)[p]) *
                       get(B, at(B, A->colidx[p], j));
            want = alpha * sum + (beta == 0 ? 0 : beta * get(C0, at(C0, i, j)));
            if (get(C, at(C, i, j)) != want)
                fuzz_fail("C(%d, %d) = %g, the loop gives %g", i, j, get(C, at(C, i, j)), want);
        }
    for (size_t k = 0; k < array_values(C); k++)
        if (k % (size_t)C->ld >= (size_t)(C->order == HSP_ROW_MAJOR ? C->ncols : C->nrows) && get(C, k) != -7)
            fuzz_fail("C's padding at %zu changed", k);
}

/* C = alpha A B + beta C through A as given or prepared. */
static hsp_status product(int prepared, double alpha, const hsp_csr *A, const hsp_dense *B, double beta,
                          hsp_dense *C)
{
    hsp_ellr *E = NULL;
    if (!prepared) return hsp_spmm(context(), alpha, A, B, beta, C, NULL);
    hsp_status s = hsp_ellr_from_csr(context(), A, &E);
    if (s == HSP_OK) s = hsp_spmm_ellr(context(), alpha, E, B, beta, C, NULL);
    hsp_ellr_free(E);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 6) return 0;
    int32_t m = 1 + data[0] % MAX_ROWS, k = 1 + data[1] % MAX_ROWS, L = 1 + data[2] % MAX_COLS;
    int is_raw = data[3] & 1, prepared = data[3] >> 1 & 1;
    hsp_precision p = data[3] & 4 ? HSP_FLOAT : HSP_DOUBLE;
    hsp_order ob = (hsp_order)(data[3] >> 3 & 1), oc = (hsp_order)(data[3] >> 4 & 1);
    double alpha = scales[data[4] >> 4 & 7][0], beta = scales[data[4] >> 4 & 7][1];
    force("HSPGEMM_SPMM_SLABS", forced[data[5] % 3]);
    force("HSPGEMM_SPMM_STREAM", forced[data[5] / 3 % 3]);
    force("HSPGEMM_CPU_VECTORS", vectors[data[5] / 9 % 3]);
    force("HSPGEMM_SPMM_BY_LENGTH", forced[data[5] / 27 % 3]);
    int64_t n = (int64_t)(size - 6) / 3 < MAX_ENTRIES ? (int64_t)(size - 6) / 3 : MAX_ENTRIES;
    hsp_csr *A = is_raw ? fuzz_raw_csr(m, k, data + 6, n, p) : fuzz_entries_csr(m, k, data + 6, n, p);
    hsp_dense B = dense(k, L, ob, data[4] & 3, p, data[0], 0);
    hsp_dense C = dense(m, L, oc, data[4] >> 2 & 3, p, data[1], beta == 0), C0 = C;
    size_t bytes = array_bytes(&C);
    if (!(C0.values = malloc(bytes + 1))) fuzz_fail("no memory");
    memcpy(C0.values, C.values, bytes);
    hsp_status s = product(prepared, alpha, A, &B, beta, &C);
    if (is_raw && hsp_csr_check(A) != HSP_OK) {
        int changed = memcmp(C.values, C0.values, bytes) != 0;
        if (s != HSP_ERR_INVALID_CSR || changed)
            fuzz_fail("an invalid A: %s, C %s", hsp_strerror(s), changed ? "changed" : "kept");
    } else if (s != HSP_OK) {
        fuzz_fail("the product failed: %s", hsp_errmsg());
    } else {
        compare(A, &B, &C0, &C, alpha, beta);
    }
    hsp_csr_free(A), free(B.values), free(C.values), free(C0.values);
    return 0;
}
