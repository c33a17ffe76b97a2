#!/bin/sh
# t_spmm_opencl.sh: the SpMM suite on the opencl device with the shared
# virtual memory it offers (buffer SVM on PoCL).
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "" t_spmm
