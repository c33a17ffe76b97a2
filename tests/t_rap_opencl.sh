#!/bin/sh
# t_rap_opencl.sh: the Galerkin products on the opencl device (buffer SVM on
# PoCL), where the second product takes the intermediate the device holds.
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "" t_rap
