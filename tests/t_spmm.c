/* t_spmm.c: hsp_spmm, C = alpha A B + beta C, against a plain triple loop in
 * double: both precisions, B and C in either order with padded leading
 * dimensions, L = 1 and L not a multiple of the columns a pass takes,
 * alpha and beta cases, empty rows and one very long row, rectangular A;
 * column-major B copied by several chunks of rows, or by slabs of C's rows;
 * beta = 0 ignores C's old
 * values; on the cpu device the row kernels of 256- and 128-bit vectors too
 * (HSPGEMM_CPU_VECTORS); one prepared A multiplied by two threads on two
 * contexts at once; on the CPU threads a copy of A's rows by length;
 * bad operands (C over B among them) are refused with C untouched. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ref.h"
#include "tap.h"

/* A dense operand of nrows x ncols in order, its leading dimension padded by
 * pad, values v(i, j) from seed (NaN when fill_nan). */
static hsp_dense dense(int32_t nrows, int32_t ncols, hsp_order order, int pad, hsp_precision prec, uint64_t seed,
                       int fill_nan)
{
    int64_t ld = (order == HSP_ROW_MAJOR ? ncols : nrows) + pad, outer = order == HSP_ROW_MAJOR ? nrows : ncols;
    size_t n = (size_t)(outer * ld > 0 ? outer * ld : 1), size = prec == HSP_DOUBLE ? 8 : 4;
    hsp_dense M = {nrows, ncols, ld, order, prec, calloc(n, size)};
    for (size_t k = 0; k < n; k++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        double v = fill_nan ? NAN : (double)(seed >> 11) / 9007199254740992.0 * 2 - 1;
        if (prec == HSP_DOUBLE) ((double *)M.values)[k] = v;
        else ((float *)M.values)[k] = (float)v;
    }
    return M;
}

/* Entry (i, j) of M. */
static double at(const hsp_dense *M, int32_t i, int32_t j)
{
    int64_t k = M->order == HSP_ROW_MAJOR ? i * M->ld + j : j * M->ld + i;
    return M->precision == HSP_DOUBLE ? ((const double *)M->values)[k] : ((const float *)M->values)[k];
}

/* Bytes of M's array. */
static size_t dense_bytes(const hsp_dense *M)
{
    int64_t outer = M->order == HSP_ROW_MAJOR ? M->nrows : M->ncols;
    return (size_t)(outer * M->ld > 0 ? outer * M->ld : 1) * (M->precision == HSP_DOUBLE ? 8 : 4);
}

/* Is C = alpha A B + beta C0 within rounding?  why gets the first entry off. */
static int matches(const hsp_csr *A, const hsp_dense *B, const hsp_dense *C0, const hsp_dense *C, double alpha,
                   double beta, char *why, size_t len)
{
    double eps = A->precision == HSP_DOUBLE ? 2.3e-16 : 1.2e-7;
    for (int32_t i = 0; i < A->nrows; i++)
        for (int32_t j = 0; j < B->ncols; j++) {
            double sum = 0, mag = 0;
            for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
                double a = A->precision == HSP_DOUBLE ? ((double *)A->values)[p] : ((float *)A->values)[p];
                sum += a * at(B, A->colidx[p], j), mag += fabs(a * at(B, A->colidx[p], j));
            }
            double want = alpha * sum + (beta != 0 ? beta * at(C0, i, j) : 0);
            double bound = 4 * eps * ((double)(A->rowptr[i + 1] - A->rowptr[i]) + 2) *
                           (fabs(alpha) * mag + fabs(beta) * (beta != 0 ? fabs(at(C0, i, j)) : 0)) + 1e-300;
            if (!(fabs(at(C, i, j) - want) <= bound)) {
                snprintf(why, len, "C(%d, %d) = %.17g, want %.17g", i, j, at(C, i, j), want);
                return 0;
            }
        }
    return 1;
}

/* hsp_spmm_resident of prepared E and B and C placed, C brought home. */
static hsp_status resident_product(hsp_context *ctx, const hsp_ellr *E, double alpha, const hsp_dense *B,
                                   double beta, hsp_dense *C, hsp_spmm_stats *st)
{
    hsp_dense_resident *RB = NULL, *RC = NULL;
    hsp_status s = hsp_place_dense(ctx, B, &RB);
    if (s == HSP_OK) s = hsp_place_dense(ctx, C, &RC);
    if (s == HSP_OK) s = hsp_spmm_resident(ctx, alpha, E, RB, beta, RC, st);
    if (s == HSP_OK) s = hsp_dense_resident_home(RC, C);
    hsp_dense_resident_free(RB), hsp_dense_resident_free(RC);
    return s;
}

/* C = alpha A B + beta C of A as given (form 0: hsp_spmm) or prepared
 * (forms 1 and 3, of A with a full row: kept in CSR; forms 2 and 4, of rows
 * of 4 to 12 entries: ELLPACK-R), by hsp_spmm_ellr (1, 2) or with B and C
 * resident (3, 4). */
static hsp_status product(hsp_context *ctx, int form, const hsp_csr *A, double alpha, const hsp_dense *B,
                          double beta, hsp_dense *C, hsp_spmm_stats *st)
{
    if (!form) return hsp_spmm(ctx, alpha, A, B, beta, C, st);
    hsp_ellr *E = NULL;
    hsp_status s = hsp_ellr_from_csr(ctx, A, &E);
    if (s == HSP_OK) s = form < 3 ? hsp_spmm_ellr(ctx, alpha, E, B, beta, C, st) : resident_product(ctx, E, alpha, B, beta, C, st);
    hsp_ellr_free(E);
    return s;
}

/* Are the bytes of C's array between its rows (row-major) or columns as
 * they were in C0's?  They are the caller's, not C's. */
static int gaps_kept(const hsp_dense *C0, const hsp_dense *C, char *why, size_t len)
{
    int32_t outer = C->order == HSP_ROW_MAJOR ? C->nrows : C->ncols, inner = C->order == HSP_ROW_MAJOR ? C->ncols : C->nrows;
    size_t vs = C->precision == HSP_DOUBLE ? 8 : 4;
    for (int64_t o = 0; o + 1 < outer; o++)
        for (int64_t k = inner; k < C->ld; k++)
            if (memcmp((const char *)C->values + (o * C->ld + k) * vs, (const char *)C0->values + (o * C->ld + k) * vs, vs)) {
                snprintf(why, len, "the byte of C's array past line %lld, slot %lld, changed", (long long)o, (long long)k);
                return 0;
            }
    return 1;
}

/* C = alpha A B + beta C in form (see product), checked against the plain
 * loop, the bytes between C's lines untouched: 1 if right, else 0 with why
 * saying where (or the error); B and C are freed. */
static int checked_product(hsp_context *ctx, int form, const hsp_csr *A, double alpha, hsp_dense *B, double beta,
                           hsp_dense *C, hsp_spmm_stats *st, char *why, size_t len)
{
    hsp_dense C0 = *C;
    C0.values = malloc(dense_bytes(C));
    memcpy(C0.values, C->values, dense_bytes(C));
    hsp_status s = product(ctx, form, A, alpha, B, beta, C, st);
    int ok = s == HSP_OK && matches(A, B, &C0, C, alpha, beta, why, len) && gaps_kept(&C0, C, why, len);
    if (s != HSP_OK) snprintf(why, len, "%s", hsp_errmsg());
    free(B->values), free(C->values), free(C0.values);
    return ok;
}

/* Does a product of A of rows that ELLPACK-R would pad little (ellr) read
 * that form?  On the CPU threads alone (stats' device "cpu") A is prepared
 * in CSR; on a GPU (no threads in the stats) row-major B of several columns
 * reads its CSR copy. */
