"""The pass that reads `cheat sheet:` and `screen:` into the plans the sheets at the table
follow (runtime/sheet_plan.py): each line applied in order, every name checked against the
rulebook's rules, a house file's changes marked.

`section "T": a, b` starts a section (a screen's `panel`), `add a to "T" [before/after b]`
puts rules into one (starting it when it is new), `move a to "T" [before/after b]` takes a
rule from where it is, `remove a` takes it off. A house file's lines follow its base's in the
one declaration (compiler/overlay.py), so what they add is marked as the house's.
"""

from __future__ import annotations

from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import RuleTypeError
from rulecraft.runtime.sheet_plan import PlanItem, PlanSection, SheetPlan

from .scope import Scope

_WORD = {"cheat": ("section", "a cheat sheet"), "screen": ("panel", "a screen")}


def plan_sheets(scope: Scope, decls: tuple[Any, ...], rules: dict[str, str]) -> dict[str, SheetPlan]:
    """Each sheet's plan by kind; `rules` every rule a sheet may show, name -> its kind
    ("table", "reference", "formula", "procedure"). Errors go to `scope`."""
    plans = {}
    for d in decls:
        if isinstance(d, s.SheetDecl):
            if d.kind in plans:
                scope.error(RuleTypeError, f"a rulebook has one `{d.name}:` block; put its "
                            "lines together", d.span)
                continue
            plans[d.kind] = _Plan(scope, d, rules).run()
    return plans


class _Plan:
    def __init__(self, scope: Scope, decl: s.SheetDecl, rules: dict[str, str]) -> None:
        self.scope = scope
        self.decl = decl
        self.rules = rules
        self.sections: dict[str, list[PlanItem]] = {}  # in order
        self.added: set[str] = set()  # sections a house file started
        self.removed: list[str] = []
        self.base = False  # reading the base's lines (a house file's come after them)

    def run(self) -> SheetPlan:
        # A base's lines (written in another file) come first; a house file's lines after
        # them are marked as the house's.
        based = any(self._based(line) for line in self.decl.lines)
        for line in self.decl.lines:
            self.base = self._based(line)
            getattr(self, line.op)(line, based and not self.base)
        sections = tuple(PlanSection(title, tuple(items), title in self.added)
                         for title, items in self.sections.items() if items)
        if not sections:
            self.scope.error(RuleTypeError, f"`{self.decl.name}:` puts nothing on the sheet",
                             self.decl.span)
        return SheetPlan(self.decl.kind, self.decl.title, sections, self.decl.span,
                         tuple(self.removed))

    # -- each kind of line ---------------------------------------------------------------------
    def section(self, line: s.SheetLine, house: bool) -> None:
        word, what = _WORD[self.decl.kind]
        if line.op != word:
            self.scope.error(RuleTypeError, f"{what} has {word}s: write `{word} "
                             f"\"{line.section}\": …`", line.span)
            return
        assert line.section is not None
        if line.section in self.sections:
            self.scope.error(RuleTypeError, f"there is already a {word} \"{line.section}\": "
                             f"write `add … to \"{line.section}\"` to put more in it", line.span)
            return
        self.sections[line.section] = []
        if house:
            self.added.add(line.section)
        self._put(line, house, None)

    panel = section

    def add(self, line: s.SheetLine, house: bool) -> None:
        assert line.section is not None
        if line.section not in self.sections:
            self.sections[line.section] = []
            if house:
                self.added.add(line.section)
        self._put(line, house, line.place)

    def move(self, line: s.SheetLine, house: bool) -> None:
        kept = []
        for item in line.items:
            found = self._take(item)
            if found is not None:
                kept.append(attrs.evolve(found, moved=house) if house else found)
        assert line.section is not None
        self.sections.setdefault(line.section, [])
        self._place(kept, line.section, line.place)

    def remove(self, line: s.SheetLine, house: bool) -> None:
        for item in line.items:
            if self._take(item) is not None and house:
                self.removed.append(item.name)

    # -- helpers -------------------------------------------------------------------------------
    def _based(self, line: s.SheetLine) -> bool:
        return line.span.filename != self.scope.filename

    def _put(self, line: s.SheetLine, house: bool, place: Any) -> None:
        items = []
        for item in line.items:
            if item.name not in self.rules and self.base:
                # The house file removed a rule its base's sheet shows: off the sheet too
                # (the base, compiled alone, has checked its own names).
                self.removed.append(item.name)
            elif item.name not in self.rules:
                self.scope.unknown("rule for the sheet (a table, quick reference, formula or "
                                   "procedure)", item.name, item.span, sorted(self.rules))
            elif self._where(item.name) is not None or item.name in {i.name for i in items}:
                self.scope.error(RuleTypeError, f"{item.name} is on the sheet already (in "
                                 f"\"{self._where(item.name) or line.section}\"): write `move "
                                 f"{item.name} to \"…\"` to put it elsewhere", item.span)
            else:
                items.append(PlanItem(item.name, house))
        assert line.section is not None
        self._place(items, line.section, place)

    def _place(self, items: list[PlanItem], section: str, place: Any) -> None:
        target = self.sections[section]
        at = len(target)
        if place is not None:
            side, beside = place
            names = [i.name for i in target]
            if beside.name not in names:
                self.scope.error(RuleTypeError, f"{beside.name} is not in \"{section}\", so "
                                 f"nothing can go {side} it there", beside.span)
            else:
                at = names.index(beside.name) + (side == "after")
        target[at:at] = items

    def _take(self, item: s.SheetItem) -> PlanItem | None:
        where = self._where(item.name)
        if where is None:
            self.scope.error(RuleTypeError, f"{item.name} is not on the sheet: nothing to "
                             "move or remove", item.span)
            return None
        found = next(i for i in self.sections[where] if i.name == item.name)
        self.sections[where].remove(found)
        return found

    def _where(self, name: str) -> str | None:
        return next((title for title, items in self.sections.items()
                     if any(i.name == name for i in items)), None)


__all__ = ["plan_sheets"]
