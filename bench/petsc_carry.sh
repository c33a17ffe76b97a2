#!/bin/sh
# petsc_carry.sh: pack what bench/petsc_bench.py needs to run on an x86-64
# Linux machine without PETSc or MPI (the GPU machine): this build tree's
# hspgemm-gamg and libraries, and from this Debian 12 machine PETSc's and
# Open MPI's shared libraries, Open MPI's launcher, its components and PMIx's,
# laid out like /usr so that OPAL_PREFIX and PMIX_PREFIX relocate them.
# The C and C++ runtimes are left to the other machine (a newer libstdc++
# there serves these libraries; an older one from here would break its own).
#
#   sh bench/petsc_carry.sh [BUILD] [OUT.tgz]        (default: . and petsc-carry.tgz)
#
# There:  tar xzf petsc-carry.tgz -C /tmp && . /tmp/petsc-carry/env.sh &&
#         python3 /tmp/petsc-carry/bench/petsc_bench.py --build=/tmp/petsc-carry --ranks=1,2,4,8
set -e
build=${1:-.}
out=${2:-petsc-carry.tgz}
program=$build/petsc/.libs/hspgemm-gamg
[ -x "$program" ] || { echo "petsc_carry.sh: no $program (configure found PETSc? make?)" >&2; exit 1; }
stage=$(mktemp -d)
R=$stage/petsc-carry
multiarch=lib/x86_64-linux-gnu
mkdir -p "$R/bin" "$R/libs" "$R/$multiarch" "$R/share" "$R/petsc" "$R/bench"
cp /usr/bin/orterun /usr/bin/orted "$R/bin/"
ln -s orterun "$R/bin/mpiexec"
cp -a /usr/$multiarch/openmpi /usr/$multiarch/pmix2 "$R/$multiarch/"
rm -rf "$R/$multiarch/openmpi/include" "$R/$multiarch/openmpi/lib/"*.a
cp -a /usr/share/openmpi "$R/share/"
cp "$program" "$R/petsc/"
cp "$(dirname "$0")/petsc_bench.py" "$R/bench/"
cp -a "$build"/.libs/libhspgemm.so* "$build"/petsc/.libs/libhspgemm_petsc.so* "$R/libs/"
# every shared library the program, the launcher and the components need, but the C and C++ runtimes
export LD_LIBRARY_PATH="$R/libs"
for f in "$program" /usr/bin/orterun /usr/bin/orted "$R/$multiarch"/openmpi/lib/openmpi3/*.so "$R/$multiarch"/pmix2/lib/pmix/*.so; do
    ldd "$f" 2>/dev/null
done | awk '$3 ~ /^\// { print $3 }' | sort -u |
    grep -v -E '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|libhspgemm[a-z_]*)\.so|ld-linux' |
    while read -r lib; do cp -L "$lib" "$R/libs/"; done
cat >"$R/env.sh" <<'EOF'
# . env.sh: Open MPI, PMIx and PETSc from this folder
R=$(cd "$(dirname "${BASH_SOURCE:-$0}")" 2>/dev/null && pwd)
[ -d "$R/libs" ] || R=/tmp/petsc-carry
export OPAL_PREFIX="$R" PMIX_PREFIX="$R/lib/x86_64-linux-gnu/pmix2" PMIX_MCA_pcompress_base_silence_warning=1
export LD_LIBRARY_PATH="$R/libs:$R/lib/x86_64-linux-gnu/openmpi/lib:$R/lib/x86_64-linux-gnu/pmix2/lib"
export PATH="$R/bin:$PATH"
EOF
tar czf "$out" -C "$stage" petsc-carry
rm -rf "$stage"
echo "petsc_carry.sh: $out ($(du -h "$out" | cut -f1))"