static int read_ellr(int ellr, const hsp_spmm_stats *st, int order_b, int32_t L)
{
    return ellr && strcmp(st->device, "cpu") && !(st->threads == 0 && order_b == HSP_ROW_MAJOR && L > 1);
}

/* Does ctx prepare A in CSR whatever its rows (its device is the CPU
 * threads, which read CSR faster)? */
static int prepares_csr(hsp_context *ctx)
{
    hsp_csr *A = ref_random(16, 16, 3, 4, HSP_DOUBLE, 3);
    hsp_ellr *E = NULL;
    hsp_ellr_info in = {0};
    if (hsp_ellr_from_csr(ctx, A, &E) == HSP_OK) hsp_ellr_describe(E, &in);
    hsp_ellr_free(E), hsp_csr_free(A);
    return !strcmp(in.format, "csr");
}

/* Every precision, order pair, width and (alpha, beta), of A in form (see
 * product): C checked; the CPU threads' vectors at most cap bits (NULL: as
 * wide as the CPU runs). */
static void products(hsp_context *ctx, int form, const char *cap)
{
    static const int32_t widths[] = {1, 7, 8, 13, 16, 29, 32, 33, 40};
    static const double ab[][2] = {{1, 0}, {2.5, -1}, {0, 1}, {-1, 0.5}};
    static const char *forms[] = {"CSR", "prepared, a long row: csr", "prepared: ellr (csr on the CPU threads)",
                                  "resident, a long row: csr", "resident: ellr (csr on the CPU threads)"};
    int ellr = form == 2 || form == 4;
    if (cap) setenv("HSPGEMM_CPU_VECTORS", cap, 1);
    for (hsp_precision prec = HSP_FLOAT; prec <= HSP_DOUBLE; prec++) {
        hsp_csr *A = ellr ? ref_random(300, 600, 4, 12, prec, 7) : ref_long_rows(300, 600, prec);
        for (int ob = 0; ob < 2; ob++)
            for (int oc = 0; oc < 2; oc++)
                for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
                    for (size_t k = 0; k < sizeof ab / sizeof *ab; k++) {
                        int32_t L = widths[w];
                        hsp_dense B = dense(A->ncols, L, (hsp_order)ob, 3, prec, 11 + w, 0);
                        hsp_dense C = dense(300, L, (hsp_order)oc, 2, prec, 29 + k, 0);
                        hsp_spmm_stats st = {0};
                        char why[160] = "";
                        int ok = checked_product(ctx, form, A, ab[k][0], &B, ab[k][1], &C, &st, why, sizeof why) &&
                                 st.flops == 2 * A->nnz * L && !strcmp(st.format, read_ellr(ellr, &st, ob, L) ? "ellr" : "csr")
                                 && (!st.cpu_cols || strstr(st.device, "cpu")); /* hsp_stats' name of the CPU threads */
                        tap_ok(ok, "A %s, %s, B %s, C %s, L = %d, alpha %g, beta %g%s%s: C = alpha A B + beta C%s%s",
                               forms[form], prec == HSP_DOUBLE ? "double" : "float", ob ? "column-major" : "row-major",
                               oc ? "column-major" : "row-major", L, ab[k][0], ab[k][1], cap ? ", vectors of bits " : "",
                               cap ? cap : "", why[0] ? ": " : "", why);
                    }
        hsp_csr_free(A);
    }
    if (cap) unsetenv("HSPGEMM_CPU_VECTORS");
}

/* One or two columns of C on a GPU device, A prepared in ELLPACK-R.  One
 * column: read from its copy in CSR, several work-items a row, where A's
 * rows are few (300: fewer than 256 a compute unit of any device) and hold
 * more than 16 entries on average, or HSPGEMM_SPMM_ROW_LANES says always;
 * else from ELLPACK-R (a mean of 12; 40,000 rows: more than 256 a unit of a
 * CPU's OpenCL).  Two columns of row-major B: from ELLPACK-R where the mean
 * row passes 8 entries, else from the copy (and from the copy at three
 * columns).  C checked in both precisions, prepared and resident, alpha and
 * beta. */
static void narrow_columns(hsp_context *ctx)
{
    static const struct {
        int32_t rows, lo, hi, cols;
        const char *says;
        int csr;
    } cases[] = {{300, 18, 26, 1, NULL, 1},    {300, 10, 14, 1, NULL, 0},     {40000, 18, 22, 1, NULL, 0},
                 {300, 18, 26, 1, "never", 0}, {300, 10, 14, 1, "always", 1}, {40000, 18, 22, 1, "always", 1},
                 {300, 18, 26, 2, NULL, 0},    {40000, 10, 14, 2, NULL, 0},   {300, 4, 8, 2, NULL, 1},
                 {300, 18, 26, 3, NULL, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (hsp_precision prec = HSP_FLOAT; prec <= HSP_DOUBLE; prec++) {
            hsp_csr *A = ref_random(cases[c].rows, 500, cases[c].lo, cases[c].hi, prec, 13 + c);
            int32_t L = cases[c].cols;
            if (cases[c].says) setenv("HSPGEMM_SPMM_ROW_LANES", cases[c].says, 1);
            for (int form = 2; form <= 4; form += 2) {
                hsp_dense B = dense(A->ncols, L, L == 1 ? HSP_COL_MAJOR : HSP_ROW_MAJOR, 0, prec, 3 + c, 0);
                hsp_dense C = dense(A->nrows, L, HSP_ROW_MAJOR, 0, prec, 5 + c, 0);
                hsp_spmm_stats st = {0};
                char why[160] = "";
                int ok = checked_product(ctx, form, A, 1.5, &B, form == 4 ? -0.5 : 0, &C, &st, why, sizeof why);
                tap_ok(ok && st.threads == 0 && !strcmp(st.format, cases[c].csr ? "csr" : "ellr"),
                       "%d column%s, %s A of %d rows of %d to %d entries, %s%s%s: read as %s (the stats: %s)%s%s", L,
                       L > 1 ? "s" : "",
                       form == 2 ? "prepared" : "resident", cases[c].rows, cases[c].lo, cases[c].hi,
                       prec == HSP_DOUBLE ? "double" : "float", cases[c].says ? ", HSPGEMM_SPMM_ROW_LANES=" : "",
                       cases[c].says ? cases[c].says : "", cases[c].csr ? "csr" : "ellr", st.format,
                       why[0] ? ": " : "", why);
            }
            unsetenv("HSPGEMM_SPMM_ROW_LANES");
            hsp_csr_free(A);
        }
}

/* The bytes of the copy by length that the CPU threads keep beside A
 * prepared on ctx (0: none), HSPGEMM_SPMM_BY_LENGTH set to says (NULL: unset). */
static int64_t by_length_bytes(hsp_context *ctx, const hsp_csr *A, const char *says)
{
    hsp_ellr *E = NULL;
    hsp_ellr_info in = {0};
    if (says) setenv("HSPGEMM_SPMM_BY_LENGTH", says, 1);
    if (hsp_ellr_from_csr(ctx, A, &E) == HSP_OK) hsp_ellr_describe(E, &in);
    unsetenv("HSPGEMM_SPMM_BY_LENGTH");
    hsp_ellr_free(E);
    return in.copy_bytes;
}

/* An n x n band whose row i holds columns i .. i + (i * 7) % 40: lengths
 * of 1 to 40, each row sharing most of its columns with the rows before. */
static hsp_csr *ragged_band(int32_t n)
{
    int64_t nnz = 0, k = 0;
    for (int32_t i = 0; i < n; i++) nnz += (i * 7) % 40 + 1 < n - i ? (i * 7) % 40 + 1 : n - i;
    int32_t *ri = malloc((size_t)nnz * sizeof *ri), *cj = malloc((size_t)nnz * sizeof *cj);
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = i; j <= i + (i * 7) % 40 && j < n; j++) ri[k] = i, cj[k++] = j;
    hsp_csr *A = NULL;
    hsp_csr_from_triplets(n, n, nnz, ri, cj, NULL, HSP_DOUBLE, &A);
    free(ri), free(cj);
    return A;
}

/* The CPU threads' copy of A's rows by length (ellr.c's by_length_pays):
 * kept for rows of many lengths whose neighbours share few columns (R-MAT,
 * random rows of 0 to 30 entries), not for a stencil's rows of one length
 * nor for a band of ragged rows; HSPGEMM_SPMM_BY_LENGTH says otherwise.
 * Then products read from it where it is kept (always): 1300 rows, so
 * several runs of 512 rows and a short last one, empty rows and two long
 * ones, both precisions, B and C in either order, L = 1 to 32 (read for 1
 * in either order, 2 to 16 row-major), alpha and beta. */
static void by_length(hsp_context *ctx)
{
    static const int32_t widths[] = {1, 2, 4, 7, 8, 13, 16, 17, 32};
    hsp_csr *R = NULL, *S = NULL, *Q = ref_random(2000, 2000, 0, 30, HSP_DOUBLE, 21), *G = ragged_band(3000);
    hsp_generate("rmat:12,8", 3, HSP_DOUBLE, &R), hsp_generate("poisson2d5:40", 3, HSP_DOUBLE, &S);
    int64_t copy_r = (int64_t)(R->nrows + 1) * 8 + R->nnz * 12 + (int64_t)R->nrows * 4;
    tap_ok(by_length_bytes(ctx, R, NULL) == copy_r && by_length_bytes(ctx, Q, NULL) > 0,
           "R-MAT and random rows of 0 to 30 entries: a copy by length kept (%lld bytes)", (long long)copy_r);
    tap_ok(!by_length_bytes(ctx, S, NULL) && !by_length_bytes(ctx, G, NULL),
           "a 2-D stencil and a band of ragged rows: no copy by length");
    tap_ok(!by_length_bytes(ctx, R, "never") && by_length_bytes(ctx, S, "always") > 0,
           "HSPGEMM_SPMM_BY_LENGTH=never and always decide instead");
    hsp_csr_free(R), hsp_csr_free(S), hsp_csr_free(Q), hsp_csr_free(G);
    setenv("HSPGEMM_SPMM_BY_LENGTH", "always", 1);
    for (hsp_precision prec = HSP_FLOAT; prec <= HSP_DOUBLE; prec++) {
        hsp_csr *A = ref_long_rows(1300, 700, prec);
        for (int k = 0; k < 4; k++)
            for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
                hsp_order ob = (hsp_order)(k % 2), oc = (hsp_order)(k / 2);
                int32_t L = widths[w];
                hsp_dense B = dense(A->ncols, L, ob, 1, prec, 41 + w, 0), C = dense(A->nrows, L, oc, 2, prec, 43 + k, 0);
                hsp_spmm_stats st = {0};
                char why[160] = "";
                tap_ok(checked_product(ctx, 2, A, k ? 2.5 : 1, &B, k ? -1 : 0, &C, &st, why, sizeof why),
                       "A prepared with its rows by length, %s, B %s, C %s, L = %d, alpha %g, beta %g%s%s",
                       prec == HSP_DOUBLE ? "double" : "float", ob ? "column-major" : "row-major",
                       oc ? "column-major" : "row-major", L, k ? 2.5 : 1, k ? -1.0 : 0.0, why[0] ? ": " : "", why);
            }
        hsp_csr_free(A);
    }
    unsetenv("HSPGEMM_SPMM_BY_LENGTH");
}

