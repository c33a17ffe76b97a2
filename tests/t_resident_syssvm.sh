#!/bin/sh
# t_resident_syssvm.sh: resident matrices on an OpenCL device with system
# SVM (an APU's memory model): host arrays in place, nothing copied.
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "system SVM" "" t_resident
