#!/bin/sh
# t_threads_pocl.sh: t_threads on the opencl device with PoCL as the only
# OpenCL platform (its ICD file alone), where concurrent first calls failed.
icd=/etc/OpenCL/vendors/pocl.icd
if [ ! -f "$icd" ]; then
    echo "1..0 # SKIP no PoCL ICD file ($icd)"
    exit 0
fi
# Under AddressSanitizer, a thread that made a PoCL context fails ASan's own
# check when it exits and ASan unmaps its alternate signal stack ("unable to
# unmap"): the sanitizer then does without one.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}use_sigaltstack=0" \
    OCL_ICD_VENDORS=$icd HSPGEMM_TEST_DEVICE=opencl exec "${top_builddir:-.}/tests/t_threads"
