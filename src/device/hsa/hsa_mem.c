/* hsa_mem.c: memory of the hsa device.  Where host memory is GPU-accessible
 * by default (XNACK on), host arrays are used in place and the long-row pool
 * grows by realloc (gpu_mem.c).  Without XNACK the default is a pool: with
 * XNACK off, any CPU-side change to a registered host range (free, realloc,
 * a heap trim) stops all of the process's queues until the driver restores
 * them, while the CPU threads allocate during stage 3; mode svm mapped
 * (registering every host array) is there only when asked for.
 *
 * Job arrays are coarse-grained: fine-grained memory is uncached in the GPU's
 * L2 on GFX 9.3 and 10.3, and the kernels read B and the row pointers many
 * times.  Host ranges are registered coarse-grained, each once (a table of
 * ranges: a product's own until the next product, the device's arrays until
 * freed); pool arrays come from a coarse-grained pool the host can reach.
 * Kernel arguments stay fine-grained.  Coherence is then the dispatches'
 * business: system-scope fences where host and GPU hand data over
 * (hsa_queue.c). */
#include <stdlib.h>
#include <string.h>
#include "device/hsa/hsa_gpu.h"
#include "core/internal.h"

hsa_mem_mode hsa_choose_memory(int svm, int by_default, hsa_mem_want want)
{
    if (want == HSA_WANT_POOL || !svm) return HSA_MEM_POOL;
    if (by_default) return HSA_MEM_SVM;
    return want == HSA_WANT_SVM ? HSA_MEM_SVM_MAPPED : HSA_MEM_POOL;
}

const char *hsa_memory_name(hsa_mem_mode mode)
{
    return mode == HSA_MEM_SVM ? "svm" : mode == HSA_MEM_SVM_MAPPED ? "svm mapped" : "pool";
}

const char *hsa_xnack_hint(const char *processor)
{
    if (!strncmp(processor, "gfx103", 6) || !strncmp(processor, "gfx11", 5))
        return "this GPU has no XNACK (HSA_XNACK=1 does nothing here): host arrays are used in place only when "
               "registered range by range (--device=hsa:N,svm)";
    if (!strcmp(processor, "gfx90c"))
        return "host arrays in place need XNACK: set HSA_XNACK=1 and boot with the amdgpu driver's retry faults on "
               "(kernel parameter amdgpu.noretry=0)";
    return "host arrays in place need XNACK: set HSA_XNACK=1 where the GPU supports it";
}

/* The pools of one agent that the device may use. */
typedef struct {
    hsa_amd_memory_pool_t coarse, fine, kernarg;
    int found_coarse, found_fine, found_kernarg;
} pool_walk;

/* Note an agent's global pools that may be allocated from, by kind (called
 * per pool): the first kernel-argument, coarse-grained and fine-grained one. */
static hsa_status_t note_pool(hsa_amd_memory_pool_t pool, void *data)
{
    pool_walk *w = data;
    hsa_amd_segment_t segment;
    uint32_t flags = 0;
    bool alloc = false;
    if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) != HSA_STATUS_SUCCESS ||
        segment != HSA_AMD_SEGMENT_GLOBAL)
        return HSA_STATUS_SUCCESS;
    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc);
    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
    if (!alloc) return HSA_STATUS_SUCCESS;
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !w->found_kernarg)
        w->kernarg = pool, w->found_kernarg = 1;
    else if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !w->found_coarse)
        w->coarse = pool, w->found_coarse = 1;
    else if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !w->found_fine)
        w->fine = pool, w->found_fine = 1;
    return HSA_STATUS_SUCCESS;
}

hsp_status hsa_find_pools(hsa_state *st)
{
    pool_walk cpu = {0}, gpu = {0};
    hsa_status_t e = hsa_amd_agent_iterate_memory_pools(st->cpu, note_pool, &cpu);
    if (e == HSA_STATUS_SUCCESS) e = hsa_amd_agent_iterate_memory_pools(st->agent, note_pool, &gpu);
    if (e != HSA_STATUS_SUCCESS) return hsp_fail(HSP_ERR_DEVICE, "HSA: listing memory pools: %s", hsa_error(e));
    if (!cpu.found_kernarg) return hsp_fail(HSP_ERR_DEVICE, "HSA: the CPU agent has no kernel-argument pool");
    st->kernarg_pool = cpu.kernarg;
    st->arrays_local = st->shared && gpu.found_coarse; /* an APU's own memory, which the host reaches */
    st->arrays_coarse = st->arrays_local || cpu.found_coarse;
    st->arrays = st->arrays_local ? gpu.coarse
                 : cpu.found_coarse ? cpu.coarse
                 : cpu.found_fine   ? cpu.fine
                                    : cpu.kernarg;
    return HSP_OK;
}

