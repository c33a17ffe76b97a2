/* row_columns.c: what the per-row methods of both precisions share: the
 * count of a row's distinct columns, and the sort of column indices. */
#include "spgemm/rows.h"

int64_t hsp_row_count(const hsp_csr *A, const hsp_csr *B, hsp_scratch *s, int32_t i)
{
    const int64_t *restrict brp = B->rowptr;
    const int32_t *restrict bcol = B->colidx;
    uint32_t *restrict mark = s->mark, tag = hsp_scratch_tag(s);
    int64_t n = 0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
        int32_t k = A->colidx[p];
        for (int64_t q = brp[k]; q < brp[k + 1]; q++) {
            n += mark[bcol[q]] != tag;
            mark[bcol[q]] = tag;
        }
    }
    return n;
}

/* Insertion sort: fastest for the short runs left by the quicksort. */
static void insertion_sort(int32_t *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        int32_t x = a[i];
        int64_t j = i;
        for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
        a[j] = x;
    }
}

void hsp_sort_columns(int32_t *a, int64_t n)
{
    while (n > 24) { /* quicksort with a median of three; recurse on the smaller side */
        int32_t x = a[0], y = a[n / 2], z = a[n - 1];
        int32_t pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        int64_t i = 0, j = n - 1;
        for (;;) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i >= j) break;
            int32_t t = a[i];
            a[i++] = a[j], a[j--] = t;
        }
        if (j + 1 < n - j - 1) {
            hsp_sort_columns(a, j + 1);
            a += j + 1, n -= j + 1;
        } else {
            hsp_sort_columns(a + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    insertion_sort(a, n);
}
