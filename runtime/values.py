"""Exact numbers and the seeds' rounding modes, shared by generated code and tables."""

from __future__ import annotations

import decimal
import math
import re
import unicodedata
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any, TypeGuard

from .errors import NoAnswer

# One context for every rule computation: 28 significant digits keeps products of printed
# one- and two-decimal figures exact, so a floor taken after them is never off by one.
CONTEXT = decimal.Context(prec=28, rounding=decimal.ROUND_HALF_EVEN)
decimal.setcontext(CONTEXT)

Number = int | Decimal


def num(text: str) -> Number:
    """A number as printed in a rule file: `12` is an int, `2.8` an exact Decimal."""
    if "." in text:
        return Decimal(text)
    return int(text)


class NotARuleValue(NoAnswer):
    """A value handed in from Python that no rule could hold (a function, a module, nan)."""


_PLAIN = (bool, int, str, type(None))


def to_internal(value: Any, depth: int = 20) -> Any:
    """Read a value handed in by a Python caller as a rule value: floats through their shortest
    repr, lists as tuples; anything a rule could not hold (a function, an object, nan, a list
    nested past `depth`) raises NotARuleValue, so no rule ever reaches a Python object."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is float or kind is Decimal:
        if not math.isfinite(value):
            raise NotARuleValue(f"{value} is not a number a rule can use")
        if kind is Decimal:
            return int(value) if value == value.to_integral_value() else value
        exact = Decimal(repr(value))  # 5.4 is 5.4, 1e300 is 10**300: what the caller wrote
        return int(exact) if value.is_integer() else exact
    if isinstance(value, Fraction):
        return Decimal(value.numerator) / value.denominator
    if depth <= 0 and kind in (list, tuple, dict):
        raise NotARuleValue("the value is nested too deeply")
    if kind is list or kind is tuple:
        return tuple(to_internal(v, depth - 1) for v in value)
    if kind is dict:
        return {to_internal(k, depth - 1): to_internal(v, depth - 1) for k, v in value.items()}
    if isinstance(value, _rule_classes()):
        return value
    raise NotARuleValue(f"a {kind.__name__} is not a value a rule can use (give numbers, names, "
                        "yes/no, dice, lists or maps)")


def _rule_classes() -> tuple[type, ...]:
    """The runtime's own value classes (imported late: they import this module)."""
    global _RULE_CLASSES
    if not _RULE_CLASSES:
        from .combatants import Combatant
        from .dice import Dice
        from .space import Hex
        from .tables import Record
        _RULE_CLASSES = (Dice, Record, Combatant, Hex)
    return _RULE_CLASSES


_RULE_CLASSES: tuple[type, ...] = ()


# Python will not turn an integer of more than 4300 digits into text; a rule's result never
# needs a tenth of that.
_DIGITS = 1000
_LARGEST = 10 ** _DIGITS


def to_public(value: Any) -> Any:
    """A value handed back to a Python caller: integral numbers as int, others as float."""
    if type(value) is int and not -_LARGEST < value < _LARGEST:
        raise NoAnswer(f"the result has more than {_DIGITS} digits")
    if type(value) is Decimal:
        if value == value.to_integral_value():
            return int(value)
        return float(value)
    if type(value) is tuple:
        return tuple(to_public(v) for v in value)
    if type(value) is list:
        return [to_public(v) for v in value]
    if type(value) is dict:
        return {k: to_public(v) for k, v in value.items()}
    return value


def div(a: Number, b: Number) -> Number:
    """True division, exact where the quotient terminates; integral results stay int."""
    if b == 0:
        raise ZeroDivisionError("division by zero")
    if type(a) is int and type(b) is int and a % b == 0:
        return a // b
    return Decimal(a) / Decimal(b)


def mod(a: Number, b: Number) -> Number:
    """`a mod b`: what is left after taking whole b's from a, with the sign of b (the remainder of
    floored division, so `-7 mod 3` is 2 and `roll mod 2 == 0` reads "even" for every roll)."""
    if b == 0:
        raise ZeroDivisionError("division by zero")
    if type(a) is int and type(b) is int:
        return a % b
    left = Decimal(a) % Decimal(b)  # Decimal's remainder takes the sign of a
    return left + b if left and (left < 0) != (b < 0) else left


