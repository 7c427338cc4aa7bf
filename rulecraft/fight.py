"""Fighters from TOML files, and many fights of them: `rulecraft fight` (`--runs`),
`rulecraft.read_fighter`."""

from __future__ import annotations

import math
import os
import random
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import attrs

from rulecraft.runtime.combatants import Combatant
from rulecraft.runtime.errors import RangeError, RulecraftError, UnknownRulebookError
from rulecraft.runtime.fight_sides import by_sides, many_a_side
from rulecraft.runtime.fights import Fight, encounters, fight, pick_encounter
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.rulebook import Rulebook
from rulecraft.runtime.values import to_public
from rulecraft.runtime.work import budget

from .api import read_bounded, shown
from .arguments import read_values
from .workers import spread, usable_cores


def read_fighter(rulebook: Rulebook, path: str, model: str | None = None,
                 limits: Limits = DEFAULT_LIMITS) -> Combatant:
    """A combatant from a TOML file: its fields as the rulebook names them; `model = "horse"`
    picks a model other than the first. Errors name the file and the field."""
    try:
        data = read_values(path, limits, toml=True)  # bounded as a combatant file is
    except ValueError as err:  # TOMLDecodeError is a ValueError
        raise UnknownRulebookError(f"cannot read the fighter {shown(path)}: {err}") from None
    chosen = data.pop("model", model)
    models = rulebook.combatant_models
    if chosen is None:
        chosen = next(iter(models), None)
    if chosen not in models:
        raise RangeError(f"{path}: the rulebook {rulebook.name} has no combatant model "
                         f"{chosen!r} (it has: {', '.join(models) or 'none'})")
    try:
        return models[chosen].build(**data)
    except RulecraftError as err:
        problems = getattr(err, "errors", [err])
        lines = _field_lines(path, limits)
        raise RangeError("\n".join(
            f"{path}:{lines[e.field]}: {e.message}" if getattr(e, "field", None) in lines
            else f"{path}: {e.message}" for e in problems)) from None


def _field_lines(path: str, limits: Limits) -> dict[str, int]:
    """The line each field of a fighter file is written on (`strength = 12`, or a table of
    its own: `[training]`), for errors that point at it."""
    try:
        text = read_bounded(path, limits.source_bytes, "source_bytes").decode("utf-8", "replace")
    except (OSError, ValueError):
        return {}
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        found = re.match(r'\s*(?:\[\s*)?"?([^\s"=\]]+)"?\s*(?:=|\])', line)
        if found and not line.lstrip().startswith("#"):
            lines.setdefault(found.group(1), number)
    return lines


def fighter_files(paths: Sequence[str]) -> list[str]:
    """Each path as given, refusing folders with a clear message."""
    for path in paths:
        if os.path.isdir(path):
            raise UnknownRulebookError(f"{path} is a folder; give the fighters' .toml files")
    return list(paths)


def side_files(given: Sequence[str]) -> tuple[list[list[str]], list[str]]:
    """`a.toml b.toml vs c.toml`: the files side by side (one group without `vs`), and each
    fighter's name from its file (`a`; a second `a` is `a 2`)."""
    groups: list[list[str]] = [[]]
    for item in given:
        if item == "vs":
            groups.append([])
        else:
            groups[-1].append(item)
    if len(groups) > 1 and not all(groups):
        raise RangeError("each side needs a fighter's file: write `a.toml b.toml vs c.toml`")
    bases = [os.path.splitext(os.path.basename(path))[0] for g in groups for path in g]
    names = [f"{b} {bases[:i].count(b) + 1}" if b in bases[:i] else b
             for i, b in enumerate(bases)]
    return groups, names


__all__ = ["Fight", "Study", "Tally", "encounters", "fight", "fighter_files", "read_fighter",
           "side_files", "study"]


# ---- many fights -------------------------------------------------------------------------------

CHUNK = 250  # fights a worker plays between reports; fixed, so that workers change nothing


