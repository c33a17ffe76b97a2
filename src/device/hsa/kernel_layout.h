/* kernel_layout.h: what the hsa device needs to know of a kernel (its
 * arguments' places in the kernarg segment, segment sizes, descriptor
 * symbol), and the packing of its kernel arguments by that layout.  The
 * layouts are read from the code objects' metadata at build time (hsa/layouts)
 * and embedded as a table, so the library needs no comgr. */
#ifndef HSP_KERNEL_LAYOUT_H
#define HSP_KERNEL_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "device/hsa/code_objects.h"
#include "hspgemm.h"

/* How an argument is passed: the metadata's .value_kind, upper-cased.  The
 * explicit kinds come first; every kind from HSP_KARG_HIDDEN_NONE on is a
 * hidden argument, which the packing fills (the code-object-v5 dispatch
 * shape), zeroes (global offsets, hidden_none) or, for the pointers from the
 * runtime (printf buffer to heap), refuses. */
typedef enum {
    HSP_KARG_GLOBAL_BUFFER,
    HSP_KARG_BY_VALUE,
    HSP_KARG_DYNAMIC_SHARED_POINTER,
    HSP_KARG_HIDDEN_NONE,
    HSP_KARG_HIDDEN_GLOBAL_OFFSET_X,
    HSP_KARG_HIDDEN_GLOBAL_OFFSET_Y,
    HSP_KARG_HIDDEN_GLOBAL_OFFSET_Z,
    HSP_KARG_HIDDEN_PRINTF_BUFFER, /* from here to heap_v1: pointers from the runtime */
    HSP_KARG_HIDDEN_HOSTCALL_BUFFER,
    HSP_KARG_HIDDEN_DEFAULT_QUEUE,
    HSP_KARG_HIDDEN_COMPLETION_ACTION,
    HSP_KARG_HIDDEN_MULTIGRID_SYNC_ARG,
    HSP_KARG_HIDDEN_HEAP_V1,
    HSP_KARG_HIDDEN_BLOCK_COUNT_X, /* work-groups per axis, u32 */
    HSP_KARG_HIDDEN_BLOCK_COUNT_Y,
    HSP_KARG_HIDDEN_BLOCK_COUNT_Z,
    HSP_KARG_HIDDEN_GROUP_SIZE_X, /* work-items per group and axis, u16 */
    HSP_KARG_HIDDEN_GROUP_SIZE_Y,
    HSP_KARG_HIDDEN_GROUP_SIZE_Z,
    HSP_KARG_HIDDEN_REMAINDER_X, /* work-items in the last, partial group, u16 */
    HSP_KARG_HIDDEN_REMAINDER_Y,
    HSP_KARG_HIDDEN_REMAINDER_Z,
    HSP_KARG_HIDDEN_GRID_DIMS, /* dimensions of the grid, u16 */
    HSP_KARG_NKINDS
} hsp_karg_kind;

/* Is an argument of kind hidden (not given by the caller)? */
static inline int hsp_karg_hidden(hsp_karg_kind kind)
{
    return kind >= HSP_KARG_HIDDEN_NONE;
}

/* Does an argument of kind need a pointer from the runtime (a printf or
 * hostcall buffer, a device queue, a completion action, a multi-grid sync
 * argument, a heap), which the hsa device does not provide? */
static inline int hsp_karg_needs_runtime(hsp_karg_kind kind)
{
    return kind >= HSP_KARG_HIDDEN_PRINTF_BUFFER && kind <= HSP_KARG_HIDDEN_HEAP_V1;
}

