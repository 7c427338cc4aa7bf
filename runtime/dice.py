"""Dice as values, and the one dice source behind every draw: seeded, scripted or enumerating."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Sequence
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Protocol, TypeVar

import attrs

from .errors import DiceError
from .limits import DEFAULT_LIMITS, Limits


@attrs.frozen
class DiceTerm:
    """`count` dice of `sides` faces, optionally keeping or dropping the highest or lowest few."""

    count: int
    sides: int
    keep: str | None = None  # "kh", "kl", "dh" or "dl"
    keep_count: int = 0
    sign: int = 1

    def __str__(self) -> str:
        count = "" if self.count == 1 else str(self.count)
        keep = f"{self.keep}{self.keep_count}" if self.keep else ""
        return f"{count}d{self.sides}{keep}"

    def kept(self, faces: Sequence[int]) -> list[int]:
        """The faces that count toward the total after keep/drop."""
        if self.keep is None:
            return list(faces)
        ordered = sorted(faces)
        n = self.keep_count
        if self.keep == "kh":
            return ordered[len(ordered) - n:] if n else []
        if self.keep == "kl":
            return ordered[:n]
        if self.keep == "dh":
            return ordered[: len(ordered) - n]
        return ordered[n:]


@attrs.frozen
class Dice:
    """A dice expression as a value: terms plus a constant, e.g. `2d4+12` or `d10 - skill`."""

    terms: tuple[DiceTerm, ...]
    constant: int | Decimal = 0
    at_least: int | Decimal | None = None  # `max(1, d10 - skill)`: "minimum one"
    at_most: int | Decimal | None = None  # `min(6, ...)`

    def __str__(self) -> str:
        text = self._sum_text()
        if self.at_least is not None:
            text = f"max({self.at_least}, {text})"
        if self.at_most is not None:
            text = f"min({self.at_most}, {text})"
        return text

    def clamped(self, at_least: Any = None, at_most: Any = None) -> Dice:
        """This roll with a floor or a ceiling on its total."""
        low = self.at_least if at_least is None else (
            at_least if self.at_least is None else max(at_least, self.at_least))
        high = self.at_most if at_most is None else (
            at_most if self.at_most is None else min(at_most, self.at_most))
        return attrs.evolve(self, at_least=low, at_most=high)

    def _clamp(self, total: Any) -> Any:
        if self.at_least is not None and total < self.at_least:
            total = self.at_least
        if self.at_most is not None and total > self.at_most:
            total = self.at_most
        return total

    def _sum_text(self) -> str:
        parts: list[str] = []
        for term in self.terms:
            text = str(term)
            if parts or term.sign < 0:
                text = ("+ " if term.sign > 0 else "- ") + text
            parts.append(text)
        if self.constant or not parts:
            if parts:
                parts.append(("+ " if self.constant > 0 else "- ") + str(abs(self.constant)))
            else:
                parts.append(str(self.constant))
        return " ".join(parts)

    @property
    def dice_count(self) -> int:
        return sum(t.count for t in self.terms)

    def __add__(self, other: object) -> Dice:
        if isinstance(other, (int, Decimal)) and not isinstance(other, bool):
            # max(1, X) + c is max(1 + c, X + c): a bound moves with the constant.
            return Dice(self.terms, self.constant + other,
                        None if self.at_least is None else self.at_least + other,
                        None if self.at_most is None else self.at_most + other)
        if self._bounded or (isinstance(other, Dice) and other._bounded):
            raise DiceError(f"cannot add dice to a roll with a minimum or maximum ({self}, "
                            f"{other}); roll them separately")
        if isinstance(other, Dice):
            return Dice(self.terms + other.terms, self.constant + other.constant)
        return NotImplemented

    __radd__ = __add__

    @property
    def _bounded(self) -> bool:
        return self.at_least is not None or self.at_most is not None

    def __neg__(self) -> Dice:
        if self._bounded:
            raise DiceError(f"cannot negate {self}; roll it first")
        return Dice(tuple(attrs.evolve(t, sign=-t.sign) for t in self.terms), -self.constant)

    def __sub__(self, other: object) -> Dice:
        if isinstance(other, Dice):
            return self + (-other)
        if isinstance(other, (int, Decimal)):
            return self + (-other)
        return NotImplemented

    def __rsub__(self, other: object) -> Dice:
        if isinstance(other, (int, Decimal)):
            return (-self) + other
        return NotImplemented

    def check(self, limits: Limits = DEFAULT_LIMITS) -> None:
        """Refuse dice too large to roll, naming the limit that was hit."""
        if (self, limits) in _CHECKED:
            return
        self._check(limits)
        if len(_CHECKED) > 10_000:
            _CHECKED.clear()
        _CHECKED.add((self, limits))

    def _check(self, limits: Limits) -> None:
        if self.dice_count > limits.dice_per_roll:
            raise DiceError(
                f"{self} rolls {self.dice_count} dice; the limit is {limits.dice_per_roll} per roll"
            )
        for term in self.terms:
            if term.sides < 1 or term.sides > limits.sides_per_die:
                raise DiceError(
                    f"{term} has {term.sides} sides; dice need 1 to {limits.sides_per_die} sides"
                )
            if term.keep and not 0 <= term.keep_count <= term.count:
                raise DiceError(f"{term} keeps or drops {term.keep_count} of {term.count} dice")

    def total(self, faces: Sequence[int]) -> int | Decimal:
        """The total of this expression for the given faces, one per die in order."""
        total = self.constant
        it = iter(faces)
        for term in self.terms:
            rolled = [next(it) for _ in range(term.count)]
            total += term.sign * sum(term.kept(rolled))
        return self._clamp(total)

    def distribution(self, limits: Limits = DEFAULT_LIMITS) -> tuple[tuple[Any, Fraction], ...]:
        """Every total with its exact probability, lowest total first."""
        self.check(limits)
        work = sum(t.count * t.sides * t.count * t.sides for t in self.terms if t.keep is None)
        if work > limits.distribution_work:
            raise DiceError(f"{self} is too large to work out exactly (the distribution_work "
                            f"limit); roll it with a seed instead")
        return _distribution(self, limits.keep_drop_outcomes)


_CHECKED: set[tuple[Dice, Limits]] = set()


def dice(count: int, sides: int) -> Dice:
    """`dice(n, s)` in a rule: n dice of s sides, for counts computed at play time."""
    if count < 0:
        raise DiceError(f"cannot roll {count} dice")
    return Dice((DiceTerm(count, sides),)) if count else Dice(())


@lru_cache(maxsize=512)
def _distribution(d: Dice, keep_drop_outcomes: int) -> tuple[tuple[Any, Fraction], ...]:
    # Counts of equally likely face combinations, as integers (fast), divided out at the end.
    counts: dict[Any, int] = {d.constant: 1}
    ways = 1
    for term in d.terms:
        term_counts = _term_counts(term, keep_drop_outcomes)
        counts = _convolve(counts, term_counts, term.sign)
        ways *= term.sides ** term.count
    clamped: dict[Any, int] = {}
    for total, n in counts.items():
        key = d._clamp(total)
        clamped[key] = clamped.get(key, 0) + n
    return tuple((total, Fraction(n, ways)) for total, n in sorted(clamped.items()))


def _term_counts(term: DiceTerm, keep_drop_outcomes: int) -> dict[int, int]:
    """How many face combinations give each total of one term."""
    if term.keep is None:
        single = {face: 1 for face in range(1, term.sides + 1)}
        out: dict[int, int] = {0: 1}
        for _ in range(term.count):
            out = _convolve(out, single, 1)
        return out
    if term.sides**term.count > keep_drop_outcomes:
        raise DiceError(
            f"{term} has {term.sides ** term.count} outcomes to enumerate; "
            f"the limit is {keep_drop_outcomes}"
        )
    out = {}
    for faces in itertools.product(range(1, term.sides + 1), repeat=term.count):
        total = sum(term.kept(faces))
        out[total] = out.get(total, 0) + 1
    return out


def _convolve(a: dict[Any, int], b: dict[Any, int], sign: int) -> dict[Any, int]:
    out: dict[Any, int] = {}
    for x, nx in a.items():
        for y, ny in b.items():
            key = x + sign * y
            out[key] = out.get(key, 0) + nx * ny
    return out


class DiceSource(Protocol):
    """Where every random number comes from: `roll` returns the total and the faces drawn."""

    def roll(self, dice: Dice) -> tuple[int | Decimal, tuple[int, ...]]: ...


class SeededDice:
    """Reproducible random dice: the same seed gives the same faces on every machine."""

    def __init__(self, seed: int | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        self.seed = seed
        self.limits = limits
        self._random = random.Random(seed)

    def roll(self, dice: Dice) -> tuple[int | Decimal, tuple[int, ...]]:
        dice.check(self.limits)
        randint = self._random.randint
        if len(dice.terms) == 1 and dice.terms[0].count == 1 and dice.terms[0].keep is None:
            # one plain die: the common case
            face = randint(1, dice.terms[0].sides)
            return dice._clamp(dice.terms[0].sign * face + dice.constant), (face,)
        faces = tuple(randint(1, t.sides) for t in dice.terms for _ in range(t.count))
        return dice.total(faces), faces


class ScriptedDice:
    """Dice results given in advance, one value per die, consumed in order."""

    def __init__(self, results: Sequence[int], limits: Limits = DEFAULT_LIMITS) -> None:
        self.results = list(results)
        wrong = [r for r in self.results if type(r) is not int]
        if wrong:
            raise DiceError(f"scripted dice are whole numbers, one per die; got {wrong[0]!r}")
        self.used = 0
        self.limits = limits

    def roll(self, dice: Dice) -> tuple[int | Decimal, tuple[int, ...]]:
        dice.check(self.limits)
        faces: list[int] = []
        for term in dice.terms:
            for _ in range(term.count):
                if self.used >= len(self.results):
                    given = ", ".join(str(r) for r in self.results) or "none"
                    raise DiceError(
                        f"the scripted dice ran out: a d{term.sides} was needed after all "
                        f"{len(self.results)} given results were used ({given})"
                    )
                value = self.results[self.used]
                if not 1 <= value <= term.sides:
                    raise DiceError(
                        f"scripted result {value} (number {self.used + 1}) cannot come from "
                        f"a d{term.sides}"
                    )
                self.used += 1
                faces.append(value)
        return dice.total(faces), tuple(faces)

    @property
    def unused(self) -> list[int]:
        return self.results[self.used:]


class PathDice:
    """One path through an enumeration: replays chosen totals and records how to branch."""

    def __init__(self, path: list[int], limits: Limits = DEFAULT_LIMITS) -> None:
        self.path = path
        self.branching: list[int] = []
        self.position = 0
        self.probability = Fraction(1)
        self.limits = limits

    def roll(self, dice: Dice) -> tuple[int | Decimal, tuple[int, ...]]:
        dist = dice.distribution(self.limits)
        if self.position == len(self.path):
            self.path.append(0)
        index = self.path[self.position]
        self.branching.append(len(dist))
        self.position += 1
        total, probability = dist[index]
        self.probability *= probability
        return total, ()


T = TypeVar("T")


def enumerate_paths(
    run_once: Callable[[PathDice], T], limits: Limits = DEFAULT_LIMITS
) -> Iterator[tuple[Fraction, T]]:
    """Run `run_once` once per path of roll totals, yielding each path's exact probability."""
    path: list[int] = []
    count = 0
    while True:
        count += 1
        if count > limits.enumeration_paths:
            raise DiceError(
                f"enumeration needs more than {limits.enumeration_paths} paths "
                "(the enumeration_paths limit)"
            )
        source = PathDice(path, limits)
        result = run_once(source)
        if count == 1 and math.prod(source.branching) > limits.enumeration_paths:
            # The rolls along one path already make more combinations than the limit allows.
            raise DiceError(f"enumeration would need about {math.prod(source.branching)} paths; "
                            f"the enumeration_paths limit is {limits.enumeration_paths}")
        yield source.probability, result
        path = source.path[: source.position]
        branching = source.branching
        while path and path[-1] + 1 >= branching[len(path) - 1]:
            path.pop()
        if not path:
            return
        path[-1] += 1
