/* agents.h: the AMD GPUs the HSA runtime sees, and what each offers. */
#ifndef HSP_AGENTS_H
#define HSP_AGENTS_H

#include <stdint.h>
#include "hspgemm.h"

typedef struct {
    char name[64];        /* the ISA, e.g. "gfx1035" */
    char product[64];     /* marketing name */
    int wavefront;
    int64_t local_mem;    /* bytes of group segment */
    int svm, svm_default; /* SVM supported; host memory GPU-accessible by default */
} hsp_hsa_agent;

/* The GPU agents, up to max into list, their number in *count.  Where no AMD
 * GPU driver is present (no /dev/kfd) there are none and the runtime is not
 * started; why goes into why (len bytes). */
hsp_status hsp_hsa_agents(hsp_hsa_agent *list, int max, int *count, char *why, size_t len);

#endif
