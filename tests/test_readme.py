"""The README's Python tour runs as written, and its first two commands are what CI runs."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_python_tour_runs():
    block = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert block is not None
    namespace: dict[str, object] = {}
    exec(compile(block.group(1), "README.md", "exec"), namespace)  # our own documentation
    assert namespace["result"].outcome == "hit"


def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"```sh\n(.*?)\n```", README.read_text(encoding="utf-8"), re.S)
    test_command = commands[1].split("&&")[-2:]
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "&&".join(test_command).strip() in ci
