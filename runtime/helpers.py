"""The small runtime that generated code calls: arithmetic, rounding, lookups, checks."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any

from . import values
from .combatants import check_value
from .dice import dice
from .errors import ARITHMETIC, CalculationError, RangeError, Span, calculation_message
from .tables import CellExpression, Record, Table


def make_helpers(source: str) -> dict[str, Any]:
    """The names generated code may use, bound to the rule file's text for error carets."""

    def _item(mapping: Any, key: Any, span: Span, label: str) -> Any:
        try:
            return mapping[key]
        except (KeyError, IndexError, TypeError):
            shown = ", ".join(values.display(k) for k in mapping) if isinstance(mapping, Mapping) \
                else ""
            raise RangeError(f"{label} has no entry for {values.display(key)!r}"
                             + (f" (it has: {shown})" if shown else ""), span, source) from None

    def _aggregate(fn: Callable[[Iterable[Any]], Any], items: list[Any], span: Span) -> Any:
        if not items:
            if fn is sum:
                return 0
            raise RangeError(f"{fn.__name__} of nothing: the collection is empty", span, source)
        return fn(items)

    def _check(param: Any, value: Any) -> Any:
        if value is MISSING:
            raise RangeError(f"{param.name} is needed ({param.type.describe()})", param.span,
                             source)
        return check_value(param.name, param.type, value, param.span, source)

    def _bind(span: Span, name: str, args: tuple[Any, ...], names: dict[str, Any],
              params: tuple[str, ...], values: tuple[Any, ...]) -> tuple[Any, ...]:
        """Arguments given by position or by a name Python cannot take, matched to parameters."""
        bound = list(values)
        if len(args) > len(params):
            extra = len(args) - len(params)
            raise RangeError(f"{name} takes {len(params)} argument(s) ({', '.join(params)}); "
                             f"it was given {len(args)}, {extra} too many", span, source)
        given = [(params[i], value) for i, value in enumerate(args)] + list(names.items())
        for key, value in given:
            if key not in params:
                close = difflib.get_close_matches(key, params, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise RangeError(f"{name} has no parameter {key!r}{hint}", span, source)
            i = params.index(key)
            if bound[i] is not MISSING:
                raise RangeError(f"{name} was given {key} twice", span, source)
            bound[i] = value
        return tuple(bound)

    def _arithmetic(err: Exception, span: Span) -> None:
        raise CalculationError(calculation_message(err), span, source) from None

    return {
        "_Decimal": Decimal,
        "_div": values.div,
        "_floor": values.floor,
        "_ceil": values.ceil,
        "_round": values.round_half_up,
        "_round_half_down": values.round_half_down,
        "_round_half_even": values.round_half_even,
        "_truncate": values.truncate,
        "_ln": values.ln,
        "_sqrt": values.sqrt,
        "_dice": dice,
        "_count": lambda items, value: sum(1 for x in items if x == value),
        "_flatten": _flatten,
        "_aggregate": _aggregate,
        "_item": _item,
        "_field": _field,
        "_attr": _attr,
        "_check": _check,
        "_bind": _bind,
        "_arithmetic": _arithmetic,
        "_ARITHMETIC": ARITHMETIC,
        "_MISSING": MISSING,
        "_public": values.to_public,
    }


class _Missing:
    """The default of a formula's parameters: says an argument was not given."""

    def __repr__(self) -> str:
        return "missing"


MISSING = _Missing()


def _flatten(mapping: Mapping[Any, Iterable[Any]]) -> tuple[Any, ...]:
    """Every item of a map of lists (all injuries, whatever the area)."""
    return tuple(item for items in mapping.values() for item in items)


def _field(record: Record, name: str) -> Any:
    """A record's field picked by a name value: `armour[area]` with area "Head" reads `head`."""
    return record._data[values.field_name(str(name))]


def _attr(value: Any, name: str) -> Any:
    if isinstance(value, Record):
        return value._data[name]
    if isinstance(value, CellExpression):
        raise RangeError(f"the expression `{value.text}` has no field {name}")
    return getattr(value, name)


def pair_combiner(table: Table) -> Callable[[tuple[Any, ...], dict[str, Any]], tuple[Any, ...]]:
    """Merge a list's items two at a time by a pair table until no pair of them is in the table.

    `Two Bruises in the same area constitute a Light Wound`: the table lists (held, new) → result;
    a result that depends on where (Sever a limb, Death elsewhere) is an `= expression` cell.
    """

    def combine(items: tuple[Any, ...], given: dict[str, Any]) -> tuple[Any, ...]:
        current = list(items)
        merged = True
        while merged:
            merged = False
            for i in range(len(current)):
                for j in range(i + 1, len(current)):
                    result = _pair(table, current[i], current[j])
                    if result is None:
                        continue
                    if isinstance(result, CellExpression):
                        result = result.evaluate(**given)
                    current = current[:i] + [result] + current[i + 1:j] + current[j + 1:]
                    merged = True
                    break
                if merged:
                    break
        return tuple(current)

    return combine


def _pair(table: Table, a: Any, b: Any) -> Any:
    for key in ((a, b), (b, a)):
        found = table.index.get(key)
        if found is not None:
            return found
    return None
