/* t_unsorted.c: products with options.unsorted, and hsp_csr_sort.  Over
 * random shapes (empty, rectangular, long rows that grow), every method the
 * device runs and both precisions, an unsorted C, once sorted, is the
 * sorted product bit for bit (with options.deterministic; a method that
 * cannot be, hash and dense on a GPU, gives the same pattern and values
 * within rounding of the reference); the cpu device does leave rows unsorted; the
 * products of plans and Galerkin products stay sorted; hsp_csr_sort refuses
 * bad matrices untouched and keeps duplicates; hsp_mm_write takes an
 * unsorted C.  Runs on $HSPGEMM_TEST_DEVICE (default cpu). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ref.h"
#include "tap.h"

/* A context on the device under test with method for every group (NULL
 * where the device cannot run it, or not deterministically when asked),
 * unsorted or not. */
static hsp_context *make_context(int threads, hsp_method method, int unsorted, int deterministic)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = ref_device(), o.threads = threads, o.unsorted = unsorted, o.deterministic = deterministic;
    o.small_nnz = -1; /* every product on the device under test */
    for (int g = 0; g < HSP_NMETHODGROUPS; g++) o.method[g] = method;
    return hsp_context_create(&o, &ctx) == HSP_OK ? ctx : NULL;
}

/* Does some row of C have its columns out of order? */
static int some_row_unsorted(const hsp_csr *C)
{
    for (int32_t i = 0; i < C->nrows; i++)
        for (int64_t k = C->rowptr[i] + 1; k < C->rowptr[i + 1]; k++)
            if (C->colidx[k] < C->colidx[k - 1]) return 1;
    return 0;
}

/* A*B unsorted and sorted with method: the first, sorted by hsp_csr_sort, is
 * the second bit for bit (where the method is deterministic on the device;
 * else both match the reference, pattern and all) and matches the reference.
 * Returns whether the unsorted C had a row out of order (-1 when the method
 * does not run). */
static int check_unsorted(const hsp_csr *A, const hsp_csr *B, hsp_method method, int threads, const char *what)
{
    int exact = 1;
    hsp_context *cu = make_context(threads, method, 1, 1), *cs = make_context(threads, method, 0, 1);
    if (!cu || !cs) {
        hsp_context_free(cu), hsp_context_free(cs), exact = 0;
        cu = make_context(threads, method, 1, 0), cs = make_context(threads, method, 0, 0);
    }
    if (!cu || !cs) return hsp_context_free(cu), hsp_context_free(cs), -1;
    hsp_csr *U = NULL, *S = NULL;
    hsp_status su = hsp_multiply(cu, A, B, &U, NULL), ss = hsp_multiply(cs, A, B, &S, NULL);
    int out_of_order = U && some_row_unsorted(U);
    hsp_status sorted = U ? hsp_csr_sort(U) : HSP_ERR_ARG;
    double *mag = NULL;
    hsp_csr *R = ref_multiply(A, B, &mag);
    char why[256] = "";
    int right = sorted == HSP_OK && hsp_csr_check(U) == HSP_OK && R && ref_compare(U, R, mag, why, sizeof why);
    int same = S && (exact ? ref_identical(U, S) : R && ref_compare(S, R, mag, why, sizeof why));
    tap_ok(su == HSP_OK && ss == HSP_OK && right && same, "%s, %s: unsorted C, sorted, is the sorted C %s (nnz %lld)%s%s",
           what, hsp_method_name(method), exact ? "bit for bit" : "in pattern, values within rounding (not deterministic)",
           U ? (long long)U->nnz : -1LL, *why ? ": " : "", why);
    hsp_csr_free(U), hsp_csr_free(S), hsp_csr_free(R), free(mag);
    hsp_context_free(cu), hsp_context_free(cs);
    return out_of_order;
}

/* Random shapes, every method; on the cpu device the dense and hash methods
 * leave rows of random columns out of order. */
static void test_products(void)
{
    static const int32_t shape[][5] = {
        /* m, k, n, min row, max row */
        {0, 0, 0, 0, 0},   {4, 6, 0, 0, 3},        {1, 1, 1, 1, 1},        {30, 20, 10, 0, 4},
        {200, 200, 200, 0, 8}, {50, 1000, 1000, 20, 60}, {300, 50, 2000, 0, 50}, {20, 300, 5000, 30, 300},
    };
    int cpu = !strcmp(ref_device(), "cpu"), seen_dense = 0, seen_hash = 0;
    uint64_t seed = 71;
    for (size_t s = 0; s < sizeof shape / sizeof shape[0]; s++) {
        const int32_t *d = shape[s];
        hsp_precision prec = s % 2 ? HSP_DOUBLE : HSP_FLOAT;
        hsp_csr *A = ref_random(d[0], d[1], d[3], d[4], prec, seed++);
        hsp_csr *B = ref_random(d[1], d[2], d[3], d[4] * 4, prec, seed++);
        char what[96];
        snprintf(what, sizeof what, "%dx%d * %dx%d, %s", d[0], d[1], d[1], d[2], prec == HSP_DOUBLE ? "double" : "float");
        for (hsp_method m = HSP_METHOD_DEFAULT; m < HSP_NMETHODS; m++) {
            int out = check_unsorted(A, B, m, 1 + (int)(s % 3), what);
            seen_dense |= out > 0 && (m == HSP_METHOD_DEFAULT || m == HSP_METHOD_DENSE);
            seen_hash |= out > 0 && m == HSP_METHOD_HASH;
        }
        hsp_csr_free(A), hsp_csr_free(B);
    }
    if (cpu) {
        tap_ok(seen_dense, "cpu, dense: some products leave rows out of order");
        tap_ok(seen_hash, "cpu, hash: some products leave rows out of order");
    }
}

