"""`rulecraft compare` and `rulecraft sweep`: the balance views (rulecraft/balance.py) on the
command line, registered on the `rulecraft` group by cli.py."""

from __future__ import annotations

import re
from typing import Any

import click

from rulecraft.runtime.errors import RangeError, RulecraftError
from rulecraft.runtime.limits import Limits

from .cli import _emit, _fail, _load, bases_option, limit_option
from .lazy import lazy

balance = lazy("rulecraft.balance")
fight_sweep = lazy("rulecraft.fight_sweep")
arguments_ = lazy("rulecraft.arguments")


def fight_options(command: Any) -> Any:
    """The options of a sweep (or comparison) of whole fights: how far to sample, where."""
    for option in reversed([
        click.option("--precision", type=float, default=0.05, show_default=True,
                     help="Fights only: sample a cell until each 95% interval is narrower "
                          "than this (0.02: two points in a hundred)."),
        click.option("--max-runs", type=click.IntRange(min=1), default=20_000,
                     show_default=True, help="Fights only: the most fights a sampled cell "
                                             "plays."),
        click.option("--seed", type=int, default=None, help="Fights only: the same seed, the "
                     "same figures (here, on any number of cores, or on a cluster)."),
        click.option("--policy", default=None, help="Fights only: the policy that makes the "
                     "fighters' choices."),
        click.option("--no-exact", "no_exact", is_flag=True, help="Fights only: sample every "
                     "cell without asking for exact odds first."),
        click.option("--workers", type=click.IntRange(min=1), default=None,
                     help="Fights only: processes on this machine (default: every core)."),
        click.option("--cluster", metavar="ADDRESS", default=None,
                     help="Fights only: play on the Dask cluster whose scheduler is at "
                          "ADDRESS (tcp://HOST:8786; needs pip install 'rulecraft[cluster]')."),
    ]):
        command = option(command)
    return command


@click.command("compare")
@click.argument("base")
@click.argument("other")
@click.argument("target")
@click.argument("arguments", nargs=-1)
@click.option("--by", "by", default=None,
              help="Group by the outcome's name or by one of its values (e.g. wound); a fight "
                   "by its winner (the default for an encounter), its outcome or a value.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs (exact "
              "fractions as strings).")
@fight_options
@bases_option
@limit_option
def compare(base: str, other: str, target: str, arguments: tuple[str, ...], by: str | None,
            as_json: bool, limits: Limits, **fights: Any) -> None:
    """TARGET under two rulebooks, side by side: BASE and OTHER (a rulebook and its house
    rules, or two versions of a file), the exact chance of each outcome under each and the
    change. TARGET is a procedure (its odds) or a formula (its value); ARGUMENTS are given as
    for `odds`, and combatants are made by each rulebook's own rules.

    \b
    Example:
      rulecraft compare ringing_steel docs/examples/rs_house.rules melee_attack \\
          attacker=@docs/examples/swordsman.json defender=@docs/examples/spearman.json --by wound
      rulecraft compare ringing_steel docs/examples/rs_house.rules duel --policy competent \\
          first=@examples/ringing_steel/swordsman.toml \\
          second=@examples/ringing_steel/spearman.toml --seed 1

    An ENCOUNTER as TARGET compares whole fights: each side's chance of winning, exact where
    the fight's chain is small enough, else sampled (the same dice under both rulebooks)."""
    try:
        books = [_load(base, limits), _load(other, limits)]
        if _is_encounter(books[0], target):
            _compare_fights(books, (base, other), target, arguments, by, as_json, limits,
                            **fights)
            return
        _procedure_only(fights)
        by = by or "outcome"
        answers = []
        for rb in books:
            kwargs, choices = _arguments(rb, target, arguments, limits)
            answers.append(balance.answer(rb, target, by, choices, limits, kwargs))
        result = balance.comparison(books, target, by, answers)
    except RulecraftError as err:
        _fail(err, as_json)
        return
    except KeyboardInterrupt:  # Ctrl-C: the workers are gone already
        _interrupted()
    _emit(result.as_json(), as_json, result.text())


@click.command("sweep")
@click.argument("rulebook")
@click.argument("target")
@click.argument("arguments", nargs=-1)
@click.option("--vary", "vary", multiple=True, required=True, metavar="NAME=VALUES",
              help="A parameter, choice or combatant field (attacker.dexterity) and its values: "
                   "a range 6..18 (or 6..18..2 in steps), or a list None,Standard,Full. "
                   "Repeatable: the grid is every combination.")
