"""Space as data: hexes, directions and approaches, patterns turned with a facing, distances.

A hex is written in axial coordinates (q, r) (cube: s = -q - r). The six directions, facing 0
to 5, go round counterclockwise from (1, 0) as `runtime.encounters.DIRECTIONS` has them: facing
+ 1 is a turn of 60 degrees to the left. Everything here is exact (whole numbers; a line is drawn
with fractions), so a hex is a value exact odds can merge states on: frozen, hashable, ordered.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import attrs

from .encounters import DIRECTIONS
from .errors import Span


@attrs.frozen(order=True, slots=True, repr=False, cache_hash=True)
class Hex:
    """One hex of the grid: `hex(2, -1)` in a rule, `(2, -1)` in a trace."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r

    def __add__(self, other: Hex) -> Hex:
        return Hex(self.q + other.q, self.r + other.r)

    def __sub__(self, other: Hex) -> Hex:
        return Hex(self.q - other.q, self.r - other.r)

    def __str__(self) -> str:
        return f"({self.q}, {self.r})"

    def __repr__(self) -> str:
        return f"hex({self.q}, {self.r})"


HERE = Hex(0, 0)


@attrs.frozen
class Pattern:
    """A book's diagram of hexes, written for facing 0 around the fighter's own hex: the
    hexes of each row by its key cells (`("Short", "Right")`), as offsets."""

    name: str
    title: str
    keys: tuple[str, ...]  # the key columns' names
    rows: tuple[tuple[tuple[Any, ...], tuple[Hex, ...]], ...]
    span: Span | None = attrs.field(default=None, eq=False)
    comments: tuple[str, ...] = ()

    def hexes(self, *keys: Any) -> tuple[Hex, ...]:
        """The offsets of one row (Python: `rb.patterns["reach"].hexes("Short", "Right")`)."""
        return dict(self.rows)[tuple(keys)]

    def described(self) -> list[tuple[tuple[Any, ...], str]]:
        """Each row's hexes in words, for `show` and sheets."""
        return [(keys, "; ".join(words(h) for h in hexes) or "no hexes")
                for keys, hexes in self.rows]


@attrs.frozen
class Unit:
    """A unit a book measures distance in: `unit feet "ft": 5 per hex`."""

    name: str
    title: str
    per_hex: Any  # an exact number
    span: Span | None = attrs.field(default=None, eq=False)
    comments: tuple[str, ...] = ()

# The six directions seen from a fighter facing 0, by the name a rule reads them with: a
# direction is a number of turns to the left, so `turn(f.facing, front_right)` is the facing
# of the hex ahead and to the right (Ringing Steel: "the hex ahead of him and the two to the
# sides are defined as front. The other three hexes are defined as back.").
RELATIVE = ("ahead", "front_left", "back_left", "behind", "back_right", "front_right")
# Words a pattern's cells may use for the same directions.
WORDS = {**{name: i for i, name in enumerate(RELATIVE)},
         **{name.replace("_", " "): i for i, name in enumerate(RELATIVE)},
         "front": 0, "back": 3, "left front": 1, "right front": 5, "left back": 2,
         "right back": 4}


def rotate(offset: Hex, turns: int) -> Hex:
    """An offset from a hex turned by `turns` sixths of a circle to the left."""
    for _ in range(turns % 6):
        offset = Hex(offset.q + offset.r, -offset.q)
    return offset


def step(at: Hex, facing: int, n: int = 1) -> Hex:
    """The hex n moves from `at` in direction `facing` (n < 0: backwards)."""
    dq, dr = DIRECTIONS[facing % 6]
    return Hex(at.q + dq * n, at.r + dr * n)


def turn(facing: int, by: int) -> int:
    """A facing turned `by` sixths to the left (negative: to the right); it goes round."""
    return (facing + by) % 6


def mirror(h: Hex, facing: int = 0, about: Hex = HERE) -> Hex:
    """`h` reflected through the line from `about` in direction `facing` (Ringing Steel:
    "Left handed weapons take the mirror image")."""
    offset = rotate(h - about, -facing)
    return about + rotate(Hex(offset.q + offset.r, -offset.r), facing)


def place(offsets: Iterable[Hex], at: Hex, facing: int) -> tuple[Hex, ...]:
    """A pattern written for facing 0 around (0, 0), put down at `at` turned to `facing`."""
    return tuple(at + rotate(o, facing) for o in offsets)


def distance(a: Hex, b: Hex) -> int:
    """Moves from one hex to the other."""
    dq, dr = b.q - a.q, b.r - a.r
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def _cube_round(x: Fraction, z: Fraction) -> Hex:
    y = -x - z
    rx, ry, rz = (_nearest(v) for v in (x, y, z))
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dz >= dy:
        rz = -rx - ry
    return Hex(rx, rz)


def _nearest(v: Fraction) -> int:
    return int((v + Fraction(1, 2)).__floor__())


# Nudged off the hexes' edges so a line along one falls to the same side every time.
_NUDGE = (Fraction(1, 10 ** 6), Fraction(-3, 10 ** 6))


def line(a: Hex, b: Hex) -> tuple[Hex, ...]:
    """The hexes a straight line from the centre of `a` to the centre of `b` crosses, from a
    to b, both included (line of sight: what stands between is every hex but the two ends)."""
    n = distance(a, b)
    if n == 0:
        return (a,)
    ax, az = a.q + _NUDGE[0], a.r + _NUDGE[1]
    bx, bz = b.q + _NUDGE[0], b.r + _NUDGE[1]
    return tuple(_cube_round(ax + (bx - ax) * Fraction(i, n), az + (bz - az) * Fraction(i, n))
                 for i in range(n + 1))


