/* stages.h: the four stages of a multiplication (private). */
#ifndef HSP_STAGES_H
#define HSP_STAGES_H

#include "spgemm/job.h"

/* Stage 1: upper bounds and flops.  Stage 2: bins and C~.  Stage 3: bins 0-1
 * on CPU threads, the rest on the device.  Stage 4: C from C~.  A device
 * that computes rows on the host threads (dev->spgemm->direct) has no C~: stage 3
 * counts the rows' entries, stage 4 computes them into C (direct.c). */
hsp_status hsp_stage_bound(hsp_job *job);
hsp_status hsp_stage_bin(hsp_job *job);
hsp_status hsp_stage_compute(hsp_job *job);
hsp_status hsp_stage_arrange(hsp_job *job);
/* Free what the stages allocated and did not free (not C). */
void hsp_job_cleanup(hsp_job *job);

#endif