/* The products of a plan and of hsp_rap on an unsorted context are sorted
 * (later products read them). */
static void test_library_products_sorted(void)
{
    hsp_context *ctx = make_context(2, HSP_METHOD_DEFAULT, 1, 0);
    hsp_csr *A = ref_random(300, 300, 2, 30, HSP_DOUBLE, 81), *P = ref_random(300, 60, 1, 6, HSP_DOUBLE, 82);
    hsp_csr *C = NULL, *G = NULL;
    hsp_plan *plan = NULL;
    hsp_status s = hsp_multiply_plan(ctx, A, A, &C, &plan, NULL);
    tap_ok(s == HSP_OK && hsp_csr_check(C) == HSP_OK, "unsorted context: a plan's C is sorted");
    s = hsp_rap(ctx, NULL, A, P, HSP_RAP_R_AP, &G, NULL, NULL);
    tap_ok(s == HSP_OK && hsp_csr_check(G) == HSP_OK, "unsorted context: P^T*A*P is sorted");
    hsp_plan_free(plan), hsp_csr_free(C), hsp_csr_free(G), hsp_csr_free(A), hsp_csr_free(P);
    hsp_context_free(ctx);
}

/* hsp_csr_sort: bad matrices refused and left as they were; duplicates
 * kept side by side with their values; an empty matrix. */
static void test_sort(void)
{
    int64_t rp[] = {0, 3, 3, 5};
    int32_t col[] = {4, 0, 2, 1, 1};
    float val[] = {4, 0, 2, 10, 11};
    hsp_csr M = {3, 5, 5, HSP_FLOAT, rp, col, val};
    tap_ok(hsp_csr_sort(NULL) == HSP_ERR_ARG, "hsp_csr_sort(NULL): %s", hsp_errmsg());
    col[2] = 5;
    tap_ok(hsp_csr_sort(&M) == HSP_ERR_INVALID_CSR && col[0] == 4 && col[1] == 0 && val[0] == 4,
           "a column out of range is refused, nothing moved: %s", hsp_errmsg());
    col[2] = 2, rp[1] = 6;
    tap_ok(hsp_csr_sort(&M) == HSP_ERR_INVALID_CSR && col[0] == 4 && val[0] == 4,
           "row pointers out of order are refused, nothing moved: %s", hsp_errmsg());
    rp[1] = 3;
    hsp_status s = hsp_csr_sort(&M);
    tap_ok(s == HSP_OK && col[0] == 0 && col[1] == 2 && col[2] == 4 && val[0] == 0 && val[1] == 2 && val[2] == 4 &&
               col[3] == 1 && col[4] == 1 && val[3] == 10 && val[4] == 11,
           "rows sorted with their values; a duplicate stays beside its twin");
    hsp_csr *E = NULL;
    hsp_csr_create(3, 0, 0, HSP_DOUBLE, &E);
    tap_ok(E && hsp_csr_sort(E) == HSP_OK, "an empty 3 x 0 matrix sorts");
    hsp_csr_free(E);
}

/* An unsorted C written as Matrix Market reads back as the sorted C. */
static void test_write(void)
{
    hsp_csr *A = ref_random(100, 100, 5, 20, HSP_DOUBLE, 91), *U = NULL, *S = NULL, *F = NULL;
    hsp_context *cu = make_context(2, HSP_METHOD_DEFAULT, 1, 0), *cs = make_context(2, HSP_METHOD_DEFAULT, 0, 0);
    char path[64];
    snprintf(path, sizeof path, "/tmp/hspgemm-unsorted-%d.mtx", (int)getpid());
    hsp_multiply(cu, A, A, &U, NULL), hsp_multiply(cs, A, A, &S, NULL);
    hsp_status s = U ? hsp_mm_write(path, U) : HSP_ERR_ARG;
    if (s == HSP_OK) s = hsp_mm_read(path, HSP_DOUBLE, 0, &F);
    tap_ok(s == HSP_OK && F && S && F->nnz == S->nnz && !memcmp(F->colidx, S->colidx, (size_t)S->nnz * sizeof(int32_t)),
           "an unsorted C is written, and read back sorted (%s)", s == HSP_OK ? "" : hsp_errmsg());
    remove(path);
    hsp_csr_free(A), hsp_csr_free(U), hsp_csr_free(S), hsp_csr_free(F);
    hsp_context_free(cu), hsp_context_free(cs);
}

int main(void)
{
    test_products();
    test_library_products_sorted();
    test_sort();
    test_write();
    return tap_done();
}
