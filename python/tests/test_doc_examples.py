"""The python blocks of README.md and doc/*.md, run as a reader runs them; where a block is
followed by "prints" and a text block, what it prints is compared, numbers masked (they vary with
the machine).  tests/t_python.sh says where the sources are (HSPGEMM_DOCS); the blocks are read by
tests/doc_examples.py."""
import contextlib
import functools
import glob
import importlib.util
import io
import os

import pytest

SRC = os.environ.get("HSPGEMM_DOCS")


@functools.cache
def _examples():
    """tests/doc_examples.py of the source tree, loaded once."""
    spec = importlib.util.spec_from_file_location("doc_examples", os.path.join(SRC, "tests", "doc_examples.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _python_blocks():
    if not SRC:
        return []
    found = []
    for path in [os.path.join(SRC, "README.md")] + sorted(glob.glob(os.path.join(SRC, "doc", "*.md"))):
        text = open(path, encoding="utf-8").read()
        blocks = _examples().blocks(path)
        for k, b in enumerate(blocks):
            if b["lang"] != "python":
                continue
            shown = None
            nxt = blocks[k + 1] if k + 1 < len(blocks) else None
            if nxt and nxt["lang"] == "text":
                between = "\n".join(text.split("\n")[b["line"] + b["code"].count("\n") + 1:nxt["line"] - 1])
                shown = nxt["code"] if between.strip().startswith("prints") else None
            found.append(pytest.param(b, shown, id=f"{os.path.relpath(path, SRC)}:{b['line']}"))
    return found


@pytest.mark.skipif(not SRC, reason="HSPGEMM_DOCS names no source tree (tests/t_python.sh sets it)")
@pytest.mark.parametrize("block,shown", _python_blocks())
def test_python_block(block, shown, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block["code"], block["file"], "exec"), {})
    if shown is not None:
        assert _examples().masked(out.getvalue()) == _examples().masked(shown)
