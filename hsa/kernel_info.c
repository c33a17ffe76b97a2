/* kernel_info.c: kernel layouts from code-object metadata (through comgr)
 * and kernel-argument packing. */
#include <amd_comgr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "kernel_info.h"

/* The string at key of map node into buf ("" when absent or too long); comgr
 * copies as many bytes as asked, so the size is asked first. */
static const char *meta_string(amd_comgr_metadata_node_t node, const char *key, char *buf, size_t len)
{
    amd_comgr_metadata_node_t value;
    size_t size = 0;
    buf[0] = '\0';
    if (amd_comgr_metadata_lookup(node, key, &value) != AMD_COMGR_STATUS_SUCCESS) return buf;
    if (amd_comgr_get_metadata_string(value, &size, NULL) != AMD_COMGR_STATUS_SUCCESS || size > len ||
        amd_comgr_get_metadata_string(value, &size, buf) != AMD_COMGR_STATUS_SUCCESS)
        buf[0] = '\0';
    amd_comgr_destroy_metadata(value);
    return buf;
}

/* The number at key of map node (metadata holds numbers as strings), or 0. */
static uint32_t meta_number(amd_comgr_metadata_node_t node, const char *key)
{
    char buf[32];
    return (uint32_t)strtoul(meta_string(node, key, buf, sizeof buf), NULL, 10);
}

/* The kernels list of co's metadata; *data and *meta to release after. */
static hsp_status kernels_of(const hsp_code_object *co, amd_comgr_data_t *data,
                             amd_comgr_metadata_node_t *meta, amd_comgr_metadata_node_t *kernels)
{
    if (amd_comgr_create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, data) != AMD_COMGR_STATUS_SUCCESS)
        return hsp_fail(HSP_ERR_NOMEM, "comgr: no data object");
    if (amd_comgr_set_data(*data, (size_t)(co->end - co->start), (const char *)co->start) == AMD_COMGR_STATUS_SUCCESS &&
        amd_comgr_get_data_metadata(*data, meta) == AMD_COMGR_STATUS_SUCCESS) {
        if (amd_comgr_metadata_lookup(*meta, "amdhsa.kernels", kernels) == AMD_COMGR_STATUS_SUCCESS) return HSP_OK;
        amd_comgr_destroy_metadata(*meta);
    }
    amd_comgr_release_data(*data);
    return hsp_fail(HSP_ERR_DEVICE, "code object for %s: no kernel metadata", co->target);
}

static void release(amd_comgr_data_t data, amd_comgr_metadata_node_t meta, amd_comgr_metadata_node_t kernels)
{
    amd_comgr_destroy_metadata(kernels);
    amd_comgr_destroy_metadata(meta);
    amd_comgr_release_data(data);
}

hsp_status hsp_code_object_kernels(const hsp_code_object *co, int *count)
{
    amd_comgr_data_t data;
    amd_comgr_metadata_node_t meta, kernels;
    size_t n = 0;
    hsp_status s = kernels_of(co, &data, &meta, &kernels);
    if (s != HSP_OK) return s;
    amd_comgr_get_metadata_list_size(kernels, &n);
    release(data, meta, kernels);
    *count = (int)n;
    return HSP_OK;
}

/* Argument k of kernel node into a. */
static void read_arg(amd_comgr_metadata_node_t arg, hsp_karg *a)
{
    char kind[64];
    meta_string(arg, ".value_kind", kind, sizeof kind);
    a->kind = !strncmp(kind, "hidden_", 7)               ? HSP_KARG_HIDDEN
              : !strcmp(kind, "dynamic_shared_pointer") ? HSP_KARG_LOCAL
              : !strcmp(kind, "global_buffer")          ? HSP_KARG_BUFFER
                                                        : HSP_KARG_VALUE;
    a->offset = meta_number(arg, ".offset");
    a->size = meta_number(arg, ".size");
    a->pointee_align = meta_number(arg, ".pointee_align");
}

/* Fill k from kernel node. */
static hsp_status read_kernel(amd_comgr_metadata_node_t node, hsp_kernel_info *k)
{
    amd_comgr_metadata_node_t args, arg;
    size_t n = 0;
    meta_string(node, ".symbol", k->symbol, sizeof k->symbol);
    k->kernarg_size = meta_number(node, ".kernarg_segment_size");
    k->kernarg_align = meta_number(node, ".kernarg_segment_align");
    k->group_fixed = meta_number(node, ".group_segment_fixed_size");
    k->private_fixed = meta_number(node, ".private_segment_fixed_size");
    k->max_group_size = meta_number(node, ".max_flat_workgroup_size");
    k->wavefront = meta_number(node, ".wavefront_size");
    if (amd_comgr_metadata_lookup(node, ".args", &args) == AMD_COMGR_STATUS_SUCCESS) {
        amd_comgr_get_metadata_list_size(args, &n);
        for (size_t j = 0; j < n && j < HSP_KARG_MAX; j++) {
            if (amd_comgr_index_list_metadata(args, j, &arg) != AMD_COMGR_STATUS_SUCCESS) continue;
            read_arg(arg, &k->arg[k->nargs]);
            k->nexplicit += k->arg[k->nargs++].kind != HSP_KARG_HIDDEN;
            amd_comgr_destroy_metadata(arg);
        }
        amd_comgr_destroy_metadata(args);
    }
    return n <= HSP_KARG_MAX ? HSP_OK : hsp_fail(HSP_ERR_UNSUPPORTED, "kernel %s has %zu arguments", k->name, n);
}

hsp_status hsp_kernel_info_read(const hsp_code_object *co, const char *name, hsp_kernel_info *k)
{
    amd_comgr_data_t data;
    amd_comgr_metadata_node_t meta, kernels, node;
    size_t n = 0;
    char buf[64];
    hsp_status s = kernels_of(co, &data, &meta, &kernels);
    if (s != HSP_OK) return s;
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", name);
    amd_comgr_get_metadata_list_size(kernels, &n);
    int found = 0;
    for (size_t j = 0; j < n && !found; j++) {
        if (amd_comgr_index_list_metadata(kernels, j, &node) != AMD_COMGR_STATUS_SUCCESS) continue;
        if ((found = !strcmp(meta_string(node, ".name", buf, sizeof buf), name))) s = read_kernel(node, k);
        amd_comgr_destroy_metadata(node);
    }
    release(data, meta, kernels);
    return found ? s : hsp_fail(HSP_ERR_DEVICE, "code object for %s has no kernel %s", co->target, name);
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
        if (a->kind == HSP_KARG_HIDDEN) continue;
        const hsp_kernarg_value *x = &values[v++];
        if (a->kind == HSP_KARG_LOCAL) { /* the offset of its block in the group segment */
            uint32_t align = a->pointee_align ? a->pointee_align : 1;
            group = (group + align - 1) / align * align;
            memcpy(out + a->offset, &group, sizeof group < a->size ? sizeof group : a->size);
            group += (uint32_t)x->size;
            continue;
        }
        if (x->size != a->size || !x->data || a->offset + a->size > k->kernarg_size)
            return hsp_fail(HSP_ERR_ARG, "kernel %s: argument %d is %zu bytes, not %u", k->name, v - 1,
                            x->size, a->size);
        memcpy(out + a->offset, x->data, x->size);
    }
    *group_size = group;
    return HSP_OK;
}
