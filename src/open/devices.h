/* devices.h: the devices of this build (private): opening one by name or
 * as "auto", the cpu device, and the note of what "auto" passed over. */
#ifndef HSP_DEVICES_H
#define HSP_DEVICES_H

#include "device/context.h"

/* Open the device called name: "auto" (the hsa device, else a GPU through
 * OpenCL, else cpu), "cpu", "opencl[:N][,nosvm][,nofp64]" or
 * "hsa[:N][,nosvm]"; the cpu device runs on pool.  *next: what "auto" would
 * try after it (HSP_AUTO_*; NONE for a device named). */
hsp_status hsp_device_open(const char *name, hsp_pool *pool, hsp_device **out, int *next);
/* "auto" from candidate from on: the first that opens, whose note gets note
 * and then what was passed over and why; *next is the candidate after it
 * (HSP_AUTO_NONE after cpu). */
hsp_status hsp_device_open_auto(int from, const char *note, hsp_pool *pool, hsp_device **out, int *next);
/* Append "auto passed over NAME: " and the calling thread's error message
 * to note (size bytes), after a "; " when it holds one already. */
void hsp_note_passed(char *note, size_t size, const char *name);
/* A GPU device whose back end is open (device/gpu.h) given its limits and
 * the features' tables (device_gpu.c). */
hsp_status gpu_device_init(hsp_device *dev);

#endif
