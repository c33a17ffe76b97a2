#!/bin/sh
# device.sh: runs one cell of the suites x devices matrix (Makefile.am's
# DEVICE_TESTS; tests/README.md).  make check calls it with the test's name,
# [DIR/]tests/SUITE@DEVICE[.KofN].dev, which names everything it runs: the
# test program tests/SUITE, on DEVICE, part K of N (HSPGEMM_TEST_SHARD=K/N)
# where the name has a part.  A device this machine lacks is a TAP skip.
# The devices:
#   cpu     the CPU threads (HSPGEMM_TEST_DEVICE=cpu)
#   bufsvm  the first OpenCL device whose memory is buffer SVM (PoCL here),
#           with the shared virtual memory it offers
#   nosvm   the same device held to plain buffers and explicit transfers
#           (",nosvm": a discrete GPU's memory model)
#   syssvm  the first OpenCL device with fine-grained system SVM (Intel's CPU
#           runtime, build-aux/install-intel-opencl.py): host arrays used in
#           place and long rows grown by host realloc, as on an APU
#   pocl    the opencl device with PoCL as the only OpenCL platform (its ICD
#           file alone), where concurrent first calls failed
. "${top_srcdir:-.}/tests/opencl_device.sh"

name=${1##*/}
name=${name%.dev}
suite=${name%%@*}
cell=${name#*@}
device=${cell%%.*}
part=${cell#"$device"}
if [ "$suite" = "$name" ] || [ -z "$device" ]; then
    echo "Bail out! $1: not a test name tests/SUITE@DEVICE[.KofN].dev"
    exit 1
fi
if [ -n "$part" ]; then
    if ! expr "$part" : '\.[1-9][0-9]*of[1-9][0-9]*$' >/dev/null; then
        echo "Bail out! $1: the part is not .KofN (e.g. .1of2)"
        exit 1
    fi
    part=${part#.}
    export HSPGEMM_TEST_SHARD="${part%of*}/${part#*of}"
fi
program="${top_builddir:-.}/tests/$suite"

# on MEMORY FLAGS: the program on the first OpenCL device with that memory
# (with ",FLAGS" when FLAGS is not empty), or the TAP plan of a skip.
on() {
    dev=$(opencl_device "$1")
    if [ -z "$dev" ]; then
        echo "1..0 # SKIP no OpenCL device with $1"
        exit 0
    fi
    HSPGEMM_TEST_DEVICE="$dev${2:+,$2}" exec "$program"
}

case $device in
    cpu) HSPGEMM_TEST_DEVICE=cpu exec "$program" ;;
    bufsvm) on "buffer SVM" "" ;;
    nosvm) on "buffer SVM" "nosvm" ;;
    syssvm) on "system SVM" "" ;;
    pocl)
        icd=/etc/OpenCL/vendors/pocl.icd
        if [ ! -f "$icd" ]; then
            echo "1..0 # SKIP no PoCL ICD file ($icd)"
            exit 0
        fi
        # Under AddressSanitizer, a thread that made a PoCL context fails
        # ASan's own check when it exits and ASan unmaps its alternate signal
        # stack ("unable to unmap"): the sanitizer then does without one.
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}use_sigaltstack=0" \
            OCL_ICD_VENDORS=$icd HSPGEMM_TEST_DEVICE=opencl exec "$program" ;;
    *) echo "Bail out! $1: no device $device (cpu, bufsvm, nosvm, syssvm, pocl)"; exit 1 ;;
esac
