/* ref.c: the reference product (dense-accumulator Gustavson, written for
 * clarity, not speed) and random test matrices. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ref.h"

/* p, or the test bails out: the reference must not fail quietly. */
static void *need(void *p)
{
    if (!p) {
        printf("Bail out! the reference product is out of memory\n");
        exit(1);
    }
    return p;
}

hsp_csr *ref_multiply(const hsp_csr *A, const hsp_csr *B, double **mag)
{
    int32_t m = A->nrows, n = B->ncols;
    double *acc = need(calloc((size_t)n + 1, sizeof *acc));
    double *absacc = need(calloc((size_t)n + 1, sizeof *absacc));
    char *seen = need(calloc((size_t)n + 1, 1));
    int64_t cap = 16, nnz = 0;
    int32_t *rows = need(malloc(cap * sizeof *rows)), *cols = need(malloc(cap * sizeof *cols));
    double *vals = need(malloc(cap * sizeof *vals)), *mags = need(malloc(cap * sizeof *mags));
    hsp_csr *C = NULL;
    for (int32_t i = 0; i < m; i++) {
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            int32_t k = A->colidx[p];
            double a = hsp_csr_value(A, p);
            for (int64_t q = B->rowptr[k]; q < B->rowptr[k + 1]; q++) {
                int32_t j = B->colidx[q];
                double prod = a * hsp_csr_value(B, q);
                acc[j] += prod;
                absacc[j] += fabs(prod);
                seen[j] = 1;
            }
        }
        for (int32_t j = 0; j < n; j++) {
            if (!seen[j]) continue;
            if (nnz == cap) {
                cap *= 2;
                rows = need(realloc(rows, cap * sizeof *rows));
                cols = need(realloc(cols, cap * sizeof *cols));
                vals = need(realloc(vals, cap * sizeof *vals));
                mags = need(realloc(mags, cap * sizeof *mags));
            }
            rows[nnz] = i, cols[nnz] = j, vals[nnz] = acc[j], mags[nnz] = absacc[j];
            nnz++;
            acc[j] = absacc[j] = 0, seen[j] = 0;
        }
    }
    if (hsp_csr_from_triplets(m, n, nnz, rows, cols, vals, HSP_DOUBLE, &C) != HSP_OK)
        C = NULL;
    if (C && mag) {
        *mag = mags; /* triplets were already in row-major sorted order */
        mags = NULL;
    }
    free(acc), free(absacc), free(seen), free(rows), free(cols), free(vals), free(mags);
    return C;
}

int ref_compare(const hsp_csr *C, const hsp_csr *ref, const double *mag,
                char *why, size_t whylen)
{
    double eps = C->precision == HSP_DOUBLE ? 1.2e-16 : 6.0e-8;
    if (C->nrows != ref->nrows || C->ncols != ref->ncols) {
        snprintf(why, whylen, "shape %dx%d, expected %dx%d", C->nrows, C->ncols,
                 ref->nrows, ref->ncols);
        return 0;
    }
    if (C->nnz != ref->nnz) {
        snprintf(why, whylen, "nnz %lld, expected %lld", (long long)C->nnz,
                 (long long)ref->nnz);
        return 0;
    }
    for (int32_t i = 0; i < C->nrows; i++) {
        if (C->rowptr[i + 1] != ref->rowptr[i + 1]) {
            snprintf(why, whylen, "row %d ends at %lld, expected %lld", i,
                     (long long)C->rowptr[i + 1], (long long)ref->rowptr[i + 1]);
            return 0;
        }
        for (int64_t p = ref->rowptr[i]; p < ref->rowptr[i + 1]; p++) {
            double c = hsp_csr_value(C, p), r = hsp_csr_value(ref, p);
            int64_t terms = ref->rowptr[i + 1] - ref->rowptr[i] + 64;
            if (C->colidx[p] != ref->colidx[p]) {
                snprintf(why, whylen, "row %d entry %lld: column %d, expected %d", i,
                         (long long)(p - ref->rowptr[i]), C->colidx[p], ref->colidx[p]);
                return 0;
            }
            if (!(fabs(c - r) <= 4.0 * eps * (double)terms * mag[p] + 1e-300)) {
                snprintf(why, whylen, "row %d column %d: value %.17g, expected %.17g", i,
                         C->colidx[p], c, r);
                return 0;
            }
        }
    }
    return 1;
}