@click.option("--by", "by", default=None,
              help="Group by the outcome's name (the default for a procedure) or by one of its "
                   "values (e.g. wound); a fight by its winner (the default for an encounter).")
@click.option("--show", "show", default=None, metavar="VALUE",
              help="The outcome (or, with --by, the value; for a fight, the side) whose chance "
                   "the grid shows; by default the likeliest at the first point (a fight: the "
                   "first side).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs (exact "
              "fractions as strings).")
@click.option("--html", "html_file", default=None, metavar="FILE",
              help="Fights only: also write the heat map as one HTML page to FILE.")
@fight_options
@bases_option
@limit_option
def sweep(rulebook: str, target: str, arguments: tuple[str, ...], vary: tuple[str, ...],
          by: str | None, show: str | None, as_json: bool, html_file: str | None,
          limits: Limits, **fights: Any) -> None:
    """One outcome's exact chance at every point of a grid of inputs: TARGET (a procedure, or
    a formula for its value; an encounter for whole fights, below) of RULEBOOK with ARGUMENTS
    given as for `odds`, each --vary NAME=VALUES over its values.

    \b
    Examples:
      rulecraft sweep ringing_steel skill training=5 --vary dexterity=6..18 \\
          --vary armour=None,Standard,Full
      rulecraft sweep ringing_steel melee_attack attacker=@docs/examples/swordsman.json \\
          defender=@docs/examples/spearman.json --vary attacker.dexterity=6..18..3 \\
          --vary defender.armour=None,Standard,Full --show hit
      rulecraft sweep ringing_steel duel --policy competent --seed 1 \\
          --vary first=@examples/ringing_steel/swordsman.toml,@examples/ringing_steel/axeman.toml \\
          --vary second=@examples/ringing_steel/spearman.toml,@examples/ringing_steel/knight.toml

    An ENCOUNTER as TARGET sweeps whole fights: vary a fighter (first=@a.toml,@b.toml), a
    fighter's field (first.armour=Light,Standard), a setting (apart=1..5) or the rulebook
    itself (rulebook=rq3_core,rq3_house). Each cell is exact where the fight's chain is small
    enough, else sampled in seeded batches until each 95% interval is narrower than
    --precision; the grid prints as a heat map (--html FILE: as a web page too)."""
    try:
        rb = _load(rulebook, limits)
        if _is_encounter(rb, target):
            found = _sweep_fights(rb, target, arguments, vary, by, show, as_json, limits,
                                  **fights)
            if html_file is not None:
                from .output import write_new
                write_new(html_file, found.html(), [], limits)
            _emit(found.as_json(), as_json, found.text())
            return
        if html_file is not None:
            raise RangeError("--html draws a sweep of whole fights: give an encounter")
        _procedure_only(fights)
        by = by or "outcome"
        axes = tuple(_axis(text, limits) for text in vary)
        points = _points(axes)
        answers = {}
        for point in points:
            given = arguments + tuple(f"{name}={raw}" for (name, _), raw in zip(axes, point[1]))
            kwargs, choices = _arguments(rb, target, given, limits)
            answers[point[0]] = balance.answer(rb, target, by, choices, limits, kwargs)
        shown = None if show is None else arguments_.value_of("--show", show, limits)
        result = balance.swept(rb, target, by, shown,
                               tuple((name, tuple(v for v, _ in values)) for name, values in axes),
                               answers)
    except RulecraftError as err:
        _fail(err, as_json)
        return
    except KeyboardInterrupt:  # Ctrl-C: the workers are gone already
        _interrupted()
    _emit(result.as_json(), as_json, result.text())


def _interrupted() -> None:
    import sys
    click.echo("rulecraft: interrupted", err=True)
    sys.exit(130)


# ---- whole fights -----------------------------------------------------------------------------

_FIGHT_DEFAULTS = {"precision": 0.05, "max_runs": 20_000, "seed": None, "policy": None,
                   "no_exact": False, "workers": None, "cluster": None}


def _is_encounter(rb: Any, target: str) -> bool:
    proc = rb.procedures.get(target)
    return proc is not None and proc.clock is not None