/* The metadata's name of an argument kind ("global_buffer", "hidden_none"). */
static inline const char *hsp_karg_kind_name(hsp_karg_kind kind)
{
    static const char *const names[HSP_KARG_NKINDS] = {
        [HSP_KARG_GLOBAL_BUFFER] = "global_buffer",
        [HSP_KARG_BY_VALUE] = "by_value",
        [HSP_KARG_DYNAMIC_SHARED_POINTER] = "dynamic_shared_pointer",
        [HSP_KARG_HIDDEN_NONE] = "hidden_none",
        [HSP_KARG_HIDDEN_GLOBAL_OFFSET_X] = "hidden_global_offset_x",
        [HSP_KARG_HIDDEN_GLOBAL_OFFSET_Y] = "hidden_global_offset_y",
        [HSP_KARG_HIDDEN_GLOBAL_OFFSET_Z] = "hidden_global_offset_z",
        [HSP_KARG_HIDDEN_PRINTF_BUFFER] = "hidden_printf_buffer",
        [HSP_KARG_HIDDEN_HOSTCALL_BUFFER] = "hidden_hostcall_buffer",
        [HSP_KARG_HIDDEN_DEFAULT_QUEUE] = "hidden_default_queue",
        [HSP_KARG_HIDDEN_COMPLETION_ACTION] = "hidden_completion_action",
        [HSP_KARG_HIDDEN_MULTIGRID_SYNC_ARG] = "hidden_multigrid_sync_arg",
        [HSP_KARG_HIDDEN_HEAP_V1] = "hidden_heap_v1",
        [HSP_KARG_HIDDEN_BLOCK_COUNT_X] = "hidden_block_count_x",
        [HSP_KARG_HIDDEN_BLOCK_COUNT_Y] = "hidden_block_count_y",
        [HSP_KARG_HIDDEN_BLOCK_COUNT_Z] = "hidden_block_count_z",
        [HSP_KARG_HIDDEN_GROUP_SIZE_X] = "hidden_group_size_x",
        [HSP_KARG_HIDDEN_GROUP_SIZE_Y] = "hidden_group_size_y",
        [HSP_KARG_HIDDEN_GROUP_SIZE_Z] = "hidden_group_size_z",
        [HSP_KARG_HIDDEN_REMAINDER_X] = "hidden_remainder_x",
        [HSP_KARG_HIDDEN_REMAINDER_Y] = "hidden_remainder_y",
        [HSP_KARG_HIDDEN_REMAINDER_Z] = "hidden_remainder_z",
        [HSP_KARG_HIDDEN_GRID_DIMS] = "hidden_grid_dims",
    };
    return names[kind];
}

typedef struct {
    hsp_karg_kind kind;
    uint32_t offset, size;  /* in the kernarg segment */
    uint32_t pointee_align; /* local (dynamic shared) arguments */
} hsp_karg;

typedef struct {
    const char *name, *symbol; /* the kernel and its descriptor, name.kd */
    uint32_t kernarg_size, kernarg_align;
    uint32_t group_fixed, private_fixed; /* static segment sizes */
    uint32_t max_group_size, wavefront;
    int nargs, nexplicit;
    const hsp_karg *arg; /* nargs of them, by offset */
} hsp_kernel_info;

/* The kernels of one code object, found by its target and precision; the
 * table is kernel_layouts.c, written at build time by hsa/layouts. */
typedef struct {
    const char *target;
    int dbl;
    int nkernels;
    const hsp_kernel_info *kernel;
} hsp_layout_table;

extern const hsp_layout_table hsp_layout_tables[];
extern const int hsp_nlayout_tables;

/* The layouts of the kernels in co (*count of them), or NULL when the table
 * has none for it. */
const hsp_kernel_info *hsp_code_object_kernels(const hsp_code_object *co, int *count);
/* The layout of kernel name in co, or NULL when absent. */
const hsp_kernel_info *hsp_kernel_find(const hsp_code_object *co, const char *name);

/* One explicit argument: bytes of a buffer pointer or a value, or (data
 * NULL) the bytes of local memory a local argument gets. */
typedef struct {
    const void *data;
    size_t size;
} hsp_kernarg_value;

/* Pack the nvalues explicit arguments into buf (k->kernarg_size bytes) for a
 * 1-D dispatch of groups work-groups of size work-items: each at its offset,
 * local arguments given their offsets in the group segment after the static
 * part, the v5 hidden arguments filled with the dispatch shape, the global
 * offsets, hidden_none and padding zero; the whole group segment size goes to
 * *group_size.  HSP_ERR_ARG when the values do not match the layout;
 * HSP_ERR_UNSUPPORTED, naming the kernel and the kind, when the layout has an
 * argument that needs a pointer from the runtime (hsp_karg_needs_runtime),
 * rather than pass it a null pointer that would fault on the GPU. */
hsp_status hsp_kernarg_pack(const hsp_kernel_info *k, const hsp_kernarg_value *values, int nvalues, uint32_t groups,
                            uint16_t size, void *buf, uint32_t *group_size);

#endif
