/* hsa_queue.c: kernel dispatch on the hsa device.  One AQL queue; each
 * launch packs its arguments by the kernel's layout into a block of
 * kernel-argument memory and writes a dispatch packet.  A dispatch waits for
 * all before it (the packet's barrier bit) unless it is one of stage 3's
 * bins, which hold distinct rows and may run at once.  Every packet counts
 * up one completion signal, which the packet processor counts down: the
 * queue is idle when it reads 0.
 *
 * Fences: a dispatch acquires at system scope when the host wrote memory the
 * GPU reads since the last one, else at agent scope, and releases at agent
 * scope; finish ends the work with a barrier-AND packet whose system-scope
 * release hands the results to the host.  Every wait has a deadline
 * (g->timeout_s) and stops at a GPU memory fault or a queue error: the device
 * is then lost (gpu.h), and nothing the GPU was given is freed. */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include "device/hsa/aql.h"
#include "device/hsa/hsa_gpu.h"
#include "core/internal.h"

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
    if (st->queue) hsa_queue_destroy(st->queue); /* first: nothing runs on what follows */
    if (st->done.handle) hsa_signal_destroy(st->done);
    if (st->kernargs) hsa_amd_memory_pool_free(st->kernargs);
    st->kernargs = NULL, st->done.handle = 0, st->queue = NULL;
}

size_t hsa_group_limit(gpu *g, int dbl, int kernel)
{
    hsa_state *st = g->backend;
    uint32_t most = st->kernel[dbl][kernel].layout->max_group_size;
    return most && most < st->max_group ? most : st->max_group;
}

/* ---- lost devices ------------------------------------------------------------------ */

/* Mark the device lost for the reason given (printf-style): the error. */
static hsp_status lose(gpu *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->lost_why, sizeof g->lost_why, fmt, ap);
    va_end(ap);
    g->lost = 1;
    return hsp_fail(HSP_ERR_DEVICE, "HSA: %s; the hsa device is unusable now, and the memory it was given is kept "
                    "(not freed) since the GPU may still write there", g->lost_why);
}

/* The first cause named by a memory fault's reason bits. */
static const char *fault_cause(uint32_t reason)
{
    return reason & HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT ? "page not present"
           : reason & HSA_AMD_MEMORY_FAULT_READ_ONLY      ? "write to a read-only page"
           : reason & HSA_AMD_MEMORY_FAULT_NX             ? "execution of a no-execute page"
           : reason & HSA_AMD_MEMORY_FAULT_HOST_ONLY      ? "a host-only page"
           : reason & (HSA_AMD_MEMORY_FAULT_DRAMECC | HSA_AMD_MEMORY_FAULT_SRAMECC) ? "an ECC error"
           : reason & HSA_AMD_MEMORY_FAULT_HANG           ? "a GPU reset after a hang"
                                                          : "cause unknown";
}

/* HSP_OK while nothing went wrong; else the error (losing the device at the
 * first memory fault or queue error). */
static hsp_status health(gpu *g)
{
    hsa_state *st = g->backend;
    if (g->lost) return hsp_fail(HSP_ERR_DEVICE, "HSA: the hsa device is unusable: %s", g->lost_why);
    if (atomic_load(&st->faulted))
        return lose(g, "a GPU memory fault at address 0x%llx (%s)", (unsigned long long)atomic_load(&st->fault_address),
                    fault_cause(atomic_load(&st->fault_reason)));
    int e = atomic_load(&st->queue_error);
    return e ? lose(g, "the queue failed: %s", hsa_error((hsa_status_t)e)) : HSP_OK;
}

/* The error for a wait that began at start (ms) if the deadline passed. */
static hsp_status deadline(gpu *g, double start, const char *what)
{
    if (hsp_now_ms() - start <= 1000 * g->timeout_s) return HSP_OK;
    return lose(g, "%s took longer than %g s (the deadline: hsp_options.device_timeout, --device-timeout, "
                "HSPGEMM_DEVICE_TIMEOUT)", what, g->timeout_s);
}

/* ---- packets ---------------------------------------------------------------------- */

