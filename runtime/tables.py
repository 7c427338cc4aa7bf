"""Compiled tables: rows as printed, and an index that answers lookups by key, range or band."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

import attrs

from .errors import ARITHMETIC, CalculationError, RangeError, Span, calculation_message
from .values import display, field_name, match_name, to_internal, to_public


@attrs.frozen
class IntRange:
    """An integer key cell such as `01-10` or `99-00` (both ends included)."""

    low: int
    high: int

    def __contains__(self, value: object) -> bool:
        if isinstance(value, Decimal):  # `2.5 * 2` is Decimal("5.0"), a whole number
            return value == value.to_integral_value() and self.low <= value <= self.high
        return isinstance(value, int) and self.low <= value <= self.high


@attrs.frozen
class Band:
    """A numeric band key cell such as `0.1–1.9`, `8 and up`, `>75` or `below -10`."""

    low: Any = None  # None: open below
    high: Any = None  # None: open above
    low_inclusive: bool = True
    high_inclusive: bool = True

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, (int, Decimal)):
            return False
        if self.low is not None:
            if value < self.low or (value == self.low and not self.low_inclusive):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and not self.high_inclusive):
                return False
        return True


@attrs.frozen(eq=False)
class DynamicBand:
    """A band whose bounds are worked out from the table's given figures when it is looked up
    (Ringing Steel's rider table: "1 – Skill Sum", "> Skill Sum"); a bound is a number, an
    `= …`-style expression of the given names (a CellExpression), or None (open)."""

    text: str  # as printed, for messages
    low: Any = None
    high: Any = None
    low_inclusive: bool = True
    high_inclusive: bool = True

    @property
    def params(self) -> tuple[str, ...]:
        """The given figures its bounds need, in the table's order."""
        return tuple(dict.fromkeys(p for b in (self.low, self.high)
                                   if isinstance(b, CellExpression) for p in b.params))

    def resolve(self, given: Mapping[str, Any]) -> Band:
        """The band for these figures (exact internal values); every figure it needs is given."""
        return Band(self._bound(self.low, given), self._bound(self.high, given),
                    self.low_inclusive, self.high_inclusive)

    def _bound(self, bound: Any, given: Mapping[str, Any]) -> Any:
        if not isinstance(bound, CellExpression):
            return bound
        try:
            value = bound.evaluate(**given)
        except ARITHMETIC as err:
            raise CalculationError(f"{calculation_message(err)} in `{bound.text}`") from None
        if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
            raise RangeError(f"the bound `{bound.text}` of the row `{self.text}` is "
                             f"{display(value)!r}, not a number")
        return value

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


class NeedsGiven(Exception):
    """A lookup reached a band whose bounds need given figures the caller did not give."""

    def __init__(self, band: DynamicBand, missing: list[str]) -> None:
        super().__init__(band.text)
        self.band, self.missing = band, missing


@attrs.frozen
class Cell:
    """One table cell: the text as printed and the value it stands for (None when blank)."""

    text: str
    value: Any
    span: Span | None = attrs.field(default=None, eq=False)


@attrs.frozen
class Row:
    """One printed row: its key cells, its value cells, where it is, and the comments above it."""

    keys: tuple[Cell, ...]
    cells: tuple[Cell, ...]
    span: Span | None = attrs.field(default=None, eq=False)
    comments: tuple[str, ...] = ()


@attrs.frozen
class Key:
    """A table key: its name, printed label and domain (enum members or a numeric span)."""

    name: str
    label: str
    kind: str  # "enum", "name", "integer", "number"
    members: tuple[str, ...] | None = None
    low: Any = None
    high: Any = None
    in_cells: bool = False


class Record:
    """A row of a record table: fields by name, read as attributes or items (public values).

    Not a Mapping on purpose: a column headed "Items" or "Keys" must read as `rec.items`.
    """

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getattr__(self, name: str) -> Any:
        try:
            return to_public(self._data[field_name(name)])
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name: str) -> Any:
        """A field by its name or its printed header: `rec["ds"]`, `rec["DS"]`."""
        return to_public(self._data[field_name(name) if isinstance(name, str) else name])

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, name: object) -> bool:
        return name in self._data

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict of plain values."""
        return {k: to_public(v) for k, v in self._data.items()}

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled by its fields: unpickled by default, it would look for `__setstate__` through
        `__getattr__` before `_data` is set, which looks for `_data` the same way, without end."""
        return Record, (self._data,)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Record):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self.as_dict() == dict(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self._data.items()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={display(v)!s}" for k, v in self._data.items())
        return f"Record({inner})"

    def __str__(self) -> str:
        return "/".join(display(v) for v in self._data.values())


class CellExpression:
    """An `= expression` cell: call it with the table's given names to get its value."""

    def __init__(self, text: str, params: tuple[str, ...], fn: Callable[..., Any]) -> None:
        self.text = text
        self.params = params
        self._fn = fn  # the generated function: one argument per name in `params`, in order

    def __call__(self, /, **given: Any) -> Any:
        missing = [p for p in self.params if p not in given]
        if missing:
            raise RangeError(f"the expression `{self.text}` needs {', '.join(missing)}")
        try:
            return to_public(self._fn(*[to_internal(given[p]) for p in self.params]))
        except ARITHMETIC as err:
            raise CalculationError(f"{calculation_message(err)} in `{self.text}`") from None
        except TypeError:
            shown = ", ".join(f"{p}={given[p]!r}" for p in self.params)
            raise RangeError(f"`{self.text}` cannot be worked out with {shown}: give numbers "
                             "(or the kind of value the table's notes name)") from None

    def evaluate(self, /, **given: Any) -> Any:
        """Internal evaluation for generated code: values are already exact."""
        return self._fn(*[given[p] for p in self.params])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CellExpression):
            return (self.text, self.params) == (other.text, other.params)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.text, self.params))

    def __repr__(self) -> str:
        return f"= {self.text}"

    __str__ = __repr__


