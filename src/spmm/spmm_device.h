/* spmm_device.h: SpMM on a device (hsp_spmm).  A device's spmm member
 * points to one, or is NULL where the CPU threads do it all. */
#ifndef HSP_SPMM_DEVICE_H
#define HSP_SPMM_DEVICE_H

#include "device/device.h"

struct hsp_ellr;

typedef struct hsp_spmm_device {
    /* C = alpha A B + beta C, A's rows as ellr.h lays them out, the
     * operands checked; an operand's held arrays (from hold: A's, as ellr.h
     * orders them; B's or C's one) where it is resident, else NULL and its
     * host arrays are used; *blocks: the blocks of C asked for
     * (hsp_options.spmm_blocks), then those moved (0 where none). */
    hsp_status (*multiply)(hsp_device *dev, const struct hsp_ellr *A, const hsp_dense *B, double alpha, double beta,
                           hsp_dense *C, void *const held[3], int *blocks);
} hsp_spmm_device;

#endif
