"""The build of the extension module hspgemm._core, the package's bridge to libhspgemm, in one of two ways.

- By default (`pip install ./python` from the repository, or from the sdist) the library is compiled into
  the extension itself, from its sources: libsrc/ where present (the copy an sdist carries), else the
  repository above (..).  Its devices: cpu always; opencl where CL/cl.h compiles and libOpenCL links at
  build time (HSP_HAVE_OPENCL, the kernels embedded by build-aux/embed-kernels.sh in the order of
  Makefile.am's KERNEL_FILES); never hsa, whose code objects need the autotools build.  Compiled in rather
  than a libhspgemm.so bundled beside the extension with an $ORIGIN run path: it is one file, built by
  setuptools' own Extension, with nothing for the dynamic loader to find or mistake for another
  libhspgemm (only PyInit__core is exported).
- Where HSPGEMM_INCLUDE_DIR and HSPGEMM_LIBRARY_DIR are both set (the directories of hspgemm.h and
  libhspgemm.so: a build of the tree, src and .libs, with any of its devices, hsa included; or an
  installed library, `pkg-config --variable=includedir hspgemm` and `--variable=libdir`), the extension
  links that library, with its directory as the run path.  tests/t_python.sh builds so.

The sources are globbed (src/**/*.c but src/device/hsa/; the include path is every folder holding a header
under src/, as Makefile.am's AM_CPPFLAGS) and compiled in parallel, one compiler per core.  `sdist` copies
them into libsrc/ for the archive (no MANIFEST.in: Sdist lists them) and removes it after, so that a wheel
builds from the sdist alone.
"""
import glob
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist
from setuptools.errors import CompileError, LinkError

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(HERE)
VENDORED = os.path.join(HERE, "libsrc")
SOURCES, HEADERS = ["src/**/*.c"], ["src/**/*.h"]
# what an sdist carries besides the sources: what makes the kernels' string
SDIST_FILES = SOURCES + HEADERS + ["src/options.def", "kernels/*", "build-aux/embed-kernels.sh", "Makefile.am"]
HSA_FOLDER = os.path.join("src", "device", "hsa", "")  # never compiled in: its code objects need autotools
FLAGS = ["-std=c11", "-pthread", "-O2", "-fvisibility=hidden", "-Wall"]


def linked_library():
    """(HSPGEMM_INCLUDE_DIR, HSPGEMM_LIBRARY_DIR) where both are set, None where neither is."""
    env = os.environ.get("HSPGEMM_INCLUDE_DIR"), os.environ.get("HSPGEMM_LIBRARY_DIR")
    if any(env) and not all(env):
        raise SystemExit("hspgemm: set both HSPGEMM_INCLUDE_DIR and HSPGEMM_LIBRARY_DIR (to link a built "
                         "libhspgemm) or neither (to compile the library into the extension)")
    return env if all(env) else None


def files(root, patterns):
    """The files under root matching the glob patterns (** recursive), sorted."""
    return sorted({f for p in patterns for f in glob.glob(os.path.join(root, p), recursive=True)
                   if os.path.isfile(f)})


def kernel_files(root):
    """Makefile.am's KERNEL_FILES, in the order the opencl device's kernel string concatenates them."""
    with open(os.path.join(root, "Makefile.am")) as f:
        found = re.search(r"^KERNEL_FILES\s*=(.*)$", f.read().replace("\\\n", " "), re.M)
    if not found:
        raise SystemExit(f"hspgemm: no KERNEL_FILES in {root}/Makefile.am")
    return found.group(1).split()


def have_opencl(compiler, scratch):
    """Whether CL/cl.h compiles and clGetPlatformIDs links from libOpenCL, as configure checks."""
    test = os.path.join(scratch, "opencl_check.c")
    with open(test, "w") as f:
        f.write("#define CL_TARGET_OPENCL_VERSION 300\n#include <CL/cl.h>\n"
                "int main(void) { cl_uint n; return clGetPlatformIDs(0, 0, &n); }\n")
    try:
        objects = compiler.compile([test], output_dir=scratch)
        compiler.link_executable(objects, os.path.join(scratch, "opencl_check"), libraries=["OpenCL"])
    except (CompileError, LinkError):
        return False
    return True


