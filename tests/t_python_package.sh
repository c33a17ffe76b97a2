#!/bin/sh
# t_python_package.sh: the Python package built from its sdist alone, as TAP.
# An sdist is made from a copy of the sources (the PEP 517 hook, without the
# build package), the copy is deleted, a wheel is built from the unpacked
# sdist and installed into a folder (the library compiled into the extension,
# none of this tree's build used), the sdist is deleted; then from another
# folder hspgemm imports, multiplies on the cpu device as scipy does, lists its
# devices and has py.typed and _core.pyi.  Before the copy goes, importing
# hspgemm from its python/ folder (the sources, no extension built) must say
# so, not fail with Python's circular-import message, and the wheel's metadata
# made there must warn of nothing (a MANIFEST.in naming libsrc/, absent
# there, made setuptools warn in every build).  No network: pip builds
# with the Python's own setuptools (--no-build-isolation --no-index).  Python
# is $HSPGEMM_PYTHON, else /opt/hspgemm-python/bin/python3; skipped where it
# lacks numpy, scipy or setuptools, and where the tree's library is built with
# sanitizers: the wheel compiles its own copy without them, so that such a run
# would repeat the one without sanitizers (44 s alone on the 2-core VM, 51 s of
# CPU, most of it pip compiling the wheel's 45 C files two at once:
# src/spmm/spmm.c alone 14 s).
src="${top_srcdir:-.}"
build="${top_builddir:-.}"
. "$src/tests/tap.sh"
py="${HSPGEMM_PYTHON:-/opt/hspgemm-python/bin/python3}"
if ! "$py" -c "import numpy, scipy, setuptools" 2>/dev/null; then
    echo "1..0 # SKIP no Python with numpy, scipy and setuptools at $py"
    exit 0
fi
if asan_built; then
    echo "1..0 # SKIP libhspgemm is built with sanitizers; the wheel (its own copy, without them) is tested without"
    exit 0
fi
copy="$tmp/source"

# ok_if WHAT COMMAND...: a TAP line for WHAT, ok where COMMAND succeeds, with its output as comments where not.
ok_if() {
    what=$1
    shift
    n=$((n + 1))
    if "$@" >"$tmp/out" 2>&1; then
        echo "ok $n - $what"
    else
        echo "not ok $n - $what"
        sed 's/^/# /' "$tmp/out"
    fi
}

# The library's sources and the package's, without build outputs.
copy_sources() {
    mkdir -p "$copy/build-aux" "$copy/python" && (cd "$src" && cp -R src kernels Makefile.am "$copy") \
        && cp "$src/build-aux/embed-kernels.sh" "$copy/build-aux" \
        && (cd "$src/python" && cp -R README.md pyproject.toml setup.py hspgemm tests "$copy/python") \
        && chmod -R u+w "$copy" && find "$copy/python" \( -name '*.so' -o -name __pycache__ \) -exec rm -rf {} +
}

# The sdist of the copy, in $tmp/dist, through setuptools' PEP 517 hook.
make_sdist() {
    (cd "$copy/python" && "$py" -c "from setuptools import build_meta; build_meta.build_sdist('$tmp/dist')")
}

# import hspgemm from the copy's python/ folder fails, saying that the extension is not built there.
source_import_says_so() {
    (cd "$copy/python" && "$py" -c "import hspgemm") >"$tmp/import.log" 2>&1 && return 1
    cat "$tmp/import.log"
    grep -q "hspgemm._core is not built in" "$tmp/import.log" && ! grep -q "circular import" "$tmp/import.log"
}

# The wheel's metadata made from the copy's python/ folder: no warning (setuptools' lines starting "warning:").
metadata_quiet() {
    mkdir "$tmp/metadata" && (cd "$copy/python" && "$py" -c "from setuptools import build_meta
build_meta.prepare_metadata_for_build_wheel('$tmp/metadata')") >"$tmp/metadata.log" 2>&1 || return 1
    ! grep -i "warning" "$tmp/metadata.log"
}

# The unpacked sdist built into a wheel and installed into $tmp/site; then the sdist deleted.
install_sdist() {
    mkdir "$tmp/unpacked" && tar xzf "$tmp"/dist/hspgemm-*.tar.gz -C "$tmp/unpacked" \
        && "$py" -m pip install --no-build-isolation --no-deps --no-index --disable-pip-version-check \
            --target "$tmp/site" "$tmp"/unpacked/hspgemm-* \
        && rm -rf "$tmp/dist" "$tmp/unpacked"
}

# Python code run from a folder of its own with the installed package only.
installed() {
    mkdir -p "$tmp/elsewhere" && (cd "$tmp/elsewhere" && PYTHONPATH="$tmp/site" "$py" -c "$1")
}

echo "1..7"
copy_sources
ok_if "an sdist made from a copy of the sources" make_sdist
ok_if "import hspgemm in python/ says the extension is not built there" source_import_says_so
ok_if "the wheel's metadata made from the sources warns of nothing (no libsrc/ there)" metadata_quiet
rm -rf "$copy"
ok_if "a wheel built and installed from the unpacked sdist alone" install_sdist
ok_if "the installed hspgemm multiplies on the cpu device as scipy does" installed '
import os, hspgemm, scipy.sparse as sp
assert hspgemm.__file__.startswith(os.environ["PYTHONPATH"] + os.sep), hspgemm.__file__
A = sp.random_array((300, 300), density=0.02, format="csr", rng=1)
C = hspgemm.matmul(A, A, device="cpu")
print(abs(C - A @ A).max())
assert abs(C - A @ A).max() < 1e-12'
ok_if "hspgemm.devices() lists cpu" installed '
import hspgemm
names = [d["name"] for d in hspgemm.devices()]
print(names)
assert "cpu" in names'
ok_if "py.typed and _core.pyi are installed" installed '
import os, hspgemm
folder = os.path.dirname(hspgemm.__file__)
assert all(os.path.isfile(os.path.join(folder, f)) for f in ("py.typed", "_core.pyi")), os.listdir(folder)'
