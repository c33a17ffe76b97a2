#!/bin/sh
# t_faults_2.sh: part 2 of make check-faults: t_faults failing the
# even-numbered ones of each call's allocations and OpenCL calls in turn
# (the two parts run at once).
HSPGEMM_FAULTS=all HSPGEMM_TEST_SHARD=2/2 exec "${top_builddir:-.}/tests/t_faults"
