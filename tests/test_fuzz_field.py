"""Fuzzing whole fights: whatever a folder of rule and fighter files holds, the façade and the
`rulecraft` commands answer it or say what is wrong — never a crash, a traceback, a control
character on the terminal, a file from outside the folder, or a case that runs away.

Each case (tests/fuzz_field.py, tests/fuzz_cases.py) is a folder: a rule file with
encounters, policies and quick-reference tables, or a house file and the base it `extends`,
and two fighter files, well-formed or hostile, sometimes mutated; the short profile leaves out
inputs that reach items of issue 21 still open (fuzz_field.KNOWN_OPEN), the long one keeps
them. It is played in a child process (tests/fuzz_play.py)
through the façade (load, fight, run, odds, references, sheet, format, diff) and the commands
(check, fmt, show, run, odds, fight, sheet, diff, eval), each with small `Limits`: a work
budget per case, not a deadline (issue 21, item 16: "a long run must not end on a slow case").
No Hypothesis deadline; the child's CPU budget only catches a path that skips the limits.

The short profile (the default) runs in the suite, derandomized: a finding fails it. The long
one, `RULECRAFT_FUZZ=long` (random; 20,000 cases or RULECRAFT_FUZZ_EXAMPLES), never stops on a
finding: it keeps each kind of finding's first case in a folder (RULECRAFT_FUZZ_FINDINGS, or a
new temporary one), replayable with `python tests/test_fuzz_field.py replay FOLDER`, and ends
with a closing note — cases tried, what they came to, the findings — also written to
`summary.json` there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
import tempfile
from collections import Counter
from typing import Any

import click
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

import fuzz_strategies as fs
import rulecraft
from fuzz_cases import SECRET, Case, field_cases, fighter_files, house_files
from fuzz_field import LONG, field_program
from fuzz_play import CPU_SECONDS, Judge, Played, isolated, played

CASES = int(os.environ.get("RULECRAFT_FUZZ_EXAMPLES", 0)) or (20_000 if LONG else 30)
_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
# No deadline in either profile (item 16); a long run does not shrink what it records.
FIELD = settings(derandomize=not LONG, database=None, deadline=None, max_examples=CASES,
                 suppress_health_check=_SLOW, print_blob=LONG)


class Tally:
    """What a long run tried and found: counts, and each kind of finding's first case."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.kinds: dict[str, dict[str, Any]] = {}
        self.folder = ""

    def keep(self, case: Case, result: Played, folder: str) -> None:
        self.counts["cases"] += 1
        self.counts.update(result.counts)
        self.counts["cases with findings"] += bool(result.findings)
        self.counts["max CPU seconds of a case"] = max(
            self.counts["max CPU seconds of a case"], round(result.cpu_seconds, 1))
        self.counts["max MB a case added"] = max(self.counts["max MB a case added"],
                                                  round(result.peak_mb))
        for where, what in result.findings:
            kind = signature(where, what)
            if kind in self.kinds:
                self.kinds[kind]["count"] += 1
                self.kinds[kind]["where"] = sorted({*self.kinds[kind]["where"], where})
                continue
            saved = self._save(case, folder, where, what)
            self.kinds[kind] = {"count": 1, "where": [where], "what": what[:2000],
                                "case": saved}
        if result.findings or self.counts["cases"] % 25 == 0:
            self.write()  # as it goes: a run stopped early still says what it found

    def write(self) -> None:
        with open(os.path.join(self.where(), "summary.json"), "w") as handle:
            json.dump({"counts": self.counts, "findings": self.kinds}, handle, indent=2,
                      ensure_ascii=False)

    def where(self) -> str:
        """The folder this run keeps its findings and summary in."""
        if not self.folder:
            self.folder = os.environ.get("RULECRAFT_FUZZ_FINDINGS") or tempfile.mkdtemp(
                prefix="rulecraft-fuzz-findings-")
            os.makedirs(self.folder, exist_ok=True)
        return self.folder

    def _save(self, case: Case, folder: str, where: str, what: str) -> str:
        saved = os.path.join(self.where(), f"{len(self.kinds) + 1:03d}")
        shutil.copytree(folder, saved, symlinks=True, dirs_exist_ok=True)
        with open(os.path.join(saved, "case.json"), "w") as handle:
            json.dump({"main": case.main, "base": case.base, "fighters": case.fighters,
                       "seed": case.seed, "actions": sorted(case.actions),
                       "where": where, "what": what}, handle, indent=2, ensure_ascii=False)
        return saved

    def note(self) -> list[str]:
        lines = [f"  {key}: {count}" for key, count in sorted(self.counts.items())]
        lines.append(f"  findings: {sum(k['count'] for k in self.kinds.values())} in "
                     f"{len(self.kinds)} kinds, kept in {self.where()}")
        for kind in self.kinds.values():
            first = kind["what"].splitlines()[0][:300]
            lines.append(f"    {kind['count']} x {', '.join(kind['where'])}: {first} "
                         f"({kind['case']})")
        return lines