/* Rows lo .. hi - 1 of A emptied in place (the entries after them moved up). */
static void empty_rows(hsp_csr *A, int32_t lo, int32_t hi)
{
    size_t vs = A->precision == HSP_DOUBLE ? 8 : 4;
    int64_t gone = A->rowptr[hi] - A->rowptr[lo], rest = A->nnz - A->rowptr[hi];
    memmove(A->colidx + A->rowptr[lo], A->colidx + A->rowptr[hi], (size_t)rest * sizeof *A->colidx);
    memmove((char *)A->values + A->rowptr[lo] * vs, (char *)A->values + A->rowptr[hi] * vs, (size_t)rest * vs);
    for (int32_t i = lo + 1; i <= A->nrows; i++) A->rowptr[i] = i <= hi ? A->rowptr[lo] : A->rowptr[i] - gone;
    A->nnz -= gone;
}

/* Column-major B by slabs of C's rows (HSPGEMM_SPMM_SLABS=always: every
 * product whose slabs fit, whatever the cache): near columns (a band,
 * 2D and 3D stencils: rows of B either side of a slab), slabs of no entries
 * (a band's empty rows), and a band whose first row also reads B's last
 * row, so that its slab does not fit at L = 40 and the copy of all of B
 * makes it; both precisions, C in either order. */
static void slabs(hsp_context *ctx)
{
    static const char *specs[] = {"band:5000,3", "poisson2d5:70", "poisson3d7:17", "band:5000,3"};
    static const int32_t widths[] = {2, 7, 8, 32, 40};
    setenv("HSPGEMM_SPMM_SLABS", "always", 1);
    for (int m = 0; m < 4; m++)
        for (hsp_precision prec = HSP_FLOAT; prec <= HSP_DOUBLE; prec++) {
            hsp_csr *A = NULL;
            if (hsp_generate(specs[m], 1, prec, &A) != HSP_OK) {
                tap_ok(0, "generate %s: %s", specs[m], hsp_errmsg());
                continue;
            }
            if (m == 3) A->colidx[A->rowptr[1] - 1] = A->ncols - 1; /* row 0 reads B's last row too */
            if (m == 0) empty_rows(A, 100, 900);
            for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
                for (int oc = 0; oc < 2; oc++) {
                    int32_t L = widths[w];
                    hsp_dense B = dense(A->ncols, L, HSP_COL_MAJOR, 3, prec, 5 + w, 0);
                    hsp_dense C = dense(A->nrows, L, (hsp_order)oc, 1, prec, 9 + w, 0);
                    hsp_spmm_stats st = {0};
                    char why[160] = "";
                    int ok = checked_product(ctx, 0, A, 1.5, &B, oc ? 0.5 : 0, &C, &st, why, sizeof why);
                    tap_ok(ok, "by slabs: A %s%s, %s, B column-major, C %s, L = %d%s%s", specs[m],
                           m == 3 ? " reading B's last row in row 0" : m == 0 ? " with empty rows" : "",
                           prec == HSP_DOUBLE ? "double" : "float", oc ? "column-major" : "row-major", L,
                           why[0] ? ": " : "", why);
                }
            hsp_csr_free(A);
        }
    unsetenv("HSPGEMM_SPMM_SLABS");
}

/* C stored past the caches (HSPGEMM_SPMM_STREAM=always, as for a C larger
 * than half the last-level cache) in an array that begins on a cache line
 * or 8 to 56 bytes past one, its rows or columns lines apart or not: the tiles of
 * column-major C start at the rows that begin lines, the first rows of a
 * part before them; B either order (column-major B also by slabs), beta 0
 * (the stores that skip the caches) and not, both precisions; the bytes
 * around C untouched; the CPU threads' vectors at most cap bits (NULL: as
 * wide as the CPU runs). */
