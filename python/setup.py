"""The build of the extension hspgemm._core over libhspgemm, which it finds
through HSPGEMM_INCLUDE_DIR and HSPGEMM_LIBRARY_DIR where both are set, else
in the build tree this directory sits in (../src, ../.libs) where the library
is built there, else through pkg-config (an installed libhspgemm, `make
install`).  The extension keeps the library's directory as its run path."""
import os
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def pkg_config(variable):
    """A variable of pkg-config's hspgemm, or None."""
    try:
        out = subprocess.run(["pkg-config", f"--variable={variable}", "hspgemm"], capture_output=True, text=True)
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def library_dirs():
    """(directory of hspgemm.h, directory of libhspgemm.so)."""
    env = os.environ.get("HSPGEMM_INCLUDE_DIR"), os.environ.get("HSPGEMM_LIBRARY_DIR")
    if all(env):
        return env
    tree = os.path.dirname(HERE)
    if os.path.exists(os.path.join(tree, "src", "hspgemm.h")) and \
            os.path.exists(os.path.join(tree, ".libs", "libhspgemm.so")):
        return os.path.join(tree, "src"), os.path.join(tree, ".libs")
    found = pkg_config("includedir"), pkg_config("libdir")
    if all(found):
        return found
    raise SystemExit("hspgemm: libhspgemm not found: build it in the tree above (./configure && make), "
                     "install it (make install, found by pkg-config), or set HSPGEMM_INCLUDE_DIR and "
                     "HSPGEMM_LIBRARY_DIR")


include_dir, library_dir = library_dirs()
setup(ext_modules=[Extension("hspgemm._core", ["hspgemm/_core.c"], include_dirs=[include_dir],
                             library_dirs=[library_dir], libraries=["hspgemm"],
                             runtime_library_dirs=[library_dir], extra_compile_args=["-std=c11", "-Wall"])])
