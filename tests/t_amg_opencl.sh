#!/bin/sh
# t_amg_opencl.sh: the AMG hierarchies on the opencl device with plain
# buffers, where the second product of each level takes the intermediate the
# device holds.
HSPGEMM_TEST_DEVICE=opencl,nosvm exec "${top_builddir:-.}/tests/t_amg"