class Column(dict):  # type: ignore[type-arg]
    """One field of a single-key record table as a dict (`armour.factor` compiles to a lookup).

    A key not listed directly (in a range or a band, an unknown name) goes through the table,
    which finds its range or band or raises a RangeError naming the table and the key.
    """

    def __init__(self, table: Table, field: str) -> None:
        super().__init__((key[0], rec._data[field]) for key, rec in table.index.items()
                         if len(key) == 1 and isinstance(rec, Record))
        self.table = table
        self.field = field

    def __missing__(self, key: Any) -> Any:
        return self.table.get(key)._data[self.field]


_ABSENT = object()  # what a failed search returns (a blank cell's value is None)


@attrs.define(eq=False)
class Axis:
    """One key's resolver: exact values in a dict, integer ranges and bands as intervals sorted
    by their low end and found by bisection (a range is never expanded value by value).

    A slot is what a match leads to: in a table's lookup tree, the next key's Axis, or the value
    for the last key.
    """

    key: Key
    exact: dict[Any, Any] = attrs.field(factory=dict)
    spans: list[tuple[IntRange | Band, Any]] = attrs.field(factory=list)  # by low end
    lows: list[Any] = attrs.field(factory=list)  # each span's low end (-inf when open)
    reach: list[Any] = attrs.field(factory=list)  # highest high end among spans[:i + 1]
    dynamic: list[tuple[DynamicBand, Any]] = attrs.field(factory=list)  # in printed order

    @classmethod
    def build(cls, key: Key, pairs: Iterable[tuple[Any, Any]]) -> Axis:
        """An axis from (matcher, slot) pairs: names and single numbers go in the dict, integer
        ranges and bands in the sorted spans, bands with worked-out bounds in their own list."""
        axis = cls(key)
        for matcher, slot in pairs:
            if isinstance(matcher, (IntRange, Band)):
                axis.spans.append((matcher, slot))
            elif isinstance(matcher, DynamicBand):
                axis.dynamic.append((matcher, slot))
            else:
                axis.exact[matcher] = slot
        axis.spans.sort(key=lambda span: _low(span[0]))
        highest: Any = _NEG_INF
        for matcher, _ in axis.spans:
            highest = max(highest, _high(matcher))
            axis.lows.append(_low(matcher))
            axis.reach.append(highest)
        return axis

    def matches(self, value: Any, given: Mapping[str, Any] | None = None) -> list[Any]:
        """The slots of every matcher holding `value`: its exact entry, the spans that hold it,
        else a band worked out from the `given` figures, else a name differing only in letter
        case. A printed band is tried before one with worked-out bounds."""
        try:
            slot = self.exact.get(value, _ABSENT)
        except TypeError:  # unhashable: no key of a rule file
            return []
        found = [] if slot is _ABSENT else [slot]
        if self.lows and isinstance(value, (int, Decimal)):
            try:
                i = bisect.bisect_right(self.lows, value)
                # Spans starting at or below `value`, latest first, while one could reach it.
                while i and self.reach[i - 1] >= value:
                    i -= 1
                    matcher, slot = self.spans[i]
                    if value in matcher:
                        found.append(slot)
            except ArithmeticError:  # Decimal NaN: no span holds it
                pass
        if not found and self.dynamic and isinstance(value, (int, Decimal)):
            found = self._worked_out(value, given or {})
        if not found:
            named = match_name(value, self.exact)
            if named is not None:
                found.append(self.exact[named])
        return found

    def _worked_out(self, value: Any, given: Mapping[str, Any]) -> list[Any]:
        """The slots of the bands with worked-out bounds that hold `value` (NeedsGiven when one
        needs a figure not given)."""
        low, high = self.key.low, self.key.high
        if low is not None and high is not None and not low <= value <= high:
            return []  # a declared span (1..20) bounds every band, worked out or printed
        found = []
        for band, slot in self.dynamic:
            missing = [p for p in band.params if p not in given]
            if missing:
                raise NeedsGiven(band, missing)
            try:
                holds = value in band.resolve(given)
            except ArithmeticError:
                holds = False
            if holds:
                found.append(slot)
        return found

    def find(self, keys: tuple[Any, ...], at: int = 0,
             given: Mapping[str, Any] | None = None) -> Any:
        """In a lookup tree: the value under `keys[at:]`, or _ABSENT."""
        found = self.matches(keys[at], given)
        if at == len(keys) - 1:  # a valid table has one entry per value of its last key
            return found[0] if found else _ABSENT
        for slot in found:
            value = slot.find(keys, at + 1, given)
            if value is not _ABSENT:
                return value
        return _ABSENT