hsp_status hsa_alloc(gpu *g, gpu_array *x, size_t bytes)
{
    hsa_state *st = g->backend;
    hsa_agent_t both[2] = {st->agent, st->cpu};
    void *p = NULL;
    hsa_status_t e = hsa_amd_memory_pool_allocate(st->arrays, bytes, 0, &p);
    if (e == HSA_STATUS_SUCCESS) e = hsa_amd_agents_allow_access(st->arrays_local ? 2 : 1, both, NULL, p);
    if (e != HSA_STATUS_SUCCESS) {
        if (p) hsa_amd_memory_pool_free(p);
        return hsp_fail(HSP_ERR_NOMEM, "HSA: no %s memory for %zu bytes: %s",
                        st->arrays_coarse ? "coarse-grained" : "fine-grained", bytes, hsa_error(e));
    }
    x->ptr = p;
    return HSP_OK;
}

void hsa_free(gpu *g, gpu_array *x)
{
    (void)g;
    if (x->ptr) hsa_amd_memory_pool_free(x->ptr);
}

/* ---- registered host ranges ----------------------------------------------------- */

/* Is [start, end) inside a registered range? */
static int registered(const hsa_state *st, uintptr_t start, uintptr_t end)
{
    for (int k = 0; k < st->nranges; k++)
        if (st->ranges[k].start <= start && end <= st->ranges[k].end) return 1;
    return 0;
}

/* Note [start, end) as registered. */
static hsp_status note_range(hsa_state *st, uintptr_t start, uintptr_t end, int owned)
{
    if (st->nranges == st->cap_ranges) {
        int cap = st->cap_ranges ? 2 * st->cap_ranges : 32;
        hsa_range *r = realloc(st->ranges, (size_t)cap * sizeof *r);
        if (!r) return hsp_fail(HSP_ERR_NOMEM, "no memory for the table of host ranges");
        st->ranges = r, st->cap_ranges = cap;
    }
    st->ranges[st->nranges++] = (hsa_range){start, end, owned};
    return HSP_OK;
}

/* Drop the ranges for which drop(range, key) holds. */
static void drop_ranges(hsa_state *st, int (*drop)(const hsa_range *r, uintptr_t key), uintptr_t key)
{
    int kept = 0;
    for (int k = 0; k < st->nranges; k++)
        if (!drop(&st->ranges[k], key)) st->ranges[kept++] = st->ranges[k];
    st->nranges = kept;
}

static int not_owned(const hsa_range *r, uintptr_t key)
{
    (void)key;
    return !r->owned;
}

static int starts_at(const hsa_range *r, uintptr_t key)
{
    return r->start == key;
}

void hsa_unmap_host(gpu *g, void *host)
{
    if (host) drop_ranges(g->backend, starts_at, (uintptr_t)host);
    else drop_ranges(g->backend, not_owned, 0);
}

/* What to do when a host range cannot be registered, for the mode's message. */
static const char *map_advice(hsa_mem_mode mode)
{
    return mode == HSA_MEM_SVM_MAPPED ? "without ,svm the device copies through a pool instead"
                                      : "--device=hsa:N,nosvm copies through a pool instead";
}

hsp_status hsa_map_host(gpu *g, void *host, size_t bytes, int owned)
{
    hsa_state *st = g->backend;
    uintptr_t start = (uintptr_t)host, end = start + bytes;
    if (st->mode == HSA_MEM_POOL || registered(st, start, end)) return HSP_OK;
    hsa_amd_svm_attribute_pair_t attrs[2] = {{HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED},
                                             {HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE, st->agent.handle}};
    hsa_status_t e = hsa_amd_svm_attributes_set(host, bytes, attrs, 2);
    if (e != HSA_STATUS_SUCCESS)
        return hsp_fail(HSP_ERR_DEVICE, "HSA: registering %zu bytes of host memory for the GPU: %s (%s; %s)", bytes,
                        hsa_error(e), map_advice(st->mode), st->xnack_hint ? st->xnack_hint : "");
    return note_range(st, start, end, owned);
}
