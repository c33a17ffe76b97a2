#!/bin/sh
# t_rap_nosvm.sh: the Galerkin products on the opencl device with plain
# buffers, where the intermediate stays on the device unless the host needs it.
HSPGEMM_TEST_DEVICE=opencl,nosvm exec "${top_builddir:-.}/tests/t_rap"
