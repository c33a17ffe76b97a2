/* t_gen.c: the generators: shapes, counts, symmetry, determinism, errors. */
#include <math.h>
#include <string.h>
#include "ref.h"
#include "tap.h"

/* Is A equal to its transpose (pattern and values)? */
static int symmetric(const hsp_csr *A)
{
    for (int32_t i = 0; i < A->nrows; i++)
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            int32_t j = A->colidx[p];
            int found = 0;
            for (int64_t q = A->rowptr[j]; q < A->rowptr[j + 1]; q++)
                if (A->colidx[q] == i) found = hsp_csr_value(A, q) == hsp_csr_value(A, p);
            if (!found) return 0;
        }
    return 1;
}

/* Does every row whose stencil is complete sum to zero? */
static int interior_rows_sum_to_zero(const hsp_csr *A, int per_row)
{
    int seen = 0;
    for (int32_t i = 0; i < A->nrows; i++) {
        if (A->rowptr[i + 1] - A->rowptr[i] != per_row) continue;
        double sum = 0;
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) sum += hsp_csr_value(A, p);
        if (sum != 0) return 0;
        seen++;
    }
    return seen > 0;
}

static void test_poisson(void)
{
    static const struct {
        const char *spec;
        int64_t rows, nnz;
        int per_row;
    } cases[] = {
        {"poisson2d5:7", 49, 5 * 49 - 4 * 7, 5},
        {"poisson2d9:7", 49, 9 * 49 - 12 * 7 + 4, 9},
        {"poisson3d7:5", 125, 7 * 125 - 6 * 25, 7},
        {"poisson3d27:5", 125, 13 * 13 * 13, 27}, /* (3n - 2)^3 */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        hsp_csr *A = NULL;
        hsp_status s = hsp_generate(cases[k].spec, 1, HSP_DOUBLE, &A);
        int64_t want = cases[k].nnz;
        tap_ok(s == HSP_OK && hsp_csr_check(A) == HSP_OK && A->nrows == cases[k].rows &&
                   A->ncols == cases[k].rows && A->nnz == want,
               "%s: valid, %lld rows, nnz %lld (expected %lld)", cases[k].spec,
               (long long)cases[k].rows, A ? (long long)A->nnz : -1LL, (long long)want);
        tap_ok(A && symmetric(A), "%s: symmetric", cases[k].spec);
        tap_ok(A && interior_rows_sum_to_zero(A, cases[k].per_row),
               "%s: interior rows sum to zero", cases[k].spec);
        hsp_csr_free(A);
    }
}

/* The largest |A v| over the rows of nodes with all 9 neighbours (dofs rows a
 * node, x fast), v of each node (x, y) from mode(x, y, dof), over max |a_ij|. */
static double interior_residual(const hsp_csr *A, int n, int dofs, double (*mode)(int, int, int))
{
    double worst = 0, big = 0;
    for (int64_t p = 0; p < A->nnz; p++) big = fmax(big, fabs(hsp_csr_value(A, p)));
    for (int32_t i = 0; i < A->nrows; i++) {
        int node = i / dofs, x = node % n, y = node / n;
        if (x == 0 || y == 0 || x == n - 1 || y == n - 1) continue;
        double sum = 0;
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            int j = A->colidx[p] / dofs;
            sum += hsp_csr_value(A, p) * mode(j % n, j / n, A->colidx[p] % dofs);
        }
        worst = fmax(worst, fabs(sum));
    }
    return big > 0 ? worst / big : 1;
}
static double shift_x(int x, int y, int dof) { return (void)x, (void)y, dof == 0; }
static double shift_y(int x, int y, int dof) { return (void)x, (void)y, dof == 1; }
static double rotation(int x, int y, int dof) { return dof ? x : -y; }

/* aniso2d and elasticity2d: shapes, symmetry and their kernels on the
 * interior (constants; translations and the rotation) - PyAMG's own values
 * are checked entry for entry by t_gen_pyamg.sh. */
static void test_pde_kinds(void)
{
    hsp_csr *A = NULL;
    hsp_status s = hsp_generate("aniso2d:6", 1, HSP_DOUBLE, &A);
    tap_ok(s == HSP_OK && hsp_csr_check(A) == HSP_OK && A->nrows == 36 && A->nnz == 16 * 16,
           "aniso2d:6: valid, 36 rows, (3n - 2)^2 entries");
    tap_ok(A && symmetric(A), "aniso2d:6: symmetric");
    tap_ok(A && interior_residual(A, 6, 1, shift_x) < 1e-14, "aniso2d:6: interior rows sum to zero");
    hsp_csr_free(A), A = NULL;
    s = hsp_generate("elasticity2d:6", 1, HSP_DOUBLE, &A);
    tap_ok(s == HSP_OK && hsp_csr_check(A) == HSP_OK && A->nrows == 72 && A->nnz == 4 * 16 * 16,
           "elasticity2d:6: valid, 72 rows, whole 2x2 blocks of (3n - 2)^2 node pairs");
    tap_ok(A && symmetric(A), "elasticity2d:6: symmetric");
    tap_ok(A && interior_residual(A, 6, 2, shift_x) < 1e-14 && interior_residual(A, 6, 2, shift_y) < 1e-14 &&
               interior_residual(A, 6, 2, rotation) < 1e-13,
           "elasticity2d:6: the rigid-body modes are its kernel on the interior");
    hsp_csr_free(A);
}

