#!/bin/sh
# t_python.sh: the Python package's tests (python/tests, pytest) as TAP, one
# line per test, the package built against this build's library.  Python is
# $HSPGEMM_PYTHON, else /opt/hspgemm-python/bin/python3 (the set-up makes it);
# skipped where it lacks numpy, scipy, pytest or setuptools, and where the
# library is built with AddressSanitizer (which an interpreter cannot load).
src="${top_srcdir:-.}"
build="${top_builddir:-.}"
. "$src/tests/tap.sh"
py="${HSPGEMM_PYTHON:-/opt/hspgemm-python/bin/python3}"
if ! "$py" -c "import numpy, scipy, pytest, setuptools" 2>/dev/null; then
    echo "1..0 # SKIP no Python with numpy, scipy, pytest and setuptools at $py"
    exit 0
fi
if asan_built; then
    echo "1..0 # SKIP libhspgemm is built with AddressSanitizer"
    exit 0
fi
mkdir "$tmp/python" && (cd "$src/python" && cp -R README.md pyproject.toml setup.py hspgemm tests "$tmp/python") \
    && chmod -R u+w "$tmp/python"
if ! HSPGEMM_INCLUDE_DIR="$(cd "$src/src" && pwd)" HSPGEMM_LIBRARY_DIR="$(cd "$build/.libs" && pwd)" \
    "$py" -m pip install --no-build-isolation --no-deps --target "$tmp/site" "$tmp/python" >"$tmp/build.log" 2>&1; then
    echo "1..1"
    echo "not ok 1 - the package builds (pip install)"
    sed 's/^/# /' "$tmp/build.log"
    exit 0
fi
docs="$(cd "$src" && pwd)"
cd "$tmp" && HSPGEMM_DOCS="$docs" PYTHONPATH="$tmp/site" "$py" -m pytest -q -p no:cacheprovider --junitxml="$tmp/junit.xml" \
    python/tests >"$tmp/pytest.log" 2>&1
"$py" - "$tmp/junit.xml" "$tmp/pytest.log" <<'PY'
"""The JUnit XML of pytest as TAP lines; the log as comments of a failure."""
import os
import sys
import xml.etree.ElementTree as ET
cases = list(ET.parse(sys.argv[1]).getroot().iter("testcase")) if os.path.exists(sys.argv[1]) else []
print(f"1..{max(len(cases), 1)}")
if not cases:
    print("not ok 1 - pytest ran tests")
for n, case in enumerate(cases, 1):
    name = f"{case.get('classname')}.{case.get('name')}"
    bad = case.find("failure") is not None or case.find("error") is not None
    skip = case.find("skipped")
    if skip is not None:
        print(f"ok {n} - {name} # SKIP {skip.get('message', '')}")
    else:
        print(f"{'not ok' if bad else 'ok'} {n} - {name}")
if not cases or any(c.find("failure") is not None or c.find("error") is not None for c in cases):
    for line in open(sys.argv[2]):
        print("# " + line.rstrip())
PY