@attrs.frozen
class Study:
    """Many fights of the same fighters: how each ended, how long they took, how each fighter
    fared. The same seed gives the same figures whatever the number of workers."""

    runs: int
    outcomes: dict[str, int]
    standing: dict[str, int]  # fighter -> fights it ended with a turn still coming
    mean_time: float
    mean_passes: float
    states: dict[str, dict[str, float]]  # fighter -> state field (or injury) -> mean per fight
    # More than one against one: each side's fighters, the fights it won, the draws (no side
    # alone standing at the end: nobody left, or the fight capped undecided).
    sides: dict[str, list[str]] = attrs.field(factory=dict)
    side_wins: dict[str, int] = attrs.field(factory=dict)
    draws: int = 0
    clock: str = ""  # the encounter's clock, the unit of `mean_time` ("tenths", "rounds")
    counted: str = ""  # what `mean_passes` counts, as the outcomes say: "turns" or "rounds"

    def side_rates(self) -> dict[str, tuple[float, float, float]]:
        """Each side's rate of winning (and `draw`'s), with a 95% (Wilson) interval."""
        counts = {side: self.side_wins.get(side, 0) for side in self.sides}
        counts["draw"] = self.draws  # (a side named `draw` is reported as the draws)
        return {name: (count / self.runs, *_wilson(count, self.runs))
                for name, count in counts.items()}

    def win_rates(self) -> dict[str, tuple[float, float, float]]:
        """Each fighter's rate of standing at the end, with a 95% (Wilson) interval."""
        return {name: (count / self.runs, *_wilson(count, self.runs))
                for name, count in self.standing.items()}

    def report(self) -> str:
        lines = [f"{self.runs} fights"]
        lines += [f"  {name}: {count / self.runs:6.1%}" for name, count in self.outcomes.items()]
        for name, (rate, low, high) in self.win_rates().items():
            lines.append(f"{name} standing at the end: {rate:6.1%} (95% interval "
                         f"{low:.1%}–{high:.1%})")
        for name, (rate, low, high) in self.side_rates().items() if self.sides else ():
            who = f"side {name} ({', '.join(self.sides[name])}) wins" if name in self.sides \
                else "draws (no side alone standing)"
            lines.append(f"{who}: {rate:6.1%} (95% interval {low:.1%}–{high:.1%})")
        lines.append(f"mean length: {self.mean_time:.1f} {self.clock or '(time)'}, "
                     f"{self.mean_passes:.1f} {self.counted or '(turns or rounds)'}")
        for name, figures in self.states.items():
            shown = ", ".join(f"{k} {v:.2f}" for k, v in figures.items())
            lines.append(f"{name}, mean per fight: {shown}")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        rates = self.side_rates()
        sides = {} if not self.sides else {
            "sides": {k: {"fighters": self.sides[k], "rate": r, "low": lo, "high": hi}
                      for k, (r, lo, hi) in rates.items() if k in self.sides},
            "draws": dict(zip(("rate", "low", "high"), rates["draw"]))}
        return {"runs": self.runs, "outcomes": self.outcomes, **sides,
                "win_rates": {k: {"rate": r, "low": lo, "high": hi}
                              for k, (r, lo, hi) in self.win_rates().items()},
                "mean_time": self.mean_time, "clock": self.clock,
                "mean_passes": self.mean_passes, "counted": self.counted,
                "states": self.states}


Exact = int | Fraction  # a sum kept exactly: the same whatever order fights are added in


@attrs.define
class Tally:
    """What a study keeps as fights finish: counts and exact sums, never a fight's own record,
    so that its size does not grow with the fights and any order of adding gives the same."""

    runs: int = 0
    outcomes: dict[str, int] = attrs.field(factory=dict)
    standing: dict[str, int] = attrs.field(factory=dict)
    time: Exact = 0
    passes: Exact = 0
    states: dict[str, dict[str, Exact]] = attrs.field(factory=dict)
    sides: dict[str, list[str]] = attrs.field(factory=dict)  # when more than one against one
    side_wins: dict[str, int] = attrs.field(factory=dict)
    draws: int = 0
    counted: str = ""  # "turns" or "rounds": what the encounter's outcomes count

    def add(self, done: Fight) -> None:
        """One finished fight: how it ended, who was standing, each fighter's state."""
        outcome = done.result.outcome
        self.runs += 1
        _count(self.outcomes, outcome.name, 1)
        if not self.counted:  # `turn f:` loops end counting turns, `round:` loops rounds
            self.counted = next((c for c in ("turns", "rounds") if c in outcome), "")
        played = done.played()
        if played:  # nobody stands in an unplayed fight
            for fighter in done.standing():
                _count(self.standing, done.name(fighter), 1)
        if many_a_side(done.sides):
            self.sides = self.sides or {side: [done.name(f) for f in members]
                                        for side, members in done.sides}
            won = done.winner() if played else None
            if won is None:
                self.draws += 1
            else:
                _count(self.side_wins, won, 1)
        time, passes = done.length()
        self.time += _exact(time)
        self.passes += _exact(passes)
        for fighter in done.fighters:
            into = self.states.setdefault(done.name(fighter), {})
            for key, figure in _state_figures(fighter):
                _count(into, key, figure)

    def merge(self, other: Tally) -> None:
        """Another tally's fights added to these."""
        self.runs += other.runs
        for name, count in other.outcomes.items():
            _count(self.outcomes, name, count)
        for name, count in other.standing.items():
            _count(self.standing, name, count)
        self.time += other.time
        self.passes += other.passes
        self.sides = self.sides or other.sides
        for name, count in other.side_wins.items():
            _count(self.side_wins, name, count)
        self.draws += other.draws
        self.counted = self.counted or other.counted
        for name, figures in other.states.items():
            into = self.states.setdefault(name, {})
            for key, figure in figures.items():
                _count(into, key, figure)

    def study(self, names: Sequence[str]) -> Study:
        """The study's figures: counts as they are, sums as means per fight; the fighters
        named first, in that order, any other after them by name."""
        def mean(total: Exact) -> float:
            return float(Fraction(total) / self.runs)

        def fighters(found: Mapping[str, Any]) -> list[str]:
            return list(dict.fromkeys(names)) + sorted(set(found) - set(names))

        outcomes = dict(sorted(self.outcomes.items(), key=lambda kv: (-kv[1], kv[0])))
        standing = {name: self.standing.get(name, 0) for name in fighters(self.standing)}
        states = {name: {k: mean(v) for k, v in sorted(_items_met(
            self.states.get(name, {}), self.states).items())} for name in fighters(self.states)}
        return Study(self.runs, outcomes, standing, mean(self.time), mean(self.passes), states,
                     self.sides, dict(self.side_wins), self.draws, counted=self.counted)


