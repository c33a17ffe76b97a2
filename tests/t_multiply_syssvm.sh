#!/bin/sh
# t_multiply_syssvm.sh: the multiply suite on an OpenCL device with fine-grained
# system SVM (Intel's CPU runtime, build-aux/install-intel-opencl.py): host
# arrays used in place and long rows grown by host realloc, as on an APU.
# Its first part; t_multiply_syssvm_2.sh runs the second at the same time.
. "${top_srcdir:-.}/tests/opencl_device.sh"
export HSPGEMM_TEST_SHARD=1/2
run_on "system SVM" "" t_multiply
