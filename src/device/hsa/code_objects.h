/* code_objects.h: the AMDGPU code objects of the hsa device, built from
 * kernels/ at build time (one per target and precision) and embedded in the
 * library. */
#ifndef HSP_CODE_OBJECTS_H
#define HSP_CODE_OBJECTS_H

typedef struct {
    const char *target;                /* "gfx90c", ... */
    int dbl;                           /* built with double values */
    const unsigned char *start, *end;  /* the ELF image */
} hsp_code_object;

extern const hsp_code_object hsp_code_objects[];
extern const int hsp_ncode_objects;

/* The code object for an agent of ISA isa_name (as HSA_ISA_INFO_NAME gives it,
 * "amdgcn-amd-amdhsa--gfx1035" or with target features, "...--gfx90c:xnack-")
 * in double (dbl) or float, or NULL.  The objects are built for the plain
 * processor (features "any"), so any features match; the processor must
 * match exactly. */
const hsp_code_object *hsp_code_object_match(const char *isa_name, int dbl);

#endif
