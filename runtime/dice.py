"""Dice as values, and the one dice source behind every draw: seeded, scripted or enumerating."""

from __future__ import annotations

import itertools
import math
import random
import threading
from collections.abc import Iterator, Sequence
from decimal import Decimal
from fractions import Fraction
from operator import add, mul
from typing import Any, Callable, Protocol, TypeVar

import attrs

from .errors import DiceError, RangeError
from .limits import DEFAULT_LIMITS, Limits


@attrs.frozen(cache_hash=True)
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


@attrs.frozen(cache_hash=True)
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
        for bound in (at_least, at_most):
            if bound is not None:
                _finite(bound, f"a bound on {self}")
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
            _finite(other, f"a number added to {self}")
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

    def extremes(self, limits: Limits = DEFAULT_LIMITS) -> tuple[Any, Any]:
        """The least and the greatest total this roll can show (`minimum(d)`, `maximum(d)`),
        worked out from the dice, never by rolling."""
        self.check(limits)
        low = high = self.constant
        for term in self.terms:
            shown = len(term.kept([1] * term.count))  # the dice that count after keep/drop
            least, most = shown, shown * term.sides
            if term.sign < 0:
                least, most = -most, -least
            low, high = low + least, high + most
        return self._clamp(low), self._clamp(high)  # a floor or a ceiling is monotonic

    def mean(self, limits: Limits = DEFAULT_LIMITS) -> Fraction:
        """The average total, exactly (`mean(d)`): (sides + 1) / 2 a plain die; a kept or
        dropped term, or a roll with a minimum or maximum, from its exact distribution."""
        self.check(limits)
        if self._bounded:
            counts = self.counts(limits)
            ways = sum(Fraction(t) * n for t, n in zip(counts.totals, counts.counts))
            return ways / counts.ways
        total = Fraction(self.constant)
        for term in self.terms:
            if term.keep is None:
                average = Fraction(term.count * (term.sides + 1), 2)
            else:
                low, counts, _ = _term_counts(term, limits.keep_drop_outcomes)
                average = Fraction(sum((low + i) * n for i, n in enumerate(counts)), sum(counts))
            total += term.sign * average
        return total

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
                f"{self} rolls {self.dice_count} dice; the limit is {limits.dice_per_roll} per roll "
                f"{Limits.hint('dice_per_roll')}")
        for term in self.terms:
            if term.sides < 1 or term.sides > limits.sides_per_die:
                hint = f" {Limits.hint('sides_per_die')}" if term.sides > 1 else ""
                raise DiceError(f"{term} has {term.sides} sides; dice need 1 to "
                                f"{limits.sides_per_die} sides{hint}")
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
        return self.counts(limits).fractions()

    def odds(self, limits: Limits = DEFAULT_LIMITS) -> dict[Any, Fraction]:
        """Each total's exact probability, as a dict (lowest total first)."""
        return dict(self.distribution(limits))

    def chance_at_least(self, total: Any, limits: Limits = DEFAULT_LIMITS) -> Fraction:
        """The exact chance of rolling `total` or more (`d20 + 5` hitting 15)."""
        counts = self.counts(limits)
        return Fraction(sum(n for t, n in zip(counts.totals, counts.counts) if t >= total),
                        counts.ways)

    def chance_at_most(self, total: Any, limits: Limits = DEFAULT_LIMITS) -> Fraction:
        """The exact chance of rolling `total` or less (`d100` under a skill of 45)."""
        counts = self.counts(limits)
        return Fraction(sum(n for t, n in zip(counts.totals, counts.counts) if t <= total),
                        counts.ways)

    def counts(self, limits: Limits = DEFAULT_LIMITS) -> Counts:
        """Every total with the number of equally likely ways to roll it (exact, cached)."""
        self.check(limits)
        work = self._work()
        if work > limits.distribution_work:
            raise DiceError(f"{self} is too large to work out exactly: it needs {work} of "
                            f"distribution_work, the limit is {limits.distribution_work} "
                            f"{Limits.hint('distribution_work')}; roll it with a seed instead")
        return _cached_counts(self, limits.keep_drop_outcomes)

    def _work(self) -> int:
        # Each term counts as (dice × sides)², what one convolution per die cost, so the default
        # refuses what it always refused (the counting below does far less); joining terms of
        # different dice costs the product of their numbers of totals.
        work = sum((t.count * t.sides) ** 2 for t in self.terms if t.keep is None)
        width = 1
        for term_width in _term_widths(self.terms):
            work += width * term_width if width > 1 and term_width > 1 else 0
            width += term_width - 1
        return work


