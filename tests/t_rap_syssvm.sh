#!/bin/sh
# t_rap_syssvm.sh: the rap suite on an OpenCL device with fine-grained
# system SVM (Intel's CPU runtime, build-aux/install-intel-opencl.py): host
# arrays used in place and long rows grown by host realloc, as on an APU.
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "system SVM" "" t_rap