TALLY = Tally()


def signature(where: str, what: str) -> str:
    """What tells one kind of finding from another: the message with its numbers, names and
    quoted text left out, and the call it came from (a command's name is left out: one defect
    shows in every command that loads the file)."""
    first = what.split("\n", 1)[0]
    first = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "…", first)
    first = re.sub(r"\b[\w.]*\d[\w.]*\b", "N", first)
    return f"{'cli' if where.startswith('cli ') else where}: {first[:160]}"


@pytest.fixture(scope="module", autouse=True)
def closing_note(request: pytest.FixtureRequest):
    yield
    if not LONG:
        return
    lines = ["", "fuzz closing note, whole fights (RULECRAFT_FUZZ=long):", *TALLY.note()]
    TALLY.write()
    plugins = request.config.pluginmanager
    reporter, capture = plugins.getplugin("terminalreporter"), plugins.getplugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():  # past pytest's capture of the output
            reporter.write_line("\n".join(lines))


@pytest.fixture(scope="module", autouse=True)
def warm():
    """Build the parser once, before the children are forked, so that each does not start
    cold."""
    rulecraft.compile('rulebook warm\nformula f() = 1\n', "warm.rules")


# ---- the property -------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Generating overly large repr")
@FIELD
@given(case=field_cases(every_action=LONG))
def test_whole_fights_raise_only_rule_errors(case):
    with tempfile.TemporaryDirectory() as folder:
        result = played(case, folder)
        if LONG:
            TALLY.keep(case, result, folder)
            return
    if result.findings:
        raise fs.Finding("\n".join(f"{where}: {what}" for where, what in result.findings))


def test_the_generator_writes_fights_that_compile():
    """The fuzzer is useful only if what it writes compiles and plays: most rule files must
    compile, with encounters of both loops, `every` ticks, policies and references among
    them, and most house files must compile over their base."""
    seen: Counter[str] = Counter()

    @seed(1)  # the same programs wherever the suite runs (derandomize alone differed in CI)
    @settings(FIELD, max_examples=30, phases=(Phase.explicit, Phase.generate))
    @given(data=st.data())
    def collect(data):
        text, declared = field_program(data.draw)
        rb = fs.compiled_or_positioned_error(lambda: rulecraft.compile(text, "g.rules"))
        seen["files"] += 1
        if isinstance(rb, rulecraft.Rulebook):
            seen["compiled"] += 1
            seen["encounters"] += any(p.clock for p in rb.procedures.values())
            seen["rounds"] += "each round:" in text
            seen["turns"] += bool(re.search(r"^  turn \w+:", text, re.M))
            seen["every"] += "  every " in text
            seen["policies"] += "\npolicy " in text
            seen["references"] += bool(rb.references)
            seen["fighters read"] += _reads(rb, data.draw(fighter_files(declared, text)))
        base, house, _ = data.draw(house_files())
        seen["houses"] += 1
        seen["houses compiled"] += _compiles_over(base, house)

    collect()
    # Many programs are hostile on purpose (a tick every 0 counts, a unit the clock lacks): about
    # 60% compile and 40% of house files over a large sample; a sample of 30 varies around it.
    assert seen["compiled"] >= 0.45 * seen["files"], seen
    assert seen["houses compiled"] >= 0.15 * seen["houses"], seen
    for what in ("encounters", "rounds", "turns", "every", "policies", "references",
                 "fighters read"):
        assert seen[what] >= 3, (what, seen)


def _reads(rb: rulecraft.Rulebook, text: str | bytes) -> bool:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "f.toml")
        with open(path, "wb") as handle:
            handle.write(text if isinstance(text, bytes) else text.encode("utf-8", "replace"))
        try:
            rulecraft.read_fighter(rb, path)
        except rulecraft.RulecraftError:
            return False
    return True


def _compiles_over(base: str, house: str) -> bool:
    with tempfile.TemporaryDirectory() as folder:
        for name, text in (("base.rules", base), ("house.rules", house)):
            with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
                handle.write(text)
        try:
            rulecraft.load(os.path.join(folder, "house.rules"))
        except rulecraft.RulecraftError:
            return False
    return True


# ---- the verdicts detect what they are there to detect ------------------------------------


