"""Issue 20: "a tutorial that walks a new author from `rulecraft new` to a house rule with an
example, a fight and a printed sheet ... The tutorial, followed step by step as a new user
would, works exactly as written (a test replays it)."

docs/tutorial.md is replayed in an empty folder: a block under `<!-- file: NAME -->` is written
to NAME, under `<!-- append: NAME -->` added to it; each ```sh block's commands are run, and
each line of the ```text block after it must be in what they printed."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from rulecraft.cli import cli

TUTORIAL = Path(__file__).parent.parent / "docs" / "tutorial.md"
BLOCK = re.compile(r"(?:<!-- (file|append): (\S+) -->\n)?```(\w*)\n(.*?)```", re.S)


def test_the_tutorial_works_exactly_as_written(tmp_path):
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        said = ""
        commands = 0
        for action, name, kind, body in BLOCK.findall(TUTORIAL.read_text(encoding="utf-8")):
            if action == "file":
                Path(name).write_text(body, encoding="utf-8")
            elif action == "append":
                with open(name, "a", encoding="utf-8") as out:
                    out.write(body)
            elif kind == "sh":
                said = ""
                for line in body.strip().splitlines():
                    words = shlex.split(line)
                    assert words[0] == "rulecraft"
                    result = CliRunner().invoke(cli, words[1:])
                    assert "Traceback" not in result.output, line
                    said += result.output
                    commands += 1
            elif kind == "text":
                for expected in body.strip().splitlines():
                    assert expected.strip() in said, (expected, said)
        assert commands >= 10
        assert Path("our_table.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    finally:
        os.chdir(here)
