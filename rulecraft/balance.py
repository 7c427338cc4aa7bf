"""Balance views for house-rule authors: one target under two rulebooks side by side
(`compare`), or one outcome's chance across a grid of inputs (`sweep`), exact, with text bars
for a terminal and exact fractions as strings for programs."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import attrs

from rulecraft.fight_table import winner_note
from rulecraft.runtime.combatants import Combatant
from rulecraft.runtime.errors import RangeError
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.results import jsonable
from rulecraft.runtime.rulebook import Rulebook
from rulecraft.runtime.sampling import Estimate
from rulecraft.runtime.values import display

BAR = 24  # characters of a full bar
SHADES = " ▁▂▃▄▅▆▇█"


@attrs.frozen
class Comparison:
    """One target under two rulebooks: each value (an outcome, a wound, a formula's result) with
    its chance under each, and the difference."""

    target: str
    by: str
    base: str
    other: str
    rows: tuple[tuple[Any, Any, Any], ...]  # (value, under base, under other); None: never

    def difference(self, row: tuple[Any, Any, Any]) -> Any:
        _, before, after = row
        if isinstance(before, (int, Fraction)) or isinstance(after, (int, Fraction)):
            return (after or 0) - (before or 0)
        return None

    def as_json(self) -> dict[str, Any]:
        return {"target": self.target, "by": self.by, "base": self.base, "other": self.other,
                "rows": [{self.by: jsonable(v), "base": _exact(b), "other": _exact(o),
                          "difference": _exact(self.difference((v, b, o)))}
                         for v, b, o in self.rows]}

    def text(self) -> str:
        width = max([len(self.by)] + [len(display(v) or "(none)") for v, _, _ in self.rows])
        lines = [f"{self.target}: {self.base} → {self.other}",
                 f"{self.by:<{width}}  {'base':>8}  {'other':>8}  {'change':>8}"]
        for row in self.rows:
            value, before, after = row
            change = self.difference(row)
            lines.append(f"{display(value) or '(none)':<{width}}  {_shown(before):>8}  "
                         f"{_shown(after):>8}  {_signed(change):>8}  {_change_bar(change)}")
        return "\n".join(lines)


@attrs.frozen
class Sweep:
    """One value's chance (or a formula's result) at each point of a grid of inputs."""

    target: str
    by: str
    show: Any  # the outcome (or value) whose chance the grid holds; None for a formula
    axes: tuple[tuple[str, tuple[Any, ...]], ...]  # (name varied, its values)
    cells: Mapping[tuple[Any, ...], Any]  # the point (one value per axis) -> chance or value

    def as_json(self) -> dict[str, Any]:
        points = []
        for point, found in self.cells.items():
            row = {name: jsonable(value) for (name, _), value in zip(self.axes, point)}
            if isinstance(found, Fraction):
                row.update(probability=str(found), percent=float(found * 100))
            else:
                row["value"] = jsonable(found)
            points.append(row)
        return {"target": self.target, "by": self.by, "show": jsonable(self.show),
                "vary": {name: [jsonable(v) for v in values] for name, values in self.axes},
                "points": points}

    def text(self) -> str:
        title = (f"{self.target}: chance of {display(self.show)}" if self.show is not None
                 else f"{self.target}")
        if len(self.axes) == 2:
            return title + "\n" + self._grid()
        width = max(len(", ".join(f"{n}={display(v)}" for (n, _), v in zip(self.axes, point)))
                    for point in self.cells)
        lines = [title]
        for point, found in self.cells.items():
            where = ", ".join(f"{n}={display(v)}" for (n, _), v in zip(self.axes, point))
            shown = f"{_bar(found)} {_shown(found):>8}" if isinstance(found, Fraction) else \
                display(found)
            lines.append(f"{where:<{width}}  {shown}")
        return "\n".join(lines)

    def _grid(self) -> str:
        (rows_name, rows), (columns_name, columns) = self.axes
        head = max(len(rows_name), *(len(display(r)) for r in rows))
        cell = max(9, *(len(display(c)) + 1 for c in columns))
        lines = [f"{rows_name} ↓  {columns_name} →",
                 " " * head + "".join(f"{display(c):>{cell}}" for c in columns)]
        for r in rows:
            parts = []
            for c in columns:
                p = self.cells[(r, c)]
                shade = SHADES[round(float(p) * (len(SHADES) - 1))] if isinstance(p, Fraction) \
                    else ""
                parts.append(f"{shade}{_shown(p)}".rjust(cell))
            lines.append(f"{display(r):<{head}}" + "".join(parts))
        return "\n".join(lines)


def compare(base: Rulebook | str, other: Rulebook | str, target: str, by: str = "outcome",
            choices: Mapping[str, Any] | None = None, limits: Limits = DEFAULT_LIMITS,
            **args: Any) -> Comparison:
    """`target` (a procedure's exact odds, or a formula's value) under two rulebooks — a
    rulebook and its house rules, or two versions of a file — for the same arguments.
    Combatants are made anew in each rulebook from the figures they were given."""
    books = [_book(base, limits), _book(other, limits)]
    answers = [answer(rb, target, by, choices, limits, _remade(rb, args)) for rb in books]
    return comparison(books, target, by, answers)


def comparison(books: list[Rulebook], target: str, by: str,
               answers: list[Mapping[Any, Any]]) -> Comparison:
    """Two answers side by side, in the order `odds` lists values in."""
    values = list(dict.fromkeys(list(answers[0]) + list(answers[1])))
    proc = books[1].procedures.get(target) or books[0].procedures.get(target)
    if proc is not None:
        from .odds_order import in_order
        values = [v for v, _ in in_order(books[1], proc, by, dict.fromkeys(values, 0))]
    rows = tuple((v, answers[0].get(v), answers[1].get(v)) for v in values)
    return Comparison(target, by if proc is not None else "value", books[0].name,
                      books[1].name, rows)


def sweep(rulebook: Rulebook | str, target: str, vary: Mapping[str, Iterable[Any]],
          by: str = "outcome", show: Any = None, choices: Mapping[str, Any] | None = None,
          limits: Limits = DEFAULT_LIMITS, **args: Any) -> Sweep:
    """The chance of one outcome (`show`; with `by`, of one value) of `target` — or a
    formula's value — at every point of a grid: each name of `vary` (a parameter, a choice,
    or a combatant's field as `attacker.dexterity`) over its values."""
    rb = _book(rulebook, limits)
    axes = tuple((name, tuple(values)) for name, values in vary.items())
    points = list(itertools.product(*(values for _, values in axes)))
    answers = {point: answer(rb, target, by, choices, limits,
                             _varied(rb, target, args, dict(zip(vary, point))))
               for point in points}
    return swept(rb, target, by, show, axes, answers)


