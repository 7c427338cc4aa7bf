"""Cheat sheets and screens: what the one or two pages kept at the table show, read off a
compiled rulebook as plain data (as compiler/sheet_view.py does for the reference sheet).

A rulebook says what goes on them (`cheat sheet:` / `screen:`, runtime/sheet_plan.py); one
that says nothing gets a default that fits two pages, naming what it left out. Items are the
reference sheet's own views — tables, quick references, formulas — without the book's words,
and each procedure condensed to its decision points (compiler/cheat_flow.py).
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

import attrs

from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.rulebook import Rulebook
from rulecraft.runtime.sheet_plan import PlanItem, PlanSection, SheetPlan

from . import sheet_view
from .cheat_flow import flow, lines
from .sheet_math import Rich, words
from .sheet_steps import StepView

LAYOUTS = ("cheat", "screen")
# What two landscape pages hold, in printed lines (a table's row, a formula, a step of a
# flow): four columns of about sixty lines a page, less what never packs tight.
PAGE_LINES = 170


@attrs.frozen
class FlowView:
    """A procedure condensed to its decision points."""

    name: str
    title: str
    params: Rich
    steps: tuple[StepView, ...]
    status: str | None = None
    ends: tuple[str, ...] = ()  # a procedure with no roll or choice: the outcomes it ends in


@attrs.frozen
class CheatItem:
    """One rule on the sheet: `kind` "table", "reference", "formula" or "procedure"; `view`
    the reference sheet's view of it (a FlowView for a procedure); `added` by a house file."""

    kind: str
    name: str
    view: Any
    added: bool = False
    moved: bool = False  # a house file moved it from where its base has it


@attrs.frozen
class CheatSection:
    title: str
    items: tuple[CheatItem, ...]
    added: bool = False


@attrs.frozen
class CheatSheet:
    """A cheat sheet (`layout` "cheat") or a game master's screen ("screen")."""

    layout: str
    name: str
    title: str
    heading: str  # "Ringing Steel — cheat sheet", or the declaration's own title
    paper: str
    sections: tuple[CheatSection, ...]
    footer: str  # which rulebook, house file and version it came from
    declared: bool  # False: the default, made when the rulebook declares none
    dropped: tuple[str, ...] = ()  # what the default left out to fit two pages, by title
    base: str | None = None  # a house rulebook's base, by title
    removed: tuple[str, ...] = ()  # what a house file took off the base's sheet, by title


class NoScreen(ValueError):
    """A rulebook that declares no game master's screen."""


def build(rb: Rulebook, layout: str, paper: str,
          limits: Limits = DEFAULT_LIMITS) -> CheatSheet:
    """The cheat sheet or screen of `rb`, as its declaration says or by default."""
    views = sheet_view._Builder(rb, lambda kind, name, heading: "", False, limits)
    plan = getattr(rb, "sheet_plans", {}).get(layout)
    dropped: tuple[str, ...] = ()
    if plan is None and layout == "screen":
        raise NoScreen(f"{rb.name} declares no game master's screen: write a `screen:` block "
                       "(docs/language.md, \"Cheat sheets and screens\") or use --layout cheat")
    if plan is None:
        plan, dropped = default_plan(rb, views)
    sections = tuple(CheatSection(sec.title, tuple(_item(rb, views, it) for it in sec.items),
                                  sec.added) for sec in plan.sections)
    title = _title(rb, layout, plan)
    base = rb.base.title if getattr(rb, "base", None) is not None else None
    return CheatSheet(layout, rb.name, rb.title, title, paper, sections, footer(rb),
                      plan.span is not None, tuple(_titled(rb, n) for n in dropped), base,
                      tuple(_titled(rb.base, n) for n in plan.removed) if rb.base else ())


def _title(rb: Rulebook, layout: str, plan: SheetPlan) -> str:
    if plan.title:
        return plan.title
    return f"{rb.title} — {'cheat sheet' if layout == 'cheat' else 'game master’s screen'}"


