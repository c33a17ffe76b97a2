#!/bin/sh
# install-peer-python.sh: a Python of its own for the bench peers, in DIR
# (default /opt/hspgemm-python): a virtual environment of the system's python3
# (Debian's python3-venv) holding the newest scipy and PyAMG pinned in
# bench/requirements-peers.txt (wheels from PyPI, checked by SHA-256), so that
# the scipy peer and the PyAMG peer of `hspgemm bench --suite=amg` run the
# versions users pick today rather than Debian's scipy 1.10.  hspgemm bench
# looks for DIR/bin/python3 after $HSPGEMM_PYTHON.  Running it again with the
# same pins does nothing.
# usage: sh build-aux/install-peer-python.sh [DIR]
set -eu
dir=${1:-/opt/hspgemm-python}
reqs="$(dirname "$0")/../bench/requirements-peers.txt"
stamp="$dir/installed-by-hspgemm"
if [ -f "$stamp" ] && cmp -s "$reqs" "$stamp"; then
    echo "install-peer-python: already installed in $dir"
    exit 0
fi
/usr/bin/python3 -m venv "$dir"
"$dir/bin/python3" -m pip install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: -r "$reqs"
cp "$reqs" "$stamp"
echo "install-peer-python: $("$dir/bin/python3" -c 'import scipy, pyamg; print("scipy", scipy.__version__, "pyamg", pyamg.__version__)') in $dir"
