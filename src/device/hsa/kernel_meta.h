/* kernel_meta.h: kernel layouts read from a code object's metadata through
 * comgr.  Used at build time by hsa/layouts, which embeds them in the library
 * as a table, and by tests/t_hsa_code, which checks that table; never in the
 * library, as comgr brings its own LLVM (beside PoCL's, a process aborts on
 * duplicate LLVM options). */
#ifndef HSP_KERNEL_META_H
#define HSP_KERNEL_META_H

#include "device/hsa/kernel_layout.h"

enum { HSP_KARG_MAX = 40 };

/* One kernel's layout as read: info points at name, symbol and arg, so a
 * copy of the struct would point into the original. */
typedef struct {
    hsp_kernel_info info;
    char name[64], symbol[72];
    hsp_karg arg[HSP_KARG_MAX];
    int vgpr_count; /* vector registers a work-item takes (what the tests check, not the layout) */
} hsp_kernel_meta;

/* The layouts of all kernels in the code object image (size bytes, built for
 * target), in metadata order: *count of them in a new array *kernels (to
 * free).  HSP_ERR_UNSUPPORTED for an argument kind that hsp_karg_kind lacks,
 * or one that needs a pointer from the runtime (hsp_karg_needs_runtime),
 * naming the target, the kernel and the kind, so that no argument is packed
 * blindly. */
hsp_status hsp_kernel_meta_read(const void *image, size_t size, const char *target, hsp_kernel_meta **kernels,
                                int *count);

#endif