static void streamed(hsp_context *ctx, const char *cap)
{
    static const char *specs[] = {"poisson2d5:23", "band:3001,3", "random:1000,9"};
    static const int32_t widths[] = {2, 8, 9, 16, 32, 40};
    setenv("HSPGEMM_SPMM_STREAM", "always", 1);
    if (cap) setenv("HSPGEMM_CPU_VECTORS", cap, 1);
    for (int m = 0; m < 3; m++)
        for (hsp_precision prec = HSP_FLOAT; prec <= HSP_DOUBLE; prec++) {
            hsp_csr *A = NULL;
            if (hsp_generate(specs[m], 1, prec, &A) != HSP_OK) {
                tap_ok(0, "generate %s: %s", specs[m], hsp_errmsg());
                continue;
            }
            for (int k = 0; k < 24; k++) {
                int32_t L = widths[k % 6], skew = k < 12 ? 0 : 8 * (k % 7 + 1);
                hsp_order ob = (hsp_order)(k % 2), oc = (hsp_order)(k / 2 % 2);
                int32_t pad = k % 3 == 2 ? 3 : oc == HSP_COL_MAJOR ? (8 - A->nrows % 8) % 8 : 0; /* 3: not lines */
                hsp_dense B = dense(A->ncols, L, ob, 0, prec, 3 + k, 0);
                hsp_dense C = dense(A->nrows, L, oc, pad, prec, 7 + k, 0);
                size_t bytes = dense_bytes(&C);
                char *line = aligned_alloc(64, (bytes + skew + 64 + 63) / 64 * 64), why[160] = "";
                memset(line, 0x5a, skew), memset(line + skew + bytes, 0x5a, 64);
                memcpy(line + skew, C.values, bytes), free(C.values), C.values = line + skew;
                hsp_dense C0 = C;
                C0.values = malloc(bytes), memcpy(C0.values, C.values, bytes);
                double beta = k % 4 == 3 ? 0.5 : 0;
                setenv("HSPGEMM_SPMM_SLABS", k % 4 == 1 ? "always" : "never", 1);
                hsp_status s = product(ctx, 0, A, 1.5, &B, beta, &C, NULL);
                int kept = 1;
                for (size_t b = 0; b < (size_t)skew; b++) kept &= line[b] == 0x5a;
                for (size_t b = 0; b < 64; b++) kept &= line[skew + bytes + b] == 0x5a;
                int ok = s == HSP_OK && matches(A, &B, &C0, &C, 1.5, beta, why, sizeof why) &&
                         gaps_kept(&C0, &C, why, sizeof why) && kept;
                if (s != HSP_OK) snprintf(why, sizeof why, "%s", hsp_errmsg());
                else if (!kept) snprintf(why, sizeof why, "bytes around C changed");
                tap_ok(ok, "stored past the caches: A %s, %s, B %s, C %s %d bytes past a line, ld %lld, "
                       "L = %d, beta %g%s%s%s%s", specs[m], prec == HSP_DOUBLE ? "double" : "float",
                       ob ? k % 4 == 1 ? "column-major by slabs" : "column-major" : "row-major",
                       oc ? "column-major" : "row-major", skew, (long long)C.ld, L, beta,
                       cap ? ", vectors of bits " : "", cap ? cap : "", why[0] ? ": " : "", why);
                free(B.values), free(line), free(C0.values);
            }
            hsp_csr_free(A);
        }
    unsetenv("HSPGEMM_SPMM_STREAM"), unsetenv("HSPGEMM_SPMM_SLABS");
    if (cap) unsetenv("HSPGEMM_CPU_VECTORS");
}

/* beta = 0: C's old values (NaN) are not read; empty shapes. */
static void edges(hsp_context *ctx)
{
    hsp_csr *A = ref_long_rows(50, 40, HSP_DOUBLE);
    hsp_dense B = dense(40, 5, HSP_ROW_MAJOR, 0, HSP_DOUBLE, 3, 0), C = dense(50, 5, HSP_COL_MAJOR, 0, HSP_DOUBLE, 0, 1);
    int clean = hsp_spmm(ctx, 1, A, &B, 0, &C, NULL) == HSP_OK;
    for (int32_t i = 0; clean && i < 50; i++)
        for (int32_t j = 0; j < 5; j++) clean &= !isnan(at(&C, i, j));
    tap_ok(clean, "beta = 0: C's old values, all NaN, are not read");
    free(B.values), free(C.values);
    hsp_dense B0 = dense(40, 0, HSP_ROW_MAJOR, 1, HSP_DOUBLE, 3, 0), C0 = dense(50, 0, HSP_ROW_MAJOR, 1, HSP_DOUBLE, 0, 0);
    tap_ok(hsp_spmm(ctx, 1, A, &B0, 0, &C0, NULL) == HSP_OK, "L = 0: nothing to do, no error");
    free(B0.values), free(C0.values);
    hsp_csr_free(A);
    A = ref_random(50, 400, 100, 200, HSP_DOUBLE, 9); /* prepared, a GPU sums its rows by several lanes an entry */
    hsp_ellr *P = NULL;
    B0 = dense(400, 0, HSP_ROW_MAJOR, 1, HSP_DOUBLE, 3, 0), C0 = dense(50, 0, HSP_ROW_MAJOR, 1, HSP_DOUBLE, 0, 0);
    tap_ok(hsp_ellr_from_csr(ctx, A, &P) == HSP_OK && hsp_spmm_ellr(ctx, 1, P, &B0, 0, &C0, NULL) == HSP_OK,
           "L = 0, A prepared, rows of 100 to 200 entries: nothing to do, no error");
    free(B0.values), free(C0.values);
    hsp_ellr_free(P), hsp_csr_free(A);
    hsp_csr *E = NULL;
    hsp_csr_create(0, 4, 0, HSP_FLOAT, &E);
    hsp_dense BE = dense(4, 3, HSP_ROW_MAJOR, 0, HSP_FLOAT, 1, 0), CE = dense(0, 3, HSP_ROW_MAJOR, 0, HSP_FLOAT, 0, 0);
    tap_ok(hsp_spmm(ctx, 1, E, &BE, 1, &CE, NULL) == HSP_OK, "A with no rows: C of no rows");
    free(BE.values), free(CE.values), hsp_csr_free(E);
}

/* The prepared forms: what hsp_ellr_describe reports, arrays of its own
 * (the caller's A may change after), bad A refused. */
