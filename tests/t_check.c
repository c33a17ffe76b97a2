/* t_check.c: the bench's product check (cli/check.c) passes a right C and
 * names what is wrong in a C with a changed value, a moved column, a
 * dropped entry or the wrong shape. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "ref.h"
#include "tap.h"

/* Does the check find C wrong, with why naming text? */
static void expect_wrong(const hsp_csr *A, const hsp_csr *B, const hsp_csr *C, const char *text, const char *what)
{
    char why[192] = "";
    int right = cli_check_product(A, B, C, why, sizeof why);
    tap_ok(!right && strstr(why, text), "%s: found (%s)", what, why);
}

/* Entry k of C set to v, in C's precision. */
static void set(hsp_csr *C, int64_t k, double v)
{
    if (C->precision == HSP_DOUBLE) ((double *)C->values)[k] = v;
    else ((float *)C->values)[k] = (float)v;
}

/* The first row from 7 on with entries whose last column is not C's last. */
static int32_t test_row(const hsp_csr *C)
{
    int32_t i = 7;
    while (i < C->nrows && (C->rowptr[i] == C->rowptr[i + 1] || C->colidx[C->rowptr[i + 1] - 1] == C->ncols - 1)) i++;
    return i;
}

/* C without its entry k. */
static hsp_csr *drop(const hsp_csr *C, int64_t k)
{
    hsp_csr *D = NULL;
    hsp_csr_create(C->nrows, C->ncols, C->nnz - 1, C->precision, &D);
    int64_t out = 0;
    for (int32_t i = 0; i < C->nrows; i++) {
        for (int64_t q = C->rowptr[i]; q < C->rowptr[i + 1]; q++)
            if (q != k) D->colidx[out] = C->colidx[q], set(D, out++, hsp_csr_value(C, q));
        D->rowptr[i + 1] = out;
    }
    return D;
}

int main(void)
{
    for (hsp_precision prec = HSP_FLOAT; prec <= HSP_DOUBLE; prec++) {
        const char *p = prec == HSP_DOUBLE ? "double" : "float";
        hsp_csr *A = ref_random(300, 200, 0, 30, prec, 1), *B = ref_random(200, 250, 0, 30, prec, 2);
        hsp_csr *ref = ref_multiply(A, B, NULL), *C = NULL;
        hsp_csr_convert(ref, prec, &C);
        char why[192] = "", row[32];
        tap_ok(cli_check_product(A, B, C, why, sizeof why), "%s: the reference product passes %s", p, why);
        int32_t i = test_row(C);
        int64_t first = C->rowptr[i], last = C->rowptr[i + 1] - 1;
        double v = hsp_csr_value(C, first);
        int32_t col = C->colidx[last];
        snprintf(row, sizeof row, "row %d ", i);
        set(C, first, v * 1.01 + 0.01);
        expect_wrong(A, B, C, row, prec == HSP_DOUBLE ? "double: a changed value" : "float: a changed value");
        set(C, first, v);
        C->colidx[last] = C->ncols - 1; /* still sorted: moved to the last column */
        expect_wrong(A, B, C, row, prec == HSP_DOUBLE ? "double: a moved column" : "float: a moved column");
        C->colidx[last] = col;
        tap_ok(cli_check_product(A, B, C, why, sizeof why), "%s: restored, it passes again", p);
        hsp_csr *D = drop(C, first);
        expect_wrong(A, B, D, row, prec == HSP_DOUBLE ? "double: a dropped entry" : "float: a dropped entry");
        expect_wrong(A, A, C, "C is 300 x 250, not 300 x 200", "the wrong shape");
        C->colidx[first] = C->ncols; /* out of range */
        expect_wrong(A, B, C, "not valid CSR", "an invalid C");
        hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(ref), hsp_csr_free(C), hsp_csr_free(D);
    }
    return tap_done();
}