def _items_met(own: dict[str, Exact], everyone: Mapping[str, dict[str, Exact]]
               ) -> dict[str, Exact]:
    """A fighter's state sums with every list item that a fighter of his kind met
    (`injuries: Death`), at 0 where he met none, so that their summaries read side by side.
    Fighters of a kind have the same number fields (`fatigue`, always summed); a horse's
    summary gains nothing of his rider's."""
    plain = {key for key in own if ": " not in key}
    return {**{key: 0 for figures in everyone.values()
               if {k for k in figures if ": " not in k} == plain
               for key in figures if ": " in key}, **own}


def _count(into: dict[str, Any], key: str, amount: Exact) -> None:
    into[key] = into.get(key, 0) + amount


def _exact(number: Any) -> Exact:
    """A figure as an exact number (a float's exact value): sums then do not depend on order."""
    return number if isinstance(number, int) else Fraction(number)


def _state_figures(fighter: Combatant) -> list[tuple[str, Exact]]:
    """A fighter's state as numbers to average: numbers as they are, each item of a list or a
    map of lists counted (injuries by kind)."""
    figures: list[tuple[str, Exact]] = []
    values = fighter._values
    for name in fighter.model.state_names:
        value = to_public(values[name])
        kind = type(value)
        if kind is int or kind is float:  # most of a state: numbers (checked at C speed)
            figures.append((name, _exact(value)))
            continue
        if kind is bool or kind is str or value is None:  # nothing to average
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            figures.append((name, _exact(value)))
        items = [i for v in value.values() for i in v] if isinstance(value, Mapping) and all(
            isinstance(v, (list, tuple)) for v in value.values()) else \
            list(value) if isinstance(value, (list, tuple)) else []
        figures += [(f"{name}: {item}", 1) for item in items]
    return figures


@attrs.frozen
class _Job:
    """What every worker needs to play its share of a study: the rulebook, the fighters as
    given, the fight's options and the limits of the command."""

    source: str
    filename: str
    bases: tuple[str, ...]  # the folders its bases were read from
    fighters: list[tuple[str, dict[str, Any]]]  # (combatant model, values given)
    groups: tuple[int, ...] | None  # fighters a side, when given side by side
    names: list[str]
    options: dict[str, Any]  # encounter, policy, settings, until, day
    seed: int
    limits: Limits


def _default_names(rulebook: Rulebook, encounter: str | None, fighters: Sequence[Any],
                   groups: tuple[int, ...] | None) -> list[str]:
    """How a summary calls fighters given without names: by their own `name`, else as a single
    fight's log does, by the parameter each was given to (`first`, `second`), else by their
    model and place (`fighter 3`)."""
    params = [] if groups is not None else [
        p.name for p in pick_encounter(rulebook, encounter).params
        if p.type.kind == "combatant"]
    called = []
    for i, fighter in enumerate(fighters):
        own = fighter._values.get("name")
        called.append(own if isinstance(own, str) else
                      params[i] if i < len(params) else f"{fighter.model.name} {i + 1}")
    return called