hsp_csr *ref_small(void)
{
    int32_t r[] = {0, 0, 2, 2}, c[] = {0, 2, 1, 3};
    double v[] = {1, 2, 3, 4};
    hsp_csr *A = NULL;
    hsp_csr_from_triplets(3, 4, 4, r, c, v, HSP_DOUBLE, &A);
    return A;
}

hsp_csr *ref_copy(const hsp_csr *A)
{
    hsp_csr *B = NULL;
    if (hsp_csr_create(A->nrows, A->ncols, A->nnz, A->precision, &B) != HSP_OK) return NULL;
    size_t vsize = A->precision == HSP_DOUBLE ? sizeof(double) : sizeof(float);
    memcpy(B->rowptr, A->rowptr, ((size_t)A->nrows + 1) * sizeof *A->rowptr);
    memcpy(B->colidx, A->colidx, (size_t)A->nnz * sizeof *A->colidx);
    memcpy(B->values, A->values, (size_t)A->nnz * vsize);
    return B;
}

int ref_identical(const hsp_csr *A, const hsp_csr *B)
{
    if (!A || !B) return 0;
    size_t vsize = A->precision == HSP_DOUBLE ? sizeof(double) : sizeof(float);
    return A->nrows == B->nrows && A->ncols == B->ncols && A->nnz == B->nnz &&
           A->precision == B->precision &&
           !memcmp(A->rowptr, B->rowptr, ((size_t)A->nrows + 1) * sizeof *A->rowptr) &&
           !memcmp(A->colidx, B->colidx, (size_t)A->nnz * sizeof *A->colidx) &&
           !memcmp(A->values, B->values, (size_t)A->nnz * vsize);
}


/* Row i's entries in ref_long_rows' matrix over R. */
static int64_t long_rows_row(const hsp_csr *R, int32_t i)
{
    return i == 3 ? R->ncols : i == 7 ? (R->ncols + 4) / 5 : R->rowptr[i + 1] - R->rowptr[i];
}

hsp_csr *ref_long_rows(int32_t nrows, int32_t ncols, hsp_precision precision)
{
    hsp_csr *R = ref_random(nrows, ncols, 0, 12, precision, 7), *A = NULL;
    int64_t nnz = 0;
    for (int32_t i = 0; i < nrows; i++) nnz += long_rows_row(R, i);
    need(hsp_csr_create(nrows, ncols, nnz, precision, &A) == HSP_OK ? A : NULL);
    size_t vs = precision == HSP_DOUBLE ? 8 : 4;
    for (int32_t i = 0, at = 0; i < nrows; i++) {
        int64_t n = long_rows_row(R, i), made = i == 3 || i == 7;
        for (int64_t k = 0; k < n; k++) {
            A->colidx[at + k] = made ? (int32_t)(i == 3 ? k : 5 * k) : R->colidx[R->rowptr[i] + k];
            memcpy((char *)A->values + (at + k) * vs, (char *)R->values + (made ? k % R->nnz : R->rowptr[i] + k) * vs,
                   vs);
        }
        at += (int32_t)n, A->rowptr[i + 1] = at;
    }
    hsp_csr_free(R);
    return A;
}
/* splitmix64: a small, good, seedable generator for test data. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

hsp_csr *ref_random(int32_t nrows, int32_t ncols, int32_t minrow, int32_t maxrow,
                    hsp_precision precision, uint64_t seed)
{
    uint64_t state = seed;
    int64_t cap = 0;
    int32_t *len = need(malloc(((size_t)nrows + 1) * sizeof *len));
    if (maxrow > ncols) maxrow = ncols;
    if (minrow > maxrow) minrow = maxrow;
    for (int32_t i = 0; i < nrows; i++) {
        len[i] = minrow + (int32_t)(next_random(&state) % (uint64_t)(maxrow - minrow + 1));
        cap += len[i];
    }
    int32_t *rows = need(malloc((cap + 1) * sizeof *rows));
    int32_t *cols = need(malloc((cap + 1) * sizeof *cols));
    double *vals = need(malloc((cap + 1) * sizeof *vals));
    char *used = need(calloc((size_t)ncols + 1, 1));
    int64_t nnz = 0;
    for (int32_t i = 0; i < nrows; i++) {
        int64_t first = nnz;
        for (int32_t t = 0; t < len[i]; t++) {
            int32_t j = (int32_t)(next_random(&state) % (uint64_t)ncols);
            while (used[j]) j = (j + 1) % ncols; /* distinct columns */
            used[j] = 1;
            rows[nnz] = i, cols[nnz] = j;
            vals[nnz++] = (double)(next_random(&state) >> 11) * 0x1.0p-52 - 1.0;
        }
        for (int64_t p = first; p < nnz; p++) used[cols[p]] = 0;
    }
    hsp_csr *A = NULL;
    double *typed = vals;
    float *fvals = NULL;
    if (precision == HSP_FLOAT) {
        fvals = need(malloc((cap + 1) * sizeof *fvals));
        for (int64_t p = 0; p < nnz; p++) fvals[p] = (float)vals[p];
        typed = (double *)(void *)fvals;
    }
    if (hsp_csr_from_triplets(nrows, ncols, nnz, rows, cols, typed, precision, &A) != HSP_OK)
        A = NULL;
    free(len), free(rows), free(cols), free(vals), free(used), free(fvals);
    return A;
}