static void prepared(hsp_context *ctx)
{
    hsp_csr *A = ref_random(100, 60, 2, 6, HSP_DOUBLE, 5), *L = NULL, *E0 = NULL;
    int32_t li[159], lj[159];
    for (int k = 0; k < 159; k++) /* L: row 3 full (60 entries), every other row one entry */
        li[k] = k < 60 ? 3 : k - 60 + (k - 60 >= 3), lj[k] = k < 60 ? k : (k - 60) % 60;
    hsp_csr_from_triplets(100, 60, 159, li, lj, NULL, HSP_DOUBLE, &L);
    hsp_ellr *E = NULL, *F = NULL, *G = NULL;
    hsp_ellr_info in, il;
    int64_t slots = 0; /* slices of 8 rows, each as wide as its longest row */
    int32_t w = 0;
    for (int32_t s0 = 0; s0 < 100; s0 += 8) {
        int64_t ws = 0;
        for (int32_t i = s0; i < s0 + 8 && i < 100; i++) ws = A->rowptr[i + 1] - A->rowptr[i] > ws ? A->rowptr[i + 1] - A->rowptr[i] : ws;
        slots += 8 * ws, w = ws > w ? (int32_t)ws : w;
    }
    int ok = hsp_ellr_from_csr(ctx, A, &E) == HSP_OK && hsp_ellr_from_csr(ctx, L, &F) == HSP_OK;
    int csr = prepares_csr(ctx);
    if (ok) hsp_ellr_describe(E, &in), hsp_ellr_describe(F, &il);
    int64_t want_bytes = csr ? 101 * 8 + A->nnz * 12 : 14 * 8 + 100 * 4 + slots * 12;
    tap_ok(ok && in.width == w && in.height == (csr ? 0 : 8) && in.slots == (csr ? 0 : slots) && in.nnz == A->nnz &&
               !strcmp(in.format, csr ? "csr" : "ellr") && in.bytes == want_bytes &&
               in.csr_bytes == 101 * 8 + A->nnz * 12,
           "rows of 2-6 entries: %s, width %d, slices of %d rows, %lld slots for %lld entries, %lld bytes against "
           "CSR's %lld",
           csr ? "csr (the CPU threads)" : "ellr", in.width, in.height, (long long)in.slots, (long long)in.nnz,
           (long long)in.bytes, (long long)in.csr_bytes);
    tap_ok(ok && il.width == 60 && il.height == 0 && il.slots == 0 && il.nnz == L->nnz && !strcmp(il.format, "csr") &&
               il.bytes == il.csr_bytes,
           "rows of 0-1 entries and a full row of 60 (8 x 60 slots for %lld entries, over %g times): kept in csr",
           (long long)il.nnz, HSP_ELLR_MAX_PADDING);
    hsp_dense B = dense(60, 8, HSP_ROW_MAJOR, 0, HSP_DOUBLE, 3, 0), C = dense(100, 8, HSP_ROW_MAJOR, 0, HSP_DOUBLE, 4, 0);
    hsp_dense C0 = C;
    C0.values = malloc(dense_bytes(&C)), memcpy(C0.values, C.values, dense_bytes(&C));
    hsp_csr *keep = ref_copy(A);
    for (int64_t k = 0; k < A->nnz; k++) ((double *)A->values)[k] = 1e300; /* the caller's A changes */
    char why[160] = "";
    hsp_spmm_stats st = {0};
    ok = ok && hsp_spmm_ellr(ctx, 1, E, &B, 0, &C, &st) == HSP_OK && matches(keep, &B, &C0, &C, 1, 0, why, sizeof why);
    tap_ok(ok, "the prepared A keeps the entries it was given%s%s", *why ? ": " : "", why);
    int gpu = st.threads == 0;
    tap_ok(in.copy_bytes == (gpu ? in.csr_bytes : in.csr_bytes + 100 * 4) && il.copy_bytes == il.csr_bytes + 100 * 4,
           "a CSR copy beside ELLPACK-R on a GPU (%lld bytes), and one of rows by length and their order beside CSR "
           "with a long row, and on the CPU threads beside rows of 2 to 6 random columns of 60 (%lld)",
           (long long)in.copy_bytes, (long long)il.copy_bytes);
    A->colidx[A->rowptr[5]] = 999; /* a column past A's */
    tap_ok(hsp_ellr_from_csr(ctx, A, &G) == HSP_ERR_INVALID_CSR && !G, "an A with a column out of range: refused, no handle (%s)",
           hsp_errmsg());
    hsp_csr_create(0, 7, 0, HSP_FLOAT, &E0);
    tap_ok(hsp_ellr_from_csr(ctx, E0, &G) == HSP_OK && G, "an A of no rows: prepared");
    hsp_ellr_free(G), G = NULL;
    tap_ok(hsp_ellr_from_csr(NULL, keep, &G) == HSP_ERR_ARG && hsp_ellr_from_csr(ctx, NULL, &G) == HSP_ERR_ARG &&
               hsp_ellr_from_csr(ctx, keep, NULL) == HSP_ERR_ARG && hsp_spmm_ellr(ctx, 1, NULL, &B, 0, &C, NULL) == HSP_ERR_ARG,
           "NULL context, A or out, or prepared A: HSP_ERR_ARG");
    hsp_dense Bshort = B;
    Bshort.nrows = 59;
    tap_ok(hsp_spmm_ellr(ctx, 1, E, &Bshort, 0, &C, NULL) == HSP_ERR_SHAPE, "prepared A, B's rows not its columns: HSP_ERR_SHAPE");
    hsp_ellr_free(E), hsp_ellr_free(F), hsp_ellr_free(NULL);
    free(B.values), free(C.values), free(C0.values);
    hsp_csr_free(A), hsp_csr_free(L), hsp_csr_free(E0), hsp_csr_free(keep);
}

/* ELLPACK-R's padding (column 0, value 0) is never read: no row of A uses
 * column 0, B's row 0 is all infinite, and C must be finite (0 times
 * infinity would be NaN); rows of 0 to 12 entries, so that most slices pad;
 * L = 5 (a slice of 4 columns, then the last row by row), 9 and 13 (a
 * slice of 8, then the rest row by row). */
static void padding(hsp_context *ctx)
{
    if (prepares_csr(ctx)) {
        tap_skip("the CPU threads prepare A in CSR: no padding", "ELLPACK-R's padding never read");
        return;
    }
    hsp_csr *A = ref_random(301, 199, 0, 12, HSP_DOUBLE, 9);
    for (int64_t k = 0; k < A->nnz; k++) A->colidx[k]++;
    A->ncols = 200;
    for (int32_t L = 5; L <= 13; L += 4) {
        hsp_dense B = dense(200, L, HSP_ROW_MAJOR, 0, HSP_DOUBLE, 3, 0), C = dense(301, L, HSP_ROW_MAJOR, 0, HSP_DOUBLE, 4, 0);
        for (int32_t j = 0; j < L; j++) ((double *)B.values)[j] = INFINITY;
        hsp_ellr *E = NULL;
        hsp_ellr_info in = {0};
        int finite = hsp_ellr_from_csr(ctx, A, &E) == HSP_OK && hsp_spmm_ellr(ctx, 1, E, &B, 0, &C, NULL) == HSP_OK;
        if (E) hsp_ellr_describe(E, &in);
        for (int32_t i = 0; finite && i < 301; i++)
            for (int32_t j = 0; j < L; j++) finite &= isfinite(at(&C, i, j));
        tap_ok(finite && !strcmp(in.format, "ellr") && in.slots > in.nnz,
               "prepared A (ellr, %lld slots for %lld entries), L = %d, B's row 0 infinite and unused: C finite, padding never read",
               (long long)in.slots, (long long)in.nnz, L);
        hsp_ellr_free(E), free(B.values), free(C.values);
    }
    hsp_csr_free(A);
}

/* A of nrows rows over 3100 columns whose rows special[k] have
 * lengths[k] entries (spread over the columns), the others 0 to 6: each
 * prepared (read as given on the CPU) and resident, both orders of B, alpha
 * and beta cases, L = 1, 7, 8, 32 and 33, what says which rows. */
static void special_rows(hsp_context *ctx, int32_t nrows, const int32_t *special, const int32_t *lengths, int n,
                         const char *what)
{
    static const int32_t widths[] = {1, 7, 8, 32, 33};
    static const double ab[][2] = {{1, 0}, {-0.5, 2}};
    hsp_csr *R = ref_random(nrows, 3100, 0, 6, HSP_DOUBLE, 13), *A = NULL;
    int64_t nnz = 0;
    int32_t *len = malloc((size_t)nrows * sizeof *len);
    for (int32_t i = 0; i < nrows; i++) len[i] = (int32_t)(R->rowptr[i + 1] - R->rowptr[i]);
    for (int k = 0; k < n; k++) len[special[k]] = -lengths[k]; /* negative: spread over the columns */
    for (int32_t i = 0; i < nrows; i++) nnz += abs(len[i]);
    hsp_csr_create(nrows, 3100, nnz, HSP_DOUBLE, &A);
    for (int32_t i = 0, at_ = 0; i < nrows; i++) {
        int32_t count = abs(len[i]);
        for (int32_t k = 0; k < count; k++) {
            A->colidx[at_ + k] = len[i] < 0 ? (int32_t)(k * 3100LL / count) : R->colidx[R->rowptr[i] + k];
            ((double *)A->values)[at_ + k] = len[i] < 0 ? 1.0 / (1 + k % 7) : ((double *)R->values)[R->rowptr[i] + k];
        }
        at_ += count, A->rowptr[i + 1] = at_;
    }
    for (int form = 1; form <= 3; form += 2)
        for (int ob = 0; ob < 2; ob++)
            for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
                for (size_t k = 0; k < sizeof ab / sizeof *ab; k++) {
                    int32_t L = widths[w];
                    hsp_dense B = dense(3100, L, (hsp_order)ob, 1, HSP_DOUBLE, 5 + w, 0);
                    hsp_dense C = dense(nrows, L, (hsp_order)ob, 0, HSP_DOUBLE, 8 + k, 0);
                    char why[160] = "";
                    tap_ok(checked_product(ctx, form, A, ab[k][0], &B, ab[k][1], &C, NULL, why, sizeof why),
                           "%s, %s, B %s, L = %d, alpha %g, beta %g%s%s", what,
                           form == 1 ? "prepared" : "resident", ob ? "column-major" : "row-major", L, ab[k][0],
                           ab[k][1], why[0] ? ": " : "", why);
                }
    free(len), hsp_csr_free(A), hsp_csr_free(R);
}