def _procedure_only(fights: dict[str, Any]) -> None:
    """The options of whole fights, refused for a procedure or a formula."""
    given = [f"--{k.replace('_', '-')}" for k, v in fights.items() if v != _FIGHT_DEFAULTS[k]]
    if given:
        raise RangeError(f"{', '.join(given)} go{'es' * (len(given) == 1)} with a sweep of whole "
                         "fights: give an encounter as the target")


def _sweep_fights(rb: Any, target: str, arguments: tuple[str, ...], vary: tuple[str, ...],
                  by: str | None, show: str | None, as_json: bool, limits: Limits,
                  **fights: Any) -> Any:
    """The grid of whole fights the command line describes, played as it asks."""
    axes = tuple(_fight_axis(text, limits) for text in vary)
    names = [name for name, _ in axes]
    if len(set(names)) < len(names):
        raise RangeError("each --vary names something else to vary; "
                         f"{next(n for n in names if names.count(n) > 1)} is given twice")
    shown = None if show is None else arguments_.value_of("--show", show, limits)
    return _play_fights(rb, target, arguments, axes, by, shown, as_json, limits, fights)


def _compare_fights(books: list[Any], typed: tuple[str, str], target: str,
                    arguments: tuple[str, ...], by: str | None, as_json: bool, limits: Limits,
                    **fights: Any) -> None:
    """A whole fight under two rulebooks: a sweep of the rulebook axis, shown side by side."""
    from rulecraft.fight_compare import FightComparison

    if not _is_encounter(books[1], target):
        raise RangeError(f"{typed[1]} has no encounter {target!r} to compare")
    labels = tuple(_book_label(t) for t in typed)
    if labels[0] == labels[1]:
        labels = (f"{labels[0]} (base)", f"{labels[1]} (other)")
    axis = (fight_sweep.BOOK, [(b, label) for b, label in zip(books, labels)])
    found = _play_fights(books[0], target, arguments, (axis,), by, None, as_json, limits,
                         fights)
    result = FightComparison.from_sweep(found)
    _emit(result.as_json(), as_json, result.text())


def _play_fights(rb: Any, target: str, arguments: tuple[str, ...],
                 axes: tuple[tuple[str, list[tuple[Any, str]]], ...], by: str | None,
                 show: Any, as_json: bool, limits: Limits, fights: dict[str, Any]) -> Any:
    """Each point's rulebook and arguments read as `odds` reads them, then the fights played
    (a progress bar of cells on a terminal)."""
    import random
    import sys

    from rulecraft.workers import usable_cores

    named = [fight_sweep.distinct([_label(v, raw) for v, raw in values]) for _, values in axes]
    label_of = [dict(zip((raw for _, raw in values), labels))
                for (_, values), labels in zip(axes, named)]
    points = {}
    for combo in _points(axes):
        labels, typed = combo
        book = next((v for (name, _), v in zip(axes, labels) if name == fight_sweep.BOOK), rb)
        given = arguments + tuple(f"{name}={raw}" for (name, _), raw in zip(axes, typed)
                                  if name != fight_sweep.BOOK)
        kwargs, choices = arguments_.procedure_arguments(book, book.procedures[target], given,
                                                         limits)
        choices.pop("policy", None)
        points[tuple(known[raw] for known, raw in zip(label_of, typed))] = \
            fight_sweep.Point(book, kwargs, choices)
    seed = fights["seed"]
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    workers = min(fights["workers"] or usable_cores(), usable_cores())
    options = dict(by=by or fight_sweep.WINNER, show=show, policy=fights["policy"],
                   precision=fights["precision"], max_runs=fights["max_runs"], seed=seed,
                   exact=not fights["no_exact"], workers=workers, cluster=fights["cluster"],
                   limits=limits)
    shown_axes = tuple((name, tuple(labels)) for (name, _), labels in zip(axes, named))
    if sys.stderr.isatty() and not as_json:  # a progress bar for a person waiting
        from .output import unescaped
        with click.progressbar(length=len(points), label="cells",
                               file=unescaped(sys.stderr)) as bar:
            return fight_sweep.sweep_grid(target, shown_axes, points, progress=bar.update,
                                          **options)
    return fight_sweep.sweep_grid(target, shown_axes, points, **options)