_CHECKED: set[tuple[Dice, Limits]] = set()


def _whole(value: Any) -> bool:
    return type(value) is int or (type(value) is Decimal and value.is_finite()
                                  and value == value.to_integral_value())


def _finite(value: Any, what: str) -> None:
    if type(value) is Decimal and not value.is_finite():
        raise DiceError(f"{what} is {value}, not a number dice can use")


def dice(count: Any, sides: Any) -> Dice:
    """`dice(n, s)` in a rule: n dice of s sides, for counts computed at play time."""
    if not (_whole(count) and _whole(sides)):  # never nan, infinity or a fraction of a die
        raise DiceError(f"dice({count}, {sides}) needs whole numbers of dice and sides")
    count, sides = int(count), int(sides)
    if count < 0:
        raise DiceError(f"cannot roll {count} dice")
    return Dice((DiceTerm(count, sides),)) if count else Dice(())


class Counts:
    """A roll's exact distribution as integers: each total and how many of `ways` give it."""

    __slots__ = ("totals", "counts", "ways", "cost", "_fractions", "_shifted")

    def __init__(self, totals: tuple[Any, ...], counts: tuple[int, ...], ways: int,
                 cost: int) -> None:
        self.totals = totals
        self.counts = counts
        self.ways = ways
        self.cost = cost  # big-integer operations it took; an enumeration is charged for them
        self._fractions: tuple[tuple[Any, Fraction], ...] | None = None
        self._shifted: dict[Any, Counts] | None = None

    def __len__(self) -> int:
        return len(self.totals)

    def shifted(self, by: Any) -> Counts:
        """The same roll with `by` added to every total (a running sum rolled onto: the same
        ways, the totals moved), made once per amount and kept with these counts."""
        made = self._shifted
        if made is None:
            made = self._shifted = {}
        # 2, 2.0 and Decimal("2.00") are equal keys, but give totals that print differently
        key = by if type(by) is int else (type(by), str(by))
        found = made.get(key)
        if found is None:
            if len(made) * len(self.totals) >= 100_000:  # a sum can take many values
                made.clear()
            found = made[key] = Counts(tuple(t + by for t in self.totals), self.counts,
                                       self.ways, 0)
        return found

    def fractions(self) -> tuple[tuple[Any, Fraction], ...]:
        """(total, probability) pairs; equal counts (mirrored totals) share one Fraction."""
        if self._fractions is None:
            made: dict[int, Fraction] = {}
            for n in self.counts:
                if n not in made:
                    made[n] = Fraction(n, self.ways)
            self._fractions = tuple((t, made[n]) for t, n in zip(self.totals, self.counts))
        return self._fractions


# Distributions are cached by size, not by number: one 200d150 holds 29,801 big integers.
_CACHE: dict[tuple[Dice, int], Counts] = {}
_CACHE_BUDGET = 600_000  # totals held across cached distributions
_CACHE_LOCK = threading.Lock()
_cache_held = 0


def _cached_counts(d: Dice, keep_drop_outcomes: int) -> Counts:
    global _cache_held
    key = (d, keep_drop_outcomes)
    with _CACHE_LOCK:
        found = _CACHE.pop(key, None)  # taken out and put back: the dict keeps the latest last
        if found is not None:
            _CACHE[key] = found
            return found
    found = _count(d, keep_drop_outcomes)
    with _CACHE_LOCK:
        if key not in _CACHE:
            _cache_held += len(found)
        _CACHE[key] = found
        while _cache_held > _CACHE_BUDGET and len(_CACHE) > 1:
            _cache_held -= len(_CACHE.pop(next(iter(_CACHE))))
    return found


