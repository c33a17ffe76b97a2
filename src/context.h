/* context.h: what a context holds (private to the library). */
#ifndef HSP_CONTEXT_H
#define HSP_CONTEXT_H

#include "device.h"
#include "pool.h"

struct hsp_context {
    hsp_options options;
    hsp_pool *pool;
    hsp_device *device;
    hsp_bins bins;
    hsp_method method[HSP_NMETHODGROUPS]; /* resolved: never DEFAULT */
    struct hsp_scratch *scratch;          /* one per thread */
};

#endif