def swept(rb: Rulebook, target: str, by: str, show: Any,
          axes: tuple[tuple[str, tuple[Any, ...]], ...],
          answers: Mapping[tuple[Any, ...], Mapping[Any, Any]]) -> Sweep:
    """The grid of answers, each point's chance of `show` (the likeliest value at the first
    point when not named)."""
    if target not in rb.procedures:
        return Sweep(target, "value", None, axes, {p: a["value"] for p, a in answers.items()})
    if show is None:
        first = next(iter(answers.values()))
        show = max(first, key=lambda v: first[v]) if first else None
    known = {v for a in answers.values() for v in a}
    if show not in known:
        raise RangeError(f"{target} never comes to {display(show)!r} on this grid (it comes "
                         f"to: {', '.join(sorted(display(v) for v in known))})")
    return Sweep(target, by, show, axes, {p: a.get(show, Fraction(0)) for p, a in answers.items()})


def sweep_fights(rulebook: Rulebook | str, encounter: str, vary: Mapping[str, Iterable[Any]],
                 by: str = "winner", show: Any = None, *, precision: float = 0.05,
                 max_runs: int = 20_000, seed: int = 0, policy: str | None = None,
                 exact: bool = True, workers: int = 1, cluster: str | None = None,
                 choices: Mapping[str, Any] | None = None, limits: Limits = DEFAULT_LIMITS,
                 **args: Any) -> Any:
    """Whole fights of `encounter` at every point of a grid: each name of `vary` — a fighter
    parameter (its values combatants), a fighter's field (`first.armour`), a setting
    (`apart`) or `rulebook` (rulebooks, such as a house rule and its base) — over its values.
    Each cell exact where the fight's chain is small enough, else sampled until each 95%
    interval is narrower than `precision`; `by` "winner" (the side alone standing), "outcome"
    or a value; the same figures for the same seed with any `workers` or on a Dask
    `cluster` (its scheduler's address). A `FightSweep`: `.text()`, `.html()`, `.as_json()`."""
    from .fight_sweep import BOOK, Point, distinct, sweep_grid

    rb = _book(rulebook, limits)
    axes = []
    for name, values in vary.items():
        values = tuple(_book(v, limits) for v in values) if name == BOOK else tuple(values)
        axes.append((name, values, tuple(distinct([_point_label(v) for v in values]))))
    points = {}
    for combo in itertools.product(*(range(len(values)) for _, values, _ in axes)):
        given = {name: values[i] for (name, values, _), i in zip(axes, combo)}
        book = given.pop(BOOK, rb)
        points[tuple(labels[i] for (_, _, labels), i in zip(axes, combo))] = Point(
            book, _varied(book, encounter, _remade(book, args), given), dict(choices or {}))
    labelled = tuple((name, labels) for name, _, labels in axes)
    return sweep_grid(encounter, labelled, points, by=by, show=show, policy=policy,
                      precision=precision, max_runs=max_runs, seed=seed, exact=exact,
                      workers=workers, cluster=cluster, limits=limits)


