/* agents.h: the AMD GPUs the HSA runtime sees, and what each offers. */
#ifndef HSP_AGENTS_H
#define HSP_AGENTS_H

#include <stddef.h>
#include <stdint.h>
#include "hspgemm.h"

typedef struct {
    uint64_t handle, cpu; /* the agent, and the CPU agent beside it (hsa_agent_t) */
    char name[64];        /* the processor, e.g. "gfx1035" */
    char isa[64];         /* its ISA, e.g. "amdgcn-amd-amdhsa--gfx1035" */
    uint32_t max_group;   /* largest work-group */
    char product[64];     /* marketing name */
    int wavefront;
    int64_t local_mem;    /* bytes of group segment */
    uint32_t compute_units; /* processors that run work-groups at once */
    int svm, svm_default; /* SVM supported; host memory GPU-accessible by default */
    int shared;           /* the host reaches the GPU's own memory directly (an APU,
                             whose memory is the host's; or a large-BAR card) */
    char version[48];     /* the HSA runtime's version */
} hsp_hsa_agent;

/* Hold the HSA runtime (hsa_runtime_hold), checking /dev/kfd first: 1, to be
 * paired with hsa_runtime_release; or 0 with why (len bytes) it cannot. */
int hsp_hsa_hold(char *why, size_t len);
/* The GPU agents, up to max into list, their number in *count.  Where no AMD
 * GPU driver is present (no /dev/kfd) there are none and the runtime is not
 * started; why goes into why (len bytes). */
hsp_status hsp_hsa_agents(hsp_hsa_agent *list, int max, int *count, char *why, size_t len);

#endif
