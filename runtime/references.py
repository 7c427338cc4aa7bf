"""Quick-reference tables a rulebook declares for its sheets, worked out by the engine.

A `reference` names its axes (`for each`, `rows`, `columns`), the values it works out (one
`cell`, or a `column` each) and, for odds, the dice it rolls. Its cells are computed by the
compiled rulebook's own formulas and tables, so a sheet never holds a second copy of a rule;
a `chance` cell is the exact probability (a Fraction) over every result of the dice.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any

import attrs

from .errors import ARITHMETIC, CalculationError, RangeError, RulecraftError, Span, \
    calculation_message
from .limits import DEFAULT_LIMITS, Limits
from .work import current

CELL_COST = 50  # the work of one evaluation of a cell (about fifty items of a list)


@attrs.frozen
class Grid:
    """One printed grid of a reference: for one value of each `for each` axis, its rows and
    columns (the `columns` axis' values, or the `column` labels) and a value per cell."""

    each: tuple[tuple[str, Any], ...]  # (axis name, value) this grid is for
    rows: tuple[Any, ...]
    columns: tuple[Any, ...]
    cells: tuple[tuple[Any, ...], ...]  # by row, then column: exact values, Fractions for odds


@attrs.define(eq=False)
class Reference:
    """A compiled `reference`: what it is called, its axes by name and how to work a cell out.

    `axes()` gives the collections (generated from the rule: `for each` axes, rows, columns)
    and the dice of each `roll`; `cell(values)` gives the values of one row and column for one
    result of the dice, from the axes' and rolls' values by name."""

    name: str
    title: str
    each: tuple[str, ...]  # the names bound by `for each`, outermost first
    rows: str  # the name bound by `rows`
    columns: str | None  # the name bound by `columns`, or None: the `column` lines
    labels: tuple[str, ...]  # each `column` line's label (one empty label for a `cell`)
    chance: tuple[bool, ...]  # per value: a probability over the rolls?
    rolls: tuple[str, ...]  # the names bound by `roll`
    shows: tuple[str, ...] = ()  # each shown value's expression, as written
    span: Span | None = None
    comments: tuple[str, ...] = ()
    source: str | None = attrs.field(default=None, repr=False)
    axes: Callable[[], tuple[Any, ...]] = attrs.field(default=None, repr=False)
    cell: Callable[..., tuple[Any, ...]] = attrs.field(default=None, repr=False)
    _grids: tuple[Grid, ...] | None = attrs.field(default=None, init=False, repr=False)

    @property
    def odds(self) -> bool:
        """Whether its cells are probabilities over dice."""
        return any(self.chance)

    def grids(self, limits: Limits = DEFAULT_LIMITS) -> tuple[Grid, ...]:
        """Every grid, worked out once (a RulecraftError naming this reference if a cell
        cannot be, or if the work would pass `enumeration_work`)."""
        if self._grids is None:
            try:
                self._grids = tuple(self._work_out(limits))
            except ARITHMETIC as err:
                raise CalculationError(f"reference {self.name}: {calculation_message(err)}",
                                       self.span, self.source) from None
            except RulecraftError as err:
                if err.span is None:
                    err.span, err.source = self.span, self.source
                err.message = f"reference {self.name}: {err.message}"
                raise
        return self._grids

    def _work_out(self, limits: Limits) -> Iterator[Grid]:
        found = self.axes()
        each_values = found[:len(self.each)]
        rows = tuple(found[len(self.each)])
        columns = tuple(found[len(self.each) + 1]) if self.columns else tuple(self.labels)
        dice = found[len(self.each) + 2 if self.columns else len(self.each) + 1:]
        outcomes = _outcomes(dice, limits)
        grids = 1
        for values in each_values:
            grids *= len(values)
        work = grids * len(rows) * len(columns if self.columns else (1,)) * len(outcomes)
        if work > limits.enumeration_work:
            raise RangeError(f"working it out takes {work} evaluations, more than "
                             f"{limits.enumeration_work} {Limits.hint('enumeration_work')}",
                             self.span, self.source)
        current(limits).spend(work * CELL_COST, self.span, self.source)
        for each in itertools.product(*each_values):
            bound = dict(zip(self.each, each))
            cells = tuple(tuple(self._row(bound, row, columns, outcomes)) for row in rows)
            yield Grid(tuple(bound.items()), rows, columns, cells)

    def _row(self, bound: dict[str, Any], row: Any, columns: Sequence[Any],
             outcomes: Sequence[tuple[tuple[Any, ...], Fraction]]) -> Iterator[Any]:
        bound = {**bound, self.rows: row}
        if self.columns is None:
            yield from self._values(bound, outcomes)
            return
        for column in columns:
            yield self._values({**bound, self.columns: column}, outcomes)[0]

    def _values(self, bound: dict[str, Any],
                outcomes: Sequence[tuple[tuple[Any, ...], Fraction]]) -> tuple[Any, ...]:
        """The cell's values for these axis values: plain, or summed over the dice."""
        if not self.rolls:
            return self.cell(bound)
        totals = [Fraction(0)] * len(self.chance)
        for results, probability in outcomes:
            held = self.cell({**bound, **dict(zip(self.rolls, results))})
            for i, holds in enumerate(held):
                if holds:
                    totals[i] += probability
        return tuple(totals)


def _outcomes(dice: Sequence[Any], limits: Limits) -> list[tuple[tuple[Any, ...], Fraction]]:
    """Every combination of the dice's totals, with its exact probability (one empty
    combination, certain, when nothing is rolled)."""
    spreads = [d.distribution(limits) if hasattr(d, "distribution") else ((d, Fraction(1)),)
               for d in dice]
    out = []
    for combination in itertools.product(*spreads):
        probability = Fraction(1)
        for _, p in combination:
            probability *= p
        out.append((tuple(total for total, _ in combination), probability))
    return out


__all__ = ["Grid", "Reference"]
