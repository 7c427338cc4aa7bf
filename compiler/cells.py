"""Read table cells as printed: numbers, d100 ranges, open bands, records, dice, names."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from rulecraft.runtime.dice import Dice, DiceTerm
from rulecraft.runtime.tables import Band, IntRange
from rulecraft.runtime.values import field_name, num

_NUM = r"[-−]?\d+(?:\.\d+)?"
# A number cell may print its sign: Ringing Steel's lance table prints "+10", "+0" and "-2".
INT_RE = re.compile(r"^[-−+]?\d+$")
NUM_RE = re.compile(r"^[-−+]?\d+(?:\.\d+)?$")
RANGE_RE = re.compile(rf"^({_NUM})\s*(?:[-–—]|to)\s*({_NUM})$")
UP_RE = re.compile(rf"^({_NUM})\s*(?:and up|and over|\+|or more)$")
DOWN_RE = re.compile(rf"^({_NUM})\s*(?:and down|and under|or less)$")
ABOVE_RE = re.compile(rf"^(?:>|above|over|more than)\s*({_NUM})$")
BELOW_RE = re.compile(rf"^(?:<|below|under|less than)\s*({_NUM})$")
AT_LEAST_RE = re.compile(rf"^>=\s*({_NUM})$")
AT_MOST_RE = re.compile(rf"^<=\s*({_NUM})$")
DICE_RE = re.compile(r"^(\d*)d(\d+)(?:(kh|kl|dh|dl)(\d+))?(?:\s*([+-])\s*(\d+))?$")
# BT: "If it is irregular damage it will be fully written out as [constant] + XdY."
CONSTANT_FIRST_RE = re.compile(r"^(\d+)\+(\d*d\d+(?:(?:kh|kl|dh|dl)\d+)?)$")
MARKED_RE = re.compile(rf"^({_NUM})\s*(\S*)$")
RECORD_RE = re.compile(rf"^{_NUM}(?:\s*/\s*{_NUM})+$")


def number(text: str) -> Any:
    return num(text.replace("−", "-"))


def parse_int_key(text: str, high: int | None) -> int | IntRange | None:
    """`5`, `01-10`, `99-00` (00 is 100 when the key runs to 100)."""
    text = text.strip()

    def value(part: str) -> int:
        if high == 100 and part == "00":
            return 100
        return int(part.replace("−", "-"))

    if INT_RE.match(text):
        return value(text)
    m = RANGE_RE.match(text)
    if m and INT_RE.match(m.group(1)) and INT_RE.match(m.group(2)):
        low, top = value(m.group(1)), value(m.group(2))
        return IntRange(low, top) if low <= top else None
    return None


def parse_band(text: str) -> Band | None:
    """Numeric bands: `0.1–1.9`, `8 and up`, `>75`, `below -10`, `-10 – 0`, or a single number."""
    text = text.strip()
    if NUM_RE.match(text):
        n = number(text)
        return Band(n, n)
    m = RANGE_RE.match(text)
    if m:
        low, high = number(m.group(1)), number(m.group(2))
        return Band(low, high) if low <= high else None
    for pattern, make in (
        (UP_RE, lambda n: Band(n, None)),
        (AT_LEAST_RE, lambda n: Band(n, None)),
        (DOWN_RE, lambda n: Band(None, n)),
        (AT_MOST_RE, lambda n: Band(None, n)),
        (ABOVE_RE, lambda n: Band(n, None, low_inclusive=False)),
        (BELOW_RE, lambda n: Band(None, n, high_inclusive=False)),
    ):
        m = pattern.match(text)
        if m:
            return make(number(m.group(1)))
    return None


def parse_dice(text: str) -> Dice | None:
    """`d20`, `3d6`, `2d4+12`, `4d6kh3`, `d%` (d100), and the constant first: `3 + 1d6`."""
    text = text.replace(" ", "").replace("d%", "d100")
    first = CONSTANT_FIRST_RE.match(text)
    if first:
        dice = parse_dice(first.group(2))
        return None if dice is None else dice + int(first.group(1))
    m = DICE_RE.match(text)
    if not m:
        return None
    count = int(m.group(1) or 1)
    term = DiceTerm(count, int(m.group(2)), m.group(3), int(m.group(4) or 0))
    constant = int(m.group(6) or 0) * (-1 if m.group(5) == "-" else 1)
    return Dice((term,), constant)


def parse_record(text: str) -> tuple[Any, ...] | None:
    """`3/-4/-5`: numbers separated by slashes."""
    if not RECORD_RE.match(text.strip()):
        return None
    return tuple(number(part.strip()) for part in text.split("/"))


def infer(text: str) -> tuple[str, Any]:
    """A record-table cell's kind and value when its column declares no type."""
    text = text.strip()
    if not text:
        return "blank", None
    if NUM_RE.match(text):
        value = number(text)
        return ("int" if isinstance(value, int) else "num"), value
    dice = parse_dice(text)
    if dice is not None:
        return "dice", dice
    return "name", text


@attrs.frozen
class Notation:
    """A rulebook's own way of printing dice: a number and a mark, the mark standing for dice
    added to it (BT: "If a * follows then 2d6 are added")."""

    name: str
    marks: Mapping[str, Dice]  # "" is a bare number

    def read(self, text: str) -> Dice | None:
        """`12*` as 12 + 2d6; dice written out (`3 + 1d6`, `3d6`) as themselves."""
        m = MARKED_RE.match(text.strip())
        if m and m.group(2) in self.marks:
            return self.marks[m.group(2)] + number(m.group(1))
        if m and not m.group(2):  # no mark and none declared for a bare number: a fixed amount
            return Dice((), number(m.group(1)))
        return parse_dice(text)

    def examples(self, base: int = 12) -> str:
        """The marks as the book prints them: `12, 12*, 12^`."""
        return ", ".join(f"{base}{mark}" for mark in self.marks)


snake = field_name  # the runtime's rule, so records read the fields the compiler named
