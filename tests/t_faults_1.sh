#!/bin/sh
# t_faults_1.sh: part 1 of make check-faults: t_faults failing the
# odd-numbered ones of each call's allocations and OpenCL calls in turn
# (the two parts run at once).
HSPGEMM_FAULTS=all HSPGEMM_TEST_SHARD=1/2 exec "${top_builddir:-.}/tests/t_faults"