def _count(d: Dice, keep_drop_outcomes: int) -> Counts:
    # Terms of the same die and sign are one term (d6 + 2d6 is 3d6); the rest are convolved.
    low, counts, cost = 0, [1], 0
    for term in _merged(d.terms):
        term_low, term_counts, term_cost = _term_counts(term, keep_drop_outcomes)
        if term.sign < 0:
            term_low, term_counts = -(term_low + len(term_counts) - 1), term_counts[::-1]
        cost += term_cost + (len(counts) * len(term_counts) if len(counts) > 1 else 0)
        low, counts = low + term_low, _convolve(counts, term_counts)
    ways = math.prod(t.sides**t.count for t in d.terms)
    if not d._bounded:
        pairs = [(d.constant + (low + i), n) for i, n in enumerate(counts) if n]
        return Counts(tuple(t for t, _ in pairs), tuple(n for _, n in pairs), ways,
                      cost + len(pairs))
    clamped: dict[Any, int] = {}
    for i, n in enumerate(counts):
        if n:
            key = d._clamp(d.constant + (low + i))
            clamped[key] = clamped.get(key, 0) + n
    totals = sorted(clamped)
    return Counts(tuple(totals), tuple(clamped[t] for t in totals), ways, cost + len(totals))


def _merged(terms: tuple[DiceTerm, ...]) -> list[DiceTerm]:
    plain: dict[tuple[int, int], int] = {}
    kept: list[DiceTerm] = []
    for term in terms:
        if term.keep is None:
            plain[term.sides, term.sign] = plain.get((term.sides, term.sign), 0) + term.count
        else:
            kept.append(term)
    return [DiceTerm(n, sides, sign=sign) for (sides, sign), n in plain.items()] + kept


def _term_widths(terms: tuple[DiceTerm, ...]) -> list[int]:
    """How many totals each (merged) term can show."""
    out = []
    for term in _merged(terms):
        shown = term.count if term.keep is None else len(term.kept([1] * term.count))
        out.append(shown * (term.sides - 1) + 1)
    return out


def _term_counts(term: DiceTerm, keep_drop_outcomes: int) -> tuple[int, list[int], int]:
    """The lowest total of one term, how many face combinations give each total, and the cost."""
    if term.keep is None:
        counts, cost = _plain_counts(term.count, term.sides)
        return term.count, counts, cost
    if term.sides**term.count > keep_drop_outcomes:
        raise DiceError(
            f"{term} has {term.sides ** term.count} outcomes to enumerate; "
            f"the limit is {keep_drop_outcomes} {Limits.hint('keep_drop_outcomes')}"
        )
    out: dict[int, int] = {}
    for faces in itertools.product(range(1, term.sides + 1), repeat=term.count):
        total = sum(term.kept(faces))
        out[total] = out.get(total, 0) + 1
    low = min(out)
    return low, [out.get(t, 0) for t in range(low, max(out) + 1)], term.sides**term.count


def _plain_counts(count: int, sides: int) -> tuple[list[int], int]:
    """Ways to roll each total of `count` dice of `sides` faces (count..count × sides).

    They are the coefficients a[k] of P = U^n, U = 1 + x + … + x^(s-1) = (1 - x^s) / (1 - x).
    From P' U = n U' P, each follows from three before it, exactly:
    (k+1) a[k+1] = (k+n) a[k] + (k+1-s-ns) a[k+1-s] + (n(s-1)+s-k) a[k-s].
    Totals are symmetric about the middle, so only the lower half is worked out.
    """
    n, s = count, sides
    top = n * (s - 1)
    half = top // 2
    a = [1] * (half + 1)
    for k in range(half):
        ways = (k + n) * a[k]
        if k + 1 >= s:
            ways += (k + 1 - s - n * s) * a[k + 1 - s]
            if k >= s:
                ways += (n * (s - 1) + s - k) * a[k - s]
        a[k + 1] = ways // (k + 1)
    return a + a[: top - half][::-1], 4 * half + 1


def _convolve(a: list[int], b: list[int]) -> list[int]:
    if len(a) < len(b):
        a, b = b, a
    if len(b) == 1:
        return list(a) if b[0] == 1 else [n * b[0] for n in a]
    out = [0] * (len(a) + len(b) - 1)
    for i, nb in enumerate(b):
        if nb:
            end = i + len(a)
            out[i:end] = map(add, out[i:end], map(mul, a, itertools.repeat(nb)))
    return out


class DiceSource(Protocol):
    """Where every random number comes from: `roll` returns the total and the faces drawn."""

    def roll(self, dice: Dice) -> tuple[int | Decimal, tuple[int, ...]]: ...


