"""pytest's set-up of the package's tests: hspgemm is imported from where it is installed, not from
its sources in python/ (no extension module is built there), which `python -m pytest` run in
python/ puts first on sys.path.  Where hspgemm cannot be imported at all, pytest stops at once,
saying why and how to install it.  The fixture child_process gives what a child interpreter
needs to import the same hspgemm."""
import glob
import os
import sys

import pytest

SOURCES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

if not any(glob.glob(os.path.join(SOURCES, "hspgemm", "_core*" + ext)) for ext in (".so", ".pyd")):  # not built there
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != SOURCES]


def pytest_sessionstart(session):
    """Stop before collecting where hspgemm cannot be imported, saying how to install it."""
    try:
        import hspgemm  # noqa: F401
    except ImportError as e:
        pytest.exit(f"the tests need the hspgemm package installed ({e}): pip install ./python in the "
                    "repository (or set PYTHONPATH to where it is installed), then run pytest again", returncode=4)


@pytest.fixture
def child_process(tmp_path):
    """subprocess's keywords for a child interpreter importing this hspgemm: run in tmp_path (not
    python/, whose sources `python -c` would import), the package's folder first on PYTHONPATH."""
    import hspgemm
    site = os.path.dirname(os.path.dirname(os.path.abspath(hspgemm.__file__)))
    path = os.pathsep.join(filter(None, [site, os.environ.get("PYTHONPATH")]))
    return {"cwd": tmp_path, "env": dict(os.environ, PYTHONPATH=path)}
