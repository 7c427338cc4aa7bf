"""The helpers generated code calls for space: hexes and facings checked where a rule uses
them, the grid's built-ins, patterns looked up and put down, parties found on the grid."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .errors import RangeError, Span
from .values import display
from .space import (HERE, Hex, approach, count_within, distance, facing_to, in_front, line,
                    mirror, place, step, turn, whole, within)


def make_space_helpers(source: str, spend: Callable[[int, Span, int], None]
                       ) -> dict[str, Any]:
    """The space helpers generated code calls, bound to the rule file's text for errors."""

    def _whole(value: Any, span: Span, what: str) -> int:
        found = whole(value)
        if found is None:
            raise RangeError(f"{what} must be a whole number, not {_shown(value)}", span,
                             source)
        return found

    def _sized_hex(h: Hex, span: Span, digits: int) -> Hex:
        """A hex whose coordinates keep within `number_digits` digits, as numbers do."""
        if not (-10 ** digits < h.q < 10 ** digits and -10 ** digits < h.r < 10 ** digits):
            from .limits import Limits

            raise RangeError(f"this hex's coordinates would have more than {digits} digits "
                             f"{Limits.hint('number_digits')}", span, source)
        return h

    def _hex(q: Any, r: Any, span: Span) -> Hex:
        return Hex(_whole(q, span, "a hex's q"), _whole(r, span, "a hex's r"))

    def _facing(value: Any, span: Span) -> int:
        return _whole(value, span, "a facing") % 6

    def _is_hex(value: Any, span: Span, what: str) -> Hex:
        if type(value) is not Hex:
            raise RangeError(f"{what} must be a hex, not {_shown(value)}", span, source)
        return value

    def _step(at: Any, facing: Any, n: Any, span: Span) -> Hex:
        return step(_is_hex(at, span, "step's hex"), _facing(facing, span),
                    _whole(n, span, "the number of moves"))

    def _turn(facing: Any, by: Any, span: Span) -> int:
        return turn(_facing(facing, span), _whole(by, span, "a turn"))

    def _mirror(h: Any, facing: Any, about: Any, span: Span) -> Hex:
        return mirror(_is_hex(h, span, "mirror's hex"), _facing(facing, span),
                      _is_hex(about, span, "the hex mirrored about"))

    def _line(a: Any, b: Any, span: Span, limit: int) -> tuple[Hex, ...]:
        a, b = _is_hex(a, span, "a line's start"), _is_hex(b, span, "a line's end")
        spend(distance(a, b) + 1, span, limit)
        return line(a, b)

    def _within(at: Any, n: Any, span: Span, limit: int) -> tuple[Hex, ...]:
        at, n = _is_hex(at, span, "the centre"), _whole(n, span, "the number of moves")
        if n < 0:
            return ()
        spend(count_within(n), span, limit)  # refused before any is made, naming the limit
        return within(at, n)

    def _placed(offsets: Any, at: Any, facing: Any, span: Span) -> Any:
        at, facing = _is_hex(at, span, "the hex placed at"), _facing(facing, span)
        if type(offsets) is Hex:
            return place((offsets,), at, facing)[0]
        return place((_is_hex(o, span, "a pattern's hex") for o in offsets), at, facing)

    def _pattern(table: dict[tuple[Any, ...], tuple[Hex, ...]], name: str,
                 keys: tuple[Any, ...], span: Span) -> tuple[Hex, ...]:
        found = table.get(keys)
        if found is None:
            have = "; ".join(" / ".join(display(k) for k in ks) for ks in table)
            raise RangeError(f"pattern {name} has no hexes for "
                             f"{' / '.join(display(k) for k in keys)} (it has: {have})", span,
                             source)
        return found

    def _approach(a: Any, b: Any, span: Span) -> Any:
        return approach(_is_hex(a, span, "a hex"), _is_hex(b, span, "a hex"))

    def _facing_to(a: Any, b: Any, span: Span) -> Any:
        return facing_to(_is_hex(a, span, "a hex"), _is_hex(b, span, "a hex"))

    def _in_front(at: Any, facing: Any, other: Any, span: Span) -> bool:
        return in_front(_is_hex(at, span, "a hex"), _facing(facing, span),
                        _is_hex(other, span, "a hex"))

    def _distance(a: Any, b: Any, span: Span) -> int:
        return distance(_is_hex(a, span, "a hex"), _is_hex(b, span, "a hex"))

    def _occupied(party: Any) -> tuple[Hex, ...]:
        """The hexes a party stands in: its `hexes` figure (a body of several hexes), else
        the one hex it is `at`; none for a party with no place."""
        figures = getattr(party, "_values", {})
        body = figures.get("hexes")
        if isinstance(body, tuple) and all(type(h) is Hex for h in body):
            return body
        at = figures.get("at")
        return (at,) if type(at) is Hex else ()

    def _parties(parties: dict[str, Any]) -> list[Any]:
        """The run's parties (`RunContext.parties`), each once, in the order given."""
        seen: dict[int, Any] = {}
        for party in parties.values():
            seen.setdefault(id(party), party)
        return list(seen.values())

    def _party_at(parties: dict[str, Any], h: Any, span: Span) -> Any:
        h = _is_hex(h, span, "party_at's hex")
        return next((p for p in _parties(parties) if h in _occupied(p)), None)

    def _parties_within(parties: dict[str, Any], h: Any, n: Any, span: Span
                        ) -> tuple[Any, ...]:
        h, n = _is_hex(h, span, "the centre"), _whole(n, span, "the number of moves")
        return tuple(p for p in _parties(parties)
                     if any(distance(h, x) <= n for x in _occupied(p)))

    def _occupies(party: Any, h: Any, span: Span) -> bool:
        return _is_hex(h, span, "a hex") in _occupied(party)

    def _in_unit(value: Any, per_hex: Any) -> Any:
        from .values import CONTEXT

        result = value * per_hex
        if type(result) is Decimal:
            result = CONTEXT.plus(result)
            return int(result) if result == result.to_integral_value() else result
        return result

    # `_sp_`: apart from the names generated code binds itself (an encounter's `_turn`).
    return {"_sp_hex": _hex, "_sp_step": _step, "_sp_turn": _turn, "_sp_mirror": _mirror,
            "_sp_line": _line, "_sp_within": _within, "_sp_placed": _placed,
            "_sp_pattern": _pattern, "_sp_approach": _approach, "_sp_facing_to": _facing_to,
            "_sp_in_front": _in_front, "_sp_distance": _distance, "_sp_party_at": _party_at,
            "_sp_parties_within": _parties_within, "_sp_occupies": _occupies,
            "_sp_in_unit": _in_unit, "_sp_HERE": HERE, "_sp_sized": _sized_hex,
            "_sp_whole": lambda value, span: _whole(value, span, "a hex coordinate")}




def _shown(value: Any) -> str:
    """A value in an error message: none said as none, a name quoted."""
    if value is None:
        return "none"
    return repr(value) if type(value) is str else display(value)


__all__ = ["make_space_helpers"]
