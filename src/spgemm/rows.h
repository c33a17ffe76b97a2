/* rows.h: computing rows of C~ on CPU threads, one function per precision
 * behind a dispatcher.  Single rows (bin 1) are a copy and a scale; the
 * other rows run the context's method for their group. */
#ifndef HSP_ROWS_H
#define HSP_ROWS_H

#include "core/scratch.h"
#include "spgemm/job.h"

/* Rows bin_rows[first .. last) of bin 1. */
void hsp_rows_single(hsp_job *job, int64_t first, int64_t last);
/* What hsp_rows_run does with rows, on a device that computes them on the
 * host threads (dev->spgemm->direct). */
typedef enum {
    HSP_ROWS_COUNT, /* each row's number of entries into C->rowptr[i + 1] */
    HSP_ROWS_FILL,  /* each row into its place in C (row pointers final, arrays allocated) */
    HSP_ROWS_STAGE  /* the rows one after another at the top of the thread's region
                       (s->region, reserved), their counts into C->rowptr[i + 1] */
} hsp_rows_mode;

/* Rows first .. last - 1 of C in their order, with workspace s.  buf is the
 * buffer of the first long row among them, the others following: a long
 * row is computed into it (count, stage: then it joins the rows at the
 * region's top) or copied from it into C, freeing it (fill). */
hsp_status hsp_rows_run(hsp_job *job, hsp_scratch *s, hsp_rows_mode mode, int32_t first, int32_t last,
                        hsp_growbuf *buf);
/* The number of distinct columns of row i of A*B (marks of s cover B's
 * columns). */
int64_t hsp_row_count(const hsp_csr *A, const hsp_csr *B, hsp_scratch *s, int32_t i);

void hsp_rows_single_f(hsp_job *job, int64_t first, int64_t last);
void hsp_rows_single_d(hsp_job *job, int64_t first, int64_t last);
hsp_status hsp_rows_run_f(hsp_job *job, hsp_scratch *s, hsp_rows_mode mode, int32_t first, int32_t last,
                          hsp_growbuf *buf);
hsp_status hsp_rows_run_d(hsp_job *job, hsp_scratch *s, hsp_rows_mode mode, int32_t first, int32_t last,
                          hsp_growbuf *buf);

/* Sort n distinct column indices ascending. */
void hsp_sort_columns(int32_t *col, int64_t n);

#endif
