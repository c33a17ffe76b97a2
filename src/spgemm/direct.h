/* direct.h: the stages of a device that computes rows on the host threads,
 * straight into C (dev->spgemm->direct: the cpu device), without C~ (private). */
#ifndef HSP_DIRECT_H
#define HSP_DIRECT_H

#include "spgemm/job.h"

/* Stages 3 and 4 on a dev->spgemm->direct (direct.c), and the freeing of what they
 * share. */
hsp_status hsp_direct_compute(hsp_job *job);
/* Stages 1 and 2 on a dev->spgemm->direct (direct_bound.c), whose chunks are cut
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

#endif
