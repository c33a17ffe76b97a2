/* agents.c: finding AMD GPU agents through the HSA runtime.  /dev/kfd is
 * checked first: without it hsa_init fails with a misleading "out of
 * resources".  The agents' handles hold while the runtime is held: the
 * listing holds it for itself, a device that uses them holds it first. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "device/hsa/agents.h"
#include "device/hsa/hsa_gpu.h"
#include "device/hsa/kfd_topology.h"
#include "core/internal.h"

typedef struct {
    hsp_hsa_agent *list;
    int max, count;
    uint64_t cpu;
} agent_walk;

/* The group segment size of an agent's pools (called per pool). */
static hsa_status_t group_pool(hsa_amd_memory_pool_t pool, void *data)
{
    hsa_amd_segment_t segment;
    size_t size = 0;
    if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) == HSA_STATUS_SUCCESS &&
        segment == HSA_AMD_SEGMENT_GROUP &&
        hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size) == HSA_STATUS_SUCCESS)
        *(int64_t *)data = (int64_t)size;
    return HSA_STATUS_SUCCESS;
}

/* Copy the name of the agent's first ISA to data (called per ISA). */
static hsa_status_t first_isa(hsa_isa_t isa, void *data)
{
    uint32_t len = 0;
    if (hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &len) == HSA_STATUS_SUCCESS && len < 64)
        hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, data);
    return HSA_STATUS_INFO_BREAK;
}

/* Record a GPU agent, or note the CPU agent (called per agent). */
static hsa_status_t add_agent(hsa_agent_t agent, void *data)
{
    agent_walk *w = data;
    hsa_device_type_t type;
    uint32_t wave = 0;
    if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_SUCCESS;
    if (type == HSA_DEVICE_TYPE_CPU && !w->cpu) w->cpu = agent.handle;
    if (type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_SUCCESS;
    if (w->count < w->max) {
        hsp_hsa_agent *a = &w->list[w->count];
        bool svm = false, by_default = false, shared = false;
        memset(a, 0, sizeof *a);
        a->handle = agent.handle;
        hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, a->name);
        hsa_agent_iterate_isas(agent, first_isa, a->isa);
        hsa_agent_get_info(agent, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &a->max_group);
        hsa_agent_get_info(agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_PRODUCT_NAME, a->product);
        hsa_agent_get_info(agent, HSA_AGENT_INFO_WAVEFRONT_SIZE, &wave);
        hsa_amd_agent_iterate_memory_pools(agent, group_pool, &a->local_mem);
        hsa_agent_get_info(agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &a->compute_units);
        hsa_system_get_info((hsa_system_info_t)HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED, &svm);
        hsa_system_get_info((hsa_system_info_t)HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT, &by_default);
        hsa_agent_get_info(agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS, &shared);
        a->wavefront = (int)wave, a->svm = svm, a->svm_default = by_default, a->shared = shared;
        uint16_t major = 0, minor = 0;
        hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major);
        hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &minor);
        snprintf(a->version, sizeof a->version, "HSA runtime %u.%u", major, minor);
    }
    w->count++;
    return HSA_STATUS_SUCCESS;
}

int hsp_hsa_hold(char *why, size_t len)
{
    if (access("/dev/kfd", R_OK | W_OK) != 0) {
        snprintf(why, len, "no AMD GPU: /dev/kfd is missing or not accessible (the amdgpu driver's "
                           "compute interface; see doc/devices.md, 'Running on an AMD APU')");
        return 0;
    }
    if (hsa_runtime_hold() != HSA_STATUS_SUCCESS) {
        snprintf(why, len, "the HSA runtime did not start (hsa_init failed) although /dev/kfd exists");
        return 0;
    }
    return 1;
}

hsp_status hsp_hsa_agents(hsp_hsa_agent *list, int max, int *count, char *why, size_t len)
{
    agent_walk w = {list, max, 0, 0};
    *count = 0;
    if (!hsp_hsa_hold(why, len)) return HSP_OK;
    hsa_status_t e = hsa_iterate_agents(add_agent, &w);
    hsa_runtime_release();
    if (e != HSA_STATUS_SUCCESS) return hsp_fail(HSP_ERR_DEVICE, "HSA: listing agents failed");
    for (int k = 0; k < w.count && k < max; k++) list[k].cpu = w.cpu;
    *count = w.count;
    if (!w.count && !hsp_kfd_no_agent_advice(HSP_KFD_TOPOLOGY_ROOT, getenv("HSA_OVERRIDE_GFX_VERSION"), why, len))
        snprintf(why, len, "the HSA runtime sees no GPU agent");
    return HSP_OK;
}