/* Long rows, which a GPU sums by pieces of 256 (a prepared A; rows past 32
 * or 64 entries and 4 times the mean, ellr.h): rows 0 and 40 (the first and
 * the last) of 1025 entries (pieces of 256 and one of 1), row 7 of 3000,
 * row 9 of 1024; then, among 2000 short rows (a mean near 3: the bound is
 * 32 there), rows of 32 (not long), 33, 64, 65, 256 and 257 entries. */
static void long_rows(hsp_context *ctx)
{
    static const int32_t hubs[] = {0, 40, 7, 9}, hub_len[] = {1025, 1025, 3000, 1024};
    static const int32_t near[] = {0, 5, 700, 1300, 1999, 1000}, near_len[] = {32, 33, 64, 65, 256, 257};
    special_rows(ctx, 41, hubs, hub_len, 4, "rows of 1024 to 3000 entries");
    special_rows(ctx, 2000, near, near_len, 6, "rows of 32, 33, 64, 65, 256, 257 entries among short ones");
}

/* Column-major B of 2 x 4096 + 77 rows (ld 5 past them), which the CPU
 * threads copy by chunks of 4096 rows in blocks of 64: every chunk and the
 * short last ones, each precision, L = 2, 8, 9, 33, C in either order, on
 * contexts of 1 and 2 threads; A's rows 0 to 12 entries over all of B's
 * rows. */
static void copied_b(void)
{
    static const int32_t widths[] = {2, 8, 9, 33};
    for (int threads = 1; threads <= 2; threads++) {
        hsp_options o;
        hsp_context *ctx = NULL;
        hsp_options_init(&o);
        o.device = ref_device(), o.threads = threads;
        if (!tap_ok(hsp_context_create(&o, &ctx) == HSP_OK, "a context of %d threads", threads)) continue;
        for (hsp_precision prec = HSP_FLOAT; prec <= HSP_DOUBLE; prec++) {
            hsp_csr *A = ref_random(150, 2 * 4096 + 77, 0, 12, prec, 17);
            for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
                for (int oc = 0; oc < 2; oc++) {
                    int32_t L = widths[w];
                    hsp_dense B = dense(A->ncols, L, HSP_COL_MAJOR, 5, prec, 61 + w, 0);
                    hsp_dense C = dense(150, L, (hsp_order)oc, 1, prec, 67, 0);
                    char why[160] = "";
                    tap_ok(checked_product(ctx, 0, A, 1.5, &B, oc ? 0.5 : 0, &C, NULL, why, sizeof why),
                           "%d threads, %s, B column-major of %d rows (ld + 5), L = %d, C %s%s%s", threads,
                           prec == HSP_DOUBLE ? "double" : "float", A->ncols, L, oc ? "column-major" : "row-major",
                           why[0] ? ": " : "", why);
                }
            hsp_csr_free(A);
        }
        hsp_context_free(ctx);
    }
}

/* Call with B and C given; it must fail with want, C untouched. */
static void refused(hsp_context *ctx, const hsp_csr *A, const hsp_dense *B, hsp_dense *C, hsp_status want,
                    const char *what)
{
    size_t n = C && C->values ? dense_bytes(C) : 0;
    void *copy = n ? malloc(n) : NULL;
    if (n) memcpy(copy, C->values, n);
    hsp_status s = hsp_spmm(ctx, 1, A, B, 1, C, NULL);
    tap_ok(s == want && (!n || !memcmp(copy, C->values, n)), "%s: %s, C untouched (%s)", what, hsp_strerror(want),
           s == HSP_OK ? "succeeded" : hsp_errmsg());
    free(copy);
}

/* Bad operands. */
static void errors(hsp_context *ctx)
{
    hsp_csr *A = ref_long_rows(30, 20, HSP_DOUBLE);
    hsp_dense B = dense(20, 4, HSP_ROW_MAJOR, 0, HSP_DOUBLE, 5, 0), C = dense(30, 4, HSP_ROW_MAJOR, 0, HSP_DOUBLE, 6, 0);
    hsp_dense Bshort = B, Cwide = C, Bfloat = B, Blow = B, Bnone = B, Border = B;
    Bshort.nrows = 19, Cwide.ncols = 5, Bfloat.precision = HSP_FLOAT, Blow.ld = 3, Bnone.values = NULL;
    Border.order = (hsp_order)7;
    refused(ctx, A, &Bshort, &C, HSP_ERR_SHAPE, "B's rows are not A's columns");
    refused(ctx, A, &B, &Cwide, HSP_ERR_SHAPE, "C's columns are not B's");
    refused(ctx, A, &Bfloat, &C, HSP_ERR_ARG, "B of another precision");
    refused(ctx, A, &Blow, &C, HSP_ERR_ARG, "B's ld below its columns (row-major)");
    refused(ctx, A, &Bnone, &C, HSP_ERR_ARG, "B without values");
    refused(ctx, A, &Border, &C, HSP_ERR_ARG, "B of an unknown order");
    refused(ctx, A, NULL, &C, HSP_ERR_ARG, "B NULL");
    refused(ctx, NULL, &B, &C, HSP_ERR_ARG, "A NULL");
    hsp_dense Bsquare = dense(20, 20, HSP_ROW_MAJOR, 0, HSP_DOUBLE, 8, 0), Calias = Bsquare;
    Calias.nrows = 30, Calias.ld = 20; /* 30 x 20 over B's 20 x 20: its first rows are B's */
    Calias.values = malloc((size_t)30 * 20 * 8);
    memcpy(Calias.values, Bsquare.values, (size_t)20 * 20 * 8);
    hsp_dense Bin = Bsquare;
    Bin.values = Calias.values; /* B inside C's array */
    refused(ctx, A, &Bin, &Calias, HSP_ERR_ARG, "C's array overlapping B's");
    free(Bsquare.values), free(Calias.values);
    int32_t keep = A->colidx[A->rowptr[3] + 1];
    A->colidx[A->rowptr[3] + 1] = A->colidx[A->rowptr[3]]; /* row 3 (full): a duplicate column */
    refused(ctx, A, &B, &C, HSP_ERR_INVALID_CSR, "A with a duplicate column in row 3");
    A->colidx[A->rowptr[3] + 1] = keep;
    tap_ok(hsp_spmm(NULL, 1, A, &B, 0, &C, NULL) == HSP_ERR_ARG, "no context: HSP_ERR_ARG");
    free(B.values), free(C.values), hsp_csr_free(A);
}

/* Does ctx's device hold copies (memory of its own)?  A value changed on
 * the host after placing: a copy keeps the old one. */
