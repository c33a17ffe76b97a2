/* spgemm_device.h: what a device does for the pipeline (spgemm/stages.c):
 * which methods it runs on each group of bins, its stages, and the
 * values-only steps of resident plans.  A device's spgemm member points to
 * one, made with the device and freed with it. */
#ifndef HSP_SPGEMM_DEVICE_H
#define HSP_SPGEMM_DEVICE_H

#include "device/device.h"

struct hsp_job;

typedef struct hsp_spgemm_device {
    int64_t medium_max;         /* the largest u of the medium group (rows whose products a
                                   work-group sorts in local memory); 0: the paper's 16 W */
    int direct;                 /* rows are computed on the host threads, straight into C
                                   (direct.c): no launch_bin, wait or C~ */
    hsp_method default_method[HSP_NMETHODGROUPS];
    unsigned methods[HSP_NMETHODGROUPS]; /* bit m: method m can run on the group */
    unsigned exact[HSP_NMETHODGROUPS];   /* bit m: method m sums each entry of C in one fixed
                                            order on the group (the same bits from run to run) */
    /* Stage 1 on the device (fills job->ub, but for a job->resident.all_device), or
     * NULL for the CPU threads. */
    hsp_status (*bound)(hsp_device *dev, struct hsp_job *job);
    /* Stage 2 on the device, for a job->resident.all_device (a device with hold has it). */
    hsp_status (*bin)(hsp_device *dev, struct hsp_job *job);
    /* Queue bin b of the job, and the bins after it that the same launch
     * takes (*last: the last bin queued); returns at once or after the work. */
    hsp_status (*launch_bin)(hsp_device *dev, struct hsp_job *job, int bin, int *last);
    /* Wait for every queued bin; the first error of any row is returned. */
    hsp_status (*wait)(hsp_device *dev, struct hsp_job *job);
    /* Stage 4 on the device for the rows of bins 2 and up (C's row pointers
     * are set and its arrays allocated), or NULL for the CPU threads. */
    hsp_status (*arrange)(hsp_device *dev, struct hsp_job *job);
    /* On matrices the device holds (held: what dev->hold made, or a
     * product's C), NULL where it uses host arrays in place: numeric writes
     * C's values as A*B over C's pattern; same_pattern gives the first row
     * where X and Y (of X's shape and entry count) differ, or X->nrows;
     * pattern holds a copy of M's row pointers and columns (no values), for
     * same_pattern. */
    hsp_status (*numeric)(hsp_device *dev, const hsp_csr *C, const hsp_csr *A, const hsp_csr *B, void *held_a,
                          void *held_b, void *held_c);
    hsp_status (*same_pattern)(hsp_device *dev, const hsp_csr *X, void *held_x, void *held_y, int32_t *row);
    hsp_status (*pattern)(hsp_device *dev, const hsp_csr *M, void *held, void **held_pattern);
} hsp_spgemm_device;

#endif
