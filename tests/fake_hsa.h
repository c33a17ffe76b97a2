/* fake_hsa.h: a stand-in for the parts of the ROCm HSA runtime that the hsa
 * device's queue, memory and loading code call, so that t_hsa_dispatch can
 * run that code without a GPU.  Its packet processor takes published
 * packets off the queue in order, logs each with a copy of its kernel
 * arguments, marks it invalid, advances the read index and counts down the
 * completion signal: when the device waits on the signal, or one packet each
 * time the device reads the read index while the queue is full (as if the
 * GPU made progress meanwhile). */
#ifndef HSP_FAKE_HSA_H
#define HSP_FAKE_HSA_H

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include "code_objects.h"

enum { FAKE_LOG_MAX = 1024, FAKE_KERNARG_MAX = 512 };

typedef struct {
    /* set by the test */
    uint32_t queue_max;            /* the agent's largest queue */
    int no_kernarg_pool;           /* the CPU agent lacks a kernel-argument pool */
    const hsp_code_object *co;     /* symbols are looked up in its layouts */
    const char *misreport;         /* a kernel whose argument size the runtime misreports */
    int svm_fails;                 /* hsa_amd_svm_attributes_set fails */
    /* seen by the test */
    int symbols;                   /* symbols looked up, each "name.kd" */
    int bad_symbol_names;          /* lookups of names not ending in ".kd" */
    int svm_calls;
    void *svm_ptr;
    size_t svm_bytes;
    hsa_amd_svm_attribute_pair_t svm_attr;
    int doorbells;
    int nlog;                      /* packets processed */
    hsa_kernel_dispatch_packet_t log[FAKE_LOG_MAX];
    uint16_t header[FAKE_LOG_MAX];
    unsigned char kernarg[FAKE_LOG_MAX][FAKE_KERNARG_MAX];
} fake_hsa_state;

extern fake_hsa_state fake_hsa;

/* Forget everything logged and set. */
void fake_hsa_reset(void);
/* Report status on the queue, as the runtime does on a kernel fault. */
void fake_hsa_fail_queue(hsa_status_t status);
/* Packets published but not processed yet. */
int fake_hsa_pending(void);

#endif