def parallel(compile_files):
    """A compiler's compile() that compiles each source in a process of its own, one per core at once."""
    def compile_all(sources, *args, **kwargs):
        with ThreadPoolExecutor(os.cpu_count()) as pool:
            return [obj for objects in pool.map(lambda src: compile_files([src], *args, **kwargs), sources)
                    for obj in objects]
    return compile_all


class BuildExt(build_ext):
    """build_ext compiling the library into hspgemm._core (unless it links a built one), in parallel."""

    def build_extensions(self):
        if LINKED is None:
            self.add_library(self.extensions[0])
        self.compiler.compile = parallel(self.compiler.compile)
        super().build_extensions()

    def add_library(self, ext):
        """The library's sources, include path and devices added to ext."""
        root = VENDORED if os.path.isdir(VENDORED) else REPOSITORY
        sources = [s for s in files(root, SOURCES) if HSA_FOLDER not in s]
        headers = files(root, HEADERS)
        if not sources:
            raise SystemExit(f"hspgemm: the library's sources (src/) are not in {root}: build from the repository's "
                             "python/ folder or its sdist, or set HSPGEMM_INCLUDE_DIR and HSPGEMM_LIBRARY_DIR")
        os.makedirs(self.build_temp, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=self.build_temp) as scratch:
            opencl = have_opencl(self.compiler, scratch)
        if opencl:
            sources.append(self.kernel_source(root))
            ext.define_macros.append(("HSP_HAVE_OPENCL", "1"))
            ext.libraries.append("OpenCL")
        else:
            sources = [s for s in sources if "opencl" not in os.path.basename(s)]
        ext.sources += sources
        ext.include_dirs += sorted({os.path.dirname(h) for h in headers})
        ext.depends += headers
        print(f"hspgemm: the library compiled in, devices cpu{' opencl' if opencl else ''} "
              f"({len(sources)} files from {root})")

    def kernel_source(self, root):
        """kernels_source.c in build_temp: the opencl device's kernels as one string, as the library's build
        makes it (build-aux/embed-kernels.sh over Makefile.am's KERNEL_FILES)."""
        out = os.path.abspath(os.path.join(self.build_temp, "kernels_source.c"))
        with open(out, "w") as f:
            subprocess.run(["sh", os.path.join(root, "build-aux", "embed-kernels.sh"), root, *kernel_files(root)],
                           stdout=f, check=True)
        return out


class Sdist(sdist):
    """sdist carrying the library's sources in libsrc/, copied from the repository for the archive and
    added to its file list here (a MANIFEST.in naming libsrc/ warned in every other command, where it is
    absent)."""

    def run(self):
        if not files(REPOSITORY, SOURCES):
            raise SystemExit(f"hspgemm: sdist: the library's sources (src/) are not in {REPOSITORY}")
        shutil.rmtree(VENDORED, ignore_errors=True)
        for f in files(REPOSITORY, SDIST_FILES):
            dest = os.path.join(VENDORED, os.path.relpath(f, REPOSITORY))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy2(f, dest)
        try:
            super().run()
        finally:
            shutil.rmtree(VENDORED)

    def make_distribution(self):
        self.filelist.extend(os.path.relpath(f, HERE) for f in files(VENDORED, ["**/*"]))
        super().make_distribution()


def extension():
    """hspgemm._core: linking the library at LINKED, else with the library's sources added by BuildExt."""
    ext = Extension("hspgemm._core", ["hspgemm/_core.c"], define_macros=[("_GNU_SOURCE", None)],
                    extra_compile_args=FLAGS, extra_link_args=["-pthread"], libraries=["m"])
    if LINKED:
        include_dir, library_dir = LINKED
        ext.include_dirs, ext.library_dirs, ext.runtime_library_dirs = [include_dir], [library_dir], [library_dir]
        ext.libraries.append("hspgemm")
    return ext


LINKED = linked_library()
setup(ext_modules=[extension()], cmdclass={"build_ext": BuildExt, "sdist": Sdist})
