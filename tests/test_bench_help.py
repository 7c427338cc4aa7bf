"""Issue 19: "bench_fights.py (and bench_core.py, bench_chain.py) run their benchmark when given
`--help` — make `--help` print usage (argparse)". Each prints its usage and runs nothing (a
benchmark's first row would take seconds; its header line is never printed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.parametrize("script, option", [
    ("bench_fights.py", "--runs"), ("bench_core.py", "--only"), ("bench_chain.py", "--strict"),
    ("bench_compile.py", "--lines"), ("bench_refusals.py", "--repeats")])
def test_help_prints_usage_and_runs_nothing(script: str, option: str) -> None:
    done = subprocess.run([sys.executable, str(BENCH / script), "--help"], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: {script}") and option in done.stdout
    assert "benchmark " not in done.stdout and "ratio" not in done.stdout.split("\n")[0]


@pytest.mark.parametrize("script", sorted(p.name for p in BENCH.glob("bench_*.py")))
def test_an_unknown_option_is_refused(script: str) -> None:
    done = subprocess.run([sys.executable, str(BENCH / script), "--fast"], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 2 and "unrecognized arguments: --fast" in done.stderr
