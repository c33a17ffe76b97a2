#!/bin/sh
# t_multiply_nosvm.sh: the whole multiply suite on the opencl device held to
# plain buffers and explicit transfers (a device without SVM).
HSPGEMM_TEST_DEVICE=opencl,nosvm exec "${top_builddir:-.}/tests/t_multiply"