class SeededDice:
    """Reproducible random dice: the same seed gives the same faces on every machine."""

    def __init__(self, seed: int | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        self.seed = seed
        self.limits = limits
        self._random = random.Random(_seed_material(seed))
        # Dice of one plain die and no bound, checked against these limits, for the quick roll:
        # id -> (dice, sides, sign, constant). Found by id, as a blow rolls the same few dice
        # again and again; the entry holds the dice, so no other dice has its id meanwhile.
        self._plain: dict[int, tuple[Dice, int, int, Any]] = {}

    def roll(self, dice: Dice) -> tuple[int | Decimal, tuple[int, ...]]:
        plain = self._plain.get(id(dice))
        if plain is not None and plain[0] is dice:
            # One plain die (the common case): the face `randint(1, sides)` would give.
            face = self._random._randbelow(plain[1]) + 1
            return plain[2] * face + plain[3], (face,)
        dice.check(self.limits)
        randint = self._random.randint
        if len(dice.terms) == 1 and dice.terms[0].count == 1 and dice.terms[0].keep is None:
            term = dice.terms[0]
            if not dice._bounded:
                if len(self._plain) >= 1000:  # dice made on the fly (`roll("d20")`) come and go
                    self._plain.clear()
                self._plain[id(dice)] = (dice, term.sides, term.sign, dice.constant)
            face = randint(1, term.sides)
            return dice._clamp(term.sign * face + dice.constant), (face,)
        faces = tuple(randint(1, t.sides) for t in dice.terms for _ in range(t.count))
        return dice.total(faces), faces


def _seed_material(seed: Any) -> int | bytes | None:
    """What `random.Random` is seeded with: a seed of 0 or more as itself (as it always was); a
    negative one as bytes of its own, since Random would take its absolute value (-7 rolling as
    7). Bytes are hashed with SHA-512, the same in every process."""
    if seed is None:
        return None
    if type(seed) is not int:
        shown = repr(seed) if len(repr(seed)) <= 40 else f"a {type(seed).__name__}"
        raise RangeError(f"a seed is a whole number (such as 7 or -7), not {shown}")
    if seed >= 0:
        return seed
    return b"-" + (-seed).to_bytes(((-seed).bit_length() + 7) // 8, "big")


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

    def __init__(self, path: list[int], limits: Limits = DEFAULT_LIMITS,
                 table: _Table | None = None, pick: Callable[[int], int] | None = None) -> None:
        self.path = path
        self.branching: list[int] = []
        self.position = 0
        self.limits = limits
        self._table = table if table is not None else _Table(limits)
        self._known = self._table.known
        self._pick = pick  # how a roll past the end of the path picks: lowest, or at random
        self.numerator = self.denominator = 1

    @property
    def probability(self) -> Fraction:
        return Fraction(self.numerator, self.denominator)

    def roll(self, dice: Dice) -> tuple[int | Decimal, tuple[int, ...]]:
        counts = self._known.get(dice)
        if counts is None:
            counts = self._table.counts(dice)
        width = len(counts.totals)
        if self.position == len(self.path):
            self.path.append(0 if self._pick is None else self._pick(width))
        index = self.path[self.position]
        self.branching.append(width)
        self.position += 1
        self.numerator *= counts.counts[index]
        self.denominator *= counts.ways
        return counts.totals[index], ()


class _Table:
    """The distributions one enumeration rolls, each worked out (and charged for) once."""

    def __init__(self, limits: Limits, charge: Callable[[Counts], None] | None = None) -> None:
        self.limits = limits
        self.charge = charge
        self.known: dict[Dice, Counts] = {}

    def counts(self, dice: Dice) -> Counts:
        found = self.known.get(dice)
        if found is None:
            found = dice.counts(self.limits)
            if self.charge is not None:  # charged even when cached: the same file, the same limit
                self.charge(found)
            self.known[dice] = found
        return found


T = TypeVar("T")

_OPERATIONS_PER_STEP = 4  # big-integer operations of a distribution that take as long as a step


class Enumeration:
    """Every path of the dice, depth first, refused as soon as the limits are seen to be short.

    Paths run are counted against `enumeration_paths`; steps against `enumeration_work`: what
    `cost` says each path's result took (for a procedure, its trace entries; without `cost`,
    its rolls and one), plus the big-integer work of each distribution rolled. Counting alone
    refuses only once the work is done, so when a path's dice multiply out past a limit, the
    part of the walk around it is sized from a few random paths (Knuth's estimator: the
    product of the branching along a random path, averaged) and refused before it is walked.
    The random paths come from a fixed seed: a rule file is refused, or not, every time alike.
    """

    SAMPLES = 32  # random paths behind one estimate
    ESTIMATES = 16  # estimates made at most, one per part of the walk

    def __init__(self, run_once: Callable[[PathDice], T], limits: Limits = DEFAULT_LIMITS,
                 cost: Callable[[T], int] | None = None) -> None:
        self.run_once = run_once
        self.limits = limits
        self.cost = cost
        self.paths = 0
        self.steps = 0
        self._table = _Table(limits, self._charge)
        self._estimated: set[tuple[int, ...]] = set()
        self._random = random.Random(0)

    def __iter__(self) -> Iterator[tuple[PathDice, T]]:
        """Each path's dice (its exact probability) and what the run gave."""
        path: list[int] = []
        while True:
            if self.paths == self.limits.enumeration_paths:
                raise self._refusal(f"more than {self.paths} paths of the dice",
                                    "enumeration_paths")
            source = PathDice(path, self.limits, self._table)
            result = self.run_once(source)
            self.paths += 1
            steps = self._steps(source, result)
            self.steps += steps
            if self.steps > self.limits.enumeration_work:
                raise self._refusal(f"more than {self.limits.enumeration_work} steps",
                                    "enumeration_work")
            self._foresee(source, steps)
            yield source, result
            path = source.path[: source.position]
            while path and path[-1] + 1 >= source.branching[len(path) - 1]:
                path.pop()
            if not path:
                return
            path[-1] += 1

    def _steps(self, source: PathDice, result: T) -> int:
        return self.cost(result) if self.cost is not None else source.position + 1

    def _charge(self, counts: Counts) -> None:
        self.steps += counts.cost // _OPERATIONS_PER_STEP
        if self.steps > self.limits.enumeration_work:
            raise self._refusal(f"more than {self.limits.enumeration_work} steps",
                                "enumeration_work")

    def _foresee(self, source: PathDice, steps: int) -> None:
        """Estimate the parts of the walk that this path's dice say may be past a limit."""
        paths_limit, work_limit = self.limits.enumeration_paths, self.limits.enumeration_work
        size = math.prod(source.branching)
        if size <= paths_limit and size * steps <= work_limit:
            return  # the common case: nothing here hints at a walk past the limits
        below = 1  # the product of the branching below a depth: one path's guess at its size
        suspect: list[int] = []
        for depth in range(len(source.branching) - 1, -1, -1):
            below *= source.branching[depth]
            if below > paths_limit or below * steps > work_limit:
                suspect.append(depth)
        for depth in reversed(suspect):  # the whole walk first, then ever smaller parts
            prefix = tuple(source.path[:depth])
            if prefix not in self._estimated and len(self._estimated) < self.ESTIMATES:
                self._estimated.add(prefix)
                self._estimate(prefix)

    def _estimate(self, prefix: tuple[int, ...]) -> None:
        paths = steps = 0
        for _ in range(self.SAMPLES):
            probe = PathDice(list(prefix), self.limits, self._table, self._random.randrange)
            result = self.run_once(probe)
            size = math.prod(probe.branching[len(prefix):])
            paths += size
            steps += size * self._steps(probe, result)
        paths, steps = paths // self.SAMPLES, steps // self.SAMPLES
        sampled = f"estimated from {self.SAMPLES} random paths"
        if paths > self.limits.enumeration_paths:
            raise self._refusal(f"about {paths} paths of the dice ({sampled}; the limit is "
                                f"{self.limits.enumeration_paths})", "enumeration_paths")
        if steps > self.limits.enumeration_work:
            raise self._refusal(f"about {steps} steps ({sampled}; the limit is "
                                f"{self.limits.enumeration_work})", "enumeration_work")

    @staticmethod
    def _refusal(need: str, limit: str) -> DiceError:
        err = DiceError(f"the exact odds need {need} {Limits.hint(limit)}; sample them "
                        "instead: run it many times with different seeds")
        err.limit = limit  # type: ignore[attr-defined]  # the caller may say where
        return err
