#!/bin/sh
# t_resident_nosvm.sh: resident matrices on the opencl device with plain
# buffers, which only transfers reach (a discrete GPU's memory model).
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "nosvm" t_resident