def study(rulebook: Rulebook, fighters: Any, runs: int, seed: int | None = None,
          names: Sequence[str] | None = None, encounter: str | None = None,
          policy: str | None = None, workers: int | None = None,
          progress: Any = None, settings: Mapping[str, Any] | None = None,
          until: Any = None, limits: Limits = DEFAULT_LIMITS, day: int | None = None,
          cluster: str | None = None) -> Study:
    """`runs` fights, fight i seeded from (seed, i), each within `limits`; spread over
    `workers` processes (all cores by default, never more) in chunks, or over the Dask
    `cluster` whose scheduler is at that address, and summed as they come back: the same
    figures whatever the number of workers. `fighters` as `Rulebook.fight` takes them: a
    list, or side by side."""
    if not isinstance(runs, int) or isinstance(runs, bool) or runs < 1:
        raise RangeError(f"runs is a whole number of fights, 1 or more, not {runs!r}")
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    groups = None
    if by_sides(fighters):
        if isinstance(fighters, Mapping):  # in the encounter's order of sides
            fighters = _in_side_order(rulebook, encounter, fighters)
        groups = tuple(len(g) for g in fighters)
        fighters = [f for g in fighters for f in g]
    names = list(names or _default_names(rulebook, encounter, fighters, groups))
    job = _Job(str(rulebook.source), rulebook.filename, _base_folders(rulebook),
               [(f.model.name, _given(f)) for f in fighters], groups, names,
               {"encounter": encounter, "policy": policy, "settings": dict(settings or {}),
                "until": until, "day": day}, seed, limits)
    # made as they are played: a huge --runs is work to do, not a list to hold
    chunks = ((start, min(runs, start + CHUNK)) for start in range(0, runs, CHUNK))
    workers = min(workers or usable_cores(), usable_cores(), -(-runs // CHUNK))
    total = Tally()

    def take(tally: Tally) -> None:
        total.merge(tally)
        if progress is not None:
            progress(tally.runs)

    if cluster is not None:  # (slice sweep) the same chunks, on Dask: rulecraft/cluster.py
        from .cluster import play_study, spread_on
        spread_on(cluster, play_study, job, lambda: next(chunks, None), take)
    elif workers <= 1:
        for chunk in chunks:
            take(_tally(rulebook, job, chunk))
    else:
        spread(_play, job, rulebook, chunks, workers, take)
    return attrs.evolve(total.study(names), clock=pick_encounter(rulebook, encounter).clock or "")


def _in_side_order(rulebook: Rulebook, encounter: str | None,
                   fighters: Mapping[str, Any]) -> list[list[Combatant]]:
    """Fighters given by side name, in the order of the encounter's sides."""
    from rulecraft.runtime.fight_sides import side_params
    from rulecraft.runtime.fights import pick_encounter

    chosen = pick_encounter(rulebook, encounter)
    names = [p.name for p in side_params(chosen)]
    unknown = [k for k in fighters if k not in names]
    if unknown:
        raise RangeError(f"encounter {chosen.name} has no side {unknown[0]!r} (its sides are "
                         f"{', '.join(names)})")
    return [list(fighters.get(n, ())) for n in names]


def _given(fighter: Combatant) -> dict[str, Any]:
    return {f.name: fighter[f.name] for f in fighter.model.fields if f.role != "derived"}


def _base_folders(rulebook: Rulebook) -> tuple[str, ...]:
    """The folders the bases under a house rulebook were read from: a worker compiling it
    again may read them there too (they were allowed, `--bases`, when it was loaded)."""
    from .api import rule_files

    return tuple(sorted({os.path.dirname(path) for path in rule_files(rulebook)[1:]}))


def _play(rb: Rulebook | None, job: _Job, chunk: tuple[int, int]) -> Tally:
    """A worker's share: the rulebook as compiled in the parent (forked), or compiled again."""
    if rb is None:
        from .api import compile as compile_rules
        rb = compile_rules(job.source, job.filename, job.limits, bases=job.bases)
    return _tally(rb, job, chunk)


def _tally(rb: Rulebook, job: _Job, chunk: tuple[int, int]) -> Tally:
    """Fights chunk[0] … chunk[1] - 1 of a study, tallied."""
    made: Any = [rb.combatant_models[model].build(**given) for model, given in job.fighters]
    if job.groups is not None:  # side by side again
        cuts = [sum(job.groups[:i]) for i in range(len(job.groups) + 1)]
        made = [made[a:b] for a, b in zip(cuts, cuts[1:])]
    tally = Tally()
    for i in range(*chunk):
        # Each fight a budget of work of its own: their number is the user's to choose.
        with budget(job.limits, own=True):
            tally.add(fight(rb, made, seed=job.seed * 1_000_003 + i, names=job.names,
                            limits=job.limits, traced=False, **job.options))
    return tally


def _wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (sound at 0 and 1, unlike the normal one)."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)

