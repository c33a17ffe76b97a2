#!/bin/sh
# t_spmm_syssvm.sh: the SpMM suite on an OpenCL device with fine-grained
# system SVM (Intel's CPU runtime): host arrays used in place, as on an APU.
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "system SVM" "" t_spmm
