"""Table keys as a lookup index, and the check that integer keys cover their span exactly."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulecraft.runtime.errors import Span
from rulecraft.runtime.tables import Band, DynamicBand, IntRange, Table

Error = Callable[[str, Span | None], None]

_SHOWN_GAPS = 10  # uncovered runs named in one message; the rest are counted


def build_index(table: Table, kinds: list[Any], matchers: list[tuple[Any, ...]],
                values: list[Any], spans: list[tuple[Span, ...]], error: Error,
                grouped_by: list[str] | None = None, gaps_allowed: bool = False) -> None:
    """Fill the table's lookup index (integer ranges and bands kept whole, found by bisection);
    duplicates, overlaps and gaps reported through `error`. `grouped_by[dim]`: whether the
    entries checked together along key `dim` share a `row` or a `column` (for messages)."""
    entries: list[tuple[tuple[Any, ...], Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for m, v, where in zip(matchers, values, spans):
        if any(x is None for x in m):
            continue
        if m in seen:
            shown = ", ".join(_show(x) for x in m)
            error(f"table {table.name} has two entries for {shown}", where[0])
        seen.add(m)
        entries.append((m, v))
    for dim, kk in enumerate(kinds):
        word = grouped_by[dim] if grouped_by else "column"
        check_key(table, dim, kk, matchers, [w[dim] for w in spans], error, word, gaps_allowed)
    table.fill(entries)


def check_key(table: Table, dim: int, kk: Any, matchers: list[tuple[Any, ...]],
              spans: list[Span], error: Error, word: str = "column",
              gaps_allowed: bool = False) -> None:
    """Numeric keys of one column (rows that agree on every other key) must not share a value
    (`1-5` and `3-8` share 3 to 5), and integer keys must leave no gap: a declared span (1..100)
    is covered exactly, an open one (`integer`) from its lowest key to its highest. Sorted by
    their low ends, so a table of n keys costs n log n. Bands with worked-out bounds are known
    only when looked up: their column is checked for overlaps among its printed keys alone, and
    not for gaps (they may fill any)."""
    if kk.kind not in ("integer", "number"):
        return
    groups: dict[tuple[Any, ...], list[tuple[Any, Span]]] = {}
    worked_out: set[tuple[Any, ...]] = set()  # groups with a band that may fill any gap
    for m, span in zip(matchers, spans):
        rest = m[:dim] + m[dim + 1:]
        if isinstance(m[dim], DynamicBand):
            worked_out.add(rest)
        else:
            groups.setdefault(rest, []).append((m[dim], span))
    for rest, keys in groups.items():
        where = f" ({word} {', '.join(_show(r) for r in rest)})" if any(
            r is not None for r in rest) and len(groups) > 1 else ""
        printed = [(k, _band(k), span) for k, span in keys if k is not None]
        ordered = sorted(range(len(printed)), key=lambda i: _start(printed[i][1]))
        _check_overlaps(printed, ordered, where, error)
        if kk.kind != "integer":
            continue
        if kk.low is not None:
            for k, band, span in printed:
                if not isinstance(k, Band) and (band.low < kk.low or band.high > kk.high):
                    error(f"{_show(k)} is outside {kk.low}..{kk.high}{where}", span)
        if gaps_allowed or rest in worked_out:
            continue
        missing = _gaps([printed[i][1] for i in ordered], kk.low, kk.high)
        if missing and kk.low is not None:
            error(f"table {table.name} leaves {_pieces(missing)} uncovered{where}; "
                  f"its rows must cover {kk.low}..{kk.high}", table.span)
        elif missing:
            error(f"table {table.name} leaves {_pieces(missing)} uncovered{where}; its rows "
                  "must leave no gap (write `gaps: allowed` if the book leaves one on purpose)",
                  table.span)


def _check_overlaps(printed: list[tuple[Any, Band, Span]], ordered: list[int], where: str,
                    error: Error) -> None:
    """One sweep in order of low ends: each key against the earlier one reaching furthest (if
    any earlier key shares a value with it, that one does); reported on the later printed row."""
    reaching: int | None = None
    for i in ordered:
        if reaching is not None:
            (a, a_band, _), (b, b_band, _) = printed[i], printed[reaching]
            if not (isinstance(a, Band) and a == b) and _overlap(a_band, b_band):
                later, earlier = max(i, reaching), min(i, reaching)
                k, other = printed[later][0], printed[earlier][0]
                shared = ""
                if not isinstance(a, Band) and not isinstance(b, Band):
                    low, high = max(a_band.low, b_band.low), min(a_band.high, b_band.high)
                    shared = f" at {_pieces([(low, high)])}"
                error(f"{_show(k)} overlaps {_show(other)}{shared}{where}", printed[later][2])
        if reaching is None or _end(printed[i][1]) > _end(printed[reaching][1]):
            reaching = i


def _gaps(bands: list[Band], low: int | None, high: int | None) -> list[tuple[int, int]]:
    """The runs of low..high that no band (sorted by low end, whole-number bounds) covers; an
    open key (low and high None) is checked from its lowest band to its highest."""
    missing = []
    need = low  # the lowest value not yet covered (None: not known before the first band)
    for band in bands:
        start, end = _whole(band.low, band.low_inclusive, 1), _whole(band.high,
                                                                     band.high_inclusive, -1)
        if need is not None and high is not None and need > high:
            break
        if need is not None and start is not None and start > need:
            missing.append((need, start - 1 if high is None else min(start - 1, high)))
        if end is None:  # open above: nothing further is missing
            return missing
        need = end + 1 if need is None else max(need, end + 1)
    if need is not None and high is not None and need <= high:
        missing.append((need, high))
    return missing


def _whole(bound: Any, inclusive: bool, step: int) -> int | None:
    """A band's end as the first (or last) whole number it holds: `>10` starts at 11."""
    if bound is None:
        return None
    return bound if inclusive else bound + step


def _band(k: Any) -> Band:
    """A key cell as the band of values it matches: `5` is 5–5, `01-10` is 1–10."""
    if isinstance(k, Band):
        return k
    if isinstance(k, IntRange):
        return Band(k.low, k.high)
    return Band(k, k)


_INF = float("inf")


def _start(b: Band) -> tuple[Any, int]:
    """Sorts bands by where they start; at one number, a band that includes it first."""
    return (-_INF if b.low is None else b.low, 0 if b.low_inclusive else 1)


def _end(b: Band) -> tuple[Any, int]:
    """Orders bands by where they end; at one number, a band that includes it last."""
    return (_INF if b.high is None else b.high, 1 if b.high_inclusive else 0)


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


def _show(x: Any) -> str:
    if isinstance(x, DynamicBand):
        return x.text
    if isinstance(x, IntRange):
        return f"{x.low}-{x.high}"
    if isinstance(x, Band):
        if x.low is None:
            return f"{'<=' if x.high_inclusive else '<'} {x.high}"
        if x.high is None:
            return f"{'>=' if x.low_inclusive else '>'} {x.low}"
        return f"{x.low}–{x.high}"
    return str(x)


def _pieces(runs: list[tuple[int, int]]) -> str:
    """Runs of whole numbers as printed: `11, 97-98`; past ten runs, how many more."""
    parts = [str(low) if low == high else f"{low}-{high}" for low, high in runs[:_SHOWN_GAPS]]
    if len(runs) > _SHOWN_GAPS:
        parts.append(f"and {len(runs) - _SHOWN_GAPS} more")
    return ", ".join(parts)
