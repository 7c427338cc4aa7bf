"""The cells of a sweep of whole fights, played as tasks wherever there are processes to play
them: a cell's exact odds asked of the chain (`procedure.odds`; too large, refused), or its
fights played in seeded batches and counted; and the plan that decides what to play next and
when a cell has been played enough.

Why the same figures wherever: the fights of a cell are played in batches of BATCH (fewer when
a cell may play fewer in all), batch b of cell c seeded from (seed, c's place on the grid, b)
alone; the batches come back in any order, but each cell adds them in the order of their
numbers and decides after each whether to stop, so what it stops at depends on the seed only.
Batches played beyond that point are dropped unread."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import attrs

from rulecraft.runtime.errors import RangeError
from rulecraft.runtime.exact import TooLarge
from rulecraft.runtime.limits import Limits
from rulecraft.runtime.results import jsonable
from rulecraft.runtime.rulebook import Rulebook
from rulecraft.runtime.sampling import Estimate
from rulecraft.runtime.work import budget


BATCH = 100  # fights a task plays; fixed, so that where they are played changes nothing
EXACT_SHARE = 32  # a cell's exact odds are tried within 1/32 of the odds limits
WINNER = "winner"  # --by winner: the side alone standing at the end, else DRAW
DRAW = "draw"


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


# ---- playing a cell --------------------------------------------------------------------------

_COMPILED: dict[tuple[Any, ...], Rulebook] = {}  # a process's rulebooks


def play(inherited: Sequence[Rulebook] | None, job: Job, task: tuple[Any, ...]) -> tuple[Any, ...]:
    """One task of a sweep, in whatever process plays it: ("exact", cell) asks the chain for
    the cell's exact odds; ("fights", cell, batch) plays a batch of its fights and counts
    them."""
    books = inherited if inherited is not None else [compiled(b, job.limits) for b in job.books]
    kind, index = task[0], task[1]
    spec = job.specs[index]
    rb = books[spec.book]
    if kind == "exact":
        return ("exact", index, *_exact(rb, job, spec))
    batch = task[2]
    return ("fights", index, batch, _fights(rb, job, spec, batch))


def compiled(book: tuple[str, str, tuple[str, ...]], limits: Limits) -> Rulebook:
    """A rulebook from its text, file name and bases' folders: compiled once a process."""
    key = (*book, limits)
    if key not in _COMPILED:
        from .api import compile as compile_rules
        source, filename, bases = book
        _COMPILED[key] = compile_rules(source, filename, limits, bases=bases)
    return _COMPILED[key]


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
    by = job.by
    args = {**_made(rb, spec), **dict(spec.settings)}
    if job.policy is not None:
        args["policy"] = job.policy
    # A cell is worked out exactly when its chain fits in a share of the limits: a fight too
    # large for it is refused soon, and sampled, rather than after the whole limit's work.
    limits = attrs.evolve(job.limits, odds_states=max(1, job.limits.odds_states // EXACT_SHARE),
                          enumeration_work=max(1, job.limits.enumeration_work // EXACT_SHARE))
    try:
        with budget(job.limits, own=True):  # a refused attempt leaves the fights their own
            odds = proc.odds(by=by, choices=dict(spec.choices) or None, limits=limits, **args)
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
    """Whether the encounter's own outcomes say who won (`outcome won with winner = …`);
    else the winner is the side alone standing at the end, in a played fight as in the
    chain's exact odds (runtime/fight_odds.py)."""
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


__all__ = ["BATCH", "DRAW", "WINNER", "Cell", "Job", "Plan", "Spec", "fight_seed", "play",
           "run_plan"]
