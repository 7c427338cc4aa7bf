"""Compile at scale (issue 19): compiling N lines of formulas against Lark's plain parse of the
same text, in time and in memory, and `rulecraft check` of a 1 MB file of one formula repeated.

Run: `python benchmarks/bench_compile.py` (5,000 / 10,000 / 20,000 lines), `--lines N` for one
size (more than ~20,000 only on a quiet machine: 100,000 lines take gigabytes), `--quick` for a
brief run (tests/test_bench_compile.py keeps it working), `--repeats R`, `--strict` (exit 1 when
a target is missed).

Each measurement runs in a new process (the disk cache off: `RULECRAFT_CACHE=off`), so that one
row's garbage and memory peak do not reach the next; engine and baseline alternate, repeat after
repeat, and the row prints the median of each and the median of the per-repeat ratios.

- Engine: `rulecraft.compile(text)` — parse, check, compile to Python, a playable Rulebook.
- Baseline: `lark.Lark(grammar, parser="lalr", ...).parse(text)` with the engine's own grammar
  file and options (the indenter, positions kept on the tree, placeholders): Lark's plain parse,
  the tree and nothing after it. Both sides build (or load) the parser before the clock starts.
- Time: the call alone, in CPU seconds (the wall-time ratio is printed too: on a shared
  machine the other processes' share lands on either side). Memory: the process's peak resident size (`ru_maxrss`) during the call
  less its resident size just before (`peak`), and what is still resident after, the result
  kept (`held`). Per line: divided by the number of lines.
- The slope: time and memory per line between the smallest and the largest size (linear work
  keeps it flat).
- `check` of the duplicate file: the whole `rulecraft check FILE` command in a new process
  (start-up included), as the first check of that file: the parser's tables already in the
  disk cache (a new cache folder each repeat, filled by a check of a small file), the file's
  tree not; wall and CPU seconds. Every definition after the first is an error, the list capped at 100
  with the count of the rest. Target: under 5 s.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import script_options

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GRAMMAR = ROOT / "dsl" / "grammar.lark"

TIME_TARGET = 2.5  # × Lark's parse, time and memory (issue 19)
CHECK_TARGET = 5.0  # seconds, `check` of the 1 MB duplicate file
DUPLICATE_LINE = 'formula f (x: 1..20) "F" = x * 2 + 1\n'


def formula_lines(lines: int) -> str:
    """A rulebook of `lines` formulas, each its own name: `formula f123 (x: 1..20) "F" = …`."""
    out = ['rulebook big "Big"\n']
    out.extend(f'formula f{i} (x: 1..20) "F" = x * 2 + {i}\n' for i in range(lines - 1))
    return "".join(out)


def duplicate_file(size: int = 1_000_000) -> str:
    """A rulebook of one formula repeated up to `size` bytes: every copy after the first is a
    duplicate definition."""
    head = 'rulebook dup "Dup"\n'
    return head + DUPLICATE_LINE * ((size - len(head)) // len(DUPLICATE_LINE))


# -- one measurement, in a child process ---------------------------------------------------------
def _resident() -> int:
    """Bytes resident now (Linux /proc; the peak so far elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return _peak()


def _peak() -> int:
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kib if sys.platform == "darwin" else kib * 1024


def lark_parser() -> Any:
    """Lark's parser for the engine's grammar, made as the engine makes it (dsl/parser.py)."""
    import lark

    from rulecraft.dsl.parser import _OPTIONS, RuleIndenter

    return lark.Lark(GRAMMAR.read_text(encoding="utf-8"), postlex=RuleIndenter(), **_OPTIONS)


def _limits(text: str) -> Any:
    from rulecraft.runtime.limits import Limits

    return Limits(source_bytes=max(len(text.encode()) + 1, 1_000_000))


def _child(side: str, path: str) -> None:
    """Time one compile (or parse) of the file at `path` and print what it cost, as JSON."""
    text = Path(path).read_text(encoding="utf-8")
    if side == "engine":
        import rulecraft

        limits = _limits(text)
        rulecraft.compile('rulebook warm "Warm"\nformula w (x: 1..2) = x\n', "warm.rules")
        work = lambda: rulecraft.compile(text, "big.rules", limits)  # noqa: E731
    else:
        parser = lark_parser()
        parser.parse('rulebook warm "Warm"\n', start="start")
        work = lambda: parser.parse(text, start="start")  # noqa: E731
    gc.collect()
    before = _resident()
    start, cpu = time.perf_counter(), time.process_time()
    result = work()
    cpu, seconds = time.process_time() - cpu, time.perf_counter() - start
    peak = _peak()
    gc.collect()
    held = _resident()
    print(json.dumps(dict(seconds=seconds, cpu=cpu, peak=peak - before, held=held - before,
                          made=type(result).__name__)))


def measure(side: str, path: str) -> dict[str, Any]:
    """One child's measurement of `side` ("engine" or "lark") on the file at `path`."""
    env = dict(os.environ, RULECRAFT_CACHE="off")
    done = subprocess.run([sys.executable, __file__, "--child", side, path], env=env,
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"{side} on {path} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_command(path: str, cache: str) -> tuple[float, float, str]:
    """`rulecraft check FILE` in a new process, as a user runs it the first time on this file:
    the parser's tables in the disk cache (`cache`, a new folder, filled by a check of a small
    file first), the file itself not. Wall and CPU seconds, and what it printed on stderr."""
    env = dict(os.environ, RULECRAFT_CACHE=cache)
    command = [sys.executable, "-c", "from rulecraft.cli import cli; cli()", "check"]
    with tempfile.TemporaryDirectory() as other:  # a cache beside a rule file is not trusted
        small = os.path.join(other, "small.rules")
        Path(small).write_text('rulebook small "Small"\n', encoding="utf-8")
        subprocess.run([*command, small], env=env, capture_output=True, cwd=ROOT, check=True)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*command, path], env=env, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime
    return seconds, cpu, done.stderr


# -- the rows ------------------------------------------------------------------------------------
def compile_rows(sizes: list[int], repeats: int, folder: str) -> list[dict[str, Any]]:
    """For each size: engine and Lark alternately, `repeats` times; medians and ratios."""
    paths = {}
    for n in sizes:
        paths[n] = os.path.join(folder, f"formulas_{n}.rules")
        Path(paths[n]).write_text(formula_lines(n), encoding="utf-8")
    runs: dict[int, list[tuple[dict[str, Any], dict[str, Any]]]] = {n: [] for n in sizes}
    for r in range(repeats):
        for n in sizes:
            if r % 2:
                lark_side = measure("lark", paths[n])
                engine = measure("engine", paths[n])
            else:
                engine = measure("engine", paths[n])
                lark_side = measure("lark", paths[n])
            runs[n].append((engine, lark_side))
    rows = []
    for n in sizes:
        pairs = runs[n]
        med = lambda side, key: statistics.median(p[side][key] for p in pairs)  # noqa: E731
        ratio = lambda key: statistics.median(  # noqa: E731
            p[0][key] / max(p[1][key], 1) for p in pairs)
        rows.append(dict(lines=n, engine_s=med(0, "cpu"), lark_s=med(1, "cpu"),
                         time_ratio=statistics.median(p[0]["cpu"] / p[1]["cpu"] for p in pairs),
                         wall_ratio=statistics.median(p[0]["seconds"] / p[1]["seconds"]
                                                      for p in pairs),
                         engine_peak=med(0, "peak"), lark_peak=med(1, "peak"),
                         peak_ratio=ratio("peak"), engine_held=med(0, "held"),
                         lark_held=med(1, "held")))
    return rows


def slope(rows: list[dict[str, Any]], key: str) -> float:
    """Per line, between the smallest and the largest size."""
    a, b = rows[0], rows[-1]
    return (b[key] - a[key]) / (b["lines"] - a["lines"]) if b["lines"] != a["lines"] else \
        a[key] / a["lines"]


def _mib(n: float) -> str:
    return f"{n / 2**20:8.1f} MiB"


def arguments() -> argparse.ArgumentParser:
    """The options (`--help` prints them and runs nothing)."""
    parser = script_options.parser("bench_compile.py", __doc__)
    parser.add_argument("--quick", action="store_true", help="a brief run (200, 400 lines)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--lines", type=int, metavar="N", help="one size of N lines")
    parser.add_argument("--repeats", type=int, metavar="R", help="interleaved repeats")
    return parser


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        _child(argv[1], argv[2])
        return 0
    options = arguments().parse_args(argv)
    quick, strict = options.quick, options.strict
    sizes = [200, 400] if quick else [5_000, 10_000, 20_000]
    if options.lines is not None:
        sizes = [options.lines]
    repeats = options.repeats if options.repeats is not None else (1 if quick else 3)
    missed = []
    with tempfile.TemporaryDirectory() as folder:
        rows = compile_rows(sizes, repeats, folder)
        print(f"compile N formula lines: the engine (rulecraft.compile) against Lark's plain parse,"
              f" medians of {repeats} interleaved repeats, each in a new process")
        print("time is CPU time (the machine may be shared; the wall-time ratio is beside it)")
        print(f"{'lines':>7} {'engine':>9} {'lark':>9} {'ratio':>6} {'wall':>6}   "
              f"{'engine peak':>12} {'lark peak':>12} {'ratio':>6}   {'engine held':>12} "
              f"{'lark held':>12}")
        for row in rows:
            print(f"{row['lines']:>7} {row['engine_s']:8.2f}s {row['lark_s']:8.2f}s "
                  f"{row['time_ratio']:5.2f}× {row['wall_ratio']:5.2f}×   "
                  f"{_mib(row['engine_peak'])} "
                  f"{_mib(row['lark_peak'])} {row['peak_ratio']:5.2f}×   "
                  f"{_mib(row['engine_held'])} {_mib(row['lark_held'])}")
            if not quick and (row["time_ratio"] > TIME_TARGET or row["peak_ratio"] > TIME_TARGET):
                missed.append(f"{row['lines']} lines: over {TIME_TARGET}×")
        print(f"slope per line: engine {slope(rows, 'engine_s') * 1e6:.0f} µs, "
              f"{slope(rows, 'engine_peak') / 1024:.1f} KiB peak, "
              f"{slope(rows, 'engine_held') / 1024:.1f} KiB held; "
              f"lark {slope(rows, 'lark_s') * 1e6:.0f} µs, "
              f"{slope(rows, 'lark_peak') / 1024:.1f} KiB peak, "
              f"{slope(rows, 'lark_held') / 1024:.1f} KiB held")
        size = 20_000 if quick else 1_000_000
        path = os.path.join(folder, "duplicates.rules")
        Path(path).write_text(duplicate_file(size), encoding="utf-8")
        times, cpus = [], []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as cache:  # not inside the rule file's folder
                seconds, cpu, said = check_command(path, cache)
            times.append(seconds)
            cpus.append(cpu)
        last = said.strip().splitlines()[-1] if said.strip() else ""
        took = statistics.median(times)
        print(f"check of a {size / 1e6:g} MB file of one formula repeated: {took:.2f} s "
              f"(CPU {statistics.median(cpus):.2f} s; target under {CHECK_TARGET:g} s); "
              f"it ends: {last}")
        if not quick and took > CHECK_TARGET:
            missed.append(f"check of the duplicate file: {took:.1f} s")
    for line in missed:
        print("missed:", line)
    return 1 if strict and missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
