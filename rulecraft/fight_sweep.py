"""Sweeps of whole fights: an encounter played at every point of a grid (the fighters, their
fields, the encounter's settings, the rulebook itself), each cell's odds exact where the
fight's chain is small enough and otherwise sampled until every 95% interval of the cell is
narrower than the precision asked; played in this process, on this machine's cores or on a
Dask cluster (rulecraft/cluster.py), with the same figures for the same seed wherever.

Why the same: the fights of a cell are played in batches of BATCH (fewer when a cell may
play fewer in all), batch b of cell c seeded
from (seed, c's place on the grid, b) alone; the batches come back in any order, but each
cell adds them in the order of their numbers and decides after each whether to stop, so what
it stops at depends on the seed only. Batches played beyond that point are dropped unread."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import attrs

from rulecraft.runtime.combatants import Combatant
from rulecraft.runtime.errors import RangeError, RulecraftError
from rulecraft.runtime.exact import TooLarge
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.results import jsonable
from rulecraft.runtime.rulebook import Rulebook
from rulecraft.runtime.sampling import Estimate
from rulecraft.runtime.values import display
from rulecraft.runtime.work import budget

BATCH = 100  # fights a task plays; fixed, so that where they are played changes nothing
WINNER = "winner"  # --by winner: the side alone standing at the end, else DRAW
DRAW = "draw"
BOOK = "rulebook"  # the axis that varies the rulebook (a house rule against its base)

Axis = tuple[str, tuple[Any, ...]]  # a name varied and the labels of its values


@attrs.frozen
class Spec:
    """What one cell's fights are played with, as it can be sent to another process."""

    book: int  # which of the job's rulebooks
    fighters: tuple[tuple[str, Any], ...]  # parameter -> (model, given), or a list of them
    settings: tuple[tuple[str, Any], ...]  # the encounter's other parameters
    choices: tuple[tuple[str, Any], ...]
    stream: int  # the cell's seeds: its place on the grid, the rulebook axis left out


@attrs.frozen
class Job:
    """What every process needs to play any cell of a sweep."""

    books: tuple[tuple[str, str, tuple[str, ...]], ...]  # (source, file name, bases' folders)
    encounter: str
    specs: tuple[Spec, ...]
    by: str
    policy: str | None
    seed: int
    limits: Limits
    exact: bool  # whether to ask the chain first
    max_runs: int  # the most fights a sampled cell plays
    batch: int = BATCH  # fights a task plays (fewer when max_runs is)

    def fights(self, batch: int) -> range:
        """The fights of a cell's batch `batch`: the last one short at max_runs."""
        return range(batch * self.batch, min((batch + 1) * self.batch, self.max_runs))


@attrs.frozen
class Cell:
    """One point's answer: exact odds of each group, or estimates from `runs` fights."""

    exact: Mapping[Any, Fraction] | None
    estimates: Mapping[Any, Estimate]
    runs: int
    why_sampled: str = ""  # the chain's refusal, in brief

    def chance(self, group: Any) -> Fraction | Estimate:
        if self.exact is not None:
            return self.exact.get(group, Fraction(0))
        return self.estimates.get(group, Estimate(0, self.runs))

    def groups(self) -> list[Any]:
        return list(self.exact if self.exact is not None else self.estimates)

    def as_json(self, show: Any) -> dict[str, Any]:
        found = self.chance(show)
        if isinstance(found, Fraction):
            return {"how": "exact", "probability": str(found), "percent": float(found * 100),
                    "odds": {str(jsonable(k)): str(v) for k, v in self.exact.items()}}  # type: ignore[union-attr]
        return {"how": "sampled", "runs": self.runs, "percent": float(found) * 100,
                "low": found.low * 100, "high": found.high * 100,
                "counts": {str(jsonable(k)): e.count for k, e in self.estimates.items()},
                "why_sampled": self.why_sampled}


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
        what = f"{display(self.show)} wins" if self.by == WINNER and self.show != DRAW else \
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


# ---- playing a cell --------------------------------------------------------------------------

_COMPILED: dict[tuple[str, str, tuple[str, ...]], Rulebook] = {}  # a process's rulebooks