def _projections(v: Hex) -> list[int]:
    """How far `v` goes in each of the six directions (cube coordinates' dot products)."""
    out = []
    for dq, dr in DIRECTIONS:
        out.append(v.q * dq + v.r * dr + v.s * (-dq - dr))
    return out


def approach(at: Hex, other: Hex) -> int | None:
    """Which of the twelve approaches of `at` a line from `other` comes in by: 0, 2, 4 … 10
    are the sides (side d faces direction d: approach 2d), 1, 3 … 11 the vertices between
    (approach 2d + 1 lies between directions d and d + 1). None when they are one hex."""
    if at == other:
        return None
    proj = _projections(other - at)
    best = max(proj)
    ahead = [d for d in range(6) if proj[d] == best]
    if len(ahead) == 2:  # exactly on the line through a vertex
        d = ahead[0] if (ahead[0] + 1) % 6 == ahead[1] else ahead[1]
        return 2 * d + 1
    return 2 * ahead[0]


def facing_to(at: Hex, other: Hex) -> int | None:
    """The facing that looks from `at` towards `other` (through a vertex: the first of the
    two, counting round from 0). None when they are one hex."""
    found = approach(at, other)
    return None if found is None else found // 2


def in_front(at: Hex, facing: int, other: Hex) -> bool:
    """Whether `other` lies in the front arc of a fighter at `at` facing `facing`: the three
    directions ahead, at any distance (as `hex_in_front`)."""
    found = approach(at, other)
    if found is None:
        return False
    d = found // 2
    # Through a vertex, the line runs between two directions: in front if either is.
    sides = {d, (d + 1) % 6} if found % 2 else {d}
    return any((x - facing) % 6 in (0, 1, 5) for x in sides)


def within(at: Hex, n: int) -> tuple[Hex, ...]:
    """Every hex at most n moves from `at`: `at` first, then ring by ring, each ring from the
    hex straight along direction 0 going round to the left (as facings count)."""
    out = [at]
    for k in range(1, n + 1):
        h = step(at, 0, k)
        for side in range(6):
            for _ in range(k):
                out.append(h)
                h = step(h, (side + 2) % 6)  # along the ring's side to its next corner
    return tuple(out)


def count_within(n: int) -> int:
    return 3 * n * (n + 1) + 1


def words(offset: Hex) -> str:
    """An offset of a pattern in a book's words: `ahead`, `2 ahead`, `ahead, front right`."""
    if offset == HERE:
        return "own hex"
    parts = []
    h = HERE
    while h != offset:
        d = _towards(h, offset)
        n = 0
        while h != offset and _towards(h, offset) == d:
            h, n = step(h, d), n + 1
        name = RELATIVE[d].replace("_", " ")
        parts.append(name if n == 1 else f"{n} {name}")
    return " + ".join(parts)


def _towards(h: Hex, offset: Hex) -> int:
    """The direction a walk from h to offset goes first, as a book says it: on a line through
    a vertex, of the two directions the one nearer ahead ("ahead + front right")."""
    found = approach(h, offset)
    assert found is not None
    d = found // 2
    if found % 2 and min(d, 6 - d) > min((d + 1) % 6, 6 - (d + 1) % 6):
        return (d + 1) % 6
    return d


def picture(hexes: Iterable[Hex]) -> list[str]:
    """A pattern drawn as the book draws it: the fighter ▶ facing to the right (facing 0),
    its hexes ●, the other hexes as near ·; the rows of a hex grid, each half a hex over."""
    marked = set(hexes)
    radius = max([distance(HERE, h) for h in marked] + [1])
    grid = {h: ("▶" if h == HERE else "●" if h in marked else "·")
            for h in within(HERE, radius)}
    grid.update({h: "●" for h in marked if h != HERE})
    if HERE in marked:
        grid[HERE] = "◆"  # the fighter's own hex is one of them
    rows = sorted({h.r for h in grid})
    left = min(2 * h.q + h.r for h in grid)
    lines = []
    for r in rows:
        cells = {2 * h.q + h.r - left: mark for h, mark in grid.items() if h.r == r}
        lines.append("".join(cells.get(x, " ") for x in range(max(cells) + 1)).rstrip())
    return lines


def as_hex(value: Any) -> Hex | None:
    """A hex handed in from Python or a fighter file: a Hex, or a pair `[2, -1]` of whole
    numbers (TOML: `at = [2, -1]`), or the text "2, -1" (a TOML key); None if it is not."""
    if type(value) is Hex:
        return value
    if type(value) is str:
        parts = value.strip().strip("()[]").split(",")
        try:
            value = tuple(int(p) for p in parts)
        except ValueError:
            return None
    if isinstance(value, (tuple, list)) and len(value) == 2 and \
            all(type(v) is int for v in value):
        return Hex(value[0], value[1])
    return None


def whole(value: Any) -> int | None:
    """A number that is whole (a record cell printed `2` may be read as 2.0), else None."""
    if type(value) is int:
        return value
    if type(value) is Decimal and value.is_finite() and value == value.to_integral_value():
        return int(value)
    return None


__all__ = ["HERE", "Hex", "Pattern", "Unit", "RELATIVE", "WORDS", "approach", "as_hex", "distance",
           "facing_to", "in_front", "line", "mirror", "picture", "place", "rotate",
           "step", "turn", "whole", "within", "words"]
