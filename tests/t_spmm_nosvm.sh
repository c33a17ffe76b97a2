#!/bin/sh
# t_spmm_nosvm.sh: the SpMM suite on the opencl device with plain buffers,
# which only transfers reach (a discrete GPU's memory model): kernels/spmm.cl.
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "nosvm" t_spmm
