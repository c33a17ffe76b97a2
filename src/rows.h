/* rows.h: computing rows of C~ on CPU threads, one function per precision
 * behind a dispatcher.  Single rows (bin 1) are a copy and a scale; the
 * other rows run the context's method for their group. */
#ifndef HSP_ROWS_H
#define HSP_ROWS_H

#include "scratch.h"
#include "stages.h"

/* Rows bin_rows[first .. last) of bin 1. */
void hsp_rows_single(hsp_job *job, int64_t first, int64_t last);
/* On a device that computes rows on the host threads (dev->direct), rows
 * first .. last - 1 in their order, with workspace s; buf is the buffer of
 * the first long row among them, the others following.  Count: each row's
 * number of entries into C->rowptr[i + 1], a long row computed into its
 * buffer.  Fill: each row into its place in C (rowptr final, arrays
 * allocated), a long row copied from its buffer, which is freed. */
hsp_status hsp_rows_count(hsp_job *job, hsp_scratch *s, int32_t first, int32_t last, hsp_growbuf *buf);
hsp_status hsp_rows_fill(hsp_job *job, hsp_scratch *s, int32_t first, int32_t last, hsp_growbuf *buf);
/* The number of distinct columns of row i of A*B (marks of s cover B's
 * columns). */
int64_t hsp_row_count(const hsp_csr *A, const hsp_csr *B, hsp_scratch *s, int32_t i);

void hsp_rows_single_f(hsp_job *job, int64_t first, int64_t last);
void hsp_rows_single_d(hsp_job *job, int64_t first, int64_t last);
hsp_status hsp_rows_count_f(hsp_job *job, hsp_scratch *s, int32_t first, int32_t last, hsp_growbuf *buf);
hsp_status hsp_rows_count_d(hsp_job *job, hsp_scratch *s, int32_t first, int32_t last, hsp_growbuf *buf);
hsp_status hsp_rows_fill_f(hsp_job *job, hsp_scratch *s, int32_t first, int32_t last, hsp_growbuf *buf);
hsp_status hsp_rows_fill_d(hsp_job *job, hsp_scratch *s, int32_t first, int32_t last, hsp_growbuf *buf);

/* Sort n distinct column indices ascending. */
void hsp_sort_columns(int32_t *col, int64_t n);

#endif
