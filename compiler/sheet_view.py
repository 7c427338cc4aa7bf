"""Sheets: what a reference sheet shows, read off a compiled rulebook as plain data.

Templates get only these frozen values (text, numbers, tuples of `Piece`s) — never a runtime
object — so a user's template, rendered in Jinja's sandbox, can reach nothing but what the sheet
prints. Each rule carries the comments above it (the book's words it was transcribed from),
left out for a rules-only sheet.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import attrs

from rulecraft.runtime.combatants import CombatantModel
from rulecraft.runtime.dice import Dice
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.references import Grid, Reference
from rulecraft.runtime.rulebook import Formula, Policy, Rulebook
from rulecraft.runtime.procedures import Procedure
from rulecraft.runtime.space import Pattern
from rulecraft.runtime.tables import Table
from rulecraft.runtime.values import display

from .sheet_math import MathWriter, Piece, Rich, Vocabulary, folded, parse, words
from .sheet_steps import StepView, steps

Anchor = Callable[[str, str, str], str]  # (kind, name, heading) -> the anchor on the sheet


@attrs.frozen
class Note:
    """A paragraph of the comments above a rule: the book's words, or a CHOICE the
    transcriber made where the book is garbled or silent."""

    text: str
    choice: bool = False


@attrs.frozen
class CellView:
    text: Rich
    exact: str | None = None  # a chance as an exact fraction, "17/20"
    base: str | None = None  # a house rule's cell: what the base prints there


@attrs.frozen
class TableView:
    name: str
    title: str
    anchor: str
    line: int | None
    header: tuple[str, ...]
    keys: int  # how many leading columns are keys (headers down the side)
    rows: tuple[tuple[CellView, ...], ...]
    notes: tuple[Note, ...]
    status: str | None = None  # a house rule: "changed" or "added"
    added_rows: tuple[int, ...] = ()  # rows a house rule added, by index
    examples: tuple[ExampleView, ...] = ()


@attrs.frozen
class ExampleView:
    """A worked example printed under the rule it shows: its title, dice and steps."""

    title: str
    dice: str
    lines: tuple[str, ...]


@attrs.frozen
class FormulaView:
    name: str
    title: str
    anchor: str
    line: int | None
    lhs: Rich
    rhs: Rich
    rounding: str | None  # its outermost rounding, in words
    params: Rich
    notes: tuple[Note, ...]
    status: str | None = None
    base: tuple[Rich, str | None] | None = None  # a house rule's: the base's rhs, rounding
    where: tuple[tuple[Rich, Rich], ...] = ()  # its local names, each with its value
    examples: tuple[ExampleView, ...] = ()


@attrs.frozen
class ProcedureView:
    name: str
    title: str
    anchor: str
    line: int | None
    params: Rich
    steps: tuple[StepView, ...]
    notes: tuple[Note, ...]
    status: str | None = None
    base: tuple[StepView, ...] | None = None  # a house rule's: the base's steps
    examples: tuple[ExampleView, ...] = ()


@attrs.frozen
class FigureView:
    """A line of a combatant model: a characteristic's range, a derived figure's formula."""

    name: str
    role: str
    text: Rich
    notes: tuple[Note, ...]


@attrs.frozen
class CombatantView:
    name: str
    title: str
    anchor: str
    line: int | None
    figures: tuple[FigureView, ...]
    notes: tuple[Note, ...]
    status: str | None = None


@attrs.frozen
class AnswerView:
    """A choice a policy answers, and its answer in the sheet's words."""

    choice: str
    text: Rich
    notes: tuple[Note, ...]


@attrs.frozen
class PolicyView:
    """A policy (`--policy NAME`): who decides what, so a reader knows how a fight was played."""

    name: str
    title: str
    anchor: str
    line: int | None
    answers: tuple[AnswerView, ...]
    notes: tuple[Note, ...]
    status: str | None = None


@attrs.frozen
class GridView:
    caption: str  # "Armour: Standard" for one value of a `for each`; "" for the only grid
    corner: str  # what the rows go over ("Dexterity")
    across: str  # what the columns go over ("Training"), "" for named columns
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[CellView, ...]], ...]
    named: bool = False  # rows headed by names (weapons), not numbers


@attrs.frozen
class ReferenceView:
    name: str
    title: str
    anchor: str
    line: int | None
    cell: Rich  # what a cell shows (for a grid of one `cell`)
    odds: str | None  # "exact chances over d20"
    grids: tuple[GridView, ...]
    notes: tuple[Note, ...]
    status: str | None = None


