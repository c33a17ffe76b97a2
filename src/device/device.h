/* device.h: the device interface, thin: what a device is (its wavefront
 * width and local memory, which shape the bin layout; whether its buffers
 * may be grown by a host realloc), the arrays it holds, and one table per
 * feature of what the feature runs there.  For products a device computes
 * the rows of bins 2 and up (groups short, medium and long) while CPU
 * threads do bins 0 and 1. */
#ifndef HSP_DEVICE_H
#define HSP_DEVICE_H

#include <stddef.h>
#include "hspgemm.h"
#include "core/pool.h"

typedef struct hsp_device hsp_device;

/* The most arrays one resident thing holds (a prepared A's: ellr.h). */
enum { HSP_HELD_MAX = 8 };

struct hsp_device {
    const char *name;           /* "cpu", "opencl" */
    char description[160];      /* shown in stats (hsp_stats.device), e.g. "cpu" */
    char note[256];             /* what "auto" passed over and why, or "" */
    int wavefront;              /* threads that run in lock step */
    int64_t local_mem;          /* bytes of fast memory per work-group */
    int compute_units;          /* a GPU's processors that run work-groups at once (0: not
                                   known, or the CPU threads) */
    int host_realloc;           /* buffers can grow by host realloc */
    int async;                  /* launched work runs while the CPU threads work */
    int lost;                   /* after a failure the device may still write memory it
                                   was given (arrays of the job, C): none of it is freed */
    int deterministic;          /* the context wants exact sums (hsp_options.deterministic):
                                   nothing the device does adds by atomics */
    /* Resident arrays (hspgemm.h: resident matrices, a prepared A, resident
     * dense matrices), NULL where the device uses host arrays in place: hold
     * copies n (at most HSP_HELD_MAX) host arrays of the bytes given into
     * arrays of the device's own, *held (a host NULL: that array's bytes are
     * left as the device's memory had them, nothing crosses); home reads the first n back into
     * host (bytes as held), put writes them from host; drop frees them;
     * finish waits for all work launched on them. */
    hsp_status (*hold)(hsp_device *dev, int n, const void *const *host, const size_t *bytes, void **held);
    hsp_status (*home)(hsp_device *dev, void *held, int n, void *const *host, const size_t *bytes);
    hsp_status (*put)(hsp_device *dev, void *held, int n, const void *const *host, const size_t *bytes);
    void (*drop)(hsp_device *dev, void *held);
    hsp_status (*finish)(hsp_device *dev);
    /* What each feature runs on the device, declared by the feature (Ginkgo's
     * way: one interface, one implementation per back end): */
    struct hsp_spgemm_device *spgemm; /* products (spgemm/spgemm_device.h); every device has it */
    const struct hsp_spmm_device *spmm;     /* spmm/spmm_device.h, or NULL: the CPU threads */
    const struct hsp_bitmap_device *bitmap; /* bitmap/bitmap_device.h, or NULL: the CPU threads */
    const struct hsp_amg_device *amg;       /* amg/amg_device.h, or NULL: hierarchies on the host */
    void (*features_free)(hsp_device *dev); /* frees what the features made for the device (their
                                               tables, a product's buffers), or NULL */
    void (*destroy)(hsp_device *dev);
    void *state;
};

/* Parse "prefix[:N][,flag]..." (the name has prefix): *index is N or -1,
 * bit j of *set says flag j (of nflags) was given; HSP_ERR_ARG saying what
 * the device takes otherwise. */
hsp_status hsp_device_spec(const char *spec, const char *prefix, const char *const *flags, int nflags, int *index,
                           unsigned *set);

#endif
