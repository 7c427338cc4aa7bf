"""Table keys as a lookup index, and the check that integer keys cover their span exactly."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from rulecraft.runtime.errors import Span
from rulecraft.runtime.tables import Band, IntRange, Table, build_axis

Error = Callable[[str, Span | None], None]


def build_index(table: Table, kinds: list[Any], matchers: list[tuple[Any, ...]],
                values: list[Any], spans: list[tuple[Span, ...]], error: Error) -> None:
    """Fill `table.axes` and `table.index`: every key combination → its value, integer ranges
    expanded so a lookup is one dict access; duplicates and gaps reported through `error`."""
    index: dict[tuple[Any, ...], Any] = {}
    for m, v, where in zip(matchers, values, spans):
        if any(x is None for x in m):
            continue
        if m in index:
            shown = ", ".join(_show(x) for x in m)
            error(f"table {table.name} has two entries for {shown}", where[0])
        index[m] = v
    for dim, kk in enumerate(kinds):
        check_coverage(table, dim, kk, matchers, [w[dim] for w in spans], error)
        check_bands(dim, matchers, [w[dim] for w in spans], error)
    axes = []
    for dim, key in enumerate(table.keys):
        slots = list(dict.fromkeys(m[dim] for m in matchers if m[dim] is not None))
        axes.append(build_axis(key, [(slot, slot) for slot in slots]))
    table.axes = tuple(axes)
    fast: dict[tuple[Any, ...], Any] = {}
    for m, v in index.items():
        expanded = [_raw(x) for x in m]
        if all(e is not None for e in expanded):
            for combo in itertools.product(*(e for e in expanded if e is not None)):
                fast[combo] = v
    fast.update(index)
    table.index = fast

def check_coverage(table: Table, dim: int, kk: Any, matchers: list[tuple[Any, ...]],
                   spans: list[Span], error: Error) -> None:
    """Integer keys with a declared span (1..100) must be covered exactly: no gap, no overlap."""
    if kk.kind != "integer" or kk.low is None:
        return
    groups: dict[tuple[Any, ...], list[tuple[Any, Span]]] = {}
    for m, span in zip(matchers, spans):
        rest = m[:dim] + m[dim + 1:]
        groups.setdefault(rest, []).append((m[dim], span))
    for rest, keys in groups.items():
        seen: dict[int, Any] = {}
        where = f" (column {', '.join(_show(r) for r in rest)})" if any(
            r is not None for r in rest) and len(groups) > 1 else ""
        for k, span in keys:
            if k is None or isinstance(k, Band):
                continue
            values = range(k.low, k.high + 1) if isinstance(k, IntRange) else [k]
            outside = [v for v in values if not kk.low <= v <= kk.high]
            clash = [v for v in values if v in seen]
            if outside:
                error(f"{_show(k)} is outside {kk.low}..{kk.high}{where}", span)
            if clash:
                error(f"{_show(k)} overlaps {_show(seen[clash[0]])} at "
                           f"{_ranges(clash)}{where}", span)
            for v in values:
                seen.setdefault(v, k)
        missing = [v for v in range(kk.low, kk.high + 1) if v not in seen]
        if missing:
            error(f"table {table.name} leaves {_ranges(missing)} uncovered{where}; "
                       f"its rows must cover {kk.low}..{kk.high}", table.span)


def check_bands(dim: int, matchers: list[tuple[Any, ...]], spans: list[Span],
                error: Error) -> None:
    """Bands of one key, within one column, must not overlap (`1-5` and `3-8` share 3 to 5)."""
    groups: dict[tuple[Any, ...], list[tuple[Band, Span]]] = {}
    for m, span in zip(matchers, spans):
        if isinstance(m[dim], Band):
            groups.setdefault(m[:dim] + m[dim + 1:], []).append((m[dim], span))
    for bands in groups.values():
        for i, (band, span) in enumerate(bands):
            for other, _ in bands[:i]:
                if band != other and _overlap(band, other):
                    error(f"{_show(band)} overlaps {_show(other)}", span)


def _overlap(a: Band, b: Band) -> bool:
    """Whether some number lies in both bands."""
    low, low_in = _later_start(a, b)
    high, high_in = _earlier_end(a, b)
    if low is None or high is None:
        return True
    return low < high or (low == high and low_in and high_in)


def _later_start(a: Band, b: Band) -> tuple[Any, bool]:
    if a.low is None:
        return b.low, b.low_inclusive
    if b.low is None or a.low > b.low:
        return a.low, a.low_inclusive
    if b.low > a.low:
        return b.low, b.low_inclusive
    return a.low, a.low_inclusive and b.low_inclusive


def _earlier_end(a: Band, b: Band) -> tuple[Any, bool]:
    if a.high is None:
        return b.high, b.high_inclusive
    if b.high is None or a.high < b.high:
        return a.high, a.high_inclusive
    if b.high < a.high:
        return b.high, b.high_inclusive
    return a.high, a.high_inclusive and b.high_inclusive


def _raw(slot: Any) -> list[Any] | None:
    if isinstance(slot, IntRange):
        return list(range(slot.low, slot.high + 1))
    if isinstance(slot, Band):
        return None
    return [slot]


def _show(x: Any) -> str:
    if isinstance(x, IntRange):
        return f"{x.low}-{x.high}"
    if isinstance(x, Band):
        if x.low is None:
            return f"{'<=' if x.high_inclusive else '<'} {x.high}"
        if x.high is None:
            return f"{'>=' if x.low_inclusive else '>'} {x.low}"
        return f"{x.low}–{x.high}"
    return str(x)


def _ranges(values: list[int]) -> str:
    parts = []
    for _, group in itertools.groupby(enumerate(values), lambda p: p[1] - p[0]):
        run = [v for _, v in group]
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ", ".join(parts)
