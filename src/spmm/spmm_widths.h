/* spmm_widths.h: the row kernels (spmm_rows.h) of one width of vector,
 * SPMM_BYTES, in both precisions: VL values a vector (at most 8 floats,
 * the 8 columns of the narrowest vector pass), functions named
 * SPMM_ISA(name_f) and SPMM_ISA(name_d), built for SPMM_TARGET.  spmm.c
 * includes it once per width; it undefines the three. */
#define VT float
#define VL (SPMM_BYTES / 4 < 8 ? SPMM_BYTES / 4 : 8)
#define SF(name) SPMM_ISA(name##_f)
#include "spmm/spmm_rows.h"
#undef VT
#undef VL
#undef SF
#define VT double
#define VL (SPMM_BYTES / 8)
#define SPMM_LINES (SPMM_BYTES == 64) /* a vector a cache line: C may be stored past the caches */
#define SF(name) SPMM_ISA(name##_d)
#include "spmm/spmm_rows.h"
#undef VT
#undef VL
#undef SF
#undef SPMM_LINES
#undef SPMM_BYTES
#undef SPMM_TARGET
#undef SPMM_ISA
