#!/bin/sh
# t_multiply_opencl.sh: the whole multiply suite on the opencl device, with
# the shared virtual memory the device offers (buffer SVM on PoCL).
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "" t_multiply
