#!/usr/bin/env python3
"""install-intel-opencl.py: install Intel's OpenCL runtime for CPUs system-wide.

It is the one OpenCL device on an x86 machine without a GPU that offers
fine-grained *system* SVM: kernels use the host's own arrays (malloc'd memory)
in place, and long rows grow by a host realloc, as on an AMD APU.  The tests
run the opencl device on it beside PoCL, so the APU's memory model is under
every test run.

The runtime comes from PyPI as wheels (pinned below by version and SHA-256):
intel-opencl-rt (the ICD, libintelocl.so, and its compiler), tbb (which it
links) and intel-cmplr-lib-rt (Intel's math and compiler run-time libraries);
intel-cmplr-lic-rt holds their licence.  The libraries needed go into one
directory of their own (DEST, default /opt/intel-opencl-cpu-2026.2.0):
libintelocl.so finds the others there through its RUNPATH ($ORIGIN), so
nothing is added to the system's library path (Debian's own libtbb is not
shadowed).  An ICD file naming it goes into /etc/OpenCL/vendors, where the
system's OpenCL loader (ocl-icd) finds it.

usage: install-intel-opencl.py [--dest DIR] [--icd-dir DIR] [--wheels DIR]
  --wheels DIR  take the wheels from DIR instead of downloading them
Run as root.  Running it again with everything in place does nothing.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pypi_wheels import install_wheels, installed, licence_target, link, mark_installed  # noqa: E402

# name on PyPI, version, wheel file, SHA-256 of the wheel
WHEELS = [
    ("intel-opencl-rt", "2026.2.0", "intel_opencl_rt-2026.2.0-py2.py3-none-manylinux_2_28_x86_64.whl",
     "6b6215a420598b4999ee01caca6d5cbe106aa4155c46c52377619c5aafce9f67"),
    ("tbb", "2023.2.0", "tbb-2023.2.0-py2.py3-none-manylinux_2_28_x86_64.whl",
     "7d80615b6e970f11671fa05b6eaa9483ac864fbfe525ac280271a78b37870b7c"),
    ("intel-cmplr-lib-rt", "2026.2.0", "intel_cmplr_lib_rt-2026.2.0-py2.py3-none-manylinux_2_28_x86_64.whl",
     "9f713083073a820d2496a6da8e8d4f3482aba6640f74521d25ea48dcebe72748"),
    ("intel-cmplr-lic-rt", "2026.2.0", "intel_cmplr_lic_rt-2026.2.0-py2.py3-none-manylinux_2_28_x86_64.whl",
     "402d9bc7fd418ab2df7a75b0545cf447bb52e02bedf4e3af0e7d5809b66d749d"),
]

# The files of the wheels' lib/ directories that the runtime opens (by name,
# by a prefix ending in '*' or a suffix after '*'), under the names it opens
# them by (seen with strace); the compiler's link-time optimizer, the FPGA
# emulator and the wheel's own OpenCL loader are left out.
LIBS = ["libintelocl.so.2026.22.10.0", "libcommon_clang.so.2026.22.10.0", "libocl_svml_*", "*.rtl", "cllibrary*",
        "cl.cfg", "libtbb.so.12", "libtbbmalloc.so.2", "libimf.so", "libsvml.so", "libirng.so", "libintlc.so.5"]
LINKS = {"libintelocl.so": "libintelocl.so.2026.22.10.0"}


def wanted(name):
    """Is a file of a wheel's lib/ one the runtime loads?"""
    for pattern in LIBS:
        if pattern.endswith("*") and name.startswith(pattern[:-1]) or \
           pattern.startswith("*") and name.endswith(pattern[1:]) or name == pattern:
            return True
    return False


def target(member):
    """Where a member of a wheel goes: a wanted lib/ file, or a licence."""
    parts = member.split("/")
    if len(parts) >= 2 and parts[-2] == "lib" and wanted(parts[-1]):
        return parts[-1]
    return licence_target(member)


def main():
    ap = argparse.ArgumentParser(description="Install Intel's OpenCL runtime for CPUs (system SVM).")
    ap.add_argument("--dest", default="/opt/intel-opencl-cpu-2026.2.0")
    ap.add_argument("--icd-dir", default="/etc/OpenCL/vendors")
    ap.add_argument("--wheels", help="a directory holding the wheels (no download)")
    args = ap.parse_args()
    icd = os.path.join(args.icd_dir, "intel-cpu-hspgemm.icd")
    library = os.path.join(args.dest, "libintelocl.so")
    if installed(args.dest, WHEELS) and os.path.exists(icd):
        print(f"install-intel-opencl: already installed in {args.dest}")
        return
    install_wheels("install-intel-opencl", WHEELS, args.dest, target, args.wheels)
    for name, to in LINKS.items():
        link(args.dest, name, to)
    os.makedirs(args.icd_dir, exist_ok=True)
    with open(icd, "w") as f:
        f.write(library + "\n")
    mark_installed(args.dest, WHEELS)
    print(f"install-intel-opencl: Intel OpenCL CPU runtime in {args.dest}, ICD file {icd}")


if __name__ == "__main__":
    main()