def _item(rb: Rulebook, views: Any, item: PlanItem) -> CheatItem:
    """The view of one named rule (the plan was checked against the rulebook when compiled)."""
    name = item.name
    if name in rb.tables:
        view = _new_columns(views.table(rb.tables[name]), views.base, name)
        return CheatItem("table", name, view, item.added, item.moved)
    if name in getattr(rb, "patterns", {}):
        return CheatItem("table", name, views.pattern(rb.patterns[name]), item.added,
                         item.moved)
    if name in getattr(rb, "references", {}):
        return CheatItem("reference", name, views.reference(rb.references[name]), item.added,
                         item.moved)
    if name in rb.formulas:
        return CheatItem("formula", name, views.formula(rb.formulas[name]), item.added,
                         item.moved)
    p = rb.procedures[name]
    made = flow(p, views.vocabulary, views.options)
    ends = tuple(words(outcome) for outcome in p.outcomes) if not made else ()
    view = FlowView(name, p.title, sheet_view._params(p.params), made, views.status(name),
                    ends)
    return CheatItem("procedure", name, view, item.added, item.moved)


def _new_columns(view: Any, base: Rulebook | None, name: str) -> Any:
    """A house table's view without a struck-through "—" under each column the base has not
    got: a new column is new, not a change of every cell."""
    was = base.tables.get(name) if base is not None else None
    if was is None or view.status != "changed":
        return view
    old = set(was.side_labels) | set(was.columns)
    fresh = [i for i, label in enumerate(view.header) if label not in old]
    rows = tuple(tuple(attrs.evolve(cell, base=None) if i in fresh else cell
                       for i, cell in enumerate(row)) for row in view.rows)
    return attrs.evolve(view, rows=rows)


def _titled(rb: Rulebook, name: str) -> str:
    for kind in ("tables", "patterns", "references", "formulas", "procedures"):
        found = getattr(rb, kind, {}).get(name)
        if found is not None:
            return found.title
    return name


# -- the default -------------------------------------------------------------------------------

def default_plan(rb: Rulebook, views: Any) -> tuple[SheetPlan, tuple[str, ...]]:
    """What a rulebook declaring nothing prints: its quick references, its lookup tables, each
    procedure that rolls or chooses as a flow, and its formulas, in that order, as long as two
    pages hold them (measured in printed lines, `PAGE_LINES` a page); and what it left out."""
    candidates = [
        ("Quick reference", [(n, sum(len(g.rows) + 3 for g in views.reference(r).grids))
                             for n, r in getattr(rb, "references", {}).items()]),
        ("Tables", [(n, _table_lines(t)) for n, t in rb.tables.items()]),
        ("Procedures", [(n, lines(made) + 1) for n, p in rb.procedures.items()
                        if p.clock is None
                        for made in [flow(p, views.vocabulary, views.options)] if made]),
        ("Formulas", [(n, 1 + len(f.body) // 90) for n, f in rb.formulas.items()]),
    ]
    room = 2 * PAGE_LINES
    sections, dropped = [], []
    for title, items in candidates:
        kept = []
        for name, cost in items:
            if cost <= room:
                kept.append(PlanItem(name))
                room -= cost
            else:
                dropped.append(name)
        if kept:
            sections.append(PlanSection(title, tuple(kept)))
    return SheetPlan("cheat", None, tuple(sections)), tuple(dropped)


def _table_lines(t: Any) -> int:
    """A table's printed lines: its rows and header, more for a wide one (its rows wrap)."""
    width = len(t.side_labels) + len(t.columns)
    return (len(t.rows) + 2) * (1 + width // 7)


# -- the footer --------------------------------------------------------------------------------

def footer(rb: Rulebook) -> str:
    """`Ringing Steel (ringing_steel.rules, text 3f2a…) · rulecraft 0.9`; a house rulebook's
    names its house file and the base it extends."""
    def file(book: Rulebook) -> str:
        digest = hashlib.sha256(str(book.source).encode("utf-8", "surrogatepass")).hexdigest()
        return f"{os.path.basename(book.filename)}, text {digest[:10]}"

    said = f"{rb.title} ({file(rb)})"
    base = getattr(rb, "base", None)
    if base is not None:
        said = f"house rules {said} over {base.title} ({file(base)})"
    return f"Made from {said} by rulecraft {_version()}; every figure worked out by its engine"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rulecraft")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


__all__ = ["LAYOUTS", "CheatItem", "CheatSection", "CheatSheet", "FlowView", "NoScreen",
           "build", "default_plan", "footer"]