@attrs.frozen
class Sheet:
    """One rulebook's sheet: every procedure, table, formula, combatant model and quick
    reference, in that order, with what a house rulebook changed marked."""

    name: str
    title: str
    meta: tuple[tuple[str, str], ...]
    paper: str
    sources: bool
    procedures: tuple[ProcedureView, ...]
    tables: tuple[TableView, ...]
    formulas: tuple[FormulaView, ...]
    combatants: tuple[CombatantView, ...]
    references: tuple[ReferenceView, ...]
    base: str | None = None  # a house rulebook's base, by title
    removed: tuple[str, ...] = ()  # the base's rules a house rulebook removed
    policies: tuple[PolicyView, ...] = ()


def build(rb: Rulebook, anchor: Anchor, paper: str, sources: bool,
          limits: Limits = DEFAULT_LIMITS) -> Sheet:
    """The sheet of `rb`; `anchor` names each rule's place in the output format; `limits`
    bound the work of its quick references."""
    return _Builder(rb, anchor, sources, limits).sheet(paper)


class _Builder:
    def __init__(self, rb: Rulebook, anchor: Anchor, sources: bool, limits: Limits) -> None:
        self.rb = rb
        self.sources = sources
        self.limits = limits
        self.origins = getattr(rb, "origins", None) or {}  # a house rulebook's (extends)
        self.base = getattr(rb, "base", None)
        self.anchors = {name: anchor(kind, name, item.title) for kind, name, item in _rules(rb)}
        self.vocabulary = _vocabulary(rb, self.anchors)
        self.options = {e.name: e.members for e in rb.enums.values()}

    def sheet(self, paper: str) -> Sheet:
        rb = self.rb
        removed = tuple(sorted(n for n, o in self.origins.items() if o.status == "removed"))
        worked = self.worked()

        def under(views: Any) -> tuple[Any, ...]:  # each rule with the examples that show it
            return tuple(attrs.evolve(v, examples=worked[v.name]) if v.name in worked else v
                         for v in views)

        return Sheet(rb.name, rb.title, tuple(rb.meta.items()), paper, self.sources,
                     under(self.procedure(p) for p in rb.procedures.values()),
                     under(self.table(t) for t in rb.tables.values()) +
                     tuple(self.pattern(p) for p in getattr(rb, "patterns", {}).values()),
                     under(self.formula(f) for f in rb.formulas.values()),
                     tuple(self.combatant(m) for m in _models(rb)),
                     tuple(self.reference(r) for r in getattr(rb, "references", {}).values()),
                     self.base.title if self.base is not None else None, removed,
                     tuple(self.policy(p) for p in getattr(rb, "policies", {}).values()))

    def worked(self) -> dict[str, tuple[ExampleView, ...]]:
        """The rulebook's worked examples by the rule each shows: the first procedure,
        formula or table its steps read."""
        rules = set(self.rb.procedures) | set(self.rb.formulas) | set(self.rb.tables)
        found: dict[str, list[ExampleView]] = {}
        for e in getattr(self.rb, "examples", ()):
            rule = next((name for name in e.about if name in rules), None)
            if rule is not None:
                dice = ", ".join(str(d) for d in e.dice)
                found.setdefault(rule, []).append(ExampleView(e.title, dice, e.lines))
        return {rule: tuple(views) for rule, views in found.items()}

    def notes(self, comments: tuple[str, ...]) -> tuple[Note, ...]:
        return notes(comments) if self.sources else ()

    def status(self, name: str) -> str | None:
        origin = self.origins.get(name)
        return origin.status if origin is not None else None

    def _based(self, kind: str, name: str) -> Any:
        """The base's rule of this name, when a house rule changed it."""
        if self.base is None or self.status(name) != "changed":
            return None
        return getattr(self.base, kind).get(name)

    # -- tables ----------------------------------------------------------------------------
    def table(self, t: Table) -> TableView:
        math = MathWriter(self.vocabulary)
        header = tuple(t.side_labels) + tuple(t.columns)
        base = _printed(self._based("tables", t.name))
        rows, added = [], []
        for i, row in enumerate(t.rows):
            keys = tuple(c.text for c in row.keys)
            if base is not None and keys not in base:
                added.append(i)
            cells = [CellView(_cell_text(c.text, math)) for c in row.keys]
            for label, c in zip(t.columns, row.cells):
                was = base[keys].get(label, "—") if base is not None and keys in base else None
                cells.append(CellView(_cell_text(c.text, math),
                                      base=was if was is not None and was != c.text else None))
            rows.append(tuple(cells))
        return TableView(t.name, t.title, self.anchors[t.name], _line(t.span), header,
                         len(t.side_labels), tuple(rows), self.notes(t.comments),
                         self.status(t.name), tuple(added))

    def pattern(self, p: Pattern) -> TableView:
        """A pattern of hexes, printed as a table: its key columns, then its hexes in words
        as the book's diagram draws them for facing 0 ("ahead; front right")."""
        rows = tuple(tuple(CellView((Piece(str(k), "text"),)) for k in keys) +
                     (CellView((Piece(hexes, "text"),)),) for keys, hexes in p.described())
        header = tuple(k.replace("_", " ").capitalize() for k in p.keys) + \
            ("Hexes, seen from the own hex facing ahead",)
        return TableView(p.name, p.title, self.anchors[p.name], _line(p.span), header,
                         len(p.keys), rows, self.notes(p.comments), self.status(p.name))

    # -- formulas --------------------------------------------------------------------------
    def formula(self, f: Formula) -> FormulaView:
        math = MathWriter(self.vocabulary, frozenset(p.name for p in f.params) |
                          frozenset(name for name, _ in f.where))
        rhs, rounding = math.rounded(parse(f.body))
        where = tuple(((Piece(self.vocabulary.name(name), "name"),), math.value(parse(text)))
                      for name, text in f.where)
        base = self._based("formulas", f.name)
        was = MathWriter(self.vocabulary, frozenset(p.name for p in base.params)).rounded(
            parse(base.body)) if base is not None else None
        return FormulaView(f.name, f.title, self.anchors[f.name], _line(f.span),
                           (Piece(self.vocabulary.name(f.name), "name"),), rhs, rounding,
                           _params(f.params), self.notes(f.comments), self.status(f.name), was,
                           where)

    # -- procedures ------------------------------------------------------------------------
    def procedure(self, p: Procedure) -> ProcedureView:
        base = self._based("procedures", p.name)
        made = self._steps(p)
        was = None
        if base is not None:  # an amended procedure: its own steps marked, the base's replaced
            before = _noted(steps(base, self.vocabulary, self.options), False)
            made, was = _amended(made, before)
        return ProcedureView(p.name, p.title, self.anchors[p.name], _line(p.span),
                             _params(p.params) + _sides(p), made, self.notes(p.comments),
                             self.status(p.name), was)

    def _steps(self, p: Procedure) -> tuple[StepView, ...]:
        return _noted(steps(p, self.vocabulary, self.options,
                            getattr(self.rb, "standing", ())), self.sources)

    # -- combatants ------------------------------------------------------------------------
    def combatant(self, model: CombatantModel) -> CombatantView:
        names = frozenset(f.name for f in model.fields)
        math = MathWriter(self.vocabulary, names)
        figures = []
        for f in model.fields:
            if f.role == "derived":
                text = math.value(parse(f.text.split("=", 1)[1]))
            else:
                kind = f.type.text.replace("..", "–") if f.type is not None else ""
                text = (Piece(kind, "lit"),) if f.role != "state" else \
                    (Piece("state, " + kind, "lit"),)
            figures.append(FigureView(self.vocabulary.name(f.name), f.role, text,
                                      self.notes(f.comments)))
        return CombatantView(model.name, model.title, self.anchors[model.name],
                             _line(model.span), tuple(figures), self.notes(model.comments),
                             self.status(model.name))

    # -- policies --------------------------------------------------------------------------
    def policy(self, p: Policy) -> PolicyView:
        math = MathWriter(self.vocabulary, frozenset())
        answers = tuple(AnswerView(self.vocabulary.name(a.choice), math.value(parse(a.text)),
                                   self.notes(a.comments)) for a in p.answers)
        return PolicyView(p.name, p.title, self.anchors[p.name], _line(p.span), answers,
                          self.notes(p.comments), self.status(p.name))

    # -- quick references ------------------------------------------------------------------
    def reference(self, r: Reference) -> ReferenceView:
        grids = tuple(self.grid(r, g) for g in r.grids(self.limits))
        status = self.status(r.name)
        based = getattr(self.base, "references", {}).get(r.name) if self.base is not None \
            else None
        if based is not None and status is None:  # its figures, as the house rules make them
            grids = _against(grids, tuple(self.grid(based, g) for g in based.grids(self.limits)))
            if any(c.base is not None for g in grids for _, cells in g.rows for c in cells):
                status = "changed"
        odds = None
        if r.odds:
            odds = "exact chances over every roll of the dice"
        local = frozenset((*r.each, r.rows, r.columns or "", *r.rolls))
        cell = MathWriter(self.vocabulary, local).text(r.shows[0]) if r.columns and r.shows \
            else ()
        return ReferenceView(r.name, r.title, self.anchors[r.name], _line(r.span), cell, odds,
                             grids, self.notes(r.comments), status)

    def grid(self, r: Reference, g: Grid) -> GridView:
        caption = ", ".join(f"{self.vocabulary.name(k)}: {display(v)}" for k, v in g.each)
        across = self.vocabulary.name(r.columns) if r.columns else ""
        places = _places(v for cells in g.cells for v in cells)
        columns = tuple(display(c) for c in g.columns)
        rows = tuple((display(row), tuple(_value(v, places) for v in cells))
                     for row, cells in zip(g.rows, g.cells))
        named = any(isinstance(row, str) for row in g.rows)
        return GridView(caption, self.vocabulary.name(r.rows), across, columns, rows, named)


