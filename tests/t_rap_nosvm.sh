#!/bin/sh
# t_rap_nosvm.sh: the Galerkin products on the opencl device with plain
# buffers, where the intermediate stays on the device unless the host needs it.
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "nosvm" t_rap
