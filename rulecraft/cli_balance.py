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
arguments_ = lazy("rulecraft.arguments")


@click.command("compare")
@click.argument("base")
@click.argument("other")
@click.argument("target")
@click.argument("arguments", nargs=-1)
@click.option("--by", "by", default="outcome", show_default=True,
              help="Group by the outcome's name or by one of its values (e.g. wound).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs (exact "
              "fractions as strings).")
@bases_option
@limit_option
def compare(base: str, other: str, target: str, arguments: tuple[str, ...], by: str,
            as_json: bool, limits: Limits) -> None:
    """TARGET under two rulebooks, side by side: BASE and OTHER (a rulebook and its house
    rules, or two versions of a file), the exact chance of each outcome under each and the
    change. TARGET is a procedure (its odds) or a formula (its value); ARGUMENTS are given as
    for `odds`, and combatants are made by each rulebook's own rules.

    \b
    Example:
      rulecraft compare ringing_steel docs/examples/rs_house.rules melee_attack \\
          attacker=@docs/examples/swordsman.json defender=@docs/examples/spearman.json --by wound"""
    try:
        books = [_load(base, limits), _load(other, limits)]
        answers = []
        for rb in books:
            kwargs, choices = _arguments(rb, target, arguments, limits)
            answers.append(balance.answer(rb, target, by, choices, limits, kwargs))
        result = balance.comparison(books, target, by, answers)
    except RulecraftError as err:
        _fail(err, as_json)
        return
    _emit(result.as_json(), as_json, result.text())


@click.command("sweep")
@click.argument("rulebook")
@click.argument("target")
@click.argument("arguments", nargs=-1)
@click.option("--vary", "vary", multiple=True, required=True, metavar="NAME=VALUES",
              help="A parameter, choice or combatant field (attacker.dexterity) and its values: "
                   "a range 6..18 (or 6..18..2 in steps), or a list None,Standard,Full. "
                   "Repeatable: the grid is every combination.")
@click.option("--by", "by", default="outcome", show_default=True,
              help="Group by the outcome's name or by one of its values (e.g. wound).")
@click.option("--show", "show", default=None, metavar="VALUE",
              help="The outcome (or, with --by, the value) whose chance the grid shows; "
                   "by default the likeliest at the first point.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs (exact "
              "fractions as strings).")
@bases_option
@limit_option
def sweep(rulebook: str, target: str, arguments: tuple[str, ...], vary: tuple[str, ...],
          by: str, show: str | None, as_json: bool, limits: Limits) -> None:
    """One outcome's exact chance at every point of a grid of inputs: TARGET (a procedure, or
    a formula for its value) of RULEBOOK with ARGUMENTS given as for `odds`, each --vary
    NAME=VALUES over its values.

    \b
    Examples:
      rulecraft sweep ringing_steel skill training=5 --vary dexterity=6..18 \\
          --vary armour=None,Standard,Full
      rulecraft sweep ringing_steel melee_attack attacker=@docs/examples/swordsman.json \\
          defender=@docs/examples/spearman.json --vary attacker.dexterity=6..18..3 \\
          --vary defender.armour=None,Standard,Full --show hit"""
    try:
        rb = _load(rulebook, limits)
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
    _emit(result.as_json(), as_json, result.text())


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