/* The next packet slot of the queue, waiting while the queue is full. */
static hsp_status next_packet(gpu *g, void **packet, uint64_t *index)
{
    hsa_state *st = g->backend;
    double start = hsp_now_ms();
    hsp_status s = HSP_OK;
    *index = hsa_queue_add_write_index_scacq_screl(st->queue, 1);
    while (s == HSP_OK && *index - hsa_queue_load_read_index_scacquire(st->queue) >= st->queue->size) {
        s = health(g);
        if (s == HSP_OK) s = deadline(g, start, "waiting for room in the queue");
        sched_yield();
    }
    *packet = (hsa_kernel_dispatch_packet_t *)st->queue->base_address + *index % st->queue->size;
    return s;
}

/* Publish the packet at index with header, and ring the doorbell. */
static void publish(hsa_state *st, void *packet, uint64_t index, uint16_t header, uint16_t setup)
{
    hsa_signal_add_screlease(st->done, 1);
    hsp_aql_publish(packet, header, setup);
    hsa_signal_store_screlease(st->queue->doorbell_signal, (hsa_signal_value_t)index);
}

/* Queue a barrier-AND packet that releases all earlier work to the host. */
static hsp_status release_to_host(gpu *g)
{
    hsa_state *st = g->backend;
    void *p;
    uint64_t index;
    hsp_status s = next_packet(g, &p, &index);
    if (s != HSP_OK) return s;
    hsp_aql_barrier(p, st->done);
    publish(st, p, index, hsp_aql_header(HSA_PACKET_TYPE_BARRIER_AND, 1, HSA_FENCE_SCOPE_NONE, HSA_FENCE_SCOPE_SYSTEM),
            0);
    st->unreleased = 0;
    return HSP_OK;
}

hsp_status hsa_finish(gpu *g)
{
    hsa_state *st = g->backend;
    double start = hsp_now_ms();
    hsp_status s = health(g);
    if (s != HSP_OK || !st->queue || !st->done.handle) return s;
    if (st->unreleased && (s = release_to_host(g)) != HSP_OK) return s;
    for (;;) {
        hsa_signal_value_t left = hsa_signal_wait_scacquire(st->done, HSA_SIGNAL_CONDITION_EQ, 0,
                                                            st->ticks_per_s / 10, HSA_WAIT_STATE_BLOCKED);
        if ((s = health(g)) != HSP_OK) return s; /* a fault, even where the dispatch then completed */
        if (left == 0) break;
        if ((s = deadline(g, start, "waiting for the GPU to finish")) != HSP_OK) return s;
    }
    st->next_slot = 0, st->overlapped = 0;
    return HSP_OK;
}

/* Pack the arguments of kernel k (nargs of them, its count by the table)
 * into the next kernel-argument block (after draining the queue when all are
 * in use); *group_size is the group segment the dispatch needs. */
static hsp_status pack(gpu *g, const hsa_kernel *k, const gpu_arg *args, int nargs, size_t groups, size_t size,
                       void **block, uint32_t *group_size)
{
    hsa_state *st = g->backend;
    hsp_kernarg_value v[GPU_ARGS_MAX];
    hsp_status s = st->next_slot < st->nslots ? HSP_OK : hsa_finish(g);
    if (s != HSP_OK) return s;
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
    void *block, *p;
    uint32_t group_size;
    uint64_t index;
    hsp_status s = gpu_kernel_check(kernel, nargs);
    if (s != HSP_OK || !groups) return s;
    if (size > UINT16_MAX || groups > UINT32_MAX / size)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "kernel %s: a grid of %zu x %zu is too large", k->layout->name, groups,
                        size);
    s = health(g);
    if (s == HSP_OK) s = pack(g, k, args, nargs, groups, size, &block, &group_size);
    if (s == HSP_OK) s = next_packet(g, &p, &index);
    if (s != HSP_OK) return s;
    int barrier = !(g->overlap && st->overlapped);
    hsa_fence_scope_t acquire = g->host_wrote ? HSA_FENCE_SCOPE_SYSTEM : HSA_FENCE_SCOPE_AGENT;
    st->overlapped = g->overlap, g->host_wrote = 0, st->unreleased = 1;
    hsp_aql_dispatch(p, k->layout, k->object, block, (uint32_t)groups, (uint16_t)size, group_size, st->done);
    publish(st, p, index, hsp_aql_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, barrier, acquire, HSA_FENCE_SCOPE_AGENT),
            1);
    return HSP_OK;
}
