/* kernel_layout.c: the embedded kernel layouts, found by code object and
 * kernel name, and kernel-argument packing by them. */
#include <string.h>
#include "internal.h"
#include "kernel_layout.h"

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

hsp_status hsp_kernarg_pack(const hsp_kernel_info *k, const hsp_kernarg_value *values, int nvalues,
                            void *buf, uint32_t *group_size)
{
    unsigned char *out = buf;
    uint32_t group = k->group_fixed;
    int v = 0;
    if (nvalues != k->nexplicit)
        return hsp_fail(HSP_ERR_ARG, "kernel %s takes %d arguments, not %d", k->name, k->nexplicit, nvalues);
    memset(out, 0, k->kernarg_size); /* hidden arguments and padding */
    for (int j = 0; j < k->nargs; j++) {
        const hsp_karg *a = &k->arg[j];
        if (hsp_karg_hidden(a->kind)) continue;
        const hsp_kernarg_value *x = &values[v++];
        if (a->kind == HSP_KARG_DYNAMIC_SHARED_POINTER) { /* the offset of its block in the group segment */
            uint32_t align = a->pointee_align ? a->pointee_align : 1;
            group = (group + align - 1) / align * align;
            memcpy(out + a->offset, &group, sizeof group < a->size ? sizeof group : a->size);
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