_NEG_INF = float("-inf")
_INF = float("inf")


def _low(matcher: IntRange | Band) -> Any:
    return _NEG_INF if matcher.low is None else matcher.low


def _high(matcher: IntRange | Band) -> Any:
    return _INF if matcher.high is None else matcher.high


def lookup_tree(keys: Sequence[Key], entries: Sequence[tuple[tuple[Any, ...], Any]],
                at: int = 0) -> Axis:
    """Axes one level per key: the first key's matchers lead to the axis of the next key among
    the entries that share it, and the last key's to the values."""
    if at == len(keys) - 1:
        return Axis.build(keys[at], ((m[at], value) for m, value in entries))
    groups: dict[Any, list[tuple[tuple[Any, ...], Any]]] = {}
    for entry in entries:
        groups.setdefault(entry[0][at], []).append(entry)
    return Axis.build(keys[at], ((matcher, lookup_tree(keys, group, at + 1))
                                 for matcher, group in groups.items()))


@attrs.define(eq=False)
class Table:
    """A compiled table: structure for sheets and tools, and `lookup` for play."""

    name: str
    title: str
    layout: str  # "record", "cross" or "inverted"
    keys: tuple[Key, ...]
    columns: tuple[str, ...]  # printed header labels after the key columns
    side_labels: tuple[str, ...]  # printed header labels of the key columns down the side
    fields: tuple[str, ...]  # record field names (record layout) or column key values
    rows: tuple[Row, ...]
    span: Span | None = None
    comments: tuple[str, ...] = ()
    options: Mapping[str, str] = attrs.field(factory=dict)
    source: str | None = attrs.field(default=None, repr=False)
    axes: tuple[Axis, ...] = ()  # each key's matchers on their own, to name a missing key
    index: dict[tuple[Any, ...], Any] = attrs.field(factory=dict, repr=False)  # exact keys
    tree: Axis | None = attrs.field(default=None, repr=False)  # every entry, ranges included

    def fill(self, entries: Sequence[tuple[tuple[Any, ...], Any]]) -> None:
        """Index `entries`, (matchers, value) in printed order: keys made only of names and
        single numbers in `index` (a lookup by them is one dict access), every entry in `tree`
        (ranges and bands found by bisection), and each key's matchers in `axes`."""
        self.index = {m: value for m, value in entries
                      if not any(isinstance(x, (IntRange, Band, DynamicBand)) for x in m)}
        self.tree = lookup_tree(self.keys, entries) if entries and self.keys else None
        self.axes = tuple(
            Axis.build(key, ((m, m) for m in dict.fromkeys(entry[0][at] for entry in entries)))
            for at, key in enumerate(self.keys))

    def get(self, *keys: Any, given: Mapping[str, Any] | None = None) -> Any:
        """The internal value at `keys` (exact numbers, Records); used by generated code.
        `given`: the figures a band's worked-out bounds need (exact values)."""
        try:
            return self.index[keys]  # names and single numbers: one dict access
        except (KeyError, TypeError):
            pass
        try:
            return self._search(keys, given)
        except NeedsGiven as need:
            names = ", ".join(need.missing)
            raise RangeError(f"table {self.name} needs {names} for its row `{need.band.text}`: "
                             f"look it up with {'=…, '.join(need.missing)}=…", self.span,
                             self.source) from None
        except (CalculationError, RangeError) as err:  # a worked-out bound: name the table
            if err.span is None:
                err.span, err.source = self.span, self.source
                err.message = f"table {self.name}: {err.message}"
            raise

    def _search(self, keys: tuple[Any, ...], given: Mapping[str, Any] | None) -> Any:
        """Ranges and bands, by bisection; then the keys the other way round (a name and a
        number may come in either order), then the error naming what is missing."""
        fits = self.tree is not None and len(keys) == len(self.axes)
        if fits:
            found = self.tree.find(keys, 0, given)
            if found is not _ABSENT:
                return found
        swappable = fits and len(keys) == 2 and \
            isinstance(keys[0], str) != isinstance(keys[1], str)
        if swappable:  # `wounds.lookup("Head", 5)`: either order
            found = self.tree.find(keys[::-1], 0, given)
            if found is not _ABSENT:
                return found
        if len(keys) != len(self.axes):
            raise RangeError(
                f"table {self.name} is looked up by {len(self.axes)} key(s) "
                f"({', '.join(a.key.name for a in self.axes)}), not {len(keys)}",
                self.span,
                self.source,
            )
        raise self._not_found(keys, swappable, given)

    def _not_found(self, keys: tuple[Any, ...], swappable: bool,
                   given: Mapping[str, Any] | None = None) -> RangeError:
        """The error for keys that find nothing: the first key no entry has (of the order that
        got further, when a name and a number may come either way), else the combination."""
        first = self._unknown_key(keys, given)
        if first is None:
            shown = ", ".join(display(k) for k in keys)
            return RangeError(f"table {self.name} has no entry for {shown}", self.span,
                              self.source)
        if swappable:
            # Report the order that got further: `lookup("Haed", 5)` is a misspelt area.
            second = self._unknown_key(keys[::-1], given)
            if second is not None and second.axis > first.axis:
                return second
        return first

    def _unknown_key(self, keys: tuple[Any, ...],
                     given: Mapping[str, Any] | None = None) -> RangeError | None:
        for at, (axis, value) in enumerate(zip(self.axes, keys)):
            if not axis.matches(value, given):
                error = self._missing(axis.key, value)
                error.axis = at
                return error
        return None

    def lookup(self, /, *keys: Any, **given: Any) -> Any:
        """Look a row or cell up by its keys, as a Python caller: values come back plain.
        `given`: figures a band's bounds are worked out from (`lookup(5, skill_sum=8)`)."""
        value = self.get(*(to_internal(k) for k in keys),
                         given={name: to_internal(v) for name, v in given.items()})
        if isinstance(value, Record):
            return value
        return to_public(value)

    def key_values(self) -> tuple[Any, ...]:
        """The values of the first key, in printed order (a record table's row names; each
        member of a cell naming several, `Head, Chest`)."""
        return tuple(value for row in self.rows for value in
                     (row.keys[0].value if type(row.keys[0].value) is not tuple and
                      isinstance(row.keys[0].value, tuple) else (row.keys[0].value,)))

    def _missing(self, key: Key, value: Any) -> RangeError:
        shown = display(to_internal(value)) if not isinstance(value, str) else repr(value)
        if key.members is not None:
            import difflib  # only when a name is wrong

            close = difflib.get_close_matches(str(value), key.members, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            article = "an" if key.label[:1].lower() in "aeiou" else "a"
            return RangeError(
                f"{shown} is not {article} {key.label} of table {self.name} "
                f"(one of: {', '.join(key.members)}){hint}",
                self.span,
                self.source,
            )
        span = ""
        if key.low is not None and key.high is not None:
            span = f" (it covers {display(key.low)} to {display(key.high)})"
        return RangeError(
            f"table {self.name} has no row for {key.label} {shown}{span}", self.span, self.source
        )


__all__ = [
    "Axis", "Band", "Cell", "CellExpression", "Column", "DynamicBand", "IntRange", "Key",
    "NeedsGiven", "Record", "Row", "Table", "lookup_tree",
]
