/* amg.h: what the two setups of a hierarchy share (private). */
#ifndef HSP_AMG_H
#define HSP_AMG_H
#include "hspgemm.h"

/* A square A (nrows x ncols) and options in range, else an error naming fn. */
hsp_status hsp_amg_check(const char *fn, int32_t nrows, int32_t ncols, const hsp_amg_options *o);

#endif
