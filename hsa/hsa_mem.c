/* hsa_mem.c: memory of the hsa device.  Where the system's SVM makes host
 * memory GPU-accessible by default (XNACK on), host arrays are used in place
 * and the long-row pool grows by realloc (gpu_mem.c); where SVM needs each
 * range made accessible, that is done for every host array used and after
 * every realloc; without SVM, arrays come from the CPU agent's fine-grained
 * pool, which both sides read and write, and grow by allocate + copy. */
#include <string.h>
#include "hsa_gpu.h"
#include "internal.h"

hsa_mem_mode hsa_choose_memory(int svm, int by_default, int nosvm)
{
    if (nosvm || !svm) return HSA_MEM_POOL;
    return by_default ? HSA_MEM_SVM : HSA_MEM_SVM_MAPPED;
}

const char *hsa_memory_name(hsa_mem_mode mode)
{
    return mode == HSA_MEM_SVM ? "svm" : mode == HSA_MEM_SVM_MAPPED ? "svm mapped" : "fine-grained pool";
}

typedef struct {
    hsa_amd_memory_pool_t *fine, *kernarg;
    int found_fine, found_kernarg;
} pool_walk;

/* Note the CPU agent's global pools that may be allocated from: the
 * kernel-argument pool, and a fine-grained one besides it (per pool). */
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
        *w->kernarg = pool, w->found_kernarg = 1;
    else if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !w->found_fine)
        *w->fine = pool, w->found_fine = 1;
    return HSA_STATUS_SUCCESS;
}

hsp_status hsa_find_pools(hsa_state *st)
{
    pool_walk w = {&st->fine, &st->kernarg_pool, 0, 0};
    hsa_status_t e = hsa_amd_agent_iterate_memory_pools(st->cpu, note_pool, &w);
    if (e != HSA_STATUS_SUCCESS) return hsp_fail(HSP_ERR_DEVICE, "HSA: listing memory pools: %s", hsa_error(e));
    if (!w.found_kernarg) return hsp_fail(HSP_ERR_DEVICE, "HSA: the CPU agent has no kernel-argument pool");
    if (!w.found_fine) st->fine = st->kernarg_pool; /* fine-grained as well */
    return HSP_OK;
}

hsp_status hsa_alloc(gpu *g, gpu_array *x, size_t bytes)
{
    hsa_state *st = g->backend;
    void *p = NULL;
    hsa_status_t e = hsa_amd_memory_pool_allocate(st->fine, bytes, 0, &p);
    if (e == HSA_STATUS_SUCCESS) e = hsa_amd_agents_allow_access(1, &st->agent, NULL, p);
    if (e != HSA_STATUS_SUCCESS) {
        if (p) hsa_amd_memory_pool_free(p);
        return hsp_fail(HSP_ERR_NOMEM, "HSA: no fine-grained memory for %zu bytes: %s", bytes, hsa_error(e));
    }
    x->ptr = p;
    return HSP_OK;
}

void hsa_free(gpu *g, gpu_array *x)
{
    (void)g;
    if (x->ptr) hsa_amd_memory_pool_free(x->ptr);
}

hsp_status hsa_map_host(gpu *g, void *host, size_t bytes)
{
    hsa_state *st = g->backend;
    if (st->mode != HSA_MEM_SVM_MAPPED) return HSP_OK;
    hsa_amd_svm_attribute_pair_t access = {HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE, st->agent.handle};
    hsa_status_t e = hsa_amd_svm_attributes_set(host, bytes, &access, 1);
    return e == HSA_STATUS_SUCCESS ? HSP_OK
                                   : hsp_fail(HSP_ERR_DEVICE, "HSA: making %zu bytes of host memory GPU-accessible: %s "
                                              "(HSA_XNACK=1 may make it so by default; --device=hsa,nosvm copies "
                                              "instead)", bytes, hsa_error(e));
}
