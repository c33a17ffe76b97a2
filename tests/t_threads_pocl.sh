#!/bin/sh
# t_threads_pocl.sh: t_threads on the opencl device with PoCL as the only
# OpenCL platform (its ICD file alone), where concurrent first calls failed.
icd=/etc/OpenCL/vendors/pocl.icd
if [ ! -f "$icd" ]; then
    echo "1..0 # SKIP no PoCL ICD file ($icd)"
    exit 0
fi
OCL_ICD_VENDORS=$icd HSPGEMM_TEST_DEVICE=opencl exec "${top_builddir:-.}/tests/t_threads"
