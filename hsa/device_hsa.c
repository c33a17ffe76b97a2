/* device_hsa.c: opening the hsa device, "hsa[:N][,nosvm]": GPU agent N,
 * the embedded code object for its ISA (float and double), the memory mode
 * its system's SVM allows (nosvm: the fine-grained pool), one queue; then
 * gpu.h's stages run on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agents.h"
#include "hsa_gpu.h"
#include "internal.h"

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

static void hsa_close(gpu *g)
{
    hsa_state *st = g->backend;
    hsa_queue_close(st);
    hsa_unload(st);
    free(st);
}

static const gpu_ops hsa_ops = {hsa_alloc, hsa_free, NULL, NULL, NULL, hsa_map_host,
                                hsa_group_limit, hsa_launch, hsa_finish, hsa_close};

/* Pools, both executables and the queue for agent a into st. */
static hsp_status open_state(hsa_state *st, const hsp_hsa_agent *a, const hsp_code_object *co[2], int nosvm)
{
    st->agent.handle = a->handle, st->cpu.handle = a->cpu;
    st->mode = hsa_choose_memory(a->svm, a->svm_default, nosvm);
    st->max_group = a->max_group ? a->max_group : 256;
    st->group_mem = a->local_mem;
    hsp_status s = hsa_find_pools(st);
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

hsp_status hsp_device_hsa_open(const char *spec, hsp_device **out)
{
    hsp_hsa_agent list[16];
    const hsp_code_object *co[2];
    char why[256] = "";
    static const char *const flags[] = {"nosvm"};
    int count = 0, index;
    unsigned nosvm;
    *out = NULL;
    hsp_status s = hsp_device_spec(spec, "hsa", flags, 1, &index, &nosvm);
    if (index < 0) index = 0;
    if (s == HSP_OK) s = hsp_hsa_agents(list, 16, &count, why, sizeof why);
    if (s != HSP_OK) return s;
    if (index > 0 && index >= count)
        return hsp_fail(HSP_ERR_ARG, "no HSA GPU %d: there are %d%s%s", index, count, *why ? ": " : "", why);
    if (!count) return hsp_fail(HSP_ERR_DEVICE, "device 'hsa': %s", why);
    if ((s = match(&list[index], co)) != HSP_OK) return s;
    hsp_device *dev;
    if ((s = gpu_device_new(&hsa_ops, sizeof(hsa_state), "hsa", &dev)) != HSP_OK) return s;
    gpu *g = dev->state;
    hsa_state *st = g->backend;
    s = open_state(st, &list[index], co, nosvm);
    g->host_arrays = st->mode != HSA_MEM_POOL;
    g->fp64 = 1;
    g->local_mem = st->group_mem;
    if (s != HSP_OK) {
        dev->destroy(dev);
        return s;
    }
    dev->name = "hsa";
    snprintf(dev->description, sizeof dev->description, "hsa:%d %.20s %.20s (%s)", index % 1000, list[index].name,
             list[index].product, hsa_memory_name(st->mode));
    dev->wavefront = list[index].wavefront;
    gpu_device_init(dev);
    *out = dev;
    return HSP_OK;
}
