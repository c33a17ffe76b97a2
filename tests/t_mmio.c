/* t_mmio.c: Matrix Market round trips, the field and symmetry variants, and
 * malformed files, each with its status and the line it names. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "ref.h"
#include "tap.h"

static char path_buf[4096];

/* The path of a file in tests/data. */
static const char *data(const char *name)
{
    const char *top = getenv("top_srcdir");
    snprintf(path_buf, sizeof path_buf, "%s/tests/data/%s", top ? top : ".", name);
    return path_buf;
}

/* Is A exactly the dense m x n matrix want (row-major)? */
static int equals_dense(const hsp_csr *A, int m, int n, const double *want)
{
    if (!A || A->nrows != m || A->ncols != n) return 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double v = 0;
            int present = 0;
            for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
                if (A->colidx[p] == j) v = hsp_csr_value(A, p), present = 1;
            if (v != want[i * n + j] || (present && want[i * n + j] == 0)) return 0;
        }
    return hsp_csr_check(A) == HSP_OK;
}

static void test_variants(void)
{
    static const double general[] = {1.5, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, -1};
    static const double sym[] = {2, -1, 0, -1, 0, -1, 0, -1, 2};
    static const double skew[] = {0, -1, -1, 1, 0, 0, 1, 0, 0};
    hsp_csr *A = NULL;
    hsp_mm_read(data("general_dup.mtx"), HSP_DOUBLE, 0, &A);
    tap_ok(equals_dense(A, 3, 4, general), "general: comments, blank lines, duplicates summed");
    hsp_csr_free(A);
    hsp_mm_read(data("sym_int.mtx"), HSP_FLOAT, 0, &A);
    tap_ok(equals_dense(A, 3, 3, sym), "integer symmetric, read as float, mirrored");
    hsp_csr_free(A);
    hsp_mm_read(data("skew_pattern.mtx"), HSP_DOUBLE, 0, &A);
    tap_ok(equals_dense(A, 3, 3, skew), "pattern skew-symmetric, lower-case banner words");
    hsp_csr_free(A);
    hsp_status s = hsp_mm_read(data("empty.mtx"), HSP_DOUBLE, 0, &A);
    tap_ok(s == HSP_OK && A->nrows == 0 && A->nnz == 0, "an empty 0 x 0 matrix");
    hsp_csr_free(A);
}

/* Write A to a temporary file and read it back. */
static hsp_csr *round_trip(const hsp_csr *A)
{
    char path[] = "/tmp/hspgemm-t_mmio-XXXXXX";
    int fd = mkstemp(path);
    hsp_csr *B = NULL;
    if (fd < 0) return NULL;
    close(fd);
    if (hsp_mm_write(path, A) == HSP_OK) hsp_mm_read(path, A->precision, 0, &B);
    unlink(path);
    return B;
}

static void test_round_trips(void)
{
    for (hsp_precision p = HSP_FLOAT; p <= HSP_DOUBLE; p++) {
        hsp_csr *A = ref_random(300, 200, 0, 30, p, 40 + p), *B = round_trip(A);
        tap_ok(B && ref_identical(A, B), "%s random 300 x 200: exact round trip",
               p == HSP_DOUBLE ? "double" : "float");
        hsp_csr_free(A), hsp_csr_free(B);
    }
    hsp_csr *A = NULL, *B;
    hsp_csr_create(4, 6, 0, HSP_DOUBLE, &A);
    B = round_trip(A);
    tap_ok(B && ref_identical(A, B), "an empty 4 x 6 matrix round trips");
    hsp_csr_free(A), hsp_csr_free(B);
    A = ref_random(3, 3, 1, 3, HSP_DOUBLE, 9);
    A->colidx[0] = 7;
    tap_ok(hsp_mm_write("/tmp/hspgemm-never.mtx", A) == HSP_ERR_INVALID_CSR,
           "writing an invalid matrix is refused");
    A->colidx[0] = 0;
    hsp_status s = hsp_mm_write("/nonexistent-dir/x.mtx", A);
    tap_ok(s == HSP_ERR_IO && strstr(hsp_errmsg(), "/nonexistent-dir/x.mtx"),
           "an unwritable path: %s", hsp_errmsg());
    hsp_csr_free(A);
}

