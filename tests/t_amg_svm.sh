#!/bin/sh
# t_amg_svm.sh: the AMG hierarchies on the opencl device with buffer SVM
# (PoCL): the device's own memory, which the host reaches; the resident
# hierarchy is made there, as with plain buffers (t_amg_opencl.sh).
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "" t_amg
