"""How long, and how much memory, rulecraft takes to refuse each attack of issue 21's hardening
round — the same files the hardening tests write, run as a user runs them (the `rulecraft`
command in a child process, capped at 1 GB and 60 s of CPU), with the default limits.

The tests assert the refusal, its limit and the memory; seconds depend on the machine, so they
are reported here instead. Each row is the median of `--repeats` runs (3 by default), beside
`rulecraft --version` (the start of a process) measured the same way.

    python benchmarks/bench_refusals.py [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import test_hardening_crashes as crashes  # noqa: E402 - the tests' own attacks
import test_hardening_fights as fights  # noqa: E402
import test_hardening_work as work  # noqa: E402
from resources import rulecraft  # noqa: E402
import script_options  # noqa: E402

Attack = Callable[[Path], list[str]]  # writes its files into a folder, gives the arguments


def _file(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    return str(path)


def _chain(folder: Path) -> list[str]:
    for i in range(400):
        base = f'extends "c{i + 1}.rules"\n' if i < 399 else ""
        _file(folder, f"c{i}.rules", f'rulebook c{i} "C"\n{base}')
    return ["check", str(folder / "c0.rules")]


def _environ(folder: Path) -> list[str]:
    return ["check", _file(folder, "house.rules", 'rulebook h "H"\nextends "/proc/self/environ"\n')]


def _self(folder: Path) -> list[str]:
    return ["check", _file(folder, "b.rules", 'rulebook b "B"\nextends "./b.rules"\n')]


def _deep_toml(folder: Path) -> list[str]:
    fighter = _file(folder, "deep.toml", "a = " + "[" * 5000 + "]" * 5000 + "\n")
    return ["fight", "ringing_steel", fighter, fighter]


def _diff(folder: Path) -> list[str]:
    old = _file(folder, "old.rules", fights._procedure(["let x = n"] * 4000))
    new = _file(folder, "new.rules", fights._procedure((["let x = n"] * 9 + ["let y = n"]) * 400))
    return ["diff", old, new]


def _template(folder: Path) -> list[str]:
    (folder / "mine").mkdir()
    _file(folder / "mine", "sheet.html", "{% for i in range(100000) %}{% for j in range(100000) %}"
          "{% endfor %}{% endfor %}")
    return ["sheet", "ringing_steel", "--templates", str(folder / "mine")]


ATTACKS: list[tuple[str, Attack]] = [
    ("--version (a process starting, for scale)", lambda folder: ["--version"]),
    ("extends /proc/self/environ", _environ),
    ("extends itself as ./b.rules", _self),
    ("a chain of 400 bases", _chain),
    ("a loop keeping big lists (run --trace)",
     lambda f: ["run", _file(f, "lets.rules", work.GROWING_LETS), "p", "n=1", "--trace"]),
    ("a list state grown by add",
     lambda f: ["run", _file(f, "marks.rules", work.LIST_STATE), "p", "who.strength=3"]),
    ("procedures calling each other twice over, 30 deep",
     lambda f: ["run", _file(f, "calls.rules", work.doubling_calls(30)), "p30", "k=3"]),
    ("aggregates in a loop (run)",
     lambda f: ["run", _file(f, "nested.rules", work.NESTED), "p", "n=1000000"]),
    ("aggregates in a loop (odds)",
     lambda f: ["odds", _file(f, "nested.rules", work.NESTED), "p", "n=1000000"]),
    ("a reference grid of a million cells (sheet)",
     lambda f: ["sheet", _file(f, "grid.rules", work.GRID), "-o", str(f / "grid.html")]),
    ("squaring in a loop",
     lambda f: ["run", _file(f, "square.rules", work.SQUARING), "p", "x=3"]),
    ("400 nested step blocks (odds)",
     lambda f: ["odds", _file(f, "nested.rules", crashes.nested(400, "step s{i}:")), "p", "x=1"]),
    ("a chain of 400 procedure calls (odds)",
     lambda f: ["odds", _file(f, "chain.rules", crashes.chain(400)), "p1", "x=1"]),
    ("a fighter file of 5,000 nested brackets", _deep_toml),
    ("diff of two 48 KB files of repeated steps (answers)", _diff),
    ("a template of two nested loops of 100,000", _template),
]


def arguments() -> argparse.ArgumentParser:
    """The options (`--help` prints them and runs nothing)."""
    parser = script_options.parser("bench_refusals.py", __doc__)
    parser.add_argument("--repeats", type=int, default=3, metavar="N",
                        help="runs of each attack, the median reported (default 3)")
    return parser


def main(argv: list[str] | None = None) -> int:
    repeats = arguments().parse_args(argv).repeats
    print(f"{'attack':<52} {'exit':>4} {'seconds':>8} {'peak MB':>8}  limit named")
    for name, attack in ATTACKS:
        runs = []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as folder:
                runs.append(rulecraft(attack(Path(folder)), cwd=folder))
        last = runs[-1]
        named = next((w.split(";")[0] for w in last.output.split("(limit ")[1:]), "")
        print(f"{name:<52} {last.returncode:>4} {statistics.median(r.seconds for r in runs):>8.2f} "
              f"{max(r.peak_mb for r in runs):>8.0f}  {named}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