# -- helpers -------------------------------------------------------------------------------

def _rules(rb: Rulebook) -> list[tuple[str, str, Any]]:
    """Every rule the sheet prints, (kind, name, item), in the sheet's order."""
    return [*(("procedure", n, p) for n, p in rb.procedures.items()),
            *(("table", n, t) for n, t in rb.tables.items()),
            *(("table", n, p) for n, p in getattr(rb, "patterns", {}).items()),
            *(("formula", n, f) for n, f in rb.formulas.items()),
            *(("combatant", m.name, m) for m in _models(rb)),
            *(("reference", n, r) for n, r in getattr(rb, "references", {}).items()),
            *(("policy", n, p) for n, p in getattr(rb, "policies", {}).items())]


def _models(rb: Rulebook) -> list[CombatantModel]:
    models = getattr(rb, "combatant_models", None) or {}
    if models:
        return list(models.values())
    return [rb.combatant_model] if rb.combatant_model is not None else []


def _vocabulary(rb: Rulebook, anchors: dict[str, str]) -> Vocabulary:
    labels: dict[str, str] = {}
    for t in rb.tables.values():
        if t.layout == "record":
            for field, label in zip(t.fields, t.columns):
                labels.setdefault(field, label)
    patterns = getattr(rb, "patterns", {})
    return Vocabulary(
        {**{n: Piece(t.title, "name", anchors[n]) for n, t in rb.tables.items()},
         **{n: Piece(p.title, "name", anchors[n]) for n, p in patterns.items()}},
        {n: Piece(f.title, "name", anchors[n]) for n, f in rb.formulas.items()},
        {n: Piece(p.title, "name", anchors[n]) for n, p in rb.procedures.items()},
        labels, {n: f.title for n, f in rb.formulas.items() if folded(f.title) == n},
        {n: u.title for n, u in getattr(rb, "units", {}).items()})