_EXPONENTS = {places: Decimal(1).scaleb(-places) for places in range(-6, 13)}


def _quantize(x: Number, places: int, mode: str, name: str) -> Number:
    if type(x) is int and places >= 0:
        return x
    exp = _EXPONENTS.get(places) or Decimal(1).scaleb(-places)
    value = x if type(x) is Decimal else Decimal(x)
    try:
        out = value.quantize(exp, rounding=mode, context=CONTEXT)
    except decimal.InvalidOperation:  # more digits than a calculation keeps
        if places > 0 or not value.is_finite() or value.adjusted() >= _DIGITS:
            raise NoAnswer(_too_many_places(value, places, name)) from None
        # To a whole number, every digit is kept: rulecraft's integers are exact.
        wide = decimal.Context(prec=value.adjusted() + 2, rounding=mode)
        out = value.quantize(exp, context=wide)
    if places <= 0:
        return int(out)
    return out


def _too_many_places(value: Decimal, places: int, name: str) -> str:
    """Why `value` cannot be rounded to `places` decimal places, in words."""
    kept = CONTEXT.prec
    to = f"{name} to {places} decimal place{'s' if places != 1 else ''}" if places > 0 else name
    before = value.adjusted() + 1  # digits before the point
    if before > _DIGITS:
        return f"{to}: the result would have more than {_DIGITS} digits"
    if before > 0 and places < kept:
        return (f"{to}: the number is too large to round to {places} decimal "
                f"place{'s' if places != 1 else ''} ({before} digits before the point, and a "
                f"calculation keeps {kept} digits in all)")
    return f"{to}: a calculation keeps {kept} digits in all, so it cannot round to so many places"


def _plain_whole(x: Number, places: int) -> TypeGuard[Decimal]:
    """Whether floor, ceil or round of `x` to `places` is a whole number of a finite Decimal of
    fewer than `_DIGITS` digits: worked out in one step (`math.floor`, `to_integral_value`),
    the answer `_quantize` finds at a fraction of its cost; any other goes to `_quantize`
    (which refuses, saying why)."""
    return not places and type(x) is Decimal and x.is_finite() and x.adjusted() < _DIGITS


def floor(x: Number, places: int = 0) -> Number:
    """`floor`: round toward minus infinity ("rounded down")."""
    if type(x) is int:
        return x
    if _plain_whole(x, places):
        return math.floor(x)
    return _quantize(x, places, decimal.ROUND_FLOOR, "floor")


def ceil(x: Number, places: int = 0) -> Number:
    """`ceil`: round toward plus infinity ("round up")."""
    if type(x) is int:
        return x
    if _plain_whole(x, places):
        return math.ceil(x)
    return _quantize(x, places, decimal.ROUND_CEILING, "ceil")


def round_half_up(x: Number, places: int = 0) -> Number:
    """`round`: to the nearest, halves away from zero ("rounding normally", "Round 0.5 up")."""
    if _plain_whole(x, places):
        return int(x.to_integral_value(decimal.ROUND_HALF_UP))
    return _quantize(x, places, decimal.ROUND_HALF_UP, "round")


def round_half_down(x: Number, places: int = 0) -> Number:
    """`round_half_down`: to the nearest, halves toward zero ("rounding halves down")."""
    if _plain_whole(x, places):
        return int(x.to_integral_value(decimal.ROUND_HALF_DOWN))
    return _quantize(x, places, decimal.ROUND_HALF_DOWN, "round_half_down")


def round_half_even(x: Number, places: int = 0) -> Number:
    """`round_half_even`: banker's rounding, for systems that print it."""
    return _quantize(x, places, decimal.ROUND_HALF_EVEN, "round_half_even")


def truncate(x: Number, places: int = 0) -> Number:
    """`truncate`: drop the fraction (toward zero)."""
    return _quantize(x, places, decimal.ROUND_DOWN, "truncate")


