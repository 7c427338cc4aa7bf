"""Worked examples: a rulebook's own tests, run with the dice they give, each `expect` a check
of what came out. `rulecraft test` and the pytest suite run them; a failure says the example's
line, what was expected, what came out and the trace."""

from __future__ import annotations

from typing import Any

import attrs

from .errors import RangeError, RulecraftError, Span
from .limits import DEFAULT_LIMITS, Limits
from .procedures import Procedure


@attrs.frozen
class Check:
    """One `expect` as it went: the line, what the example says, what came out."""

    line: int
    expected: str
    got: str
    passed: bool


@attrs.frozen
class Outcome:
    """An example played: every check, and the run's trace (or the error that stopped it)."""

    example: Example
    checks: tuple[Check, ...]
    trace: str
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(c.passed for c in self.checks)

    def report(self) -> str:
        """A failure as an author reads it: where, what was expected, what came out, the
        trace (empty when it passed)."""
        if self.passed:
            return ""
        where = f"{self.example.span}" if self.example.span else self.example.title
        lines = [f"{where}: example {self.example.title!r} failed"]
        if self.error is not None:
            lines.append(f"  it stopped with an error: {self.error}")
        for c in self.checks:
            if not c.passed:
                got = f"; got {c.got}" if c.got else "; it is not so"
                lines.append(f"  line {c.line}: expected {c.expected}{got}")
        lines += ["  trace:"] + [f"    {t}" for t in self.trace.splitlines()]
        return "\n".join(lines)


@attrs.frozen
class Example:
    """A worked example of a rulebook: its title, line, the dice as they fall, and the steps
    (a procedure of no parameters)."""

    title: str
    span: Span | None
    dice: tuple[int, ...]
    procedure: Procedure = attrs.field(repr=False)
    comments: tuple[str, ...] = ()
    about: tuple[str, ...] = ()  # the names its steps read, in order (a sheet: under the first rule)
    lines: tuple[str, ...] = ()  # its steps as written

    def run(self, limits: Limits = DEFAULT_LIMITS) -> Outcome:
        """Play the example with its dice; report each check (an example with no dice given
        rolls none: a roll it makes is an error that says so)."""
        try:
            result = self.procedure.run(dice=list(self.dice), limits=limits)
        except RulecraftError as err:
            return Outcome(self, (), "", str(err))
        checks = tuple(Check(e.span.line if e.span else 0, e.name, str(e.detail or ""),
                             bool(e.value))
                       for e in result.trace if e.kind == "expect")
        return Outcome(self, checks, result.explain())


def _combatant(models: dict[str, Any], model: str, values: dict[str, Any], span: Span) -> Any:
    """A combatant a rule writes out (`fighter(strength = 12, …)`): checked as a fighter file
    is, its problems pointing at the rule."""
    try:
        return models[model].build(**values)
    except RulecraftError as err:
        problems = getattr(err, "errors", [err])
        raise RangeError("; ".join(e.message for e in problems), span) from None


def run_all(examples: tuple[Any, ...], limits: Limits = DEFAULT_LIMITS) -> list[Outcome]:
    return [e.run(limits) for e in examples]
