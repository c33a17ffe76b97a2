#!/bin/sh
# t_docs.sh: the code blocks of README.md and doc/*.md run as a reader runs
# them (tests/doc_examples.py says how each kind is run and checked), and
# README's table of the manual's pages, as TAP; the python blocks run in the
# Python package's tests (python/tests/test_doc_examples.py, in t_python.sh).
src="${top_srcdir:-.}"
py="${HSPGEMM_DOCS_PYTHON:-/usr/bin/python3}"
exec "$py" "$src/tests/doc_examples.py" "${top_builddir:-.}" "$src/README.md" "$src"/doc/*.md