static void test_malformed(void)
{
    static const struct {
        const char *file, *text;
        hsp_status want;
    } bad[] = {
        {"bad_banner.mtx", ":1: no %%MatrixMarket banner", HSP_ERR_PARSE},
        {"bad_array.mtx", ":1: format 'array'", HSP_ERR_UNSUPPORTED},
        {"bad_complex.mtx", ":1: field 'complex'", HSP_ERR_UNSUPPORTED},
        {"bad_size.mtx", ":3: the size line", HSP_ERR_PARSE},
        {"bad_negative.mtx", ":2: negative size", HSP_ERR_PARSE},
        {"bad_index.mtx", ":3: index (3, 1) outside", HSP_ERR_PARSE},
        {"bad_index_zero.mtx", ":4: index (0, 2) outside", HSP_ERR_PARSE},
        {"bad_missing_value.mtx", ":4: missing or malformed value", HSP_ERR_PARSE},
        {"bad_value.mtx", ":3: missing or malformed value", HSP_ERR_PARSE},
        {"bad_trailing.mtx", ":3: unexpected text 'extra'", HSP_ERR_PARSE},
        {"bad_short.mtx", ":2: 5 entries declared, but the 16 bytes left hold 4 at the most", HSP_ERR_PARSE},
        {"bad_ends_early.mtx", "ends after 2 of 3 entries", HSP_ERR_PARSE},
        {"bad_long.mtx", ":4: more entries than the 1 declared", HSP_ERR_PARSE},
        {"bad_skew_diagonal.mtx", ":3: a skew-symmetric matrix has no diagonal", HSP_ERR_PARSE},
        {"bad_empty.mtx", ":1: empty file", HSP_ERR_PARSE},
        {"bad_sym_shape.mtx", ":2: a symmetric matrix must be square", HSP_ERR_PARSE},
        {"no_such_file.mtx", "No such file", HSP_ERR_IO},
        {"bad_overflow.mtx", ":3: the value '1e999' is not a finite double", HSP_ERR_PARSE},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        hsp_csr *A = (hsp_csr *)&A;
        hsp_status s = hsp_mm_read(data(bad[k].file), HSP_DOUBLE, 0, &A);
        tap_ok(s == bad[k].want && A == NULL && strstr(hsp_errmsg(), bad[k].text) &&
                   strstr(hsp_errmsg(), bad[k].file),
               "%s: %s", bad[k].file, hsp_errmsg());
    }
}

/* A value that fits a double but not a float: read in double, refused in float. */
static void test_float_range(void)
{
    hsp_csr *A = NULL;
    tap_ok(hsp_mm_read(data("big_value.mtx"), HSP_DOUBLE, 0, &A) == HSP_OK && hsp_csr_value(A, 0) == 1e300,
           "1e300 is read in double");
    hsp_csr *B = A ? round_trip(A) : NULL; /* fuzz/mm_read found its writing cast 1e300 to an integer */
    tap_ok(B && ref_identical(A, B), "and written and read back the same");
    hsp_csr_free(A), hsp_csr_free(B);
    A = (hsp_csr *)&A;
    hsp_status s = hsp_mm_read(data("big_value.mtx"), HSP_FLOAT, 0, &A);
    tap_ok(s == HSP_ERR_PARSE && A == NULL && strstr(hsp_errmsg(), ":4: the value '1e300' is not a finite float"),
           "1e300 is refused in float: %s", hsp_errmsg());
}

/* hsp_mm_read_limit: the declared size against the limit, before reading. */
static void test_limit(void)
{
    hsp_csr *A = (hsp_csr *)&A;
    const char *file = data("general_dup.mtx");
    hsp_status s = hsp_mm_read_limit(file, HSP_DOUBLE, 0, 100, &A);
    tap_ok(s == HSP_ERR_NOMEM && A == NULL && strstr(hsp_errmsg(), "to read, more than the memory limit (100 bytes)"),
           "a file that needs more than 100 bytes is refused under that limit: %s", hsp_errmsg());
    s = hsp_mm_read_limit(file, HSP_DOUBLE, 0, 1 << 20, &A);
    hsp_csr *B = NULL;
    hsp_mm_read(file, HSP_DOUBLE, 0, &B);
    tap_ok(s == HSP_OK && ref_identical(A, B), "under 1 MiB it reads as hsp_mm_read does");
    hsp_csr_free(A), hsp_csr_free(B);
    s = hsp_mm_read_limit(file, HSP_DOUBLE, 0, -1, &A);
    tap_ok(s == HSP_ERR_ARG && A == NULL && strstr(hsp_errmsg(), "mem_limit = -1"), "a negative limit is refused: %s",
           hsp_errmsg());
}

