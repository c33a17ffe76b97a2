/* t_csr.c: creating, checking, converting and building CSR matrices. */
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "core/pool.h"
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

/* Is A valid by a plain row-by-row reading: pointers in order within nnz, columns in range and
 * strictly increasing in each row? */
static int plain_valid(const hsp_csr *A)
{
    for (int32_t i = 0; i < A->nrows; i++) {
        if (A->rowptr[i + 1] < A->rowptr[i] || A->rowptr[i] < 0 || A->rowptr[i + 1] > A->nnz) return 0;
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            if (A->colidx[p] < 0 || A->colidx[p] >= A->ncols || (p > A->rowptr[i] && A->colidx[p] <= A->colidx[p - 1]))
                return 0;
    }
    return 1;
}

/* One fault planted in a copy of A at a random entry or row (kind k of 6; some leave A valid:
 * a row's first column made any column below the second), hsp_csr_check and the pooled check
 * (16 parts on 3 threads) agreeing with plain_valid; on matrices with empty rows, a long row
 * and rows of one entry, so that faults fall at rows' starts and ends and at the parts' seams. */
static void test_check_random(void)
{
    hsp_pool *pool = NULL;
    int trials = 0, agree = 0, invalid = 0;
    uint64_t seed = 88172645463325252ull;
    hsp_pool_create(3, 1, &pool);
    for (int m = 0; m < 4 && pool; m++) {
        hsp_csr *A = ref_random(300 + 37 * m, 60, 0, m == 3 ? 1 : 8, HSP_DOUBLE, 11 + m);
        for (int t = 0; t < 300 && A && A->nnz > 2; t++, trials++) {
            hsp_csr *B = ref_copy(A);
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            int64_t p = (int64_t)(seed % (uint64_t)A->nnz);
            int32_t i = (int32_t)((seed >> 20) % (uint64_t)A->nrows);
            switch ((seed >> 40) % 6) {
            case 0: B->colidx[p] = p ? B->colidx[p - 1] : -1; break; /* a duplicate, or the row before's last */
            case 1: B->colidx[p] = (seed >> 50) & 1 ? -1 : B->ncols; break;
            case 2: if (p + 1 < B->nnz) B->colidx[p] = B->colidx[p + 1], B->colidx[p + 1] = A->colidx[p]; break;
            case 3: if (B->rowptr[i + 1] > B->rowptr[i]) B->colidx[B->rowptr[i]] = 0; break;
            case 4: if (i > 0 && i < B->nrows) B->rowptr[i] = B->rowptr[i - 1] - 1 - (int64_t)((seed >> 33) % 3); break;
            default: if (i > 0 && i < B->nrows) B->rowptr[i] = B->rowptr[i + 1] + 1; break;
            }
            int valid = plain_valid(B);
            hsp_status s1 = hsp_csr_check(B), s2 = hsp_csr_check_rows_pooled(pool, B);
            agree += (s1 == HSP_OK) == valid && (s2 == HSP_OK) == valid;
            invalid += !valid;
            hsp_csr_free(B);
        }
        hsp_csr_free(A);
    }
    tap_ok(pool && trials == 1200 && agree == trials && invalid > 600,
           "checks of %d matrices with a planted fault (%d invalid by a plain reading): %d agree", trials, invalid,
           agree);
    hsp_pool_free(pool);
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
    test_check_random();
    test_triplets();
    test_convert();
    test_kept_arrays();
    return tap_done();
}
