"""Table keys as printed: what kind each key is, and what each printed key cell matches."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import Span, TableError
from rulecraft.runtime.limits import Limits
from rulecraft.runtime.tables import CellExpression, DynamicBand, IntRange

from . import cells
from .scope import Scope
from .several import several_members, strays
from .types import Domain

# Compiles one bound of a band (`skill_sum`, `rider + horse`): its text and where it sits.
Bound = Callable[[str, Span], CellExpression | None]

# Bands whose bounds may be expressions of given names. A range takes a dash (– or —) or `to`:
# a hyphen there subtracts (`1 – skill_sum - 1`).
_DYNAMIC_RANGE = re.compile(r"^(?P<low>.+?)\s*(?:[–—]|\sto\s)\s*(?P<high>.+)$")
_DYNAMIC_OPEN = (
    (re.compile(r"^>=\s*(?P<b>.+)$"), "low", True),
    (re.compile(r"^(?:>|above\s|over\s|more than\s)\s*(?P<b>.+)$"), "low", False),
    (re.compile(r"^<=\s*(?P<b>.+)$"), "high", True),
    (re.compile(r"^(?:<|below\s|under\s|less than\s)\s*(?P<b>.+)$"), "high", False),
    (re.compile(r"^(?P<b>.+?)\s+(?:and up|or more|and over)$"), "low", True),
    (re.compile(r"^(?P<b>.+?)\s+(?:and down|or less|and under)$"), "high", True),
)
_WHOLE = re.compile(r"^(?P<b>.+)$")


@attrs.define
class KeyKind:
    """What one key of a table is: names (an enum's or the rows' own), or numbers."""

    kind: str  # "enum", "names", "integer", "number"
    domain: Domain | None = None
    low: Any = None
    high: Any = None
    members: frozenset[str] = frozenset()  # an enum's names, for one hash lookup per cell


class KeyReader:
    """Reads the keys of one table; every problem found is added to the scope's errors."""

    def __init__(self, scope: Scope, decl: s.TableDecl, bound: Bound) -> None:
        self.scope = scope
        self.decl = decl
        self.bound = bound

    def error(self, message: str, span: Span | None) -> None:
        self.scope.error(TableError, message, span)

    def kind(self, spec: s.KeySpec, free_names: bool) -> KeyKind:
        """The key's kind as declared (`roll: 1..100`, `area`, `n: integer`)."""
        t = spec.type
        if isinstance(t, s.RangeType):
            low, high = cells.number(t.low), cells.number(t.high)
            if isinstance(low, int) and isinstance(high, int):
                self.check_span(f"{t.low}..{t.high}", low, high, t.span)
                return KeyKind("integer", low=low, high=high)
            return KeyKind("number", low=low, high=high)
        name = t.name if isinstance(t, s.NamedType) else spec.name
        if name in ("integer", "number"):
            return KeyKind(name)
        domain = self.scope.domain(name)
        if domain is not None:
            return KeyKind("enum", domain=domain, members=frozenset(domain.members))
        if t is None and free_names:
            return KeyKind("names")
        self.scope.unknown("key type", name, (t or spec).span,
                           [*self.scope.enums, *self.scope.domains, "integer", "number"])
        return KeyKind("names")

    @staticmethod
    def printed_as_numbers(kk: KeyKind, texts: Sequence[str]) -> KeyKind:
        """An undeclared key of a cross table whose printed values are all numbers, ranges or
        bands (the Missiles Table's "2-15 16-40 41-75 >75") is a key of numbers, so a lookup
        by a number finds the range that holds it."""
        if kk.kind != "names" or not texts:
            return kk
        if all(cells.parse_int_key(t, None) is not None or _integer_band(t) for t in texts):
            return KeyKind("integer")
        if all(cells.parse_band(t) is not None for t in texts):
            return KeyKind("number")
        return kk

    def cell(self, kk: KeyKind, text: str, span: Span, label: str) -> Any:
        """A printed key cell as its matcher: a name, a number, an IntRange, a Band, or a
        DynamicBand whose bounds are worked out from the table's given figures."""
        if kk.kind in ("enum", "names"):
            several = several_members(text, kk.members) if kk.domain is not None else None
            if several is not None:  # `Head, Chest`, `Arm/Leg`: a row for each
                return several
            wrong = strays(text, kk.members) if kk.domain is not None else []
            for name in wrong:  # `Head, Foot`: Foot is not a location
                self.scope.unknown(kk.domain.name, name, span, list(kk.domain.members))
            if kk.domain is not None and text not in kk.members and not wrong:
                self.scope.unknown(kk.domain.name, text, span, list(kk.domain.members))
            return text
        if kk.kind == "integer":
            value = cells.parse_int_key(text, kk.high)
            if value is None and kk.high is None and _integer_band(text):
                return cells.parse_band(text)
            if value is None:
                return self._worked_out(text, span) or self._not_a_key(
                    f"{text!r} is not a whole number or range like 01-10 for {label}", span)
            if isinstance(value, IntRange):  # kept whole even past the limit: no gap follows
                self.check_span(text, value.low, value.high, span)
            return value
        band = cells.parse_band(text)
        if band is None:
            return self._worked_out(text, span) or self._not_a_key(
                f"{text!r} is not a number or band like 0.1–1.9, 8 and up, >75 for {label}", span)
        return band

    def _not_a_key(self, message: str, span: Span) -> None:
        self.error(message, span)
        return None

    def check_span(self, text: str, low: int, high: int, span: Span) -> None:
        """A range key holds at most key_span numbers (lookups never expand a range, but a
        sheet or a tool listing its values would)."""
        limit = self.scope.limits.key_span
        if high - low + 1 > limit:
            self.error(f"{text} holds {high - low + 1} numbers; a range key may hold at most "
                       f"{limit} {Limits.hint('key_span')}", span)

    # -- bands worked out from the given figures ---------------------------------------------
    def _worked_out(self, text: str, span: Span) -> DynamicBand | None:
        """`1 – skill_sum`, `> skill_sum`, `rider + horse or more`: a band with a bound that is
        an expression of the table's given names; None (nothing reported) when the table has
        no given names, so the caller says what a key cell should be."""
        if not self.decl.given:
            return None
        m = _DYNAMIC_RANGE.match(text)
        if m:
            return DynamicBand(text, self._bound(m, "low", span), self._bound(m, "high", span))
        for pattern, end, inclusive in _DYNAMIC_OPEN:
            m = pattern.match(text)
            if m:
                value = self._bound(m, "b", span)
                if end == "low":
                    return DynamicBand(text, value, None, low_inclusive=inclusive)
                return DynamicBand(text, None, value, high_inclusive=inclusive)
        value = self._bound(_WHOLE.match(text), "b", span)
        return DynamicBand(text, value, value)  # one value: `skill_sum`

    def _bound(self, m: re.Match[str] | None, group: str, span: Span) -> Any:
        """One bound: a number as printed, else an expression compiled with the table's cells."""
        assert m is not None
        part = m.group(group).strip()
        if cells.NUM_RE.match(part):
            return cells.number(part)
        shift = m.start(group)
        at = Span(span.filename, span.line, span.column + shift, span.line,
                  span.column + shift + len(part), span.start + shift,
                  span.start + shift + len(part))
        return self.bound(part, at)


def _integer_band(text: str) -> bool:
    """An open band with whole-number ends (`>10`, `below -10`), as an integer key takes."""
    band = cells.parse_band(text)
    return band is not None and all(isinstance(x, (int, type(None))) for x in (band.low, band.high))


__all__ = ["KeyKind", "KeyReader"]