static int own_memory(hsp_context *ctx)
{
    double v = 1, w = 0;
    hsp_dense M = {1, 1, 1, HSP_ROW_MAJOR, HSP_DOUBLE, &v}, H = M;
    hsp_dense_resident *R = NULL;
    H.values = &w;
    int own = hsp_place_dense(ctx, &M, &R) == HSP_OK && (v = 2, hsp_dense_resident_home(R, &H) == HSP_OK) && w == 1;
    hsp_dense_resident_free(R);
    return own;
}

/* Resident operands: B and C of the one array placed twice are apart on a
 * device of its own memory and refused elsewhere; C placed as B refused;
 * home only into C's layout; NULLs refused; a product on the device leaves
 * the host's arrays alone until brought home. */
static void resident(hsp_context *ctx)
{
    hsp_csr *A = ref_random(40, 40, 1, 6, HSP_DOUBLE, 3);
    hsp_dense X = dense(40, 3, HSP_ROW_MAJOR, 0, HSP_DOUBLE, 5, 0), Y = dense(40, 3, HSP_ROW_MAJOR, 0, HSP_DOUBLE, 6, 0);
    hsp_dense X0 = X, Y0 = Y;
    X0.values = malloc(dense_bytes(&X)), memcpy(X0.values, X.values, dense_bytes(&X));
    Y0.values = malloc(dense_bytes(&Y)), memcpy(Y0.values, Y.values, dense_bytes(&Y));
    hsp_ellr *E = NULL;
    hsp_dense_resident *RX = NULL, *RX2 = NULL, *RY = NULL;
    int ok = hsp_ellr_from_csr(ctx, A, &E) == HSP_OK && hsp_place_dense(ctx, &X, &RX) == HSP_OK &&
             hsp_place_dense(ctx, &X, &RX2) == HSP_OK && hsp_place_dense(ctx, &Y, &RY) == HSP_OK;
    tap_ok(ok, "A prepared, X placed twice, Y placed");
    hsp_status s = hsp_spmm_resident(ctx, 1, E, RX, 0, RX2, NULL);
    int own = own_memory(ctx);
    tap_ok(own ? s == HSP_OK : s == HSP_ERR_ARG, "C and B placed from one array: %s (%s)",
           own ? "two copies on the device, apart" : "one array, refused", s == HSP_OK ? "ok" : hsp_errmsg());
    tap_ok(hsp_spmm_resident(ctx, 1, E, RX, 0, RX, NULL) == HSP_ERR_ARG, "C is B: HSP_ERR_ARG (%s)", hsp_errmsg());
    s = hsp_spmm_resident(ctx, 2, E, RX, 0, RY, NULL);
    tap_ok(s == HSP_OK && (!own || !memcmp(Y.values, Y0.values, dense_bytes(&Y))),
           "Y = 2 A X on the device: the host's Y unchanged until brought home");
    char why[160] = "";
    tap_ok(s == HSP_OK && hsp_dense_resident_home(RY, &Y) == HSP_OK && matches(A, &X0, &Y0, &Y, 2, 0, why, sizeof why),
           "brought home: Y = 2 A X%s%s", *why ? ": " : "", why);
    hsp_dense Ypad = dense(40, 3, HSP_ROW_MAJOR, 1, HSP_DOUBLE, 6, 0), Ycol = dense(40, 3, HSP_COL_MAJOR, 0, HSP_DOUBLE, 6, 0);
    tap_ok(hsp_dense_resident_home(RY, &Ypad) == HSP_ERR_SHAPE && hsp_dense_resident_home(RY, &Ycol) == HSP_ERR_SHAPE,
           "home into another ld or order: HSP_ERR_SHAPE (%s)", hsp_errmsg());
    hsp_dense_resident *none = NULL;
    tap_ok(hsp_place_dense(ctx, NULL, &none) == HSP_ERR_ARG && !none && hsp_place_dense(NULL, &X, &none) == HSP_ERR_ARG &&
               hsp_spmm_resident(ctx, 1, NULL, RX, 0, RY, NULL) == HSP_ERR_ARG &&
               hsp_spmm_resident(ctx, 1, E, RX, 0, NULL, NULL) == HSP_ERR_ARG && hsp_dense_resident_home(NULL, &Y) == HSP_ERR_ARG,
           "NULL operands: HSP_ERR_ARG");
    hsp_dense Xshort = X;
    Xshort.nrows = 39;
    hsp_dense_resident *RS = NULL;
    tap_ok(hsp_place_dense(ctx, &Xshort, &RS) == HSP_OK && hsp_spmm_resident(ctx, 1, E, RS, 0, RY, NULL) == HSP_ERR_SHAPE,
           "resident B of 39 rows for A of 40 columns: HSP_ERR_SHAPE (%s)", hsp_errmsg());
    hsp_dense_resident_free(RS), hsp_dense_resident_free(RX), hsp_dense_resident_free(RX2), hsp_dense_resident_free(RY);
    hsp_dense_resident_free(NULL);
    hsp_ellr_free(E);
    free(X.values), free(Y.values), free(X0.values), free(Y0.values), free(Ypad.values), free(Ycol.values);
    hsp_csr_free(A);
}

/* A context on the device under test of spmm_blocks and spmm_cpu_share
 * (NULL if it fails). */
static hsp_context *spmm_context(int blocks, double cpu_share)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = ref_device(), o.small_nnz = -1, o.spmm_blocks = blocks, o.spmm_cpu_share = cpu_share;
    hsp_context_create(&o, &ctx);
    return ctx;
}

/* One thread's products on its own context with a prepared A shared by
 * another thread at the same time. */
typedef struct {
    hsp_context *ctx;
    const hsp_csr *A;
    const hsp_ellr *E;
    int right;
    char why[160];
} shared_job;

static void *shared_products(void *arg)
{
    shared_job *j = arg;
    j->right = j->ctx != NULL;
    for (int k = 0; k < 20 && j->right; k++) {
        hsp_dense B = dense(j->A->ncols, 8, HSP_ROW_MAJOR, 0, HSP_DOUBLE, 61 + k, 0);
        hsp_dense C = dense(j->A->nrows, 8, HSP_ROW_MAJOR, 0, HSP_DOUBLE, 67, 0);
        hsp_status s = hsp_spmm_ellr(j->ctx, 1, j->E, &B, 0, &C, NULL);
        j->right = s == HSP_OK && matches(j->A, &B, &C, &C, 1, 0, j->why, sizeof j->why);
        if (s != HSP_OK) snprintf(j->why, sizeof j->why, "%s", hsp_errmsg());
        free(B.values), free(C.values);
    }
    return NULL;
}

/* One prepared A with long rows (prepared on the first of two contexts)
 * multiplied by two threads at once, each on its own context: a product
 * only reads a prepared A (a GPU's counts of long rows' pieces done are
 * its own). */
static void shared_prepared(void)
{
    hsp_csr *A = ref_long_rows(300, 600, HSP_DOUBLE);
    shared_job job[2] = {{spmm_context(0, 0), A, NULL, 0, ""}, {spmm_context(0, 0), A, NULL, 0, ""}};
    hsp_ellr *E = NULL;
    pthread_t thread[2];
    if (job[0].ctx && hsp_ellr_from_csr(job[0].ctx, A, &E) == HSP_OK) {
        job[0].E = job[1].E = E;
        for (int t = 0; t < 2; t++) pthread_create(&thread[t], NULL, shared_products, &job[t]);
        for (int t = 0; t < 2; t++) pthread_join(thread[t], NULL);
    }
    tap_ok(E && job[0].right && job[1].right, "one prepared A, two threads on two contexts at once: 20 products "
           "each right%s%s", job[0].why[0] || job[1].why[0] ? ": " : "", job[0].why[0] ? job[0].why : job[1].why);
    hsp_ellr_free(E);
    for (int t = 0; t < 2; t++) hsp_context_free(job[t].ctx);
    hsp_csr_free(A);
}

