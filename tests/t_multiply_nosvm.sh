#!/bin/sh
# t_multiply_nosvm.sh: the whole multiply suite on the opencl device held to
# plain buffers and explicit transfers (a device without SVM).
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "nosvm" t_multiply
