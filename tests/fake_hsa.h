/* fake_hsa.h: a stand-in for the parts of the ROCm HSA runtime that the hsa
 * device's queue, memory and loading code call, so that t_hsa_dispatch can
 * run that code without a GPU.  It follows ROCr 5.2.3 where the device
 * depends on it:
 * - The packet processor takes published packets off the queue in order,
 *   logs each (dispatches with a copy of their kernel arguments), marks it
 *   invalid, advances the read index and counts down the completion signal:
 *   when the device waits on the signal (a wait that finds nothing to do
 *   sleeps a millisecond, as a blocked wait would), or one packet each time
 *   the device reads the read index while the queue is full.  A hung queue
 *   processes nothing.
 * - hsa_init and hsa_shut_down are counted; the runtime's system event
 *   handlers are forgotten when the count returns to 0.  A GPU memory fault
 *   calls every handler; unless one returns success the runtime would print
 *   "Memory access fault by GPU node" and abort (here: counted in aborts).
 *   The faulting queue stops (hangs).
 * - The CPU agent of an APU has a fine-grained and a kernel-argument pool
 *   (and no coarse-grained one: ROCr makes that only for a dGPU's host); the
 *   GPU agent has its own coarse-grained pool.
 * - Faults: the calls that start the runtime, allocate or give access to
 *   memory, register host memory, create queues and signals, load code
 *   objects and look up their symbols, or wait, are counted; the one whose
 *   number is fail_at fails (with HSA_STATUS_ERROR_OUT_OF_RESOURCES; a wait
 *   returns with the queue reporting a kernel's fault, as after one).  What
 *   they made and was not yet destroyed or freed is counted in live. */
#ifndef HSP_FAKE_HSA_H
#define HSP_FAKE_HSA_H

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include "device/hsa/code_objects.h"

enum { FAKE_LOG_MAX = 1024, FAKE_KERNARG_MAX = 512, FAKE_ATTRS_MAX = 4 };
enum { FAKE_GPU_AGENT = 7, FAKE_CPU_AGENT = 8 }; /* agent handles */
/* pool handles */
enum { FAKE_POOL_FINE = 1, FAKE_POOL_KERNARG = 2, FAKE_POOL_CPU_COARSE = 3, FAKE_POOL_GPU_COARSE = 4 };

typedef struct {
    /* set by the test */
    uint32_t queue_max;            /* the agent's largest queue */
    int no_kernarg_pool;           /* the CPU agent lacks a kernel-argument pool */
    int dgpu;                      /* the CPU agent has a coarse-grained pool (a dGPU's host) */
    const hsp_code_object *co;     /* symbols are looked up in its layouts */
    const char *misreport;         /* a kernel whose argument size the runtime misreports */
    int svm_fails;                 /* hsa_amd_svm_attributes_set fails */
    int hang;                      /* the packet processor stops */
    long fail_at;                  /* the number of the counted call to fail; 0: none */
    /* seen by the test */
    int inits;                     /* hsa_init calls not yet shut down */
    int handlers;                  /* system event handlers registered */
    int aborts;                    /* faults no handler claimed: ROCr aborts the process */
    int symbols;                   /* symbols looked up, each "name.kd" */
    int bad_symbol_names;          /* lookups of names not ending in ".kd" */
    int svm_calls;                 /* hsa_amd_svm_attributes_set, and its last call: */
    void *svm_ptr;
    size_t svm_bytes;
    int svm_nattrs;
    hsa_amd_svm_attribute_pair_t svm_attrs[FAKE_ATTRS_MAX];
    uint64_t last_pool;            /* of the last allocation */
    int last_access_agents;        /* agents allowed to the last allocation */
    int pool_frees;
    int queues;                    /* queues that exist */
    int freed_under_queue;         /* the signal or kernel-argument memory freed while the
                                      queue existed (the GPU could still read them) */
    int doorbells;
    long calls;                    /* the calls that can fail, made since the reset */
    int live;                      /* allocations, signals, queues, readers and executables */
    int nlog;                      /* packets processed */
    hsa_kernel_dispatch_packet_t log[FAKE_LOG_MAX]; /* barrier-AND packets too, by header type */
    uint16_t header[FAKE_LOG_MAX];
    unsigned char kernarg[FAKE_LOG_MAX][FAKE_KERNARG_MAX];
} fake_hsa_state;

extern fake_hsa_state fake_hsa;

/* Forget everything logged and set, but not the runtime's state (its
 * hsa_init count and event handlers). */
void fake_hsa_reset(void);
/* Report status on the queue, as the runtime does on a kernel fault. */
void fake_hsa_fail_queue(hsa_status_t status);
/* Packets published but not processed yet. */
int fake_hsa_pending(void);
/* A GPU memory fault on agent at address, as ROCr reports it: every
 * handler is called; returns whether one claimed it (else aborts counts it). */
int fake_hsa_memory_fault(uint64_t agent, uint64_t address, uint32_t reason);

#endif
