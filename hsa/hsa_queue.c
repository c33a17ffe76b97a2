/* hsa_queue.c: kernel dispatch on the hsa device.  One AQL queue; each
 * launch packs its arguments by the kernel's layout into a block of
 * kernel-argument memory and writes a dispatch packet.  A dispatch waits for
 * all before it (the packet's barrier bit) unless it is one of stage 3's
 * bins, which hold distinct rows and may run at once.  Every dispatch counts
 * up one completion signal, which the packet processor counts down: the
 * queue is idle when it reads 0. */
#include <sched.h>
#include "aql.h"
#include "hsa_gpu.h"
#include "internal.h"

enum { QUEUE_SIZE = 256, KERNARG_BLOCKS = 256 };

/* Record an error the queue reports (a kernel fault, say): the runtime
 * calls this on its own thread. */
static void queue_failed(hsa_status_t status, hsa_queue_t *queue, void *data)
{
    hsa_state *st = data;
    (void)queue;
    atomic_store(&st->queue_error, (int)status);
}

/* The largest kernel-argument segment of the loaded kernels, rounded up
 * to 64 bytes (blocks must be 16-byte aligned). */
static uint32_t kernarg_slot(const hsa_state *st)
{
    uint32_t most = 16;
    for (int d = 0; d < 2; d++)
        for (int j = 0; j < GK_COUNT; j++)
            if (st->kernel[d][j].layout && st->kernel[d][j].layout->kernarg_size > most)
                most = st->kernel[d][j].layout->kernarg_size;
    return (most + 63) / 64 * 64;
}

hsp_status hsa_queue_open(hsa_state *st)
{
    uint32_t most = 0;
    void *blocks = NULL;
    hsa_agent_get_info(st->agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &most);
    hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &st->ticks_per_s);
    st->slot = kernarg_slot(st), st->nslots = KERNARG_BLOCKS;
    hsa_status_t e = hsa_queue_create(st->agent, most && most < QUEUE_SIZE ? most : QUEUE_SIZE, HSA_QUEUE_TYPE_SINGLE,
                                      queue_failed, st, UINT32_MAX, UINT32_MAX, &st->queue);
    if (e == HSA_STATUS_SUCCESS) e = hsa_signal_create(0, 0, NULL, &st->done);
    if (e == HSA_STATUS_SUCCESS)
        e = hsa_amd_memory_pool_allocate(st->kernarg_pool, (size_t)st->slot * st->nslots, 0, &blocks);
    if (e == HSA_STATUS_SUCCESS) e = hsa_amd_agents_allow_access(1, &st->agent, NULL, blocks);
    st->kernargs = blocks;
    return e == HSA_STATUS_SUCCESS ? HSP_OK : hsp_fail(HSP_ERR_DEVICE, "HSA: creating the queue: %s", hsa_error(e));
}

void hsa_queue_close(hsa_state *st)
{
    if (st->kernargs) hsa_amd_memory_pool_free(st->kernargs);
    if (st->done.handle) hsa_signal_destroy(st->done);
    if (st->queue) hsa_queue_destroy(st->queue);
    st->kernargs = NULL, st->done.handle = 0, st->queue = NULL;
}

size_t hsa_group_limit(gpu *g, int dbl, int kernel)
{
    hsa_state *st = g->backend;
    uint32_t most = st->kernel[dbl][kernel].layout->max_group_size;
    return most && most < st->max_group ? most : st->max_group;
}

static hsp_status queue_status(hsa_state *st)
{
    int e = atomic_load(&st->queue_error);
    return e ? hsp_fail(HSP_ERR_DEVICE, "HSA: the queue failed: %s", hsa_error((hsa_status_t)e)) : HSP_OK;
}

hsp_status hsa_finish(gpu *g)
{
    hsa_state *st = g->backend;
    if (!st->queue || !st->done.handle) return HSP_OK;
    while (hsa_signal_wait_scacquire(st->done, HSA_SIGNAL_CONDITION_EQ, 0, st->ticks_per_s / 10,
                                     HSA_WAIT_STATE_BLOCKED) != 0)
        if (atomic_load(&st->queue_error)) break;
    st->next_slot = 0, st->overlapped = 0;
    return queue_status(st);
}

/* Pack the arguments of kernel k into the next kernel-argument block (after
 * draining the queue when all are in use); *group_size is the group segment
 * the dispatch needs. */
static hsp_status pack(gpu *g, const hsa_kernel *k, const gpu_arg *args, int nargs, size_t groups, size_t size,
                       void **block, uint32_t *group_size)
{
    hsa_state *st = g->backend;
    hsp_kernarg_value v[GPU_ARGS_MAX];
    hsp_status s = st->next_slot < st->nslots ? HSP_OK : hsa_finish(g);
    if (s != HSP_OK) return s;
    if (nargs > GPU_ARGS_MAX) return hsp_fail(HSP_ERR_ARG, "kernel %s: %d arguments", k->layout->name, nargs);
    for (int j = 0; j < nargs; j++)
        v[j] = args[j].kind == GPU_ARG_ARRAY   ? (hsp_kernarg_value){&args[j].array->ptr, sizeof(void *)}
               : args[j].kind == GPU_ARG_VALUE ? (hsp_kernarg_value){args[j].data, args[j].size}
                                               : (hsp_kernarg_value){NULL, args[j].size};
    *block = st->kernargs + (size_t)st->next_slot++ * st->slot;
    s = hsp_kernarg_pack(k->layout, v, nargs, (uint32_t)groups, (uint16_t)size, *block, group_size);
    if (s == HSP_OK && *group_size > st->group_mem)
        s = hsp_fail(HSP_ERR_UNSUPPORTED, "kernel %s needs %u bytes of group memory; the GPU has %lld",
                     k->layout->name, *group_size, (long long)st->group_mem);
    return s;
}

hsp_status hsa_launch(gpu *g, int dbl, int kernel, const gpu_arg *args, int nargs, size_t groups, size_t size)
{
    hsa_state *st = g->backend;
    const hsa_kernel *k = &st->kernel[dbl][kernel];
    void *block;
    uint32_t group_size;
    if (!groups) return HSP_OK;
    if (size > UINT16_MAX || groups > UINT32_MAX / size)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "kernel %s: a grid of %zu x %zu is too large", k->layout->name, groups,
                        size);
    hsp_status s = pack(g, k, args, nargs, groups, size, &block, &group_size);
    if (s != HSP_OK) return s;
    int barrier = !(g->overlap && st->overlapped);
    st->overlapped = g->overlap;
    uint64_t index = hsa_queue_add_write_index_scacq_screl(st->queue, 1);
    while (index - hsa_queue_load_read_index_scacquire(st->queue) >= st->queue->size) { /* the queue is full */
        if ((s = queue_status(st)) != HSP_OK) return s;
        sched_yield();
    }
    hsa_kernel_dispatch_packet_t *p = (hsa_kernel_dispatch_packet_t *)st->queue->base_address + index % st->queue->size;
    hsp_aql_dispatch(p, k->layout, k->object, block, (uint32_t)groups, (uint16_t)size, group_size, st->done);
    hsa_signal_add_screlease(st->done, 1);
    hsp_aql_publish(p, hsp_aql_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, barrier), 1);
    hsa_signal_store_screlease(st->queue->doorbell_signal, (hsa_signal_value_t)index);
    return HSP_OK;
}
