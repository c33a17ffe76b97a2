"""The README's Python block, run as a reader runs it (tests/t_python.sh says where README.md is)."""
import os
import re

import pytest


def test_readme_python_block():
    path = os.environ.get("HSPGEMM_README")
    if not path or not os.path.exists(path):
        pytest.skip("HSPGEMM_README names no README.md (tests/t_python.sh sets it)")
    text = open(path, encoding="utf-8").read()
    first = text[text.index("## First products"):]
    block = re.search(r"^```python\n(.*?)^```", first, re.M | re.S)
    assert block, "README.md's First products has a python block"
    exec(compile(block.group(1), "README.md", "exec"), {})
