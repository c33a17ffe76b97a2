/* device_cpu.h: the cpu device (private), which computes every row on the
 * context's threads by the stages of direct.c. */
#ifndef HSP_DEVICE_CPU_H
#define HSP_DEVICE_CPU_H

#include "device/device.h"

/* The cpu device, running on pool. */
hsp_status hsp_device_cpu_open(hsp_pool *pool, hsp_device **out);

#endif
