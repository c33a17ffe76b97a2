#!/bin/sh
# t_bitmap_nosvm.sh: the bitmap-blocked suite on the opencl device with plain
# buffers, which only transfers reach (a discrete GPU's memory model): the
# block product of kernels/bitmap.cl.
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "nosvm" t_bitmap