/* Products by blocks (options.spmm_blocks): on a device whose memory is
 * reached by transfers (buffers), n blocks of C (at most its rows or columns) whose transfers overlap
 * the launches, each waiting for the rows of B its rows of A reach (a band:
 * a part of B; random rows: all of it); elsewhere nothing moves.  C checked
 * in every order and both precisions, beta 0 and not. */
static void blocks(void)
{
    static const int asked[] = {2, 3, 7, HSP_SPMM_MAX_BLOCKS};
    static const char *const specs[] = {"band:300,3", "random:300,6"};
    for (size_t n = 0; n < sizeof asked / sizeof *asked; n++) {
        hsp_context *ctx = spmm_context(asked[n], 0);
        if (!tap_ok(ctx != NULL, "a context of %d blocks", asked[n])) continue;
        for (int form = 0; form < 3; form++)
            for (int ob = 0; ob < 2; ob++)
                for (int oc = 0; oc < 2; oc++)
                    for (size_t m = 0; m < 2; m++) {
                        hsp_precision prec = (ob + oc + (int)m) % 2 ? HSP_FLOAT : HSP_DOUBLE;
                        int32_t L = oc ? 9 : 8, outer = oc ? L : 300;
                        double beta = ob ? 0 : -0.5;
                        hsp_csr *A = NULL;
                        hsp_generate(specs[m], 5, prec, &A);
                        uint64_t seed = 41 + 16 * n + 8 * (uint64_t)form + 4 * (uint64_t)ob + 2 * (uint64_t)oc + m;
                        hsp_dense B = dense(300, L, (hsp_order)ob, 2, prec, seed, 0), C = dense(300, L, (hsp_order)oc, 1, prec, 43, 0);
                        hsp_spmm_stats st = {0};
                        char why[160] = "";
                        int ok = checked_product(ctx, form, A, 1.5, &B, beta, &C, &st, why, sizeof why);
                        int buffers = strstr(st.device, "(buffers)") != NULL;
                        int want = buffers ? (asked[n] < outer ? asked[n] : outer) : st.threads ? 0 : 1; /* or fewer */
                        tap_ok(ok && (buffers || st.threads ? st.blocks == want : st.blocks <= want),
                               "%d blocks asked, %s %s, form %d, B %s, C %s, beta %g: %d blocks (want %d)%s%s",
                               asked[n], specs[m], prec == HSP_DOUBLE ? "double" : "float", form, ob ? "column-major" : "row-major",
                               oc ? "column-major" : "row-major", beta, st.blocks, want, why[0] ? ": " : "", why);
                        hsp_csr_free(A);
                    }
        hsp_context_free(ctx);
    }
}

/* Blocks asked for a prepared A with long rows (their sums come after all
 * its rows; on a GPU, from 4 columns of row-major B, a copy of its rows by
 * length, whose rows are not C's): C made whole, and right, at L = 3, 4
 * and 8 (as CSR, not prepared, none of its rows is long: blocks). */
static void blocks_long_rows(void)
{
    static const int32_t widths[] = {3, 4, 8};
    hsp_context *ctx = spmm_context(4, 0);
    hsp_csr *A = ref_long_rows(300, 600, HSP_DOUBLE);
    for (int form = 0; form < 2 && ctx; form++)
        for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
            hsp_dense B = dense(600, widths[w], HSP_ROW_MAJOR, 0, HSP_DOUBLE, 71 + w, 0);
            hsp_dense C = dense(300, widths[w], HSP_ROW_MAJOR, 0, HSP_DOUBLE, 73, 0);
            hsp_spmm_stats st = {0};
            char why[160] = "";
            int ok = checked_product(ctx, form, A, 1, &B, 0.5, &C, &st, why, sizeof why);
            tap_ok(ok && (form == 0 || st.blocks <= 1), "4 blocks asked, long rows, %s, L = %d: C right%s (%d blocks)%s%s",
                   form ? "prepared" : "CSR", widths[w], form ? ", made whole" : "", st.blocks, why[0] ? ": " : "", why);
        }
    tap_ok(ctx != NULL, "a context of 4 blocks for long rows");
    hsp_csr_free(A);
    hsp_context_free(ctx);
}

/* The CPU threads beside the device (options.spmm_cpu_share): on a device
 * that reads host memory they make the share of B's last columns (rounded)
 * while it makes the rest; on the cpu device they make all; on a device
 * with memory of its own none.  C checked in every form, order and
 * precision, with shares that leave each side one column or none. */
static void split(hsp_context *plain)
{
    static const double shares[] = {0.5, 0.3, 0.95, 1};
    int on_cpu = !strcmp(ref_device(), "cpu"), shared = !own_memory(plain);
    for (size_t n = 0; n < sizeof shares / sizeof *shares; n++) {
        hsp_context *ctx = spmm_context(0, shares[n]);
        if (!tap_ok(ctx != NULL, "a context of CPU share %g", shares[n])) continue;
        for (int form = 0; form < 5; form++)
            for (int ob = 0; ob < 2; ob++)
                for (int oc = 0; oc < 2; oc++) {
                    hsp_precision prec = (ob + oc + form) % 2 ? HSP_FLOAT : HSP_DOUBLE;
                    int32_t L = form % 2 ? 9 : 2, want = on_cpu ? L : shared ? (int32_t)(shares[n] * L + 0.5) : 0;
                    hsp_csr *A = form == 2 || form == 4 ? ref_random(300, 200, 4, 12, prec, 7)
                                                        : ref_long_rows(300, 200, prec);
                    hsp_dense B = dense(200, L, (hsp_order)ob, 1, prec, 51, 0), C = dense(300, L, (hsp_order)oc, 2, prec, 53, 0);
                    hsp_spmm_stats st = {0};
                    char why[160] = "";
                    int ok = checked_product(ctx, form, A, -2, &B, form < 3 ? 0.5 : 0, &C, &st, why, sizeof why);
                    tap_ok(ok && st.cpu_cols == want, "CPU share %g, form %d, %s, B %s, C %s, L = %d: %d columns on the CPU threads (want %d)%s%s",
                           shares[n], form, prec == HSP_DOUBLE ? "double" : "float", ob ? "column-major" : "row-major",
                           oc ? "column-major" : "row-major", L, st.cpu_cols, want, why[0] ? ": " : "", why);
                    hsp_csr_free(A);
                }
        hsp_context_free(ctx);
    }
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.spmm_cpu_share = 1.5;
    tap_ok(hsp_context_create(&o, &ctx) == HSP_ERR_ARG && !ctx, "a CPU share of 1.5: HSP_ERR_ARG (%s)", hsp_errmsg());
}

int main(void)
{
    hsp_context *ctx = ref_context();
    if (!tap_ok(ctx != NULL, "a context on %s", ref_device())) return tap_done();
    for (int form = 0; form < 5; form++) products(ctx, form, NULL);
    static const char *const narrower[] = {"256", "128"}; /* the CPU threads' narrower vectors, in bits */
    for (int k = 0; k < 2 && !strcmp(ref_device(), "cpu"); k++) {
        products(ctx, 0, narrower[k]);
        products(ctx, 2, narrower[k]);
    }
    if (strcmp(ref_device(), "cpu")) narrow_columns(ctx);
    prepared(ctx);
    resident(ctx);
    long_rows(ctx);
    copied_b();
    if (!strcmp(ref_device(), "cpu")) slabs(ctx), by_length(ctx);
    for (int k = 0; k < 2 && !strcmp(ref_device(), "cpu"); k++) streamed(ctx, k ? narrower[0] : NULL);
    padding(ctx);
    blocks();
    blocks_long_rows();
    split(ctx);
    shared_prepared();
    edges(ctx);
    errors(ctx);
    hsp_context_free(ctx);
    return tap_done();
}
