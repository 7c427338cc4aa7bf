"""The small runtime that generated code calls: arithmetic, rounding, lookups, checks."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from itertools import chain
from typing import Any

from . import clock_calls, values
from .combatants import Combatant, check_value
from .dice import Dice, dice
from .encounters import Schedule, hex_distance, hex_in_front
from .errors import (ARITHMETIC, CalculationError, DiceError, RangeError, Span,
                     calculation_message)
from .limits import Limits
from .clock_ticks import time_helpers
from .ordered import make_order_helpers
from .sides import Sides, is_model
from .space import Hex
from .space_helpers import make_space_helpers
from .work import opened
from .tables import CellExpression, Record, Table


class _Budget(threading.local):
    """The items gone over so far by the evaluation under way in this thread, if one is."""

    open = False
    items = 0


_LOG10_2 = 0.30102999566398120  # digits per bit


def make_helpers(source: str) -> dict[str, Any]:
    """The names generated code may use, bound to the rule file's text for error carets."""

    budget = _Budget()
    order = make_order_helpers(source)

    def _evaluation(work: Callable[[], Any]) -> Any:
        """An expression with aggregates in it, worked out on a fresh `aggregate_items` budget;
        inside another evaluation (a formula or table expression an aggregate calls) it spends
        that one's, so nesting cannot multiply the work."""
        if budget.open:
            return work()
        budget.open, budget.items = True, 0
        try:
            return work()
        finally:
            budget.open = False

    def _spend(count: int, span: Span, limit: int) -> None:
        """`count` items about to be gone over, within `aggregate_items` for the evaluation
        and the work of the command under way."""
        is_open = budget.open
        spent = budget.items + count if is_open else count
        if spent > limit:
            raise RangeError(f"working this out would go over more than {limit} items of lists "
                             f"and ranges (with the formula calls made for each) in all "
                             f"{Limits.hint('aggregate_items')}", span, source)
        if is_open:
            budget.items = spent
        work = opened()
        if work is not None:  # `Work.spend`, written out: an aggregate makes one at every step
            work.left -= count
            if work.left < 0:
                work.refuse(span, source)

    def _items(items: Any, span: Span, limit: int, weight: int = 1) -> Any:
        """The collection an aggregate goes over, its items spent from the budget first (each
        `weight` times: one, and one for each formula call the aggregate's body makes)."""
        _spend(len(items) * weight, span, limit)
        return items

    def _member(value: Any, items: Any, span: Span, limit: int) -> bool:
        """`x in c`: a list is looked through item by item (a map's keys are not)."""
        if type(items) is tuple:
            _spend(len(items), span, limit)
        return value in items

    def _count(items: Any, value: Any, span: Span, limit: int) -> int:
        """`count(c, value)`: how many items of c equal value, looked through one by one."""
        _spend(len(items), span, limit)
        return sum(1 for x in items if x == value)

    def _flatten(mapping: Mapping[Any, tuple[Any, ...]], span: Span,
                 limit: int) -> tuple[Any, ...]:
        """Every item of a map of lists (all injuries, whatever the area)."""
        _spend(sum(map(len, mapping.values())), span, limit)
        return _flattened(mapping)

    def _flattened(mapping: Mapping[Any, tuple[Any, ...]]) -> tuple[Any, ...]:
        """`flatten(m)` gone over by an aggregate, which spends its items (`_items`)."""
        return tuple(chain.from_iterable(mapping.values()))

    def _item(mapping: Any, key: Any, span: Span, label: str) -> Any:
        if isinstance(mapping, Record):
            return _field(mapping, key, span)
        if type(mapping) is tuple and type(key) is int:
            # A record of numbers in a column of mixed kinds (the Missiles Table's `6/40`
            # beside `15`), read by a rule as `m.b_str[0]`: its parts by position, as a list's.
            return order["_nth"](mapping, key, span, label)
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
        vt = param.type
        if type(value) is int and vt.kind == "integer" and (vt.low is None or
                                                              vt.low <= value <= vt.high):
            return value  # the common case, as check_value would find it
        if value is MISSING:
            raise RangeError(f"{param.name} is needed ({param.type.describe()})", param.span,
                             source)
        if value is None and param.has_default and param.default is None:
            return None  # `called: location = none` takes the none it defaults to, passed on
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
                import difflib  # only when a name is wrong

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

    def _whole_time(value: Any, span: Span, what: str, label: str) -> Any:
        """The clock's time where a whole number is wanted (`set f.last_seen = now`): whole on a
        clock whose times are, an error naming the time when it is not."""
        if type(value) is int:
            return value
        if type(value) is Decimal and value.is_finite() and value == value.to_integral_value():
            return int(value)
        raise RangeError(f"{what}, but {label} is {describe(value)} here: the clock's times "
                         "are not all whole (round it: floor(…), round(…))", span, source)

    def _joined(left: tuple[Any, ...], right: tuple[Any, ...], span: Span, limit: int,
                items_limit: int) -> Any:
        """`effects + [e]`: a list grown step by step stays within `list_items` (each step's
        list is kept in the trace, so a long one costs its length squared)."""
        if len(left) + len(right) > limit:
            raise RangeError(f"this list would hold {len(left) + len(right)} items, more than "
                             f"{limit} {Limits.hint('list_items')}", span, source)
        _spend(len(left) + len(right), span, items_limit)
        return left + right

    def _mul(left: Any, right: Any, span: Span, digits: int) -> Any:
        """A product of whole numbers, refused before it has more than `number_digits` digits
        (squaring in a loop doubles them each pass, and soon takes minutes)."""
        if type(left) is int and type(right) is int and \
                (left.bit_length() + right.bit_length()) * _LOG10_2 > digits + 1:
            raise RangeError(f"this product would have more than {digits} digits "
                             f"{Limits.hint('number_digits')}", span, source)
        return left * right

    def _sized(value: Any, span: Span, digits: int) -> Any:
        """A sum or difference of whole numbers within `number_digits` digits (`x + x` in a
        loop doubles each pass)."""
        if type(value) is int and value.bit_length() * _LOG10_2 > digits:
            if len(str(abs(value))) > digits:
                raise RangeError(f"this number would have more than {digits} digits "
                                 f"{Limits.hint('number_digits')}", span, source)
        return value

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
        if type(value) is Hex and name in ("q", "r", "s"):
            return getattr(value, name)
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

    def _stat(combatant: Any, name: Any, fields: frozenset[str], span: Span) -> Any:
        """`defender[characteristic]`: the combatant's field a name value names, among the
        fields the compiler allowed for it; never an attribute of a Python object."""
        if isinstance(combatant, Combatant) and type(name) is str:
            field = name if name in fields else values.field_name(name)  # as declared, or named
            if field in fields and field in combatant._values:
                return combatant._values[field]
            raise RangeError(f"a {combatant.model.name} has no field {name!r} here (it may be "
                             f"one of: {', '.join(sorted(fields))})", span, source)
        raise RangeError(f"{describe(combatant)} has no field {display_key(name)}", span, source)

    def _ends(low: Any, high: Any, span: Span, limit: int) -> tuple[int, int]:
        """A range's first and last numbers, checked: whole, and at most `key_span` apart."""
        if not (_whole(low) and _whole(high)):
            raise RangeError(f"a range runs between whole numbers, not from {describe(low)} to "
                             f"{describe(high)}", span, source)
        low, high = int(low), int(high)
        if high - low + 1 > limit:
            raise RangeError(f"the range {low}..{high} holds {high - low + 1} numbers; a range "
                             f"may hold at most {limit} {Limits.hint('key_span')}", span, source)
        return low, high

    def _range(low: Any, high: Any, span: Span, limit: int, items_limit: int) -> tuple[int, ...]:
        """`1..6` as a value: the whole numbers from low to high (none when high is below low)."""
        low, high = _ends(low, high, span, limit)
        _spend(max(0, high - low + 1), span, items_limit)
        return tuple(range(low, high + 1))

    def _numbers(low: Any, high: Any, span: Span, limit: int) -> range:
        """`for x in 1..6`: the numbers one at a time, never held as a list."""
        low, high = _ends(low, high, span, limit)
        return range(low, high + 1)

    def _in_range(value: Any, low: Any, high: Any, span: Span, limit: int) -> bool:
        """`x in 1..6`: two comparisons, the range never built; true of what the list would
        hold (a whole number, 2 or 2.0, from low to high)."""
        low, high = _ends(low, high, span, limit)
        return _whole(value) and low <= value <= high

    def _best(pairs: list[tuple[Any, Any]], least: bool, span: Span) -> Any:
        """argmin/argmax: the item of the least or greatest key; of equal keys, the first."""
        if not pairs:
            raise RangeError(f"{'argmin' if least else 'argmax'} of nothing: the collection is "
                             "empty", span, source)
        best = pairs[0]
        for pair in pairs[1:]:
            if (pair[0] < best[0]) if least else (pair[0] > best[0]):
                best = pair
        return best[1]

    def _figure(name: str, roll: Any, limits: Limits, span: Span) -> Any:
        """maximum, minimum or mean of a roll (a number is a roll of no dice), exactly."""
        try:
            roll = _dice_of(roll)
            if name == "mean":
                mean = roll.mean(limits)
                return values.div(mean.numerator, mean.denominator)
            low, high = roll.extremes(limits)
        except DiceError as err:
            raise DiceError(err.message, span, source) from None
        return high if name == "maximum" else low

    def _cell(value: Any, given: dict[str, Any], span: Span) -> Any:
        """A table expression worked out with the given figures a lookup names; any other cell
        is its value."""
        if not isinstance(value, CellExpression):
            return value
        missing = [p for p in value.params if p not in given]
        if missing:
            raise RangeError(f"`= {value.text}` needs {', '.join(missing)}: give "
                             f"{'it' if len(missing) == 1 else 'them'} in the lookup "
                             f"([…, {missing[0]} = …])", span, source)
        return value.evaluate(**given)

    def _given(table: Table, keys: tuple[Any, ...], given: dict[str, Any], span: Span) -> Any:
        """`t[k, walk = 6]`: the row (or the cell) with every table expression in it worked out
        with the given figures (which bands with worked-out bounds are found by, too)."""
        row = _found(table, keys, given)
        if isinstance(row, Record):
            return Record({k: _cell(v, given, span) for k, v in row._data.items()})
        return _cell(row, given, span)

    looked_up: dict[tuple[Any, ...], Any] = {}  # `_given_field`'s answers

    def _given_field(table: Table, keys: tuple[Any, ...], given: dict[str, Any], field: str,
                     span: Span) -> Any:
        """`t[k, walk = 6].time`: one field of the row, worked out with the given figures;
        remembered by them (a table and its expressions never change, and a duel asks
        `timings["SK", base_speed = …].time` at every blow). The key holds each figure's type
        (1, 1.0 and true are equal in Python, not in a rule's arithmetic)."""
        figures = tuple(given.values())
        key = (id(table), keys, field, *given, *figures, *map(type, figures))
        try:
            found = looked_up.get(key, looked_up)
        except TypeError:  # a key or figure that cannot be a key (a map): looked up each time
            return _cell(_found(table, keys, given)._data[field], given, span)
        if found is looked_up:
            found = _cell(_found(table, keys, given)._data[field], given, span)
            if len(looked_up) >= 4096:
                looked_up.clear()
            looked_up[key] = found
        return found

    return {
        "_Decimal": Decimal,
        "_div": values.div,
        "_mod": values.mod,
        "_floor": values.floor,
        "_ceil": values.ceil,
        "_round": values.round_half_up,
        "_round_half_down": values.round_half_down,
        "_round_half_even": values.round_half_even,
        "_truncate": values.truncate,
        "_ratio": values.ratio,
        "_ln": values.ln,
        "_sqrt": values.sqrt,
        "_dice": dice,
        "_dice_of": _dice_of,
        "_maximum": lambda roll, limits, span: _figure("maximum", roll, limits, span),
        "_minimum": lambda roll, limits, span: _figure("minimum", roll, limits, span),
        "_mean": lambda roll, limits, span: _figure("mean", roll, limits, span),
        "_range": _range,
        "_numbers": _numbers,
        "_in_range": _in_range,
        "_evaluation": _evaluation,
        "_items": _items,
        "_flattened": _flattened,
        "_member": _member,
        "_best": _best,
        "_sort": _sort,
        "_stat": _stat,
        "_cell": _cell,
        "_given": _given,
        "_has_entry": _has_entry,
        "_given_field": _given_field,
        "_count": _count,
        "_flatten": _flatten,
        "_aggregate": _aggregate,
        "_item": _item,
        "_field": _field,
        "_attr": _attr,
        "_cast": _cast,
        "_whole_time": _whole_time,
        "_present": _present,
        "_joined": _joined,
        "_mul": _mul,
        "_sized": _sized,
        "_Schedule": Schedule,
        **time_helpers(),
        "_Sides": Sides,
        "_is_model": is_model,
        "_hex_distance": hex_distance,
        "_hex_in_front": hex_in_front,
        "_check": _check,
        "_bind": _bind,
        "_arithmetic": _arithmetic,
        "_ARITHMETIC": ARITHMETIC,
        "_MISSING": MISSING,
        "_public": values.to_public,
        **clock_calls.HELPERS,  # the encounter's clock with events, lanes and triggers
        **order,
        **make_space_helpers(source, _spend),
    }


