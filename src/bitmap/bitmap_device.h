/* bitmap_device.h: bitmap-blocked products on a device (hsp_bitmap_multiply).
 * A device's bitmap member points to one, or is NULL where the CPU threads
 * do them. */
#ifndef HSP_BITMAP_DEVICE_H
#define HSP_BITMAP_DEVICE_H

#include "device/device.h"

typedef struct hsp_bitmap_device {
    /* C = A B of bitmap-blocked operands (checked, one precision; Zhang and
     * Gruenwald's (2018) block product), every value of C 1 where pattern;
     * *flops: twice its multiply-adds. */
    hsp_status (*multiply)(hsp_device *dev, const hsp_bitmap *A, const hsp_bitmap *B, int pattern, hsp_bitmap **C,
                           int64_t *flops);
} hsp_bitmap_device;

#endif
