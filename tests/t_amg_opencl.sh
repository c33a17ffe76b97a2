#!/bin/sh
# t_amg_opencl.sh: the AMG hierarchies on the opencl device with plain
# buffers (PoCL), where the second product of each level takes the
# intermediate the device holds.
. "${top_srcdir:-.}/tests/opencl_device.sh"
run_on "buffer SVM" "nosvm" t_amg
