"""What generated code calls for order: an enum's members by position, a list's items by
position, a list grouped by a key, a row found by the band of one of its columns."""

from __future__ import annotations

from typing import Any

from .errors import RangeError, Span
from .values import display


def make_order_helpers(source: str) -> dict[str, Any]:
    """The helpers, bound to the rule file's text for error carets."""

    def _rank(member: Any, members: tuple[str, ...], span: Span) -> int:
        """A member's place in its enum, the first 0."""
        try:
            return members.index(member)
        except ValueError:
            raise RangeError(f"{display(member)!r} is not one of {', '.join(members)}", span,
                             source) from None

    def _shift(member: Any, by: int, members: tuple[str, ...], span: Span) -> str:
        """The member `by` places on (back, when negative), kept within the enum: one stage
        worse than the worst is the worst, one better than the first the first."""
        place = _rank(member, members, span) + by
        return members[min(max(place, 0), len(members) - 1)]

    def _nth(items: Any, place: Any, span: Span, label: str) -> Any:
        """`xs[i]`: the item at place i (0 the first, -1 the last)."""
        if type(items) is not tuple:
            raise RangeError(f"{label} is not a list to pick an item from", span, source)
        if not -len(items) <= place < len(items):
            held = f"{len(items)} item" + ("" if len(items) == 1 else "s")
            raise RangeError(f"{label} has no item {place}: it holds {held} (0 is the first, "
                             f"-1 the last)" if items else f"{label} is empty: it has no item "
                             f"{place}", span, source)
        return items[place]

    def _group(pairs: list[tuple[Any, Any]]) -> dict[Any, tuple[Any, ...]]:
        grouped: dict[Any, list[Any]] = {}
        for key, item in pairs:
            grouped.setdefault(key, []).append(item)
        return {key: tuple(items) for key, items in grouped.items()}

    def _banded(bands: Any, value: Any, span: Span) -> Any:
        """`combat_ranges.feet[40]`: the row whose band in that column holds the value."""
        try:
            return bands.get(value)
        except RangeError:
            table, label = bands.name.split(".")[0], bands.keys[0].label
            raise RangeError(f"no row of table {table} has a {label} band holding "
                             f"{display(value)}", span, source) from None

    return {"_banded": _banded, "_rank": _rank, "_shift": _shift, "_nth": _nth, "_group": _group}
