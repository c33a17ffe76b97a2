/* stages.h: the four stages of a multiplication (private). */
#ifndef HSP_STAGES_H
#define HSP_STAGES_H

#include "job.h"

/* Stage 1: upper bounds and flops.  Stage 2: bins and C~.  Stage 3: bins 0-1
 * on CPU threads, the rest on the device.  Stage 4: C from C~.  A device
 * that computes rows on the host threads (dev->direct) has no C~: stage 3
 * counts the rows' entries, stage 4 computes them into C (direct.c). */
hsp_status hsp_stage_bound(hsp_job *job);
hsp_status hsp_stage_bin(hsp_job *job);
hsp_status hsp_stage_compute(hsp_job *job);
hsp_status hsp_stage_arrange(hsp_job *job);
/* Stages 3 and 4 on a dev->direct (direct.c), and the freeing of what they
 * share. */
hsp_status hsp_direct_compute(hsp_job *job);
/* Stages 1 and 2 on a dev->direct (direct_bound.c), whose chunks are cut
 * at blocks of rows: of 16 rows where A has 16384 rows or more (a few
 * blocks a chunk), else of one row (a chunk may be a few heavy rows). */
static inline int64_t hsp_direct_block(int64_t nrows)
{
    return nrows >= 16384 ? 16 : 1;
}
hsp_status hsp_direct_bound(hsp_job *job);
hsp_status hsp_direct_bin(hsp_job *job);
hsp_status hsp_direct_arrange(hsp_job *job);
void hsp_direct_free(hsp_job *job);
/* Free what the stages allocated and did not free (not C). */
void hsp_job_cleanup(hsp_job *job);

#endif
