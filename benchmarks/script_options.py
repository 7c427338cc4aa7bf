"""What every benchmark script's options share: `--help` prints the script's first paragraph
and runs nothing; an option it does not know is refused with exit 2 (tests/test_bench_help.py)."""

from __future__ import annotations

import argparse


def parser(prog: str, doc: str | None) -> argparse.ArgumentParser:
    """The script's parser, its description the first paragraph of its docstring; each script
    adds its own options."""
    return argparse.ArgumentParser(prog=prog, description=(doc or "").split("\n\n")[0],
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
