"""Dice written as text from Python: `rulecraft.dice("4d6kh3")`, `rulecraft.roll("1d20+5")`.

A text is read once and kept (the same text is the same `Dice` value after), by a small reader
of what people type — dice (`3d6`, `d%`, `4d6kh3`) and whole numbers joined by `+` and `-` —
so rolling from Python never waits on the rule parser. Anything it does not read goes to the
rule language's own dice reader (`compiler/evaluate.parse_dice_text`), which reads the rest or
says, with a caret, what is wrong.
"""

from __future__ import annotations

import re
import threading
from typing import Any, NamedTuple

from .dice import Dice, DiceTerm, SeededDice
from .errors import DiceError
from .limits import DEFAULT_LIMITS, Limits

_TERM = re.compile(r"\s*([+-]?)\s*(?:(\d*)d(\d+|%)(?:(kh|kl|dh|dl)(\d+))?|(\d+))\s*")


def read_dice(text: str, limits: Limits = DEFAULT_LIMITS) -> Dice | None:
    """`text` as dice, if it is dice and whole numbers joined by + and - (else None)."""
    at, terms, constant = 0, [], 0
    while at < len(text):
        m = _TERM.match(text, at)
        if m is None or m.end() == at or (at and not m.group(1)) or \
                max(len(g) for g in m.groups("")) > limits.number_digits:
            return None
        sign = -1 if m.group(1) == "-" else 1
        if m.group(6) is not None:
            constant += sign * int(m.group(6))
        else:
            sides = 100 if m.group(3) == "%" else int(m.group(3))
            terms.append(DiceTerm(int(m.group(2) or 1), sides, m.group(4),
                                  int(m.group(5) or 0), sign))
        at = m.end()
    return Dice(tuple(terms), constant) if terms or at else None


_READ: dict[tuple[str, Limits], Dice] = {}
_LOCK = threading.Lock()


def dice(text: str, limits: Limits = DEFAULT_LIMITS) -> Dice:
    """The dice a text stands for (`"4d6kh3"`, `"2d4+12"`, `"d20 + 5"`), read once and kept:
    a `Dice` value with its exact distribution (`.distribution()`, `.odds()`,
    `.chance_at_least(15)`), its extremes and mean. A text that is not dice is a DiceError."""
    found = _READ.get((text, limits))
    if found is not None:
        return found
    if not isinstance(text, str):
        raise DiceError(f"dice are written as text, such as '2d6+1', not {type(text).__name__}")
    found = read_dice(text, limits)
    if found is None:
        from rulecraft.compiler.evaluate import parse_dice_text  # the rule language's reader

        found = parse_dice_text(text, limits)
    found.check(limits)
    with _LOCK:
        if len(_READ) > 4096:
            _READ.clear()
        _READ[(text, limits)] = found
    return found


class Roll(NamedTuple):
    """One roll of dice written as text: its total, every die's face, and the dice."""

    total: Any
    faces: tuple[int, ...]
    dice: Dice

    def __int__(self) -> int:
        return int(self.total)

    def __str__(self) -> str:
        return f"{self.dice}: {', '.join(map(str, self.faces)) or 'no dice'} → {self.total}"


_UNSEEDED = SeededDice(None)


def roll(text: str, seed: int | None = None, limits: Limits = DEFAULT_LIMITS) -> Roll:
    """Roll dice written as text: `roll("1d20+5")`, or `roll("4d6kh3", seed=7)` for the same
    faces every time (those `SeededDice(7)` would give)."""
    rolled = dice(text, limits)
    if seed is not None:
        source = SeededDice(seed, limits)
    else:
        source = _UNSEEDED if limits == DEFAULT_LIMITS else SeededDice(None, limits)
    total, faces = source.roll(rolled)
    return tuple.__new__(Roll, (total, faces, rolled))


__all__ = ["Roll", "dice", "read_dice", "roll"]