def play(inherited: Sequence[Rulebook] | None, job: Job, task: tuple[Any, ...]) -> tuple[Any, ...]:
    """One task of a sweep, in whatever process plays it: ("exact", cell) asks the chain for
    the cell's exact odds; ("fights", cell, batch) plays a batch of its fights and counts
    them."""
    books = inherited if inherited is not None else [_compiled(b, job.limits) for b in job.books]
    kind, index = task[0], task[1]
    spec = job.specs[index]
    rb = books[spec.book]
    if kind == "exact":
        return ("exact", index, *_exact(rb, job, spec))
    batch = task[2]
    return ("fights", index, batch, _fights(rb, job, spec, batch))


def _compiled(book: tuple[str, str, tuple[str, ...]], limits: Limits) -> Rulebook:
    if book not in _COMPILED:
        from .api import compile as compile_rules
        source, filename, bases = book
        _COMPILED[book] = compile_rules(source, filename, limits, bases=bases)
    return _COMPILED[book]


def _made(rb: Rulebook, spec: Spec) -> dict[str, Any]:
    """The cell's fighters made in this process's rulebook, by parameter."""
    def build(given: Any) -> Any:
        if isinstance(given, list):
            return [build(g) for g in given]
        model, values = given
        return rb.combatant_models[model].build(**values)
    return {name: build(given) for name, given in spec.fighters}


def _exact(rb: Rulebook, job: Job, spec: Spec) -> tuple[dict[Any, Fraction] | None, str]:
    """The chain's exact odds of the cell, or None and why it refused (too large)."""
    proc = rb.procedures[job.encounter]
    if job.by == WINNER and not _says_winner(proc):
        return None, "who stands at the end is known from played fights only"
    by = job.by
    args = {**_made(rb, spec), **dict(spec.settings)}
    if job.policy is not None:
        args["policy"] = job.policy
    try:
        odds = proc.odds(by=by, choices=dict(spec.choices) or None, limits=job.limits, **args)
    except TooLarge as err:
        return None, err.message.split(";")[0]
    except RangeError as err:
        if getattr(err, "limit", None) in ("work", "odds_states", "enumeration_work"):
            return None, err.message.split(";")[0]
        raise
    if by != WINNER:
        return dict(odds), ""
    found: dict[Any, Fraction] = {}
    for group, p in odds.items():  # an ending that names no winner is a draw
        key = DRAW if group is None else group
        found[key] = found.get(key, Fraction(0)) + p
    return found, ""


def _says_winner(proc: Any) -> bool:
    """Whether the encounter's own outcomes say who won (`outcome won with winner = …`): the
    chain's exact odds then tell it; else who stands is known from played fights only."""
    return any(WINNER in fields for fields in proc.outcomes.values())


def _fights(rb: Rulebook, job: Job, spec: Spec, batch: int) -> dict[Any, int]:
    """The fights of a cell's batch, each seeded from (seed, cell, fight), counted by group."""
    from rulecraft.runtime.fights import fight

    proc = rb.procedures[job.encounter]
    made = _made(rb, spec)
    fighters = [made[p.name] for p in proc.params if p.name in made]
    counts: dict[Any, int] = {}
    for i in job.fights(batch):
        with budget(job.limits, own=True):  # each fight a budget of its own, as --runs
            done = fight(rb, fighters, encounter=job.encounter, seed=fight_seed(job.seed,
                         spec.stream, i), choices=dict(spec.choices) or None,
                         limits=job.limits, policy=job.policy, settings=dict(spec.settings))
        group = _group(proc, job.by, done)
        counts[group] = counts.get(group, 0) + 1
    return counts


def fight_seed(seed: int, stream: int, fight: int) -> int:
    """Fight `fight` of the cell at grid place `stream`: one whole number from the three."""
    return (seed * 1_000_003 + stream) * 1_000_003 + fight


def _group(proc: Any, by: str, done: Any) -> Any:
    """What a played fight counts as: its winner, its outcome's name, or a value of it — the
    groups the chain's exact odds give."""
    outcome = done.result.outcome
    if by == WINNER:
        if _says_winner(proc):
            return proc._group(outcome.get(WINNER), WINNER) if WINNER in outcome else DRAW
        return (done.winner() if done.played() else None) or DRAW
    if by == "outcome":
        return outcome.name
    return proc._group(outcome.get(by, done.result.values.get(by)), by)


