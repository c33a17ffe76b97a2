/* hsa_load.c: loading an embedded code object into an executable for the
 * agent, and finding each kernel's descriptor by its symbol (name.kd).  The
 * runtime's view of each kernel (kernel-argument bytes) is checked against
 * the layout read from the metadata at build time. */
#include <stdio.h>
#include "device/hsa/hsa_gpu.h"
#include "core/internal.h"

const char *hsa_error(hsa_status_t status)
{
    const char *text = NULL;
    return hsa_status_string(status, &text) == HSA_STATUS_SUCCESS && text ? text : "unknown HSA status";
}

/* Find kernel number j of executable dbl: its descriptor and layout. */
static hsp_status find_kernel(hsa_state *st, const hsp_code_object *co, int dbl, int j)
{
    char buf[24];
    const char *name = gpu_kernel_name(j, buf);
    const hsp_kernel_info *layout = hsp_kernel_find(co, name);
    hsa_executable_symbol_t symbol;
    uint32_t kernarg = 0;
    hsa_kernel *k = &st->kernel[dbl][j];
    if (!layout) return hsp_fail(HSP_ERR_DEVICE, "HSA: the %s code object has no kernel %s", co->target, name);
    hsa_status_t e = hsa_executable_get_symbol_by_name(st->exec[dbl], layout->symbol, &st->agent, &symbol);
    if (e == HSA_STATUS_SUCCESS)
        e = hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &k->object);
    if (e == HSA_STATUS_SUCCESS)
        e = hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kernarg);
    if (e != HSA_STATUS_SUCCESS) return hsp_fail(HSP_ERR_DEVICE, "HSA: kernel %s: %s", layout->symbol, hsa_error(e));
    if (kernarg != layout->kernarg_size)
        return hsp_fail(HSP_ERR_DEVICE, "HSA: kernel %s takes %u bytes of arguments, its layout says %u", name,
                        kernarg, layout->kernarg_size);
    k->layout = layout;
    return HSP_OK;
}

hsp_status hsa_load(hsa_state *st, const hsp_code_object *co, int dbl)
{
    hsa_profile_t profile = HSA_PROFILE_BASE;
    hsa_agent_get_info(st->agent, HSA_AGENT_INFO_PROFILE, &profile);
    hsa_status_t e =
        hsa_code_object_reader_create_from_memory(co->start, (size_t)(co->end - co->start), &st->reader[dbl]);
    if (e == HSA_STATUS_SUCCESS)
        e = hsa_executable_create_alt(profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &st->exec[dbl]);
    if (e == HSA_STATUS_SUCCESS)
        e = hsa_executable_load_agent_code_object(st->exec[dbl], st->agent, st->reader[dbl], NULL, NULL);
    if (e == HSA_STATUS_SUCCESS) e = hsa_executable_freeze(st->exec[dbl], NULL);
    if (e != HSA_STATUS_SUCCESS)
        return hsp_fail(HSP_ERR_DEVICE, "HSA: loading the %s %s code object: %s", co->target,
                        dbl ? "double" : "float", hsa_error(e));
    hsp_status s = HSP_OK;
    for (int j = 0; j < GK_COUNT && s == HSP_OK; j++)
        if (gpu_kernel_exists(j)) s = find_kernel(st, co, dbl, j);
    return s;
}

void hsa_unload(hsa_state *st)
{
    for (int d = 0; d < 2; d++) {
        if (st->exec[d].handle) hsa_executable_destroy(st->exec[d]);
        if (st->reader[d].handle) hsa_code_object_reader_destroy(st->reader[d]);
        st->exec[d].handle = st->reader[d].handle = 0;
    }
}
