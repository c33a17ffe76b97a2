#!/usr/bin/env python3
"""install-mkl.py: install Intel oneMKL's libraries and headers for the MKL bench peer.

`hspgemm bench` runs bench/peer_mkl (mkl_sparse_sp2m) beside hspgemm's cpu device
when configure finds MKL.  MKL comes from PyPI as two wheels (pinned below by
version and SHA-256): mkl (the libraries) and mkl-include (the headers).  The
peer links MKL's LP64 interface, its GNU OpenMP threading layer (run by GCC's
libgomp, so Intel's OpenMP run time is not needed) and its core, so only those
three libraries and the kernels the core opens for each instruction set
(about 470 MB in all) are taken, into DEST/lib (default /opt/intel-mkl-2026.2.0),
with the headers in DEST/include and the licences in DEST/licences; nothing
is added to the system's library path (the peer finds them by its run path).

usage: install-mkl.py [--dest DIR] [--wheels DIR]
  --wheels DIR  take the wheels from DIR instead of downloading them
Run as root (or give a DEST you can write).  Running it again with everything
in place does nothing.  Then: ./configure (which looks in the default DEST) or
./configure --with-mkl=DEST.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pypi_wheels import install_wheels, installed, licence_target, link, mark_installed  # noqa: E402

# name on PyPI, version, wheel file, SHA-256 of the wheel
WHEELS = [
    ("mkl", "2026.2.0", "mkl-2026.2.0-py2.py3-none-manylinux_2_28_x86_64.whl",
     "eaab1875ce9f47ab3c66d5632cef06baf768c05781f2f28847bdbc4343500ed7"),
    ("mkl-include", "2026.2.0", "mkl_include-2026.2.0-py2.py3-none-manylinux_2_28_x86_64.whl",
     "889cc72057a1671fee1e9a8beb2fc4e0d222ba78c08b6d69584dae03fbec4822"),
]
LIBS = ["libmkl_intel_lp64.so.3", "libmkl_gnu_thread.so.3", "libmkl_core.so.3"]
# the kernels for each instruction set, which libmkl_core opens by name for the CPU it runs on
KERNELS = ["libmkl_def.so.3", "libmkl_mc3.so.3", "libmkl_avx2.so.3", "libmkl_avx512.so.3", "libmkl_avx10.so.3"]


def target(member):
    """Where a member of a wheel goes: one of LIBS, a header, or a licence."""
    parts = member.split("/")
    if len(parts) >= 2 and parts[-2] == "lib" and parts[-1] in LIBS + KERNELS:
        return os.path.join("lib", parts[-1])
    if "/data/include/" in member:
        return os.path.join("include", member.split("/data/include/", 1)[1])
    return licence_target(member)


def main():
    ap = argparse.ArgumentParser(description="Install oneMKL's libraries and headers for the MKL bench peer.")
    ap.add_argument("--dest", default="/opt/intel-mkl-2026.2.0")
    ap.add_argument("--wheels", help="a directory holding the wheels (no download)")
    args = ap.parse_args()
    if installed(args.dest, WHEELS):
        print(f"install-mkl: already installed in {args.dest}")
        return
    install_wheels("install-mkl", WHEELS, args.dest, target, args.wheels)
    for lib in LIBS:  # the names the linker looks for
        link(os.path.join(args.dest, "lib"), lib[:-2], lib)
    mark_installed(args.dest, WHEELS)
    print(f"install-mkl: oneMKL in {args.dest} (lib, include)")


if __name__ == "__main__":
    main()
