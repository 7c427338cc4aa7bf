"""The package layout: importable from anywhere, including a checkout's root."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_from_the_repository_root_finds_every_stage():
    # Issue 6, defect 2: "`python -c "import rulecraft"` (and `python -m pytest`) in the
    # repository root, where the README leaves a new user, fails with `ModuleNotFoundError: No
    # module named 'rulecraft.runtime'`: the root's `rulecraft/` folder shadows the installed
    # package. Both must work from the root."
    code = ("import rulecraft, rulecraft.runtime, rulecraft.dsl, rulecraft.compiler; "
            "print(rulecraft.load('ringing_steel').formulas['skill'](12, 5, 'Standard'))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "5.4"


def test_runtime_never_imports_the_parser_or_the_compiler():
    code = ("import sys, rulecraft.runtime.rulebook, rulecraft.runtime.procedures; "
            "print(sorted(m for m in sys.modules if m.startswith(('rulecraft.dsl', "
            "'rulecraft.compiler', 'lark'))))")
    done = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
