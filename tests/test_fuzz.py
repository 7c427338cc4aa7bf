"""Fuzzing ("keep it true"): whatever a rule file holds, rulecraft compiles it or says where it
is wrong; whatever a compiled rulebook is asked, it answers or raises a rule error.

1. Mutated rulebooks: each shipped rulebook (or its start) after one to three mutations —
   lines and tokens deleted, doubled, swapped or corrupted, numbers and names changed,
   look-alike characters, random bytes, a byte-order mark, CRLF, tabs, long lines — compiles
   to a `Rulebook` or raises a `RulecraftError` whose every error has a line and a column >= 1
   (and renders); what compiles is played, and formatting the text gives text or a rule error.
   The same for the bytes of a file (invalid UTF-8, other encodings) given to `rulecraft.load`.
2. Generated programs: a grammar-directed generator writes well-formed rule files; each is
   compiled, then every formula is called with arguments from its declared ranges, every table
   read, every procedure run with seeded, scripted and enumerated dice (and its results
   explained and replayed), and expressions evaluated. Only rule errors, never another
   exception.

The short profile (the default) runs in the normal suite, derandomized. The long one runs
with `RULECRAFT_FUZZ=long` (random, 20,000 cases per property or RULECRAFT_FUZZ_EXAMPLES) and
prints a closing note: how many cases each property tried and what they came to. Neither has
a per-case deadline (issue 21, item 16: a deadline flaked on a loaded machine and "a long run
must not end on a slow case"): a call is capped in CPU seconds, not wall-clock ones, and in
the long run a call past its cap is kept (its case's text written to RULECRAFT_FUZZ_FINDINGS,
or a new temporary folder) and the run goes on. tests/test_fuzz_field.py fuzzes whole fights,
house files and fighter files. `tests/test_security.py` covers
rule text written to attack (names and texts that try to become Python); this file covers
damaged, unusual or merely unlucky files and calls.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections import Counter

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

import fuzz_strategies
import rulecraft
from rulecraft.runtime.errors import Span
from fuzz_strategies import (Finding, Slow, builtin_sources, compiled_or_positioned_error,
                             exercise, mutated_bytes, mutated_texts, programs,
                             programs_and_queries, rule_errors_only, time_limit)

LONG = os.environ.get("RULECRAFT_FUZZ") == "long"
# A case is a whole shipped rulebook a third of the time, and the rulebooks are long (Ringing
# Steel is ~3,900 lines): large inputs are the point, not a strategy to shrink.
_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
         HealthCheck.large_base_example]
settings.register_profile("rulecraft-fuzz-short", derandomize=True, database=None, deadline=None,
                          suppress_health_check=_SLOW)
settings.register_profile("rulecraft-fuzz-long", derandomize=False, database=None,
                          deadline=None, suppress_health_check=_SLOW)
PROFILE = settings.get_profile("rulecraft-fuzz-long" if LONG else "rulecraft-fuzz-short")
# A hard cap per call, in seconds of CPU: in the short profile only a runaway reaches it (a
# finding); in the long one a call past it is kept and the run goes on.
SECONDS = 10.0 if LONG else 60.0
if LONG:
    fuzz_strategies.SLOW = []


def examples(short: int, long: int = 20_000) -> settings:
    """Cases per property: `short` in the suite; `long` (or RULECRAFT_FUZZ_EXAMPLES) when long."""
    if LONG:
        return settings(PROFILE, max_examples=int(os.environ.get("RULECRAFT_FUZZ_EXAMPLES", long)))
    return settings(PROFILE, max_examples=short)


# What each property tried and what it came to, for the closing note of a long run, and the
# folder it keeps slow cases in.
NOTE: Counter[str] = Counter()
KEPT: list[str] = []


@pytest.fixture(scope="module", autouse=True)
def closing_note(request: pytest.FixtureRequest):
    yield
    if not LONG:
        return
    plugins = request.config.pluginmanager
    reporter, capture = plugins.getplugin("terminalreporter"), plugins.getplugin("capturemanager")
    lines = [f"  {key}: {count}" for key, count in sorted(NOTE.items())]
    lines += [f"  slow: {what}" for what in fuzz_strategies.SLOW or ()]
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():  # past pytest's capture of the output
            reporter.write_line("\n".join(["", "fuzz closing note (RULECRAFT_FUZZ=long):",
                                            *lines]))


def _tally(prop: str, result: object, text: str | bytes = "") -> None:
    NOTE[f"{prop}: cases"] += 1
    slow = fuzz_strategies.SLOW
    if slow is not None and len(slow) > NOTE["slow calls"]:  # this case ran out of time
        NOTE["slow calls"] = len(slow)
        slow[-1] += f" (case kept in {_keep(prop, text)})"
    what = "compiled" if isinstance(result, rulecraft.Rulebook) else type(result).__name__
    NOTE[f"{prop}: {what}"] += 1
    event(what)


def _keep(prop: str, text: str | bytes) -> str:
    """Write a slow case's text where the lead can replay it; its path."""
    if not KEPT:
        KEPT.append(os.environ.get("RULECRAFT_FUZZ_FINDINGS") or
                    tempfile.mkdtemp(prefix="rulecraft-fuzz-slow-"))
        os.makedirs(KEPT[0], exist_ok=True)
    folder = KEPT[0]
    path = os.path.join(folder, f"slow-{NOTE['slow calls']:03d}-{prop.replace(' ', '-')}.rules")
    with open(path, "wb") as handle:
        handle.write(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    return path


# ---- 1. mutated rulebooks -------------------------------------------------------------------


def also_format(data: st.DataObject) -> bool:
    """Whether to format this case too: always in the long profile, one case in four in the
    short one (formatting parses twice: it would cost more than the rest of the case)."""
    return LONG or data.draw(st.integers(0, 3), label="format too") == 0


def check_mutated(filename: str, text: str, data: st.DataObject, compile=rulecraft.compile,
                  format_rules=rulecraft.format_rules):
    """The property of one mutated text (the façade is replaceable, to test the test): it
    compiles or fails with a position; what compiles plays; formatting it is text or an error."""
    result = compiled_or_positioned_error(lambda: compile(text, filename=filename), SECONDS)
    if isinstance(result, rulecraft.Rulebook):
        exercise(result, data, SECONDS)
    if also_format(data):
        formatted = rule_errors_only(lambda: format_rules(text, filename), SECONDS)
        assert isinstance(formatted, (str, rulecraft.RulecraftError, Slow))
    return result


# A failing case is a whole rulebook: let Hypothesis print it, however long.
LONG_REPR = pytest.mark.filterwarnings("ignore:Generating overly large repr")


@LONG_REPR
@examples(short=8)
@given(case=mutated_texts(), data=st.data())
def test_mutated_rulebooks_compile_or_say_where_they_are_wrong(case, data):
    filename, text = case
    _tally("mutated texts", check_mutated(filename, text, data), text)


def load_bytes(raw: bytes):
    """`rulecraft.load` of a file holding `raw` (written to a temporary file)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "mutated.rules")
        with open(path, "wb") as handle:
            handle.write(raw)
        return rule_errors_only(lambda: rulecraft.load(path), SECONDS)


@LONG_REPR
@examples(short=20, long=5_000)
@given(raw=mutated_bytes())
def test_mutated_files_load_or_say_where_they_are_wrong(raw):
    result = load_bytes(raw)
    _tally("mutated files", result, raw)
    compiled_or_positioned_error(lambda: _reraise(result), SECONDS)


def _reraise(result):
    if isinstance(result, BaseException):
        raise result
    return result


# ---- 2. generated programs ------------------------------------------------------------------


def check_program(text: str, queries: list[str], data: st.DataObject):
    """Compile a generated program; in what compiles, run everything and evaluate the queries;
    rule errors only."""
    result = compiled_or_positioned_error(
        lambda: rulecraft.compile(text, filename="generated.rules"), SECONDS)
    if isinstance(result, rulecraft.Rulebook):
        NOTE["programs: calls"] += exercise(result, data, SECONDS)
        for query in queries:
            rule_errors_only(lambda: rulecraft.evaluate(result, query), SECONDS)
        if also_format(data):
            rule_errors_only(lambda: rulecraft.format_rules(text, "generated.rules"), SECONDS)
    return result


@LONG_REPR
@examples(short=60)
@given(case=programs_and_queries(), data=st.data())
def test_generated_programs_raise_only_rule_errors(case, data):
    text, queries = case
    _tally("programs", check_program(text, queries, data), text)


# What a compiled program's text shows it uses: a call, a loop, an `outcomes:` block.
CONSTRUCTS = {"calls": re.compile(r"^ +call \w+ = \w+\(", re.M),
              "loops": re.compile(r"^ +(for each \w+ in |repeat until )", re.M),
              "outcomes blocks": re.compile(r"^ +outcomes:$", re.M)}


def test_most_generated_programs_compile_and_use_every_construct():
    """The generator is useful only if what it writes compiles and runs: most programs must
    compile, and among them formulas, tables, a combatant, procedures, choices, calls, loops
    and `outcomes:` blocks must all occur."""
    seen: Counter[str] = Counter()

    # No shrinking: this counts what the generator writes (a crash is reported as it is).
    @settings(settings.get_profile("rulecraft-fuzz-short"), max_examples=40,
              phases=(Phase.explicit, Phase.generate))
    @given(text=programs())
    def collect(text):
        seen["programs"] += 1
        rb = compiled_or_positioned_error(lambda: rulecraft.compile(text, "generated.rules"))
        if not isinstance(rb, rulecraft.Rulebook):
            return
        seen["compiled"] += 1
        seen["formulas"] += bool(rb.formulas)
        seen["tables"] += bool(rb.tables)
        seen["combatants"] += rb.combatant_model is not None
        seen["procedures"] += bool(rb.procedures)
        seen["choices"] += any(p.choice_names for p in rb.procedures.values())
        for construct, pattern in CONSTRUCTS.items():
            seen[construct] += bool(pattern.search(text))

    collect()
    assert seen["compiled"] >= 0.7 * seen["programs"], seen
    for construct in ("formulas", "tables", "combatants", "procedures", "choices", *CONSTRUCTS):
        assert seen[construct] >= 3, (construct, seen)


# ---- the verdicts detect what they are there to detect ------------------------------------

SMALL = 'rulebook t "T"\nformula f(x: 1..3) = x * 2\n'


def _positioned() -> rulecraft.RulecraftError:
    return rulecraft.RuleSyntaxError("bad", Span("t.rules", 2, 5), SMALL)


def _raises(error):
    def action():
        raise error
    return action


@pytest.mark.parametrize("action, why", [
    (_raises(KeyError("x")), "KeyError"),
    (_raises(RecursionError("deep")), "RecursionError"),
    (_raises(rulecraft.RangeError("no position")), "without a position"),
    (_raises(rulecraft.RulecraftErrors([_positioned(), rulecraft.TableError("lost")])),
     "TableError without a position"),
    (lambda: "not a rulebook", "neither a Rulebook"),
])
def test_a_compile_verdict_rejects_crashes_and_errors_without_a_position(action, why):
    with pytest.raises(Finding, match=why):
        compiled_or_positioned_error(action)


def test_a_compile_verdict_accepts_a_rulebook_and_a_positioned_error():
    assert isinstance(compiled_or_positioned_error(lambda: rulecraft.compile(SMALL)),
                      rulecraft.Rulebook)
    several = rulecraft.RulecraftErrors([_positioned(), _positioned()])
    assert compiled_or_positioned_error(_raises(several)) is several


def test_a_run_verdict_accepts_rule_errors_only():
    unpositioned = rulecraft.RangeError("a call that does not fit")
    assert rule_errors_only(_raises(unpositioned)) is unpositioned
    assert rule_errors_only(lambda: 4) == 4
    with pytest.raises(Finding, match="TypeError"):
        rule_errors_only(_raises(TypeError("unsupported operand")))

    with pytest.raises(Finding, match="admits a bug"):
        rule_errors_only(_raises(rulecraft.RulecraftError("formatting would change it (a bug "
                                                          "in rulecraft's formatter)")))

    class Unprintable(rulecraft.RulecraftError):
        def __str__(self):
            raise IndexError("caret past the end")

    with pytest.raises(Finding, match="str\\(\\) of Unprintable raised IndexError"):
        rule_errors_only(_raises(Unprintable("x")))


def forever():
    while True:
        pass


def test_a_case_that_runs_too_long_is_a_finding(monkeypatch):
    monkeypatch.setattr(fuzz_strategies, "SLOW", None)  # as in the short profile
    with pytest.raises(Finding, match="took more than 0.2 s of CPU"):
        rule_errors_only(forever, seconds=0.2)
    with time_limit(5):
        assert sum(range(10)) == 45  # no alarm left behind when the body finishes in time


def test_no_fuzz_profile_has_a_per_case_deadline():
    """Item 16: "A fuzz property's per-case deadline flakes on a loaded 2-core machine and
    stops a long run early": neither profile has one (the long one had 5 s)."""
    for name in ("rulecraft-fuzz-short", "rulecraft-fuzz-long"):
        assert settings.get_profile(name).deadline is None, name


def test_a_slow_call_in_a_long_run_is_kept_and_the_run_goes_on(monkeypatch):
    """Item 16: "a long run must not end on a slow case". In the long profile a call past
    its cap is kept and answers `Slow` (no Finding ends the run); the cap counts CPU time, so
    waiting on a loaded machine is not slowness."""
    monkeypatch.setattr(fuzz_strategies, "SLOW", [])
    assert isinstance(rule_errors_only(forever, seconds=0.2), Slow)
    assert isinstance(compiled_or_positioned_error(forever, seconds=0.2), Slow)
    assert len(fuzz_strategies.SLOW) == 2 and "of CPU" in fuzz_strategies.SLOW[0]
    assert rule_errors_only(lambda: time.sleep(0.4) or 4, seconds=0.2) == 4


def findings_of(prop) -> list[Finding]:
    """Run a property over the short profile's examples (no shrinking) and keep its Findings."""
    found: list[Finding] = []

    @settings(settings.get_profile("rulecraft-fuzz-short"), max_examples=60,
              phases=(Phase.explicit, Phase.generate))
    @given(data=st.data())
    def run(data):
        try:
            prop(data)
        except Finding as finding:
            found.append(finding)

    run()
    return found


def test_the_mutation_property_finds_a_compiler_that_crashes():
    """A compile that fails on tabs with an IndexError must be caught by the property (so the
    mutations do produce tabs, and the verdict does reject a crash)."""
    small = rulecraft.compile(SMALL)

    def fragile(text, filename):
        if "\t" in text:
            raise IndexError("tab")
        return small

    def prop(data):
        filename, text = data.draw(mutated_texts())
        check_mutated(filename, text, data, compile=fragile, format_rules=lambda *_: "")

    assert any("IndexError" in str(f) for f in findings_of(prop))


def test_the_program_property_finds_a_formula_that_crashes():
    """`exercise` calls every formula: one that raises a Python error is a finding."""
    class Broken:
        params = ()

        def __call__(self):
            return None + 1

    class Book:
        formulas = {"broken": Broken()}
        tables: dict = {}
        procedures: dict = {}

    found = findings_of(lambda data: exercise(Book(), data))
    assert found and all("TypeError" in str(f) for f in found)


def test_the_unmutated_rulebooks_compile():
    for name, text in builtin_sources():
        assert isinstance(compiled_or_positioned_error(
            lambda: rulecraft.compile(text, filename=f"{name}.rules")), rulecraft.Rulebook)
