/* spmm_widths.h: the row kernels (spmm_rows.h) of one width of vector,
 * SPMM_BYTES, in both precisions: VL values a vector (at most 8 floats,
 * the 8 columns of the narrowest vector pass), functions named
 * SPMM_ISA(name_f) and SPMM_ISA(name_d), built for SPMM_TARGET; double's
 * non-temporal store SPMM_STREAM where the vectors are x86's of 512 or 256
 * bits.  spmm.c includes it once per width; it undefines the three. */
#define VT float
#define VL (SPMM_BYTES / 4 < 8 ? SPMM_BYTES / 4 : 8)
#define SF(name) SPMM_ISA(name##_f)
#include "spmm/spmm_rows.h"
#undef VT
#undef VL
#undef SF
#define VT double
#define VL (SPMM_BYTES / 8)
#if SPMM_BYTES == 64 /* C may be stored past the caches: a vector a cache line, or two */
#define SPMM_STREAM(c, v) _mm512_stream_pd(c, (__m512d)(v))
#elif SPMM_BYTES == 32
#define SPMM_STREAM(c, v) _mm256_stream_pd(c, (__m256d)(v))
#endif
#define SF(name) SPMM_ISA(name##_d)
#include "spmm/spmm_rows.h"
#undef VT
#undef VL
#undef SF
#undef SPMM_STREAM
#undef SPMM_BYTES
#undef SPMM_TARGET
#undef SPMM_ISA