def test_a_slow_case_is_a_finding_that_does_not_end_a_long_run():
    """Item 16: "a long run must not end on a slow case". A case past its CPU budget is ended
    and reported (CPU time: a loaded machine does not make a case slow), and a long run keeps
    it and goes on."""
    def forever():
        while True:
            pass

    _, problems, cpu, _ = isolated(forever, cpu_seconds=1)
    assert problems == ["took more than 1 s of CPU (SIGXCPU)"] and cpu > 0.5
    tally, case = Tally(), Case((), "r.rules", None, (), 0, frozenset())
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as kept:
        os.environ["RULECRAFT_FUZZ_FINDINGS"], before = kept, os.environ.get(
            "RULECRAFT_FUZZ_FINDINGS")
        try:
            for _ in range(2):
                tally.keep(case, Played((("case", problems[0]),), {}, cpu, 0.0), folder)
        finally:
            os.environ.pop("RULECRAFT_FUZZ_FINDINGS")
            if before is not None:
                os.environ["RULECRAFT_FUZZ_FINDINGS"] = before
        assert tally.counts["cases"] == 2 and len(tally.kinds) == 1
        assert os.path.isfile(os.path.join(kept, "001", "case.json"))
    assert CPU_SECONDS >= 30  # a budget for runaways, far past what a case with SMALL takes


def test_a_case_past_the_memory_bound_or_a_crash_of_the_child_is_a_finding():
    _, problems, _, peak = isolated(lambda: len(b"x" * (300 << 20)), memory_bound=200)
    assert peak > 250 and problems == [f"took {peak:.0f} MB of memory (bound: 200 MB)"]
    result, problems, _, peak = isolated(lambda: 4)
    assert (result, problems) == (4, []) and peak < 50
    _, problems, _, _ = isolated(lambda: os.kill(os.getpid(), signal.SIGTERM))
    assert problems and problems[0].startswith("ended by SIGTERM")
    _, problems, _, _ = isolated(lambda: {}["missing"])
    assert len(problems) == 1 and problems[0].startswith("KeyError at test_fuzz_field.py")


@click.command()
@click.argument("what")
def fake(what: str) -> None:
    """A command that does what it is told: how a crash of `rulecraft` would look."""
    if what == "crash":
        raise KeyError("x")
    if what == "exit3":
        sys.exit(3)
    click.echo({"traceback": "Traceback (most recent call last):\n  File", "repr":
                "[<class 'decimal.InvalidOperation'>]", "escape": "\x1b[2Jred",
                "secret": f"t.rules:1:1: {SECRET}", "bug": "rulecraft: internal error: x",
                "fine": "ok: 3 → 4"}[what])


@pytest.mark.parametrize("what, found", [
    ("crash", "raised (exit 3): KeyError"), ("exit3", "exited 3"),
    ("traceback", "a traceback"), ("repr", "a Python repr"), ("escape", "control character"),
    ("secret", "a file outside its folder"), ("bug", "an internal error"), ("fine", None)])
def test_a_command_s_verdict_finds_crashes_and_unsafe_output(what, found):
    judge = Judge(controls=True)
    judge.command([what], command=fake, limits=())
    assert [f for _, f in judge.findings if found and found in f] or (
        found is None and not judge.findings), judge.findings


def test_a_call_s_verdict_finds_exceptions_and_python_reprs():
    judge = Judge()
    assert judge.call("api x", lambda: 4) == 4
    assert judge.call("api x", lambda: 1 / 0) is None
    assert judge.call("api x", lambda: _raise(rulecraft.RangeError("[<class 'x'>]"))) is None
    assert judge.call("api x", lambda: _raise(rulecraft.RangeError("fine"))) is None
    assert [what.split(" at ")[0] for _, what in judge.findings] == [
        "ZeroDivisionError", "a Python repr in a message: [<class 'x'>]"]


def _raise(error: BaseException) -> None:
    raise error


# ---- replaying a kept case --------------------------------------------------------------------


def replay(saved: str) -> Played:
    """Play again a case a long run kept (its folder's `case` and `case.json`)."""
    with open(os.path.join(saved, "case.json")) as handle:
        kept = json.load(handle)
    inside = os.path.join(saved, "case")
    files = []
    for name in sorted(os.listdir(inside)):
        path = os.path.join(inside, name)
        if os.path.isfile(path) and not os.path.islink(path):
            with open(path, "rb") as handle:
                raw = handle.read()
            try:
                files.append((name, raw.decode("utf-8")))
            except UnicodeDecodeError:
                files.append((name, raw))
    case = Case(tuple(files), kept["main"], kept["base"], tuple(kept["fighters"]), kept["seed"],
                frozenset(kept["actions"]))
    with tempfile.TemporaryDirectory() as folder:
        return played(case, folder)


if __name__ == "__main__":  # python tests/test_fuzz_field.py replay FOLDER
    os.environ.setdefault("RULECRAFT_CACHE", tempfile.mkdtemp(prefix="rulecraft-replay-"))
    for where, what in replay(sys.argv[2]).findings:
        print(f"{where}: {what}")
