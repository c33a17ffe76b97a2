/* engine.h: the products' state in a context (private): what follows from
 * its device — the bin layout, each group's method, the cpu device for
 * small products beside a GPU, the methods of the device's profile — and
 * the job's arrays kept between products.  src/open makes it with the
 * device (ctx->engine) and frees it with the context. */
#ifndef HSP_ENGINE_H
#define HSP_ENGINE_H

#include "device/context.h"

/* The arrays of a job, kept between multiplies so that each call does not
 * fault in (and have the kernel zero) fresh pages for C~. */
enum { WS_BOUND, WS_BINS, WS_SLOT, WS_TMPCOL, WS_TMPVAL, WS_LONG, WS_COUNT };
typedef struct {
    void *block[WS_COUNT];
    size_t bytes[WS_COUNT];
} hsp_workspace;

/* A profile's methods for one device (doc/devices.md, "Tuning"), per precision (1:
 * double): each bin's, or DEFAULT where its group's method holds, and the
 * long rows', or DEFAULT. */
typedef struct {
    hsp_method bin[2][HSP_MAX_BINS];
    hsp_method long_rows[2];
    char path[256]; /* the file they came from, or "" where there is none */
} hsp_profile;

typedef struct hsp_engine {
    hsp_bins bins;
    hsp_method method[HSP_NMETHODGROUPS]; /* resolved: never DEFAULT */
    hsp_device *cpu;                      /* with a GPU device: for small products */
    hsp_method cpu_method[HSP_NMETHODGROUPS];
    hsp_profile profile;                  /* the methods of its device's profile */
    hsp_workspace ws;
} hsp_engine;

/* e freed with its cpu device and its arrays, but where lost (the device
 * may still write them: left, not freed); NULL: nothing. */
void hsp_engine_free(hsp_engine *e, int lost);

#endif
