/* rows.c: the precision dispatch for rows (rows_float.c, rows_double.c). */
#include "spgemm/rows.h"

void hsp_rows_single(hsp_job *job, int64_t first, int64_t last)
{
    if (job->A->precision == HSP_DOUBLE) hsp_rows_single_d(job, first, last);
    else hsp_rows_single_f(job, first, last);
}

hsp_status hsp_rows_run(hsp_job *job, hsp_scratch *s, hsp_rows_mode mode, int32_t first, int32_t last,
                        hsp_growbuf *buf)
{
    return job->A->precision == HSP_DOUBLE ? hsp_rows_run_d(job, s, mode, first, last, buf)
                                           : hsp_rows_run_f(job, s, mode, first, last, buf);
}
