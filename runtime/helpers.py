"""The small runtime that generated code calls: arithmetic, rounding, lookups, checks."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any

from . import values
from .combatants import Combatant, check_value
from .dice import Dice, dice
from .errors import ARITHMETIC, CalculationError, RangeError, Span, calculation_message
from .tables import CellExpression, Record, Table


def make_helpers(source: str) -> dict[str, Any]:
    """The names generated code may use, bound to the rule file's text for error carets."""

    def _item(mapping: Any, key: Any, span: Span, label: str) -> Any:
        if isinstance(mapping, Record):
            return _field(mapping, key, span)
        if type(mapping) is not dict:  # a rule's maps are dicts; nothing else is subscripted
            raise RangeError(f"{label} is {describe(mapping)}, not a map to look up in", span,
                             source)
        try:
            return mapping[key]
        except (KeyError, TypeError):
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

    def _cast(value: Any, kind: str, span: Span) -> Any:
        """A value whose type was known only at run time, checked where the rule uses it."""
        if _is(value, kind):
            return value
        raise RangeError(f"this needs {_KINDS[kind]}, but the value here is {describe(value)}",
                         span, source)

    def _present(value: Any, span: Span, label: str) -> Any:
        """A value that may be none (a blank table cell, a name not set on this path), where
        the rule needs the value itself."""
        if value is None:
            raise CalculationError(f"{label} is none here (a blank table cell, or a name this "
                                   "path did not set): the rule needs its value", span, source)
        return value

    def _attr(value: Any, name: str, span: Span) -> Any:
        """`.name` on a value of run-time type: a record's or a combatant's field, nothing else."""
        if isinstance(value, Record) and name in value._data:
            return value._data[name]
        if isinstance(value, Combatant) and name in value._values:
            return value._values[name]
        raise RangeError(f"{describe(value)} has no field {name}", span, source)

    def _field(record: Any, name: Any, span: Span) -> Any:
        """A record's field picked by a name value: `armour[area]` with area "Head" reads `head`."""
        if isinstance(record, Record) and isinstance(name, str):
            found = record._data.get(values.field_name(name), MISSING)
            if found is not MISSING:
                return found
            raise RangeError(f"the record has no field for {name!r} (its fields: "
                             f"{', '.join(record._data)})", span, source)
        raise RangeError(f"{describe(record)} has no field {display_key(name)}", span, source)

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
        "_cast": _cast,
        "_present": _present,
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


_KINDS = {"num": "a number", "int": "a whole number", "bool": "yes or no", "name": "a name",
          "list": "a list", "map": "a map", "collection": "a list or a map",
          "dice": "dice or a number", "record": "a record"}


def _is(value: Any, kind: str) -> bool:
    if kind == "num":
        return type(value) is int or type(value) is Decimal
    if kind == "int":
        return type(value) is int
    if kind == "bool":
        return type(value) is bool
    if kind == "name":
        return type(value) is str
    if kind == "list":
        return type(value) is tuple
    if kind == "map":
        return type(value) is dict
    if kind == "collection":
        return type(value) is tuple or type(value) is dict
    if kind == "dice":
        return type(value) is int or type(value) is Decimal or isinstance(value, Dice)
    if kind == "record":
        return isinstance(value, Record)
    raise AssertionError(f"no run-time check for {kind}")


def describe(value: Any) -> str:
    """What a value is, in a game master's words, for an error message."""
    if value is None:
        return "none"
    if type(value) is bool:
        return "yes/no"
    if type(value) is int or type(value) is Decimal:
        return f"the number {values.display(value)}"
    if type(value) is str:
        return f"the name {value!r}"
    if type(value) is tuple:
        return "a list"
    if type(value) is dict:
        return "a map"
    if isinstance(value, Dice):
        return f"the dice {value}"
    if isinstance(value, Record):
        return "a record"
    if isinstance(value, Combatant):
        return f"a {value.model.name}"
    if isinstance(value, CellExpression):
        return f"the table expression `{value.text}`"
    return "a value from outside the rules"


def display_key(name: Any) -> str:
    return repr(name) if isinstance(name, str) else describe(name)


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