_RULER = re.compile(r"^(-{3,}.*-{3,}|={3,}.*={3,})$")  # a comment that rules off a part of the file


def notes(comments: tuple[str, ...]) -> tuple[Note, ...]:
    """Comment lines as paragraphs: a line starting `CHOICE` starts one of its own."""
    paragraphs: list[list[str]] = []
    for text in comments:
        text = text.strip()
        if not text or _RULER.match(text):
            continue
        if not paragraphs or text.startswith("CHOICE"):
            paragraphs.append([])
        paragraphs[-1].append(text)
    out = []
    for lines in paragraphs:  # a CHOICE in mid-line starts a paragraph of its own too
        for part in re.split(r"\s(?=CHOICE\b)", " ".join(lines)):
            out.append(Note(part, part.startswith("CHOICE")))
    return tuple(out)


def _cell_text(text: str, math: MathWriter) -> Rich:
    """A printed cell; an `= expression` cell as math (`= skill - 6` reads "Skill − 6")."""
    if text.startswith("="):
        return math.text(text[1:])
    return (Piece(text),) if text else ()


def _printed(t: Table | None) -> dict[tuple[str, ...], dict[str, str]] | None:
    """A table's cells as printed, by the keys of their row and their column's header."""
    if t is None:
        return None
    return {tuple(c.text for c in row.keys): dict(zip(t.columns, (c.text for c in row.cells)))
            for row in t.rows}