def ratio(a: Number, b: Number, rounding: str) -> Number:
    """`floor(a / b)`, `round(a / b)`, …: for whole numbers of a plain size, worked out in
    whole numbers (a blow's damage factor, every blow), with the answers of the division's
    exact quotient rounded; any other as `div` and the rounding give it. (Within these sizes
    the 28 digits a division keeps hold the quotient closer than any half it could round to.)"""
    if type(a) is not int or type(b) is not int or not b or \
            not -_PLAIN_DIVIDEND < a < _PLAIN_DIVIDEND or not -_PLAIN_DIVISOR < b < _PLAIN_DIVISOR:
        return _ROUNDED[rounding](div(a, b))
    if b < 0:
        a, b = -a, -b
    whole, left = divmod(a, b)  # whole <= a / b < whole + 1
    if not left:
        return whole
    if rounding == "floor":
        return whole
    if rounding == "ceil":
        return whole + 1
    if rounding == "truncate":  # toward zero: up from below zero
        return whole + (a < 0)
    twice = 2 * left  # against b: below or past the half, to the nearest
    if twice != b:
        return whole + (twice > b)
    if rounding == "round":  # a half: away from zero
        return whole + (a > 0)
    if rounding == "round_half_down":  # toward zero
        return whole + (a < 0)
    return whole + whole % 2  # round_half_even: to the even one


_PLAIN_DIVIDEND, _PLAIN_DIVISOR = 10 ** 15, 10 ** 6


def ln(x: Number) -> Decimal:
    """Natural logarithm in double precision (it is irrational anyway), as an exact Decimal.

    Decimal's own ln to 28 digits costs ~30 µs; a double is accurate to 1e-16, far finer than
    any rounding a rule applies after it. A number past a double's range (above ~10^308, or
    so near zero a double holds 0) takes Decimal's.
    """
    if x <= 0:
        raise NoAnswer(f"ln({display(x)}): the logarithm needs a number above zero")
    if type(x) is Decimal and (math.isinf(float(x)) or float(x) == 0.0):
        return x.ln(CONTEXT)
    return Decimal(math.log(x))  # an int of any size too


def sqrt(x: Number) -> Number:
    """Square root; exact squares of integers stay int."""
    if x < 0:
        raise NoAnswer(f"sqrt({display(x)}): a square root needs a number of zero or more")
    root = Decimal(x).sqrt(CONTEXT)
    return int(root) if root == root.to_integral_value() else root


def display(value: Any) -> str:
    """How a value is written on a sheet or in a trace: as the book prints it."""
    kind = type(value)
    if kind is str:  # most of a fight's log: names and whole numbers, written as they are
        return value
    if kind is int:
        return str(value)
    if value is None:
        return ""
    if kind is Decimal:
        return format(value.normalize(), "f") if value != value.to_integral_value() else str(int(value))
    if kind is bool:
        return "yes" if value else "no"
    if isinstance(value, (tuple, list)):
        return ", ".join(display(v) for v in value) or "nothing"
    if isinstance(value, dict):
        return "; ".join(f"{display(k)}: {display(v)}" for k, v in value.items()) or "nothing"
    return str(value)


def field_name(label: str) -> str:
    """A printed column header as a field's name: `Walk` → walk, `Armour Factor` →
    armour_factor, `Chest/Upper back` → chest_upper_back. The one spelling rule for fields."""
    found = _FIELD_NAMES.get(label)  # read again and again at play (`armour[area]`)
    if found is None:
        folded = unicodedata.normalize("NFKC", label.strip())  # `ﬁles` is the field `files`
        found = re.sub(r"\W+", "_", folded.lower()).strip("_") or "value"
        if len(_FIELD_NAMES) < 10_000:
            _FIELD_NAMES[label] = found
    return found


_FIELD_NAMES: dict[str, str] = {}


def match_name(value: Any, members: Any) -> Any:
    """`value` as one of `members`, forgiving only letter case ("standard" → "Standard");
    None when no member, or more than one, matches."""
    if not isinstance(value, str):
        return None
    folded = value.casefold()
    found = [m for m in members if isinstance(m, str) and m.casefold() == folded]
    return found[0] if len(found) == 1 else None


_ROUNDED: dict[str, Callable[[Number], Number]] = {
    "floor": floor, "ceil": ceil, "round": round_half_up, "round_half_down": round_half_down,
    "round_half_even": round_half_even, "truncate": truncate}
