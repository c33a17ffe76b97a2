#!/bin/sh
# t_multiply_syssvm_2.sh: the second part of the multiply suite on the device
# with system SVM (t_multiply_syssvm.sh runs the first).
. "${top_srcdir:-.}/tests/opencl_device.sh"
export HSPGEMM_TEST_SHARD=2/2
run_on "system SVM" "" t_multiply
