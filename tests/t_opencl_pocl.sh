#!/bin/sh
# t_opencl_pocl.sh: what is particular to the opencl device, on PoCL (buffer SVM).
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "" t_opencl
