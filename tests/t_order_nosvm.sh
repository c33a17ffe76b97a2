#!/bin/sh
# t_order_nosvm.sh: no call depends on the one before it, on the opencl
# device with plain buffers, where every product copies its matrices.
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "nosvm" t_order
