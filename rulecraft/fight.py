"""Fighters from TOML files, for `rulecraft fight` and `rulecraft.read_fighter`."""

from __future__ import annotations

import concurrent.futures
import math
import os
import random
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rulecraft.runtime.combatants import Combatant
from rulecraft.runtime.errors import RangeError, RulecraftError, UnknownRulebookError
from rulecraft.runtime.fights import Fight, encounters, fight
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.results import who
from rulecraft.runtime.rulebook import Rulebook

from .api import shown
from .arguments import read_values


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
        raise RangeError("\n".join(f"{path}: {e.message}" for e in problems)) from None


def fighter_files(paths: Sequence[str]) -> list[str]:
    """Each path as given, refusing folders with a clear message."""
    for path in paths:
        if os.path.isdir(path):
            raise UnknownRulebookError(f"{path} is a folder; give the fighters' .toml files")
    return list(paths)


__all__ = ["Fight", "Study", "encounters", "fight", "fighter_files", "read_fighter", "study"]


# ---- many fights -------------------------------------------------------------------------------


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
        lines.append(f"mean length: {self.mean_time:.1f} (time), {self.mean_passes:.1f} "
                     "(turns or rounds)")
        for name, figures in self.states.items():
            shown = ", ".join(f"{k} {v:.2f}" for k, v in figures.items())
            lines.append(f"{name}, mean per fight: {shown}")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {"runs": self.runs, "outcomes": self.outcomes,
                "win_rates": {k: {"rate": r, "low": lo, "high": hi}
                              for k, (r, lo, hi) in self.win_rates().items()},
                "mean_time": self.mean_time, "mean_passes": self.mean_passes,
                "states": self.states}


def study(rulebook: Rulebook, fighters: Sequence[Combatant], runs: int, seed: int | None = None,
          names: Sequence[str] | None = None, encounter: str | None = None,
          policy: str | None = None, workers: int | None = None,
          progress: Any = None, settings: Mapping[str, Any] | None = None,
          until: Any = None) -> Study:
    """`runs` fights, fight i seeded from (seed, i); spread over `workers` processes (all
    cores by default) in chunks, summed in fight order so that workers change nothing."""
    if not isinstance(runs, int) or isinstance(runs, bool) or runs < 1:
        raise RangeError(f"runs is a whole number of fights, 1 or more, not {runs!r}")
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    names = list(names or (who(f) for f in fighters))
    job = (str(rulebook.source), rulebook.filename, [(f.model.name, _given(f)) for f in fighters],
           names, encounter, policy, seed, dict(settings or {}), until)
    chunks = [(start, min(runs, start + 250)) for start in range(0, runs, 250)]
    workers = min(workers or os.cpu_count() or 1, len(chunks))
    tallies: list[list[dict[str, Any]]] = []
    if workers <= 1:
        for chunk in chunks:
            tallies.append(_fights(job, chunk))
            if progress is not None:
                progress(chunk[1] - chunk[0])
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
            for done in pool.map(_fights, [job] * len(chunks), chunks):
                tallies.append(done)
                if progress is not None:
                    progress(len(done))
    return _summed([t for chunk in tallies for t in chunk], names)


def _given(fighter: Combatant) -> dict[str, Any]:
    return {f.name: fighter[f.name] for f in fighter.model.fields if f.role != "derived"}


_COMPILED: dict[tuple[str, str], Rulebook] = {}  # in each worker: the rulebook, compiled once


def _fights(job: tuple[Any, ...], chunk: tuple[int, int]) -> list[dict[str, Any]]:
    """Fights chunk[0] … chunk[1] - 1 of a study, each reduced to what the study sums."""
    from .api import compile as compile_rules

    source, filename, fighters, names, encounter, policy, seed, settings, until = job
    rb = _COMPILED.get((source, filename))
    if rb is None:
        rb = _COMPILED[(source, filename)] = compile_rules(source, filename)
    made = [rb.combatant_models[model].build(**given) for model, given in fighters]
    out = []
    for i in range(*chunk):
        done = fight(rb, made, encounter=encounter, seed=seed * 1_000_003 + i, names=names,
                     policy=policy, settings=settings, until=until)
        outcome = done.result.outcome
        played = any(e["kind"] == "turn" for e in done.events)
        standing = [done.name(f) for f in done.standing()] if played else []
        out.append({"outcome": outcome.name, "time": float(outcome.get("time", 0) or 0),
                    "passes": float(outcome.get("turns", outcome.get("rounds", 0)) or 0),
                    "standing": standing,
                    "states": {done.name(f): _state_figures(f) for f in done.fighters}})
    return out


def _state_figures(fighter: Combatant) -> dict[str, float]:
    """A fighter's state as numbers to average: numbers as they are, each item of a list or a
    map of lists counted (injuries by kind)."""
    figures: dict[str, float] = {}
    for f in fighter.model.fields:
        if f.role != "state":
            continue
        value = fighter[f.name]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            figures[f.name] = float(value)
        items = [i for v in value.values() for i in v] if isinstance(value, Mapping) and all(
            isinstance(v, (list, tuple)) for v in value.values()) else \
            list(value) if isinstance(value, (list, tuple)) else []
        for item in items:
            key = f"{f.name}: {item}"
            figures[key] = figures.get(key, 0.0) + 1
    return figures


def _summed(tallies: list[dict[str, Any]], names: list[str]) -> Study:
    runs = len(tallies)
    outcomes: dict[str, int] = {}
    standing = {name: 0 for name in names}
    states: dict[str, dict[str, float]] = {name: {} for name in names}
    for t in tallies:
        outcomes[t["outcome"]] = outcomes.get(t["outcome"], 0) + 1
        for name in t["standing"]:
            standing[name] = standing.get(name, 0) + 1
        for name, figures in t["states"].items():
            into = states.setdefault(name, {})
            for k, v in figures.items():
                into[k] = into.get(k, 0.0) + v
    for figures in states.values():
        for k in figures:
            figures[k] /= runs
    outcomes = dict(sorted(outcomes.items(), key=lambda kv: (-kv[1], kv[0])))
    return Study(runs, outcomes, standing, sum(t["time"] for t in tallies) / runs,
                 sum(t["passes"] for t in tallies) / runs,
                 {name: dict(sorted(f.items())) for name, f in states.items()})


def _wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (sound at 0 and 1, unlike the normal one)."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