/* The path of a scratch file holding text. */
static const char *scratch(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/t_mmio_%d.mtx", (int)getpid());
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
    return path;
}

/* Dense array files: a round trip of both precisions and orders, the
 * tests' array file, and malformed ones, each refused naming its line. */
static void test_dense(void)
{
    static const double v[] = {1.5, -2, 1e-7, 3.25, 0, 7, -0.125, 1e20, 2, 5, -6, 0.3};
    for (hsp_precision prec = HSP_FLOAT; prec <= HSP_DOUBLE; prec++)
        for (int order = 0; order < 2; order++) {
            size_t size = prec == HSP_DOUBLE ? 8 : 4;
            hsp_dense M = {3, 4, order ? 5 : 6, (hsp_order)order, prec, calloc(30, size)}, R;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++) {
                    int64_t k = order ? j * M.ld + i : i * M.ld + j;
                    if (prec == HSP_DOUBLE) ((double *)M.values)[k] = v[i * 4 + j];
                    else ((float *)M.values)[k] = (float)v[i * 4 + j];
                }
            const char *path = scratch("");
            int ok = hsp_mm_write_dense(path, &M) == HSP_OK && hsp_mm_read_dense(path, prec, &R) == HSP_OK &&
                     R.nrows == 3 && R.ncols == 4 && R.order == HSP_COL_MAJOR && R.ld == 3;
            for (int i = 0; ok && i < 3; i++)
                for (int j = 0; j < 4; j++) {
                    int64_t k = order ? j * M.ld + i : i * M.ld + j;
                    ok &= prec == HSP_DOUBLE ? ((double *)R.values)[j * 3 + i] == ((double *)M.values)[k]
                                             : ((float *)R.values)[j * 3 + i] == ((float *)M.values)[k];
                }
            tap_ok(ok, "a %s %s dense matrix with padded ld, written and read back the same (column-major)",
                   prec == HSP_DOUBLE ? "double" : "float", order ? "column-major" : "row-major");
            hsp_dense_free(&R), free(M.values), remove(path);
        }
    hsp_dense R;
    hsp_status read = hsp_mm_read_dense(data("bad_array.mtx"), HSP_DOUBLE, &R);
    tap_ok(read == HSP_OK && R.nrows == 2 && R.ncols == 2 && ((double *)R.values)[1] == 2,
           "tests/data/bad_array.mtx (refused as coordinate) reads as a 2 x 2 dense matrix");
    hsp_dense_free(&R);
    static const struct {
        const char *text, *msg;
        hsp_status want;
    } bad[] = {
        {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n% a comment\n", "the file ends after 3 of 4 values",
         HSP_ERR_PARSE},
        {"%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", ":5: more values than the 2 declared",
         HSP_ERR_PARSE},
        {"%%MatrixMarket matrix array real general\n1 2\n1\n1e999\n", ":4: the value '1e999' is not a finite double",
         HSP_ERR_PARSE},
        {"%%MatrixMarket matrix array integer general\n1 2\n1\n2.0\n", ":4: the value '2.0' is not a whole number",
         HSP_ERR_PARSE},
        {"%%MatrixMarket matrix array real general\n1 2\n1\n0x1p1\n", ":4: the value '0x1p1' is hexadecimal",
         HSP_ERR_PARSE},
        {"%%MatrixMarket matrix array real general\n1 2\n1 2\n", ":3: unexpected text '2' after the value",
         HSP_ERR_PARSE},
        {"%%MatrixMarket matrix array real general\n1 2 2\n1\n2\n", ":2: the size line of an array",
         HSP_ERR_PARSE},
        {"%%MatrixMarket matrix array real general\n100 100\n1\n", ":2: 100 x 100 values declared",
         HSP_ERR_PARSE},
        {"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n", ":1: format 'coordinate'",
         HSP_ERR_UNSUPPORTED},
        {"%%MatrixMarket matrix array pattern general\n1 1\n1\n", ":1: field 'pattern'", HSP_ERR_UNSUPPORTED},
        {"%%MatrixMarket matrix array real symmetric\n1 1\n1\n", ":1: symmetry 'symmetric'", HSP_ERR_UNSUPPORTED},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        hsp_dense D = {1, 1, 1, HSP_ROW_MAJOR, HSP_DOUBLE, &D};
        hsp_status s = hsp_mm_read_dense(scratch(bad[k].text), HSP_DOUBLE, &D);
        tap_ok(s == bad[k].want && !D.values && strstr(hsp_errmsg(), bad[k].msg), "dense: %s", hsp_errmsg());
    }
    remove(scratch(""));
    double one = 1;
    hsp_dense low = {2, 3, 2, HSP_ROW_MAJOR, HSP_DOUBLE, &one};
    const char *path = scratch("kept\n");
    char line[16] = "";
    hsp_status s = hsp_mm_write_dense(path, &low);
    FILE *f = fopen(path, "r");
    int got = f && fgets(line, sizeof line, f);
    if (f) fclose(f);
    tap_ok(s == HSP_ERR_ARG && got && !strcmp(line, "kept\n") && strstr(hsp_errmsg(), "ld 2 is less than 3"),
           "a dense matrix whose ld is below its columns is not written, the file kept: %s", hsp_errmsg());
    remove(path);
}

