"""Sweeps of whole fights: an encounter played at every point of a grid (the fighters, their
fields, the encounter's settings, the rulebook itself), each cell's odds exact where the
fight's chain is small enough and otherwise sampled until every 95% interval of the cell is
narrower than the precision asked (rulecraft/sweep_cells.py); played in this process, on this
machine's cores or on a Dask cluster (rulecraft/cluster.py), with the same figures for the same
seed wherever."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import attrs

from rulecraft.runtime.combatants import Combatant
from rulecraft.runtime.errors import RangeError
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.results import jsonable
from rulecraft.runtime.rulebook import Rulebook
from rulecraft.runtime.sampling import Estimate
from rulecraft.runtime.values import display

from .sweep_cells import BATCH, DRAW, WINNER, Cell, Job, Plan, Spec, run_plan

BOOK = "rulebook"  # the axis that varies the rulebook (a house rule against its base)

Axis = tuple[str, tuple[Any, ...]]  # a name varied and the labels of its values


@attrs.frozen
class FightSweep:
    """One group's chance (a side winning, an outcome, a value) at every point of a grid of
    fights."""

    encounter: str
    by: str
    show: Any
    axes: tuple[Axis, ...]
    cells: Mapping[tuple[Any, ...], Cell]
    seed: int
    precision: float
    sides: tuple[str, ...] = ()  # the encounter's sides, in order: a winner's groups

    def groups(self) -> list[Any]:
        """Every group some cell found: the sides in order, then the rest, draws last."""
        found = list(dict.fromkeys(g for c in self.cells.values() for g in c.groups()))
        ordered = [s for s in self.sides if s in found] + \
            [g for g in found if g not in self.sides and g != DRAW]
        return ordered + ([DRAW] if DRAW in found else [])

    def chance(self, point: tuple[Any, ...]) -> Fraction | Estimate:
        return self.cells[point].chance(self.show)

    def title(self) -> str:
        what = f"how often {display(self.show)} wins" if self.by == WINNER and \
            self.show != DRAW else \
            f"chance of {display(self.show)}" + ("" if self.by in ("outcome", WINNER) else
                                                 f" ({self.by})")
        return f"{self.encounter}: {what}"

    def text(self) -> str:
        from .heatmap import text_map
        return text_map(self)

    def html(self) -> str:
        from .heatmap import html_map
        return html_map(self)

    def as_json(self) -> dict[str, Any]:
        return {"encounter": self.encounter, "by": self.by, "show": jsonable(self.show),
                "seed": self.seed, "precision": self.precision,
                "vary": {name: [jsonable(v) for v in values] for name, values in self.axes},
                "points": [{**{name: jsonable(v) for (name, _), v in zip(self.axes, point)},
                            **cell.as_json(self.show)} for point, cell in self.cells.items()]}


# ---- the grid --------------------------------------------------------------------------------

@attrs.frozen
class Point:
    """One point of the grid as the caller made it: its rulebook and the encounter's
    arguments (combatants, settings) and choices there."""

    book: Rulebook
    args: Mapping[str, Any]
    choices: Mapping[str, Any] = attrs.field(factory=dict)


def sweep_grid(encounter: str, axes: tuple[Axis, ...], points: Mapping[tuple[Any, ...], Point],
               by: str = WINNER, show: Any = None, policy: str | None = None,
               precision: float = 0.05, max_runs: int = 20_000, seed: int = 0,
               exact: bool = True, workers: int = 1, cluster: str | None = None,
               progress: Callable[[int], None] | None = None,
               limits: Limits = DEFAULT_LIMITS) -> FightSweep:
    """Each point's fight worked out (exact, or sampled to the precision) and the grid of
    `show`'s chance; `points` in the grid's order, their labels as the axes give them."""
    if not 0 < precision < 1:
        raise RangeError(f"--precision is the widest 95% interval a sampled cell may keep, "
                         f"between 0 and 1 (0.02 is two points in a hundred); got {precision}")
    if max_runs < 1:
        raise RangeError(f"--max-runs is a whole number of fights, 1 or more; got {max_runs}")
    books: list[Rulebook] = []
    for point in points.values():
        if all(point.book is not b for b in books):
            books.append(point.book)
    for rb in books:
        _encounter(rb, encounter)
    streams = _streams(axes, list(points))
    specs = tuple(Spec(next(i for i, b in enumerate(books) if b is p.book),
                       *_portable(p.book, encounter, p.args), tuple(p.choices.items()),
                       streams[key]) for key, p in points.items())
    job = Job(tuple(_book_source(rb) for rb in books), encounter, specs, by, policy, seed,
              limits, exact, max_runs, min(BATCH, max_runs))
    plan = Plan(job, precision, progress)
    run_plan(plan, books, workers, cluster)
    cells = {key: plan.cell(i) for i, key in enumerate(points)}
    return FightSweep(encounter, by, _shown(books[0], encounter, by, show, cells), axes, cells,
                      seed, precision, _sides(books[0].procedures[encounter]))


def distinct(labels: list[Any]) -> list[Any]:
    """An axis's labels, each its own: a second `stand` is `stand 2` (two rulebooks of one
    name, two fighter files of one name in different folders)."""
    out: list[Any] = []
    for label in labels:
        out.append(f"{display(label)} {labels[:len(out)].count(label) + 1}"
                   if label in labels[:len(out)] else label)
    return out


def _encounter(rb: Rulebook, name: str) -> Any:
    proc = rb.procedures.get(name)
    if proc is None or proc.clock is None:
        known = [n for n, p in rb.procedures.items() if p.clock is not None]
        raise RangeError(f"rulebook {rb.name} has no encounter {name!r} (its encounters: "
                         f"{', '.join(known) or 'none'})")
    return proc


def _streams(axes: tuple[Axis, ...], keys: list[tuple[Any, ...]]) -> dict[tuple[Any, ...], int]:
    """Each point's seeds: its place on the grid with the rulebook axis left out, so that a
    house rule and its base meet the same dice."""
    kept = [i for i, (name, _) in enumerate(axes) if name != BOOK]
    places: dict[tuple[Any, ...], int] = {}
    return {key: places.setdefault(tuple(key[i] for i in kept), len(places)) for key in keys}


def _portable(rb: Rulebook, encounter: str, args: Mapping[str, Any]
              ) -> tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...]]:
    """The fighters as (model, values given) and the other arguments, as sent to workers."""
    proc = rb.procedures[encounter]
    fighters, settings = [], []
    for name, value in args.items():
        if isinstance(value, Combatant):
            fighters.append((name, (value.model.name, _given(value))))
        elif isinstance(value, (list, tuple)) and value and all(
                isinstance(v, Combatant) for v in value):
            fighters.append((name, [(v.model.name, _given(v)) for v in value]))
        else:
            settings.append((name, value))
    wanted = [p.name for p in proc.params if p.type.kind == "combatant" or
              getattr(p.type, "item", None) is not None and
              getattr(p.type.item, "kind", None) == "combatant"]
    missing = [n for n in wanted if n not in dict(fighters)]
    if missing:
        raise RangeError(f"encounter {encounter} needs a fighter for {', '.join(missing)} "
                         f"(give {missing[0]}=@fighter.toml)")
    return tuple(fighters), tuple(settings)


def _given(fighter: Combatant) -> dict[str, Any]:
    return {f.name: fighter[f.name] for f in fighter.model.fields if f.role != "derived"}


def _book_source(rb: Rulebook) -> tuple[str, str, tuple[str, ...]]:
    from .fight import _base_folders
    return str(rb.source), rb.filename, _base_folders(rb)


def _shown(rb: Rulebook, encounter: str, by: str, show: Any,
           cells: Mapping[tuple[Any, ...], Cell]) -> Any:
    """The group the grid shows: as asked (checked), else the first side's winning for
    `winner`, else the likeliest at the first point."""
    known = list(dict.fromkeys(g for c in cells.values() for g in c.groups()))
    if show is None:
        if by == WINNER:
            sides = _sides(rb.procedures[encounter])
            if sides[0] in known or not any(c.exact for c in cells.values()):
                return sides[0]
        first = next(iter(cells.values()))
        return max(first.groups(), key=lambda g: float(first.chance(g)), default=None)
    if by == WINNER or show in known:
        return show
    raise RangeError(f"{encounter} never comes to {display(show)!r} on this grid (it comes "
                     f"to: {', '.join(sorted(display(g) for g in known))})")


def _sides(proc: Any) -> tuple[str, ...]:
    """The encounter's sides by name, in order (a fighter parameter each, without `sides:`)."""
    from rulecraft.runtime.fight_sides import side_params
    return tuple(s for s, _ in proc.sides) if proc.sides else \
        tuple(p.name for p in side_params(proc))


def grid_points(axes: tuple[Axis, ...]) -> list[tuple[Any, ...]]:
    """Every combination of the axes' labels, in order."""
    return list(itertools.product(*(values for _, values in axes)))


__all__ = ["BATCH", "BOOK", "DRAW", "WINNER", "Cell", "FightSweep", "Point", "distinct",
           "sweep_grid"]
