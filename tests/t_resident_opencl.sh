#!/bin/sh
# t_resident_opencl.sh: resident matrices on the opencl device with buffer
# SVM (PoCL): the device's own memory, which the host reaches.
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "" t_resident
