/* kernel_info.h: what the hsa device needs to know of a kernel, read from
 * its code object's metadata through comgr, and the packing of its kernel
 * arguments by that layout. */
#ifndef HSP_KERNEL_INFO_H
#define HSP_KERNEL_INFO_H

#include <stddef.h>
#include <stdint.h>
#include "code_objects.h"
#include "hspgemm.h"

enum { HSP_KARG_MAX = 40 };

/* How an argument is passed (the metadata's .value_kind). */
typedef enum { HSP_KARG_BUFFER, HSP_KARG_VALUE, HSP_KARG_LOCAL, HSP_KARG_HIDDEN } hsp_karg_kind;

typedef struct {
    hsp_karg_kind kind;
    uint32_t offset, size;   /* in the kernarg segment */
    uint32_t pointee_align;  /* local (dynamic shared) arguments */
} hsp_karg;

typedef struct {
    char name[64], symbol[72];           /* the kernel and its descriptor, name.kd */
    uint32_t kernarg_size, kernarg_align;
    uint32_t group_fixed, private_fixed; /* static segment sizes */
    uint32_t max_group_size, wavefront;
    int nargs, nexplicit;
    hsp_karg arg[HSP_KARG_MAX];
} hsp_kernel_info;

/* The number of kernels in code object co. */
hsp_status hsp_code_object_kernels(const hsp_code_object *co, int *count);
/* The layout of kernel name in code object co. */
hsp_status hsp_kernel_info_read(const hsp_code_object *co, const char *name, hsp_kernel_info *k);

/* One explicit argument: bytes of a buffer pointer or a value, or (data
 * NULL) the bytes of local memory a local argument gets. */
typedef struct {
    const void *data;
    size_t size;
} hsp_kernarg_value;

/* Pack the nvalues explicit arguments into buf (k->kernarg_size bytes):
 * each at its offset, hidden arguments and padding zero, local arguments
 * given their offsets in the group segment after the static part; the whole
 * group segment size goes to *group_size.  HSP_ERR_ARG when the values do
 * not match the layout. */
hsp_status hsp_kernarg_pack(const hsp_kernel_info *k, const hsp_kernarg_value *values, int nvalues,
                            void *buf, uint32_t *group_size);

#endif
