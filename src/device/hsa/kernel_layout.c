/* kernel_layout.c: the embedded kernel layouts, found by code object and
 * kernel name, and kernel-argument packing by them. */
#include <string.h>
#include "core/internal.h"
#include "device/hsa/kernel_layout.h"

const hsp_kernel_info *hsp_code_object_kernels(const hsp_code_object *co, int *count)
{
    for (int t = 0; t < hsp_nlayout_tables; t++) {
        const hsp_layout_table *table = &hsp_layout_tables[t];
        if (table->dbl == co->dbl && !strcmp(table->target, co->target)) {
            *count = table->nkernels;
            return table->kernel;
        }
    }
    *count = 0;
    return NULL;
}

const hsp_kernel_info *hsp_kernel_find(const hsp_code_object *co, const char *name)
{
    int count;
    const hsp_kernel_info *kernel = hsp_code_object_kernels(co, &count);
    for (int j = 0; j < count; j++)
        if (!strcmp(kernel[j].name, name)) return &kernel[j];
    return NULL;
}

/* The value of a hidden argument in a 1-D dispatch of groups work-groups of
 * size work-items: the v5 shape (y and z one group of one item, no partial
 * group, one dimension); zero for the global offsets and hidden_none (the
 * pointers from the runtime are refused before). */
static uint32_t hidden_value(hsp_karg_kind kind, uint32_t groups, uint16_t size)
{
    switch (kind) {
    case HSP_KARG_HIDDEN_BLOCK_COUNT_X: return groups;
    case HSP_KARG_HIDDEN_GROUP_SIZE_X: return size;
    case HSP_KARG_HIDDEN_BLOCK_COUNT_Y:
    case HSP_KARG_HIDDEN_BLOCK_COUNT_Z:
    case HSP_KARG_HIDDEN_GROUP_SIZE_Y:
    case HSP_KARG_HIDDEN_GROUP_SIZE_Z:
    case HSP_KARG_HIDDEN_GRID_DIMS: return 1;
    default: return 0;
    }
}

/* Store value little-endian (the host's and the GPU's order) in the first
 * bytes of a zeroed argument of size bytes. */
static void store(unsigned char *arg, uint32_t value, uint32_t size)
{
    for (uint32_t b = 0; b < size && b < sizeof value; b++) arg[b] = (unsigned char)(value >> 8 * b);
}

hsp_status hsp_kernarg_pack(const hsp_kernel_info *k, const hsp_kernarg_value *values, int nvalues, uint32_t groups,
                            uint16_t size, void *buf, uint32_t *group_size)
{
    unsigned char *out = buf;
    uint32_t group = k->group_fixed;
    int v = 0;
    if (nvalues != k->nexplicit)
        return hsp_fail(HSP_ERR_ARG, "kernel %s takes %d arguments, not %d", k->name, k->nexplicit, nvalues);
    memset(out, 0, k->kernarg_size); /* padding, and the hidden arguments passed zero */
    for (int j = 0; j < k->nargs; j++) {
        const hsp_karg *a = &k->arg[j];
        if (hsp_karg_needs_runtime(a->kind))
            return hsp_fail(HSP_ERR_UNSUPPORTED, "kernel %s has an argument of kind '%s', which needs a pointer from "
                            "the runtime that the hsa device does not provide", k->name, hsp_karg_kind_name(a->kind));
        if (hsp_karg_hidden(a->kind)) {
            store(out + a->offset, hidden_value(a->kind, groups, size), a->size);
            continue;
        }
        const hsp_kernarg_value *x = &values[v++];
        if (a->kind == HSP_KARG_DYNAMIC_SHARED_POINTER) { /* the offset of its block in the group segment */
            uint32_t align = a->pointee_align ? a->pointee_align : 1;
            group = (group + align - 1) / align * align;
            store(out + a->offset, group, a->size);
            group += (uint32_t)x->size;
            continue;
        }
        if (x->size != a->size || !x->data)
            return hsp_fail(HSP_ERR_ARG, "kernel %s: argument %d is %zu bytes, not %u", k->name, v - 1, x->size,
                            a->size);
        memcpy(out + a->offset, x->data, x->size);
    }
    *group_size = group;
    return HSP_OK;
}
