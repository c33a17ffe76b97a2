/* t_csr.c: creating, checking, converting and building CSR matrices. */
#include <stdlib.h>
#include <string.h>
#include "ref.h"
#include "tap.h"

/* Break A in place, check that hsp_csr_check names the fault, then restore. */
static void expect_invalid(hsp_csr *A, int64_t *slot, int64_t bad, const char *text)
{
    int64_t keep = *slot;
    *slot = bad;
    hsp_status s = hsp_csr_check(A);
    tap_ok(s == HSP_ERR_INVALID_CSR && strstr(hsp_errmsg(), text), "check finds '%s': %s", text,
           hsp_errmsg());
    *slot = keep;
}

static void test_check(void)
{
    hsp_csr *A = ref_small();
    tap_ok(A && hsp_csr_check(A) == HSP_OK, "a valid matrix passes");
    expect_invalid(A, &A->rowptr[0], 1, "rowptr[0]");
    expect_invalid(A, &A->rowptr[3], 3, "not nnz");
    expect_invalid(A, &A->rowptr[1], 5, "row 0: row pointers");
    int32_t keep = A->colidx[3];
    A->colidx[3] = 4;
    tap_ok(hsp_csr_check(A) == HSP_ERR_INVALID_CSR && strstr(hsp_errmsg(), "row 2: column 4 out of range"),
           "check finds a column out of range: %s", hsp_errmsg());
    A->colidx[3] = 0;
    tap_ok(hsp_csr_check(A) == HSP_ERR_INVALID_CSR && strstr(hsp_errmsg(), "row 2: column 0 after column 1"),
           "check finds an unsorted row: %s", hsp_errmsg());
    A->colidx[3] = 1;
    tap_ok(hsp_csr_check(A) == HSP_ERR_INVALID_CSR && strstr(hsp_errmsg(), "row 2: duplicate column 1"),
           "check finds a duplicate: %s", hsp_errmsg());
    A->colidx[3] = keep;
    static const int32_t rows[][4] = {{-3, 2, 5, 6}, {1, 12, 13, 14}, {1, 2, 3, 10}, {0, 11, 2, 3}};
    static const char *const found[] = {"column -3 out of range", "column 12 out of range", "column 10 out of range",
                                        "column 11 out of range"};
    hsp_csr *R = NULL;
    for (int k = 0; k < 4 && hsp_csr_create(1, 10, 4, HSP_DOUBLE, &R) == HSP_OK; k++) {
        memcpy(R->colidx, rows[k], sizeof rows[k]);
        memset(R->values, 0, 4 * sizeof(double));
        tap_ok(hsp_csr_check(R) == HSP_ERR_INVALID_CSR && strstr(hsp_errmsg(), found[k]),
               "check finds the first bad column of {%d, %d, %d, %d} in 10 columns: %s", rows[k][0], rows[k][1],
               rows[k][2], rows[k][3], hsp_errmsg());
        hsp_csr_free(R);
    }
    tap_ok(hsp_csr_check(NULL) == HSP_ERR_ARG, "check refuses NULL");
    hsp_csr_free(A);
}

static void test_triplets(void)
{
    int32_t r[] = {2, 0, 2, 0, 2}, c[] = {3, 2, 1, 0, 3};
    double v[] = {4, 2, 3, 1, 10};
    hsp_csr *A = NULL;
    hsp_status s = hsp_csr_from_triplets(3, 4, 5, r, c, v, HSP_DOUBLE, &A);
    const double *av = A ? A->values : NULL;
    tap_ok(s == HSP_OK && hsp_csr_check(A) == HSP_OK && A->nnz == 4 && A->rowptr[1] == 2 &&
               A->rowptr[2] == 2 && A->colidx[2] == 1 && A->colidx[3] == 3 && av[3] == 14,
           "unsorted triplets with a duplicate: sorted, duplicate summed");
    hsp_csr_free(A);
    r[0] = 3;
    s = hsp_csr_from_triplets(3, 4, 5, r, c, v, HSP_DOUBLE, &A);
    tap_ok(s == HSP_ERR_ARG && A == NULL && strstr(hsp_errmsg(), "triplet 0"),
           "a triplet outside the shape is refused: %s", hsp_errmsg());
    r[0] = 2;
    s = hsp_csr_from_triplets(3, 4, 5, r, c, NULL, HSP_FLOAT, &A);
    tap_ok(s == HSP_OK && ((float *)A->values)[3] == 2.0f, "a pattern gives ones, summed");
    hsp_csr_free(A);
    s = hsp_csr_from_triplets(0, 0, 0, NULL, NULL, NULL, HSP_DOUBLE, &A);
    tap_ok(s == HSP_OK && A->nrows == 0 && hsp_csr_check(A) == HSP_OK, "an empty 0 x 0 matrix");
    hsp_csr_free(A);
}

static void test_convert(void)
{
    hsp_csr *A = ref_random(50, 40, 0, 10, HSP_DOUBLE, 5), *F = NULL, *D = NULL;
    hsp_csr_convert(A, HSP_FLOAT, &F);
    hsp_csr_convert(F, HSP_DOUBLE, &D);
    int close = 1;
    for (int64_t k = 0; k < A->nnz; k++)
        close &= ((double *)D->values)[k] == (double)(float)((double *)A->values)[k];
    tap_ok(F->precision == HSP_FLOAT && D->nnz == A->nnz && close, "double -> float -> double");
    hsp_csr_free(A), hsp_csr_free(F), hsp_csr_free(D);
    tap_ok(hsp_csr_create(2, 2, 1, (hsp_precision)7, &A) == HSP_ERR_ARG && !A,
           "an unknown precision is refused");
}

/* hsp_csr_free keeps a large matrix's arrays for the next matrix of about
 * their size (not under AddressSanitizer, which must see every free). */
static void test_kept_arrays(void)
{
#ifdef __SANITIZE_ADDRESS__
    const int kept = 0;
#else
    const int kept = 1;
#endif
    hsp_csr *A = NULL, *B = NULL, *S = NULL;
    hsp_csr_create(1000, 1000, 1 << 21, HSP_DOUBLE, &A); /* 8 MiB of columns, 16 MiB of values */
    void *colidx = A->colidx, *values = A->values;
    hsp_csr_free(A);
    hsp_csr_create(10, 10, 1 << 21, HSP_DOUBLE, &B);
    tap_ok((B->colidx == colidx && B->values == values) == kept, "a freed large matrix's arrays %s",
           kept ? "serve the next of their size" : "are not kept (AddressSanitizer)");
    hsp_csr_free(B);
    hsp_csr_create(10, 10, 1 << 19, HSP_DOUBLE, &S); /* 4 MiB of values: a kept 8 MiB block is too large */
    tap_ok(S->values != values && S->values != colidx, "a kept block does not serve a request of under 2/3 its size");
    hsp_csr_free(S);
    hsp_release_memory();
    tap_ok(hsp_csr_create(10, 10, 1 << 21, HSP_DOUBLE, &B) == HSP_OK, "matrices are made after hsp_release_memory");
    hsp_csr_free(B);
    hsp_release_memory();
}

int main(void)
{
    test_check();
    test_triplets();
    test_convert();
    test_kept_arrays();
    return tap_done();
}
