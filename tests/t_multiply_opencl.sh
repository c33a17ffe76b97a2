#!/bin/sh
# t_multiply_opencl.sh: the whole multiply suite on the opencl device, with
# the shared virtual memory the device offers (buffer SVM on PoCL).
HSPGEMM_TEST_DEVICE=opencl exec "${top_builddir:-.}/tests/t_multiply"