def _fight_axis(text: str, limits: Limits) -> tuple[str, list[tuple[Any, str]]]:
    """An axis of a sweep of fights: as for a procedure, and besides a fighter's files
    (first=@a.toml,@b.toml, or a pattern: first=@examples/ringing_steel/*man.toml), sides of
    several fighters (heroes=@a.toml,@a.toml+@b.toml) and the rulebook itself
    (rulebook=ringing_steel,docs/examples/rs_house.rules)."""
    import glob

    name, sep, values = text.partition("=")
    name = name.strip()
    if sep and name == fight_sweep.BOOK:
        raw = [part.strip() for part in values.split(",") if part.strip()]
        axis: tuple[str, list[tuple[Any, str]]] = (name, [(_load(r, limits), r) for r in raw])
    elif sep and "@" in values:
        raw = []
        for part in (p.strip() for p in values.split(",") if p.strip()):
            if not part.startswith("@"):
                raise RangeError(f"--vary {text}: a fighter's files each start with @ "
                                 f"(first=@a.toml,@b.toml); got {part!r}")
            pattern = "+" not in part and any(c in part for c in "*?[")
            found = sorted(glob.glob(part[1:])) if pattern else [part[1:]]
            if not found:
                raise RangeError(f"--vary {text}: no file matches {part[1:]!r}")
            raw += [f"@{path}" for path in found]
        axis = name, [(r, r) for r in raw]
    else:
        axis = _axis(text, limits)
    typed = [raw for _, raw in axis[1]]
    twice = next((raw for raw in typed if typed.count(raw) > 1), None)
    if twice is not None:
        raise RangeError(f"--vary {text}: {twice} is listed twice; give each value once")
    return axis


def _label(value: Any, raw: str) -> Any:
    """How a point of an axis is named in the grid: a fighter by its file's name, a rulebook
    by its name, anything else by its value."""
    import os

    if raw.startswith("@"):  # a side of several fighters, @a.toml+@b.toml, is "a+b"
        return "+".join(os.path.splitext(os.path.basename(part[1:]))[0]
                        for part in raw.split("+"))
    if not isinstance(value, (int, float, str, bool)) or value is None:
        return _book_label(raw)
    return value


def _book_label(typed: str) -> str:
    import os
    return os.path.splitext(os.path.basename(typed))[0]


def _arguments(rb: Any, target: str, given: tuple[str, ...],
               limits: Limits) -> tuple[dict[str, Any], dict[str, Any]]:
    """Keyword arguments and choices for a procedure (as `odds` reads them), or a formula's."""
    proc = rb.procedures.get(target)
    if proc is not None:
        return arguments_.procedure_arguments(rb, proc, given, limits)  # type: ignore[no-any-return]
    kwargs = {}
    for text in given:
        name, sep, value = text.partition("=")
        if not sep or "." in name:
            raise RangeError(f"a formula takes name=value arguments; got {text!r}")
        kwargs[name] = arguments_.value_of(name, value, limits)
    return kwargs, {}


_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?:\.\.\s*(\d+)\s*)?$")


def _axis(text: str, limits: Limits) -> tuple[str, list[tuple[Any, str]]]:
    """`dexterity=6..18`, `dexterity=6..18..2` or `armour=None,Standard,Full`: the name and
    each value (as read, and as typed)."""
    name, sep, values = text.partition("=")
    if not sep or not name.strip() or not values.strip():
        raise RangeError(f"--vary takes NAME=VALUES, such as dexterity=6..18 or "
                         f"armour=None,Standard,Full; got {text!r}")
    name = name.strip()
    m = _RANGE.match(values)
    if m:
        low, high, step = int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)
        if step < 1 or high < low or (high - low) // step >= limits.table_rows:
            raise RangeError(f"--vary {text}: a range runs from low to high, in steps of 1 or "
                             f"more, with at most {limits.table_rows} values")
        raw = [str(n) for n in range(low, high + 1, step)]
    else:
        raw = [part.strip() for part in values.split(",") if part.strip()]
    return name, [(arguments_.value_of(name, r, limits), r) for r in raw]


def _points(axes: tuple[tuple[str, list[tuple[Any, str]]], ...]
            ) -> list[tuple[tuple[Any, ...], tuple[str, ...]]]:
    """Every combination of the axes' values: (the values, as typed)."""
    import itertools
    return [(tuple(v for v, _ in combo), tuple(r for _, r in combo))
            for combo in itertools.product(*(values for _, values in axes))]


__all__ = ["compare", "sweep"]
