/* device_hsa.c: opening the hsa device, "hsa[:N][,nosvm|,svm]": GPU agent
 * N, the embedded code object for its ISA (float and double), the memory mode
 * its system's SVM allows (nosvm: a pool; svm: host ranges registered even
 * without XNACK), one queue; then gpu.h's stages run on it.  The device holds
 * the HSA runtime from before it lists the agents until it is closed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device/hsa/agents.h"
#include "device/hsa/device_hsa.h"
#include "device/hsa/hsa_gpu.h"
#include "core/internal.h"

/* The targets this build has code objects for, space-separated, in buf. */
static const char *built_targets(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < hsp_ncode_objects; k++)
        if (!hsp_code_objects[k].dbl && at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? " " : "", hsp_code_objects[k].target);
    return buf;
}

static const gpu_ops hsa_ops = {hsa_alloc, hsa_free, NULL, NULL, NULL, hsa_map_host, hsa_unmap_host,
                                hsa_group_limit, hsa_launch, hsa_finish, hsa_close, NULL, NULL};

/* Pools, both executables and the queue for agent a into st; faults on the
 * agent reach st from then on. */
static hsp_status open_state(hsa_state *st, const hsp_hsa_agent *a, const hsp_code_object *co[2], hsa_mem_want want)
{
    st->agent.handle = a->handle, st->cpu.handle = a->cpu;
    st->mode = hsa_choose_memory(a->svm, a->svm_default, want);
    st->shared = a->shared, st->xnack_hint = hsa_xnack_hint(a->name);
    st->max_group = a->max_group ? a->max_group : 256;
    st->group_mem = a->local_mem;
    hsp_status s = hsa_runtime_watch(st);
    st->watched = s == HSP_OK;
    if (s == HSP_OK) s = hsa_find_pools(st);
    for (int d = 0; d < 2 && s == HSP_OK; d++) s = hsa_load(st, co[d], d);
    return s == HSP_OK ? hsa_queue_open(st) : s;
}

/* The code objects (float, double) for agent a, or why there are none. */
static hsp_status match(const hsp_hsa_agent *a, const hsp_code_object *co[2])
{
    char targets[256];
    co[0] = hsp_code_object_match(a->isa, 0), co[1] = hsp_code_object_match(a->isa, 1);
    if (co[0] && co[1]) return HSP_OK;
    return hsp_fail(HSP_ERR_UNSUPPORTED, "device 'hsa': no code object for %s (%s); this build has %s "
                    "(configure --with-amdgpu-targets=... to add it)", a->name, a->isa,
                    built_targets(targets, sizeof targets));
}

/* Agent index among count of them and its code objects into a and co, or
 * why not (why: what the runtime said when there are none). */
static hsp_status pick_agent(int index, const hsp_hsa_agent *list, int count, const char *why, hsp_hsa_agent *a,
                             const hsp_code_object *co[2])
{
    if (index > 0 && index >= count)
        return hsp_fail(HSP_ERR_ARG, "no HSA GPU %d: there are %d%s%s", index, count, *why ? ": " : "", why);
    if (!count) return hsp_fail(HSP_ERR_DEVICE, "device 'hsa': %s", why);
    *a = list[index];
    return match(a, co);
}

/* Agent index of the runtime, held by the caller when *held, and its code
 * objects into a and co, or why not. */
static hsp_status find_agent(int index, int *held, hsp_hsa_agent *a, const hsp_code_object *co[2])
{
    hsp_hsa_agent list[16];
    char why[256] = "";
    int count = 0;
    hsp_status s = (*held = hsp_hsa_hold(why, sizeof why)) ? hsp_hsa_agents(list, 16, &count, why, sizeof why) : HSP_OK;
    return s == HSP_OK ? pick_agent(index, list, count, why, a, co) : s;
}

hsp_status hsp_device_hsa_open(const char *spec, hsp_device **out)
{
    hsp_hsa_agent agent;
    const hsp_code_object *co[2];
    static const char *const flags[] = {"nosvm", "svm"};
    int index;
    unsigned set;
    *out = NULL;
    hsp_status s = hsp_device_spec(spec, "hsa", flags, 2, &index, &set);
    if (s != HSP_OK) return s;
    if (set == 3) return hsp_fail(HSP_ERR_ARG, "device '%s': nosvm and svm contradict each other", spec);
    if (index < 0) index = 0;
    hsp_device *dev;
    int held;
    s = find_agent(index, &held, &agent, co);
    if (s == HSP_OK) s = gpu_device_new(&hsa_ops, sizeof(hsa_state), "hsa", &dev);
    if (s != HSP_OK) {
        if (held) hsa_runtime_release();
        return s;
    }
    gpu *g = dev->state;
    hsa_state *st = g->backend;
    st->held = 1;
    s = open_state(st, &agent, co, set & 1 ? HSA_WANT_POOL : set & 2 ? HSA_WANT_SVM : HSA_WANT_DEFAULT);
    g->host_arrays = st->mode != HSA_MEM_POOL;
    g->fp64 = 1;
    g->local_add[0] = g->local_add[1] = 1; /* AMDGPU has 64-bit atomics in local memory */
    g->local_mem = st->group_mem;
    g->compute_units = (int)agent.compute_units;
    if (s != HSP_OK) {
        dev->destroy(dev);
        return s;
    }
    dev->name = "hsa";
    snprintf(dev->description, sizeof dev->description, "hsa:%d %.60s %.60s (%s)", index % 1000,
             agent.name, agent.product, hsa_memory_name(st->mode));
    dev->wavefront = agent.wavefront;
    gpu_device_ready(dev);
    *out = dev;
    return HSP_OK;
}
