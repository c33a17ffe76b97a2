#!/bin/sh
# t_nvptx.sh: the kernels' NVIDIA-only code (inline PTX: shuffles, ballots,
# red.shared), which only NVIDIA's OpenCL compiler builds at run time, compiled
# here by clang for nvptx64 with that compiler's macro set, in both
# precisions: so that a mistake there fails CI rather than a user's GPU.  It
# compiles only (no GPU here); what the code computes is tested on an NVIDIA
# device (doc/devices.md, "The opencl device").
. "${top_srcdir:-.}/tests/tap.sh"
src="${top_srcdir:-.}"
cc=${NVPTX_CLANG:-$(command -v clang-15 || command -v clang)}
for f in $KERNEL_FILES; do cat "$src/$f"; done >"$tmp/all.cl"
if [ -z "$KERNEL_FILES" ] || [ -z "$cc" ] ||
   ! echo 'kernel void k(global int *x) { *x = 1; }' | "$cc" -target nvptx64-nvidia-cuda -x cl -cl-std=CL1.2 -S -o /dev/null - 2>/dev/null; then
    echo "1..0 # SKIP no clang with the nvptx64 target (or no kernel list)"
    exit 0
fi
for p in float double; do
    def=$([ $p = double ] && echo -DHSP_DOUBLE)
    run "$cc" -target nvptx64-nvidia-cuda -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -O2 -Werror \
        -D__NV_CL_C_VERSION=120 -Dasm=__asm__ $def -S -o "$tmp/k.ptx" "$tmp/all.cl"
    ok $rc "the kernels compile for nvptx64 with NVIDIA's paths, $p$( [ $rc -ne 0 ] && head -c 300 "$tmp/err" | tr '\n' ' ')"
    for op in shfl.sync.bfly shfl.sync.up vote.sync.ballot red.shared.add; do
        ok "$(has "$op" "$tmp/k.ptx")" "its PTX has $op, $p"
    done
done
echo "1..$n"
exit $fail
