/* hsa_runtime.c: the HSA runtime for the whole process.  Every hsa_init is
 * paired with an hsa_shut_down, both under one lock, so that threads opening
 * devices at once are safe.  When our count of holds goes from 0 to 1 we
 * register a system event handler: ROCr calls it on a GPU memory fault, and
 * unless a handler claims the fault (returns success) ROCr prints "Memory
 * access fault by GPU node" and aborts the process.  The handler claims a
 * fault on the agent of a device we have open, records it there (the device
 * is then lost: its waits fail at once) and leaves any other fault to ROCr.
 * A device's close gives back what it holds, unless it is lost. */
#include <pthread.h>
#include <stdlib.h>
#include "device/hsa/hsa_gpu.h"
#include "core/internal.h"

enum { WATCHED_MAX = 64 };

static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static int holds; /* our hsa_init calls not yet shut down */

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static hsa_state *watched[WATCHED_MAX]; /* open devices, by slot */

/* Record a memory fault on the agent of each watched device (ROCr's event
 * thread calls this); claimed only when one of ours is on that agent. */
static hsa_status_t on_system_event(const hsa_amd_event_t *event, void *data)
{
    int claimed = 0;
    (void)data;
    if (event->event_type != HSA_AMD_GPU_MEMORY_FAULT_EVENT) return HSA_STATUS_ERROR;
    const hsa_amd_gpu_memory_fault_info_t *f = &event->memory_fault;
    pthread_mutex_lock(&watch_lock);
    for (int k = 0; k < WATCHED_MAX; k++) {
        hsa_state *st = watched[k];
        if (!st || st->agent.handle != f->agent.handle) continue;
        atomic_store(&st->fault_address, f->virtual_address);
        atomic_store(&st->fault_reason, f->fault_reason_mask);
        atomic_store(&st->faulted, 1);
        claimed = 1;
    }
    pthread_mutex_unlock(&watch_lock);
    return claimed ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR;
}

hsa_status_t hsa_runtime_hold(void)
{
    pthread_mutex_lock(&hold_lock);
    hsa_status_t e = hsa_init();
    if (e == HSA_STATUS_SUCCESS && holds++ == 0) {
        e = hsa_amd_register_system_event_handler(on_system_event, NULL);
        if (e != HSA_STATUS_SUCCESS) hsa_shut_down(), holds--;
    }
    pthread_mutex_unlock(&hold_lock);
    return e;
}

void hsa_runtime_release(void)
{
    pthread_mutex_lock(&hold_lock);
    if (holds > 0) holds--, hsa_shut_down();
    pthread_mutex_unlock(&hold_lock);
}

hsp_status hsa_runtime_watch(hsa_state *st)
{
    int k = 0;
    pthread_mutex_lock(&watch_lock);
    while (k < WATCHED_MAX && watched[k]) k++;
    if (k < WATCHED_MAX) watched[k] = st;
    pthread_mutex_unlock(&watch_lock);
    return k < WATCHED_MAX ? HSP_OK
                           : hsp_fail(HSP_ERR_DEVICE, "HSA: more than %d hsa devices open at once", WATCHED_MAX);
}

void hsa_runtime_unwatch(hsa_state *st)
{
    pthread_mutex_lock(&watch_lock);
    for (int k = 0; k < WATCHED_MAX; k++)
        if (watched[k] == st) watched[k] = NULL;
    pthread_mutex_unlock(&watch_lock);
}

void hsa_close(gpu *g)
{
    hsa_state *st = g->backend;
    if (st->watched) hsa_runtime_unwatch(st);
    if (g->lost) return;
    hsa_queue_close(st);
    hsa_unload(st);
    if (st->held) hsa_runtime_release();
    free(st->ranges);
    free(st);
}