/* Is x of the class of want: the same infinity, or a NaN? */
static int same_class(double x, double want)
{
    return isnan(want) ? isnan(x) : x == want;
}

/* Values that are not finite (a product that overflowed) are written as
 * inf, -inf and nan, and read back as written, in both precisions and in
 * array files too (issue 56: the writers wrote what the readers refused). */
static void test_non_finite(void)
{
    const double want[3] = {INFINITY, -INFINITY, NAN}; /* (1,1), (1,2) and (2,2) of tests/data/inf_nan.mtx */
    for (hsp_precision p = HSP_FLOAT; p <= HSP_DOUBLE; p++) {
        hsp_csr *A = NULL, *B = NULL;
        hsp_status s = hsp_mm_read(data("inf_nan.mtx"), p, 0, &A);
        int ok = s == HSP_OK && A->nnz == 3;
        for (int k = 0; ok && k < 3; k++) ok = same_class(hsp_csr_value(A, k), want[k]);
        tap_ok(ok, "%s: inf, -Infinity and -NaN are read as written: %s", p ? "double" : "float",
               s == HSP_OK ? "" : hsp_errmsg());
        B = A ? round_trip(A) : NULL;
        ok = B && B->nnz == 3;
        for (int k = 0; ok && k < 3; k++) ok = same_class(hsp_csr_value(B, k), want[k]);
        tap_ok(ok, "%s: and written and read back the same", p ? "double" : "float");
        hsp_csr_free(A), hsp_csr_free(B);
    }
    double v[3] = {NAN, 1, -INFINITY};
    hsp_dense M = {3, 1, 3, HSP_COL_MAJOR, HSP_DOUBLE, v}, R = {0};
    const char *path = scratch("");
    hsp_status s = hsp_mm_write_dense(path, &M);
    if (s == HSP_OK) s = hsp_mm_read_dense(path, HSP_DOUBLE, &R);
    double *r = R.values;
    tap_ok(s == HSP_OK && isnan(r[0]) && r[1] == 1 && r[2] == -INFINITY, "a dense nan and -inf written, read back: %s",
           s == HSP_OK ? "" : hsp_errmsg());
    hsp_dense_free(&R), remove(path);
}

/* Text the reader took without a word (issue 56): a value in hexadecimal,
 * a NUL byte and what follows it, 3.5 in an integer file; and CR line
 * endings, a directory, an entry without its value, each refused naming the
 * line (and what is wrong) as it is in the file. */
