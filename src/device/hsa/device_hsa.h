/* device_hsa.h: opening the hsa device (hsa/device_hsa.c). */
#ifndef HSP_DEVICE_HSA_H
#define HSP_DEVICE_HSA_H

#include "device/device.h"

/* The hsa device: "hsa[:N][,nosvm]". */
hsp_status hsp_device_hsa_open(const char *spec, hsp_device **out);

#endif
