#!/bin/sh
# t_warp_pocl.sh: ESC's warp-sorted rows, emulated, on PoCL (buffer SVM).
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "" t_warp