class _Missing:
    """The default of a formula's parameters: says an argument was not given."""

    def __repr__(self) -> str:
        return "missing"


MISSING = _Missing()


def _dice_of(value: Any) -> Dice:
    """A roll where dice are expected: a number is a roll of no dice (`if c then 0 else d6`)."""
    if isinstance(value, Dice):
        return value
    if type(value) is int or (type(value) is Decimal and value.is_finite()):
        return Dice((), value)
    raise DiceError(f"{describe(value)} is not dice or a number")


def _has_entry(table: Table, keys: tuple[Any, ...]) -> bool:
    """`has_entry(TABLE[keys])`: the lookup finds a cell that is not blank."""
    try:
        return table.get(*keys) is not None
    except RangeError:
        return False


def _found(table: Table, keys: tuple[Any, ...], given: dict[str, Any]) -> Any:
    return table.get(*keys, given=given) if given else table.get(*keys)


def _sort(pairs: list[tuple[Any, Any]], descending: bool) -> tuple[Any, ...]:
    """sort/sort_descending: the items by their keys; equal keys keep the collection's order."""
    return tuple(item for _, item in sorted(pairs, key=_key, reverse=descending))


def _key(pair: tuple[Any, Any]) -> Any:
    return pair[0]


def _whole(value: Any) -> bool:
    return type(value) is int or (type(value) is Decimal and value.is_finite()
                                  and value == value.to_integral_value())


_KINDS = {"num": "a number", "int": "a whole number", "bool": "yes or no", "name": "a name",
          "list": "a list", "map": "a map", "collection": "a list or a map",
          "dice": "dice or a number", "record": "a record", "hex": "a hex"}


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
    if kind == "hex":
        return type(value) is Hex
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
    if type(value) is Hex:
        return f"the hex {value}"
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
