/* t_hsa_code.c: every embedded AMDGPU code object, read through comgr, is an
 * executable for its target holding every kernel with its argument list and
 * a kernel descriptor, in both precisions. */
#include <amd_comgr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "code_objects.h"
#include "tap.h"

/* The explicit arguments of each kernel (in kernels/); the hidden ones come after. */
enum { ROW_ARGS = 13 };
static const struct {
    const char *name;
    size_t args;
} expected[] = {{"hsp_bound", 5}, {"hsp_esc", ROW_ARGS + 8}, {"hsp_merge", ROW_ARGS + 7},
                {"hsp_arrange", 13}, {"hsp_heap_2", ROW_ARGS}, {"hsp_heap_33", ROW_ARGS},
                {"hsp_heap_64", ROW_ARGS}};

/* The string of key in map node, or "" (into buf).  comgr copies as many
 * bytes as asked, so the size is asked first. */
static const char *string_at(amd_comgr_metadata_node_t node, const char *key, char *buf, size_t len)
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

/* The number of arguments of kernel node that are not hidden ones. */
static size_t explicit_args(amd_comgr_metadata_node_t kernel)
{
    amd_comgr_metadata_node_t args, arg;
    size_t n = 0, count = 0;
    char kind[64];
    if (amd_comgr_metadata_lookup(kernel, ".args", &args) != AMD_COMGR_STATUS_SUCCESS) return 0;
    amd_comgr_get_metadata_list_size(args, &n);
    for (size_t k = 0; k < n; k++) {
        if (amd_comgr_index_list_metadata(args, k, &arg) != AMD_COMGR_STATUS_SUCCESS) continue;
        count += strncmp(string_at(arg, ".value_kind", kind, sizeof kind), "hidden_", 7) != 0;
        amd_comgr_destroy_metadata(arg);
    }
    amd_comgr_destroy_metadata(args);
    return count;
}

/* Find kernel name among the kernels node; its explicit arguments in *args
 * and whether its descriptor symbol is name.kd; 0 when absent. */
static int find_kernel(amd_comgr_metadata_node_t kernels, const char *name, size_t *args, int *kd)
{
    size_t n = 0;
    char buf[128], want[128];
    amd_comgr_get_metadata_list_size(kernels, &n);
    for (size_t k = 0; k < n; k++) {
        amd_comgr_metadata_node_t kernel;
        if (amd_comgr_index_list_metadata(kernels, k, &kernel) != AMD_COMGR_STATUS_SUCCESS) continue;
        int found = !strcmp(string_at(kernel, ".name", buf, sizeof buf), name);
        if (found) {
            snprintf(want, sizeof want, "%s.kd", name);
            *kd = !strcmp(string_at(kernel, ".symbol", buf, sizeof buf), want);
            *args = explicit_args(kernel);
        }
        amd_comgr_destroy_metadata(kernel);
        if (found) return 1;
    }
    return 0;
}

/* Check one code object. */
static void check_object(const hsp_code_object *co)
{
    amd_comgr_data_t data;
    amd_comgr_metadata_node_t meta, kernels;
    char isa[256] = "", what[64];
    size_t size = 0, n = 0;
    snprintf(what, sizeof what, "%s %s", co->target, co->dbl ? "double" : "float");
    int ok = amd_comgr_create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &data) == AMD_COMGR_STATUS_SUCCESS &&
             amd_comgr_set_data(data, (size_t)(co->end - co->start), (const char *)co->start) == AMD_COMGR_STATUS_SUCCESS;
    ok = ok && amd_comgr_get_data_isa_name(data, &size, NULL) == AMD_COMGR_STATUS_SUCCESS && size <= sizeof isa &&
         amd_comgr_get_data_isa_name(data, &size, isa) == AMD_COMGR_STATUS_SUCCESS;
    tap_ok(ok && strstr(isa, "amdgcn-amd-amdhsa") && strstr(isa, co->target), "%s: an executable for %s",
           what, isa);
    ok = ok && amd_comgr_get_data_metadata(data, &meta) == AMD_COMGR_STATUS_SUCCESS;
    ok = ok && amd_comgr_metadata_lookup(meta, "amdhsa.kernels", &kernels) == AMD_COMGR_STATUS_SUCCESS;
    if (ok) amd_comgr_get_metadata_list_size(kernels, &n);
    tap_ok(ok && n == 4 + 63, "%s: %zu kernels (bound, esc, merge, arrange, heap 2..64)", what, n);
    for (size_t k = 0; ok && k < sizeof expected / sizeof expected[0]; k++) {
        size_t args = 0;
        int kd = 0, found = find_kernel(kernels, expected[k].name, &args, &kd);
        tap_ok(found && kd && args == expected[k].args, "%s: %s with %zu arguments and its descriptor",
               what, expected[k].name, args);
    }
    if (ok) amd_comgr_destroy_metadata(kernels), amd_comgr_destroy_metadata(meta);
    amd_comgr_release_data(data);
}

int main(void)
{
    tap_ok(hsp_ncode_objects >= 2 && hsp_ncode_objects % 2 == 0, "%d code objects: float and double per target",
           hsp_ncode_objects);
    for (int k = 0; k < hsp_ncode_objects; k++) check_object(&hsp_code_objects[k]);
    return tap_done();
}