static void test_random_kinds(void)
{
    hsp_csr *A = NULL, *B = NULL, *C = NULL, *F = NULL;
    const char *specs[] = {"rmat:10,8", "random:500,7", "band:300,3"};
    for (int k = 0; k < 3; k++) {
        hsp_generate(specs[k], 5, HSP_DOUBLE, &A);
        hsp_generate(specs[k], 5, HSP_DOUBLE, &B);
        hsp_generate(specs[k], 6, HSP_DOUBLE, &C);
        hsp_generate(specs[k], 5, HSP_FLOAT, &F);
        tap_ok(A && hsp_csr_check(A) == HSP_OK, "%s: valid", specs[k]);
        tap_ok(A && B && ref_identical(A, B), "%s: the same seed gives the same matrix", specs[k]);
        tap_ok(A && C && !ref_identical(A, C), "%s: another seed gives another matrix", specs[k]);
        int agree = F && F->nnz == A->nnz;
        for (int64_t p = 0; agree && p < A->nnz; p++)
            agree = F->colidx[p] == A->colidx[p] &&
                    fabs(hsp_csr_value(F, p) - hsp_csr_value(A, p)) <= 1e-6 * fabs(hsp_csr_value(A, p));
        tap_ok(agree, "%s: float and double agree", specs[k]);
        hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(C), hsp_csr_free(F);
    }
    hsp_generate("random:500,7", 1, HSP_DOUBLE, &A);
    int seven = A != NULL;
    for (int32_t i = 0; seven && i < A->nrows; i++) seven = A->rowptr[i + 1] - A->rowptr[i] == 7;
    tap_ok(seven, "random:500,7 has 7 entries in every row");
    hsp_csr_free(A);
    hsp_generate("band:300,3", 1, HSP_DOUBLE, &A);
    tap_ok(A && A->nnz == 7 * 300 - 12, "band:300,3 has 7n-12 entries");
    hsp_csr_free(A);
    hsp_generate("rmat:10,8", 1, HSP_DOUBLE, &A);
    tap_ok(A && A->nrows == 1024 && A->nnz > 4000 && A->nnz <= 8192,
           "rmat:10,8: 1024 rows, at most 8192 entries after summing duplicates (%lld)",
           A ? (long long)A->nnz : -1LL);
    hsp_csr_free(A);
}

static void test_errors(void)
{
    static const struct {
        const char *spec, *text;
        hsp_status want;
    } bad[] = {
        {"cube:3", "unknown generator", HSP_ERR_ARG},
        {"poisson2d5", "takes 1", HSP_ERR_ARG},
        {"poisson2d5:", "takes 1", HSP_ERR_ARG},
        {"poisson2d5:4,4", "takes 1", HSP_ERR_ARG},
        {"rmat:10", "SCALE,EDGEFACTOR", HSP_ERR_ARG},
        {"random:10,x", "N,PER_ROW", HSP_ERR_ARG},
        {"random:10,20", "20 distinct columns a row of 10 columns: give PER_ROW <= N", HSP_ERR_ARG},
        {"band:0,3", "positive", HSP_ERR_ARG},
        {"band:-5,3", "positive", HSP_ERR_ARG},
        {"poisson3d27:100000", "too many rows", HSP_ERR_OVERFLOW},
        {"elasticity2d:40000", "too many rows", HSP_ERR_OVERFLOW},
        {"aniso2d:2,2", "takes 1", HSP_ERR_ARG},
        {"rmat:40,8", "SCALE must be 1..30", HSP_ERR_OVERFLOW},
        {"random:3000000000,2", "too many", HSP_ERR_OVERFLOW},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        hsp_csr *A = (hsp_csr *)&A;
        hsp_status s = hsp_generate(bad[k].spec, 1, HSP_DOUBLE, &A);
        tap_ok(s == bad[k].want && A == NULL && strstr(hsp_errmsg(), bad[k].text),
               "'%s' refused: %s", bad[k].spec, hsp_errmsg());
    }
    hsp_csr *A = NULL;
    tap_ok(hsp_generate(NULL, 1, HSP_DOUBLE, &A) == HSP_ERR_ARG, "a NULL spec is refused");
}

int main(void)
{
    test_poisson();
    test_pde_kinds();
    test_random_kinds();
    test_errors();
    return tap_done();
}
