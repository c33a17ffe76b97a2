/* kernel_meta.c: kernel layouts from code-object metadata, through comgr. */
#include <amd_comgr.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "device/hsa/kernel_meta.h"

/* The kind the metadata calls name; HSP_KARG_NKINDS when there is none. */
static hsp_karg_kind kind_named(const char *name)
{
    int k = 0;
    while (k < HSP_KARG_NKINDS && strcmp(hsp_karg_kind_name((hsp_karg_kind)k), name)) k++;
    return (hsp_karg_kind)k;
}

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

/* The kernels list of image's metadata; *data and *meta to release after. */
static hsp_status kernels_of(const void *image, size_t size, const char *target, amd_comgr_data_t *data,
                             amd_comgr_metadata_node_t *meta, amd_comgr_metadata_node_t *kernels)
{
    if (amd_comgr_create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, data) != AMD_COMGR_STATUS_SUCCESS)
        return hsp_fail(HSP_ERR_NOMEM, "comgr: no data object");
    if (amd_comgr_set_data(*data, size, image) == AMD_COMGR_STATUS_SUCCESS &&
        amd_comgr_get_data_metadata(*data, meta) == AMD_COMGR_STATUS_SUCCESS) {
        if (amd_comgr_metadata_lookup(*meta, "amdhsa.kernels", kernels) == AMD_COMGR_STATUS_SUCCESS) return HSP_OK;
        amd_comgr_destroy_metadata(*meta);
    }
    amd_comgr_release_data(*data);
    return hsp_fail(HSP_ERR_DEVICE, "code object for %s: no kernel metadata", target);
}

/* Argument node of kernel k into a: refused when of a kind we cannot pack
 * (unknown, or needing a pointer from the runtime) or outside the kernarg
 * segment. */
static hsp_status read_arg(amd_comgr_metadata_node_t node, const char *target, const hsp_kernel_meta *k, hsp_karg *a)
{
    char kind[64];
    a->kind = kind_named(meta_string(node, ".value_kind", kind, sizeof kind));
    a->offset = meta_number(node, ".offset");
    a->size = meta_number(node, ".size");
    a->pointee_align = meta_number(node, ".pointee_align");
    if (a->kind == HSP_KARG_NKINDS)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "code object for %s: kernel %s has an argument of kind '%s', which "
                        "hsp_kernarg_pack does not know how to fill", target, k->name, kind);
    if (hsp_karg_needs_runtime(a->kind))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "code object for %s: kernel %s has an argument of kind '%s', which "
                        "needs a pointer from the runtime that the hsa device does not provide", target, k->name,
                        kind);
    if (a->offset + a->size > k->info.kernarg_size)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "code object for %s: kernel %s has a %s argument at %u (%u bytes) "
                        "past its %u bytes of kernel arguments", target, k->name, kind, a->offset, a->size,
                        k->info.kernarg_size);
    return HSP_OK;
}

/* The .args list of kernel node into k's arguments. */
static hsp_status read_args(amd_comgr_metadata_node_t node, const char *target, hsp_kernel_meta *k)
{
    amd_comgr_metadata_node_t args, arg;
    size_t n = 0;
    hsp_status s = HSP_OK;
    if (amd_comgr_metadata_lookup(node, ".args", &args) != AMD_COMGR_STATUS_SUCCESS) return HSP_OK; /* none */
    amd_comgr_get_metadata_list_size(args, &n);
    if (n > HSP_KARG_MAX)
        s = hsp_fail(HSP_ERR_UNSUPPORTED, "code object for %s: kernel %s has %zu arguments, over %d", target, k->name,
                     n, HSP_KARG_MAX);
    for (size_t j = 0; j < n && s == HSP_OK; j++) {
        if (amd_comgr_index_list_metadata(args, j, &arg) != AMD_COMGR_STATUS_SUCCESS) {
            s = hsp_fail(HSP_ERR_DEVICE, "code object for %s: kernel %s: argument %zu unreadable", target, k->name, j);
            break;
        }
        s = read_arg(arg, target, k, &k->arg[j]);
        amd_comgr_destroy_metadata(arg);
        k->info.nargs++;
        k->info.nexplicit += !hsp_karg_hidden(k->arg[j].kind);
    }
    amd_comgr_destroy_metadata(args);
    return s;
}

/* Kernel node into k. */
static hsp_status read_kernel(amd_comgr_metadata_node_t node, const char *target, hsp_kernel_meta *k)
{
    hsp_kernel_info *info = &k->info;
    info->name = meta_string(node, ".name", k->name, sizeof k->name);
    info->symbol = meta_string(node, ".symbol", k->symbol, sizeof k->symbol);
    info->kernarg_size = meta_number(node, ".kernarg_segment_size");
    info->kernarg_align = meta_number(node, ".kernarg_segment_align");
    info->group_fixed = meta_number(node, ".group_segment_fixed_size");
    info->private_fixed = meta_number(node, ".private_segment_fixed_size");
    info->max_group_size = meta_number(node, ".max_flat_workgroup_size");
    info->wavefront = meta_number(node, ".wavefront_size");
    k->vgpr_count = (int)meta_number(node, ".vgpr_count");
    info->arg = k->arg;
    if (!k->name[0] || !k->symbol[0])
        return hsp_fail(HSP_ERR_UNSUPPORTED, "code object for %s: a kernel with no name or symbol, or one over %zu "
                        "characters", target, sizeof k->name - 1);
    return read_args(node, target, k);
}

hsp_status hsp_kernel_meta_read(const void *image, size_t size, const char *target, hsp_kernel_meta **kernels,
                                int *count)
{
    amd_comgr_data_t data;
    amd_comgr_metadata_node_t meta, list, node;
    size_t n = 0;
    hsp_status s = kernels_of(image, size, target, &data, &meta, &list);
    if (s != HSP_OK) return s;
    amd_comgr_get_metadata_list_size(list, &n);
    hsp_kernel_meta *k = calloc(n ? n : 1, sizeof *k);
    if (!k) s = hsp_fail(HSP_ERR_NOMEM, "no memory for %zu kernel layouts", n);
    for (size_t j = 0; j < n && s == HSP_OK; j++) {
        if (amd_comgr_index_list_metadata(list, j, &node) != AMD_COMGR_STATUS_SUCCESS) {
            s = hsp_fail(HSP_ERR_DEVICE, "code object for %s: kernel %zu unreadable", target, j);
            break;
        }
        s = read_kernel(node, target, &k[j]);
        amd_comgr_destroy_metadata(node);
    }
    amd_comgr_destroy_metadata(list);
    amd_comgr_destroy_metadata(meta);
    amd_comgr_release_data(data);
    if (s != HSP_OK) {
        free(k);
        return s;
    }
    *kernels = k;
    *count = (int)n;
    return HSP_OK;
}