def compare_fights(base: Rulebook | str, other: Rulebook | str, encounter: str,
                   by: str = "winner", **options: Any) -> Any:
    """Whole fights of `encounter` under two rulebooks (a house rule against its base), the
    same dice under both: each side's chance of winning under each and the change (a
    `FightComparison`). Options and arguments as for `sweep_fights`."""
    from .fight_compare import FightComparison

    found = sweep_fights(base, encounter, {"rulebook": [base, other]}, by=by, **options)
    return FightComparison.from_sweep(found)


def _point_label(value: Any) -> Any:
    """A value of an axis as the grid names it: a combatant by its name, a rulebook by its."""
    if isinstance(value, Combatant):
        from rulecraft.runtime.results import who
        return who(value)
    if isinstance(value, Rulebook):
        return value.name
    return value


def answer(rb: Rulebook, target: str, by: str, choices: Mapping[str, Any] | None,
           limits: Limits, args: Mapping[str, Any]) -> Mapping[Any, Any]:
    """A procedure's exact odds, or a formula's value (as {"value": …})."""
    if target in rb.procedures:
        return rb.procedures[target].odds(by=by, choices=choices, limits=limits, **args)
    if target in rb.formulas:
        return {"value": rb.formulas[target](**args)}
    known = sorted(list(rb.procedures) + list(rb.formulas))
    import difflib
    close = difflib.get_close_matches(target, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise RangeError(f"rulebook {rb.name} has no procedure or formula {target!r}{hint}")


def _book(rulebook: Rulebook | str | os.PathLike[str], limits: Limits) -> Rulebook:
    if isinstance(rulebook, Rulebook):
        return rulebook
    from rulecraft import api
    return api.load(rulebook, limits)


def _given(fighter: Combatant) -> dict[str, Any]:
    """What a combatant was made from: its characteristics and state, not its figures."""
    return {name: fighter._values[name] for name in fighter.model.given_names}


def _remade(rb: Rulebook, args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments for `rb`: a combatant made anew by its models from the same figures (a
    house rule may change what they come to); a dict given for a combatant, made."""
    out = {}
    for name, value in args.items():
        if isinstance(value, Combatant):
            value = _model(rb, value.model.name).build(**_given(value))
        out[name] = value
    return out


def _model(rb: Rulebook, name: str) -> Any:
    models = getattr(rb, "combatant_models", None) or {}
    model = models.get(name) or (rb.combatant_model if rb.combatant_model is not None and
                                 rb.combatant_model.name == name else None)
    if model is None:
        raise RangeError(f"rulebook {rb.name} has no combatant model {name!r}")
    return model


def _varied(rb: Rulebook, target: str, args: Mapping[str, Any],
            point: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments with this point's values in: `attacker.dexterity` remakes the attacker."""
    out = _remade(rb, args)
    for name, value in point.items():
        party, _, path = name.partition(".")
        if not path:
            out[name] = value
            continue
        fighter = out.get(party)
        if not isinstance(fighter, Combatant):
            raise RangeError(f"{name}: {target} is given no combatant {party!r} to vary")
        given = _given(fighter)
        _put(given, path.split("."), value)
        out[party] = fighter.model.build(**given)
    return out


def _put(values: dict[str, Any], path: list[str], value: Any) -> None:
    for key in path[:-1]:
        values[key] = dict(values.get(key) or {})
        values = values[key]
    values[path[-1]] = value


def sampled_rows(rows: list[tuple[Any, Estimate]], by: str, as_json: bool
                 ) -> tuple[Any, bool, str]:
    """What `odds --samples` prints: each value, its share of the runs and the 95% interval."""
    data = [{by: jsonable(k), **e.as_json()} for k, e in rows]
    samples = rows[0][1].samples if rows else 0
    text = "\n".join(f"{display(k) or '(none)':<24} {e.count:>9}/{e.samples:<9} "
                     f"{float(e) * 100:6.2f}%  (95%: {e.low * 100:.2f}–{e.high * 100:.2f}%)"
                     for k, e in rows)
    text += f"\nestimated from {samples} seeded runs; exact odds: leave out --samples"
    note = winner_note(by, [k for k, _ in rows])
    return data, as_json, text + (f"\n{note}" if note else "")


def _exact(value: Any) -> Any:
    return str(value) if isinstance(value, Fraction) else jsonable(value)


def _shown(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, Fraction):
        return f"{float(value) * 100:.2f}%"
    return display(value)


def _signed(value: Any) -> str:
    if isinstance(value, Fraction):
        return f"{float(value) * 100:+.2f}%" if value else "0"
    return "" if value is None else display(value)


def _bar(p: Fraction) -> str:
    """A bar of BAR characters, in eighths."""
    eighths = round(float(p) * BAR * 8)
    return ("█" * (eighths // 8) + (SHADES[eighths % 8] if eighths % 8 else "")).ljust(BAR)


def _change_bar(change: Any) -> str:
    if not isinstance(change, Fraction) or not change:
        return ""
    return ("+" if change > 0 else "−") * max(1, min(BAR, round(abs(float(change)) * 100)))


__all__ = ["Comparison", "Sweep", "compare", "compare_fights", "sampled_rows", "sweep",
           "sweep_fights"]