# ---- deciding what to play next ------------------------------------------------------------

@attrs.define
class _Progress:
    """A cell's state while the sweep runs."""

    asked: bool = False  # its exact odds asked for
    answered: bool = False  # … and the answer back (odds, or a refusal)
    exact: dict[Any, Fraction] | None = None
    why: str = ""
    counts: dict[Any, int] = attrs.field(factory=dict)
    folded: int = 0  # batches added, in order
    issued: int = 0  # batches handed out
    early: dict[int, dict[Any, int]] = attrs.field(factory=dict)  # batches back out of order
    done: bool = False


class Plan:
    """What to play next, and each reply taken in: the same decisions whatever order the
    replies come back in."""

    def __init__(self, job: Job, precision: float,
                 progress: Callable[[int], None] | None = None) -> None:
        self.job, self.precision, self.progress = job, precision, progress
        self.batches = -(-job.max_runs // job.batch)
        self.cells = [_Progress() for _ in job.specs]
        for cell in self.cells:
            if not job.exact:
                cell.asked = cell.answered = True
                cell.why = "exact odds not asked for (--no-exact)"

    def next(self) -> tuple[Any, ...] | None:
        """The next task to hand out, or None when nothing is to be played now."""
        for index, cell in enumerate(self.cells):
            if not cell.asked:
                cell.asked = True
                return ("exact", index)
        open_ = [(cell.issued - cell.folded, index) for index, cell in enumerate(self.cells)
                 if cell.answered and not cell.done and cell.issued < self.batches]
        if not open_:
            return None
        _, index = min(open_)
        cell = self.cells[index]
        cell.issued += 1
        return ("fights", index, cell.issued - 1)

    def take(self, reply: tuple[Any, ...]) -> None:
        kind, index = reply[0], reply[1]
        cell = self.cells[index]
        if kind == "exact":
            cell.answered = True
            cell.exact, cell.why = reply[2], reply[3]
            if cell.exact is not None:
                self._finished(cell)
            return
        if cell.done:
            return  # played beyond where the cell stopped: dropped unread
        cell.early[reply[2]] = reply[3]
        while cell.folded in cell.early and not cell.done:
            for group, count in cell.early.pop(cell.folded).items():
                cell.counts[group] = cell.counts.get(group, 0) + count
            cell.folded += 1
            if self._narrow(cell) or cell.folded >= self.batches:
                self._finished(cell)

    def _narrow(self, cell: _Progress) -> bool:
        """Every group's 95% interval narrower than the precision."""
        runs = min(cell.folded * self.job.batch, self.job.max_runs)
        return all(e.high - e.low < self.precision
                   for e in (Estimate(n, runs) for n in cell.counts.values()))

    def _finished(self, cell: _Progress) -> None:
        cell.done = True
        cell.early.clear()
        if self.progress is not None:
            self.progress(1)

    def cell(self, index: int) -> Cell:
        found = self.cells[index]
        runs = min(found.folded * self.job.batch, self.job.max_runs)
        return Cell(found.exact, {g: Estimate(n, runs) for g, n in found.counts.items()},
                    0 if found.exact is not None else runs, found.why)


def run_plan(plan: Plan, inherited: Sequence[Rulebook], workers: int = 1,
             cluster: str | None = None) -> None:
    """Every task of the plan played: here, on `workers` processes, or on a Dask cluster."""
    if cluster is not None:
        from .cluster import spread_on
        spread_on(cluster, play, plan.job, plan.next, plan.take)
    elif workers <= 1:
        while (task := plan.next()) is not None:
            plan.take(play(inherited, plan.job, task))
    else:
        from .workers import spread
        spread(play, plan.job, inherited, plan.next, workers, plan.take)


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


__all__ = ["BATCH", "Cell", "FightSweep", "Job", "Plan", "Point", "Spec", "fight_seed",
           "play", "sweep_grid"]