const char *ref_device(void)
{
    const char *d = getenv("HSPGEMM_TEST_DEVICE");
    return d && *d ? d : "cpu";
}

int ref_shard(int part)
{
    const char *shard = getenv("HSPGEMM_TEST_SHARD");
    int k, n;
    if (!shard || sscanf(shard, "%d/%d", &k, &n) != 2 || n < 1) return 1;
    return part % n == k % n;
}

hsp_context *ref_context(void)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = ref_device(), o.small_nnz = -1; /* every product on the device under test */
    hsp_context_create(&o, &ctx);
    return ctx;
}

void ref_dense_solve(const hsp_csr *A, const double *b, double *x)
{
    int n = A->nrows;
    double *M = calloc((size_t)n * (n + 1), sizeof *M);
    for (int i = 0; i < n; i++) {
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) M[i * (n + 1) + A->colidx[k]] = hsp_csr_value(A, k);
        M[i * (n + 1) + n] = b[i];
    }
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int i = c + 1; i < n; i++)
            if (fabs(M[i * (n + 1) + c]) > fabs(M[p * (n + 1) + c])) p = i;
        for (int j = 0; j <= n; j++) {
            double t = M[c * (n + 1) + j];
            M[c * (n + 1) + j] = M[p * (n + 1) + j], M[p * (n + 1) + j] = t;
        }
        for (int i = c + 1; i < n; i++) {
            double f = M[i * (n + 1) + c] / M[c * (n + 1) + c];
            for (int j = c; j <= n; j++) M[i * (n + 1) + j] -= f * M[c * (n + 1) + j];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = M[i * (n + 1) + n];
        for (int j = i + 1; j < n; j++) s -= M[i * (n + 1) + j] * x[j];
        x[i] = s / M[i * (n + 1) + i];
    }
    free(M);
}

hsp_csr *ref_spd_of(hsp_csr *B, double add, double shift, int odd, hsp_precision p)
{
    int32_t n = B->nrows;
    int64_t m = 2 * B->nnz + n, k = 0;
    int32_t *rows = malloc(m * sizeof *rows), *cols = malloc(m * sizeof *cols);
    double *vals = malloc(m * sizeof *vals), *diag = calloc(n, sizeof *diag);
    hsp_csr *A = NULL, *C = NULL;
    for (int32_t i = 0; i < n; i++)
        for (int64_t e = B->rowptr[i]; e < B->rowptr[i + 1]; e++) {
            int32_t j = B->colidx[e];
            double v = fabs(hsp_csr_value(B, e)) + add;
            if (j == i || (odd && (i % 17 == 5 || j % 17 == 5))) continue;
            v = odd && e % 5 == 3 ? -v / 4 : v;
            rows[k] = i, cols[k] = j, vals[k++] = -v, rows[k] = j, cols[k] = i, vals[k++] = -v;
            diag[i] += fabs(v), diag[j] += fabs(v);
        }
    for (int32_t i = 0; i < n; i++) rows[k] = cols[k] = i, vals[k++] = diag[i] + shift;
    hsp_csr_from_triplets(n, n, k, rows, cols, vals, HSP_DOUBLE, &A); /* duplicates added */
    hsp_csr_convert(A, p, &C);
    hsp_csr_free(A), hsp_csr_free(B), free(rows), free(cols), free(vals), free(diag);
    return C;
}
