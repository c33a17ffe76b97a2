#!/bin/sh
# t_bitmap_syssvm.sh: the bitmap-blocked suite on an OpenCL device with
# fine-grained system SVM (Intel's CPU runtime), as on an APU.
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "system SVM" "" t_bitmap