def _params(params: tuple[Any, ...]) -> Rich:
    """`Dexterity 1–20, Training 1–10, Armour`: each parameter with its range or kind."""
    out: list[Piece] = []
    for p in params:
        if out:
            out.append(Piece(", "))
        out.append(Piece(words(p.name), "name"))
        if p.type is not None and p.type.text != p.name:
            out.append(Piece(" " + p.type.text.replace("..", "–").replace("_", " "), "lit"))
        if getattr(p, "has_default", False) and isinstance(p.default, Dice):  # dmg: dice = 2d6
            out += [Piece(", if not given ", "text"), Piece(str(p.default), "num")]
    return tuple(out)


def _sides(p: Procedure) -> Rich:
    """An encounter's sides when its `sides:` line groups fighters: `; sides: Knight and
    Steed against Footman`."""
    if not p.sides:
        return ()
    out: list[Piece] = [Piece("; sides: ")]
    for i, (_, params) in enumerate(p.sides):
        if i:
            out.append(Piece(" against "))
        for j, name in enumerate(params):
            out += [Piece(" and ")] if j else []
            out.append(Piece(words(name), "name"))
    return tuple(out)


def _places(values: Any) -> int:
    """The decimal places a grid's numbers are printed to: the most any of them has (a Skill
    grid of one-decimal figures prints 3.0, not 3)."""
    most = 0
    for v in values:
        if isinstance(v, Decimal) and v.is_finite():
            most = max(most, -v.normalize().as_tuple().exponent, -v.as_tuple().exponent)
    return min(most, 6)


def _against(grids: tuple[GridView, ...], base: tuple[GridView, ...]) -> tuple[GridView, ...]:
    """A house rulebook's grids with each cell the base prints differently marked with the
    base's figure (grids of another shape are left as they are)."""
    def text(cell: CellView) -> str:
        return "".join(p.text for p in cell.text)

    marked = []
    for grid, was in zip(grids, base):
        if grid.columns != was.columns or grid.caption != was.caption:
            marked.append(grid)
            continue
        before = dict(was.rows)  # rows by their label: a row the house rules add has none
        rows = tuple((label, tuple(attrs.evolve(c, base=text(b)) if text(c) != text(b) else c
                                   for c, b in zip(cells, before[label])))
                     if label in before else (label, cells) for label, cells in grid.rows)
        marked.append(attrs.evolve(grid, rows=rows))
    return tuple(marked) + grids[len(marked):]


def _value(value: Any, places: int = 0) -> CellView:
    if isinstance(value, Fraction):
        return CellView((Piece(percent(value), "num"),), f"{value.numerator}/{value.denominator}")
    if places and isinstance(value, (int, Decimal)) and not isinstance(value, bool):
        return CellView((Piece(f"{Decimal(value):.{places}f}", "num"),))
    return CellView((Piece(display(value), "num"),))


def percent(p: Fraction) -> str:
    """A probability as a percentage: whole when it is (85%), else to one decimal (46.3%)."""
    hundred = p * 100
    if hundred.denominator == 1:
        return f"{hundred.numerator}%"
    return f"{float(hundred):.1f}%"


def _amended(now: tuple[StepView, ...],
             before: tuple[StepView, ...]) -> tuple[tuple[StepView, ...], tuple[StepView, ...]]:
    """An amended procedure's steps, each the base does not have (by what it says) marked
    changed; and the base's steps the house rules replaced or removed, alone, flat (those not
    listed read as the house's)."""
    def said(st: StepView) -> str:
        return "".join(p.text for p in st.text)

    def flat(made: tuple[StepView, ...]) -> list[StepView]:
        return [x for st in made for x in [st, *(y for b in st.blocks for y in flat(b.steps))]]

    old = {said(st) for st in flat(before)}
    new = {said(st) for st in flat(now)}

    def mark(made: tuple[StepView, ...]) -> tuple[StepView, ...]:
        return tuple(attrs.evolve(st, changed=said(st) not in old, blocks=tuple(
            attrs.evolve(b, steps=mark(b.steps)) for b in st.blocks)) for st in made)

    gone = tuple(attrs.evolve(st, blocks=()) for st in flat(before) if said(st) not in new)
    return mark(now), gone


def _noted(made: tuple[StepView, ...], sources: bool) -> tuple[StepView, ...]:
    """Steps with their comments as notes (none on a rules-only sheet)."""
    return tuple(attrs.evolve(st, notes=notes(st.notes) if sources else (), blocks=tuple(
        attrs.evolve(b, steps=_noted(b.steps, sources)) for b in st.blocks)) for st in made)


def _line(span: Any) -> int | None:
    return span.line if span is not None else None


__all__ = ["Note", "Sheet", "build", "notes", "percent"]
