#!/bin/sh
# t_rap_opencl.sh: the Galerkin products on the opencl device (buffer SVM on
# PoCL), where the second product takes the intermediate the device holds.
HSPGEMM_TEST_DEVICE=opencl exec "${top_builddir:-.}/tests/t_rap"
