"""Errors a rule file or a use of a rulebook can cause, each pointing at the rule text."""

from __future__ import annotations

import decimal
from typing import Any

import attrs


@attrs.frozen
class Span:
    """Where a piece of rule text sits: file, 1-based line and column, and offsets for slicing."""

    filename: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0
    start: int = 0
    end: int = 0

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}"


class Sources(str):
    """A house rulebook's own text, which it is as a string, plus the texts of the files it
    extends by file name: an error in a rule it took from its base shows the base's line."""

    files: dict[str, str]

    def __new__(cls, text: str, files: dict[str, str]) -> Sources:
        made = super().__new__(cls, text)
        made.files = dict(files)
        return made

    def of(self, filename: str) -> str:
        return self.files.get(filename, str(self))

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (to a worker process) with its files
        return Sources, (str(self), self.files)


def text_of(source: str | None, filename: str) -> str | None:
    """The text of the file `filename` names, from a rulebook's source."""
    return source.of(filename) if isinstance(source, Sources) else source


class RulecraftError(Exception):
    """Base of every error rulecraft reports; renders as `file:line:col: message` plus a caret."""

    kind = "error"

    def __init__(self, message: str, span: Span | None = None, source: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.source = source

    @property
    def filename(self) -> str | None:
        return self.span.filename if self.span else None

    @property
    def line(self) -> int | None:
        return self.span.line if self.span else None

    @property
    def column(self) -> int | None:
        return self.span.column if self.span else None

    def __str__(self) -> str:
        if self.span is None:
            return self.message
        head = f"{self.span}: {self.message}"
        text = source_line(text_of(self.source, self.span.filename), self.span.line)
        if text is None:
            return head
        width = 1
        if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
            width = self.span.end_column - self.span.column
        width = max(1, min(width, len(text) - self.span.column + 1))
        caret = " " * (self.span.column - 1) + "^" * width
        return f"{head}\n    {text}\n    {caret}"


# The lines of the last source asked for: a file with thousands of errors shows a line of the
# same text for each, and splitting it once per error made `check` grow with the square.
_split: tuple[str | None, list[str]] = (None, [])


def source_line(source: str | None, line: int) -> str | None:
    """The text of a 1-based line, tabs kept as one column each, or None when out of range."""
    global _split
    if source is None:
        return None
    if _split[0] is not source:
        _split = (source, source.splitlines())
    lines = _split[1]
    if 1 <= line <= len(lines):
        return lines[line - 1].replace("\t", " ")
    return None


class RuleSyntaxError(RulecraftError):
    """The rule file does not follow the language's grammar."""


class UnknownNameError(RulecraftError):
    """A name that nothing in the rulebook defines."""


class RuleTypeError(RulecraftError):
    """A value of the wrong kind: a name where a number is needed, a missing field, ..."""


class TableError(RulecraftError):
    """A table's shape, keys or cells are wrong: ragged rows, duplicates, gaps, overlaps."""


class CycleError(RulecraftError):
    """Formulas or derived figures that depend on themselves."""


class RangeError(RulecraftError):
    """A value outside its declared range, or a key a table does not have."""

    axis = 0  # for a table key: how many keys before it resolved (to pick the better report)


class CalculationError(RulecraftError):
    """A calculation with no answer: a division by zero, the logarithm of zero or less, ..."""


class NoAnswer(ValueError):
    """A calculation with no answer, raised in the rules' words: its message is shown as it is
    (`ln(0): the logarithm needs a number above zero`)."""


# What a calculation with no answer raises inside generated code (Decimal's signals included).
ARITHMETIC = (ArithmeticError, ValueError, RecursionError)


def calculation_message(err: Exception) -> str:
    """A Python arithmetic error in the words of the rules: never Python's own text, which names
    its classes ("[<class 'decimal.InvalidOperation'>]") and means nothing to a referee."""
    if isinstance(err, NoAnswer):
        return str(err)
    if isinstance(err, ZeroDivisionError):  # Decimal's DivisionByZero and 0/0 too
        return "a division by zero"
    if isinstance(err, RecursionError):
        return "formulas that call each other more deeply than Python allows"
    if isinstance(err, (OverflowError, decimal.Overflow)):
        return "a number too large to work with"
    return "a calculation with no answer (a number too large, or too small, to work with)"


class DiceError(RulecraftError):
    """A dice expression that cannot be rolled, or scripted dice that ran out or do not fit."""


class UnknownEntryError(UnknownNameError, KeyError):
    """A table, formula or procedure a rulebook does not have (also a KeyError, as for a dict)."""

    def __str__(self) -> str:
        return RulecraftError.__str__(self)


class UnknownRulebookError(RulecraftError):
    """`load` was given a name that is neither a built-in rulebook nor a readable file."""


class RulecraftErrors(RulecraftError):
    """Every error found in one file, reported together so an author fixes them in one go."""

    # How many are printed: past a screenful, more of them help nobody (a pasted block repeated
    # a thousand times is one mistake), and printing 30,000 took longer than finding them.
    shown = 100

    def __init__(self, errors: list[RulecraftError]) -> None:
        first = errors[0]
        super().__init__(first.message, first.span, first.source)
        self.errors = errors

    def __str__(self) -> str:
        body = "\n".join(str(e) for e in self.errors[: self.shown])
        rest = len(self.errors) - self.shown
        if rest > 0:
            body += f"\n... and {rest:,} more errors, not shown ({len(self.errors):,} errors)"
        elif len(self.errors) > 1:
            body += f"\n{len(self.errors)} errors"
        return body


class RangeErrors(RulecraftErrors, RangeError):
    """Several values out of range found together (every problem of one combatant): caught as
    a RangeError like one, and listing them all."""