static void test_lenient(void)
{
#define TEXT(literal) literal, sizeof literal - 1 /* a text that may hold a NUL byte, and its length */
    static const struct {
        const char *text;
        size_t len;
        const char *msg;
    } bad[] = {
        {TEXT("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 0x10\n2 2 1\n"),
         ":3: the value '0x10' is hexadecimal"},
        {TEXT("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\0 2 2 1\n2 2 1\n"),
         ":3: a NUL byte at column 6: not a text file"},
        {TEXT("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 3.5\n2 2 1\n"),
         ":3: the value '3.5' is not a whole number, in a file whose field is integer"},
        {TEXT("%%MatrixMarket matrix coordinate real general\r2 2 1\r1 1 1\r"),
         ":1: a carriage return inside the line: CR line endings"},
        {TEXT("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1\n2 2 1\n"), ":3: missing or malformed value"},
        {TEXT("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e9999999999999999999999999999999999999999\n"),
         ":3: the value '1e99999999999999999999999999999999999999...' is not a finite double"},
    };
#undef TEXT
    char path[64];
    snprintf(path, sizeof path, "/tmp/t_mmio_%d.mtx", (int)getpid());
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        FILE *f = fopen(path, "wb");
        if (f) fwrite(bad[k].text, 1, bad[k].len, f), fclose(f);
        hsp_csr *A = (hsp_csr *)&A;
        hsp_status s = hsp_mm_read(path, HSP_DOUBLE, 0, &A);
        tap_ok(s == HSP_ERR_PARSE && !A && strstr(hsp_errmsg(), bad[k].msg), "refused: %s", hsp_errmsg());
    }
    hsp_csr *A = NULL;
    hsp_status s = hsp_mm_read(scratch("%%MatrixMarket matrix coordinate real general\r\n2 2 1\r\n1 1 1.5\r\n"),
                               HSP_DOUBLE, 0, &A);
    tap_ok(s == HSP_OK && A->nnz == 1 && hsp_csr_value(A, 0) == 1.5, "CR LF line endings are read");
    hsp_csr_free(A);
    A = (hsp_csr *)&A;
    s = hsp_mm_read(data(""), HSP_DOUBLE, 0, &A);
    tap_ok(s == HSP_ERR_IO && !A && strstr(hsp_errmsg(), "is a directory"), "a directory: %s", hsp_errmsg());
    remove(path);
}

/* The readers' default limit, hsp_available_memory: the memory available,
 * and no more than the address space left under RLIMIT_AS (issue 56: a
 * 3-line file declaring 2147483647 x 2147483647 was read until the OOM
 * killer came, the limit being the machine's memory). */
static void test_available(void)
{
    tap_ok(hsp_available_memory() > 0, "hsp_available_memory: %lld bytes", (long long)hsp_available_memory());
#ifdef __SANITIZE_ADDRESS__
    tap_skip("AddressSanitizer maps terabytes of shadow memory", "under an address-space limit");
    tap_skip("AddressSanitizer maps terabytes of shadow memory", "a file of 2147483647 rows refused under it");
#else
    struct rlimit keep, low;
    int limited = getrlimit(RLIMIT_AS, &keep) == 0 && keep.rlim_max == RLIM_INFINITY;
    low = keep, low.rlim_cur = (rlim_t)8 << 30;
    limited = limited && setrlimit(RLIMIT_AS, &low) == 0;
    int64_t left = hsp_available_memory();
    tap_ok(limited && left > 0 && left <= (int64_t)8 << 30, "under an 8 GiB address-space limit: %lld bytes",
           (long long)left);
    hsp_csr *A = (hsp_csr *)&A;
    const char *path = scratch("%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 1\n");
    hsp_status s = hsp_mm_read(path, HSP_DOUBLE, 0, &A);
    tap_ok(s == HSP_ERR_NOMEM && !A &&
               strstr(hsp_errmsg(), ":2: a 2147483647 x 2147483647 matrix of 1 entries needs 17179869212 bytes "
                                    "(16.0 GiB) to read, more than the memory available"),
           "a file declaring 2147483647 rows is refused from its size line under it: %s", hsp_errmsg());
    if (limited) setrlimit(RLIMIT_AS, &keep);
    remove(path);
#endif
}

int main(void)
{
    test_variants();
    test_round_trips();
    test_malformed();
    test_float_range();
    test_limit();
    test_dense();
    test_lenient();
    test_non_finite();
    test_available();
    return tap_done();
}
