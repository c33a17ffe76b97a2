/* rows.h: computing rows of C~ on CPU threads, one function per precision
 * behind a dispatcher.  Single rows (bin 1) are a copy and a scale; the
 * device's rows run the context's method for their group. */
#ifndef HSP_ROWS_H
#define HSP_ROWS_H

#include "scratch.h"
#include "stages.h"

/* Rows bin_rows[first .. last) of bin 1. */
void hsp_rows_single(hsp_job *job, int64_t first, int64_t last);
/* Rows bin_rows[first .. last) of bins 2 and up, with workspace s. */
hsp_status hsp_rows_compute(hsp_job *job, hsp_scratch *s, int64_t first, int64_t last);

void hsp_rows_single_f(hsp_job *job, int64_t first, int64_t last);
void hsp_rows_single_d(hsp_job *job, int64_t first, int64_t last);
hsp_status hsp_rows_compute_f(hsp_job *job, hsp_scratch *s, int64_t first, int64_t last);
hsp_status hsp_rows_compute_d(hsp_job *job, hsp_scratch *s, int64_t first, int64_t last);

/* Sort n distinct column indices ascending. */
void hsp_sort_columns(int32_t *col, int64_t n);

#endif
