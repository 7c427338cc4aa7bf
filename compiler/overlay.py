"""House rules over a base: `extends` reads the base and applies the house file's changes.

A house file names its base (`extends rq3_core`) and then only what it changes, each change
naming its target (as Catala's exceptions name the rule they override): `replace formula …`,
`amend table …` (rows, cells, columns), `amend procedure …` (steps replaced, inserted or removed
at a named place), `amend enum …`, `amend combatant …`, `remove formula …`. New rules are written
as in any rule file. The result is one syntax tree, compiled like any other; every rule keeps the
span of the file it was written in, so an error shows the right file and line.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.dsl.parser import parse
from rulecraft.runtime.errors import (CycleError, RangeError, RulecraftError, RulecraftErrors,
                                      Sources, Span, TableError, UnknownNameError,
                                      UnknownRulebookError)
from rulecraft.runtime.limits import Limits
from rulecraft.runtime.rulebook import Origin

# (the base as the file naming it writes it, that file's name) -> (the base's text, its name,
# the file it is: a real path, or a built-in's own mark), so that two spellings of one file are
# seen as one
Loader = Callable[[str, str], tuple[str, str, str]]

KINDS: dict[type, str] = {s.EnumDecl: "enum", s.TableDecl: "table", s.FormulaDecl: "formula",
                          s.CombatantDecl: "combatant", s.ProcedureDecl: "procedure",
                          s.NotationDecl: "notation", s.ReferenceDecl: "reference",
                          s.PolicyDecl: "policy"}
KINDS.update({s.PatternDecl: "pattern", s.UnitDecl: "unit"})  # space (compiler/space.py)
KINDS[s.ExampleDecl] = "example"  # worked examples, replaced by their titles
HOUSE_ONLY = (s.ReplaceDecl, s.AmendDecl, s.RemoveDecl)


@attrs.define
class Overlaid:
    """A house file merged over its base chain."""

    tree: s.File  # every rule, base and house, as one file
    base: Overlaid | None  # the direct base, merged over its own bases: compiled as it is read
    origins: dict[str, Origin]


@attrs.frozen
class _Chain:
    """The files from the house file down to the one being read: what a cycle and the chain's
    limits are measured on."""

    names: tuple[str, ...]  # as messages show them, the house file first
    files: tuple[str, ...]  # the file each one is
    size: int  # bytes of their texts together

    @classmethod
    def of(cls, tree: s.File) -> _Chain:
        return cls((tree.filename,), (_file(tree.filename),), _bytes(tree.source))

    def then(self, name: str, file: str, text: str) -> _Chain:
        return _Chain(self.names + (name,), self.files + (file,), self.size + _bytes(text))


def overlay(tree: s.File, loader: Loader | None, limits: Limits,
            chain: _Chain | None = None) -> Overlaid:
    """The house tree with its base's rules under it; a tree without `extends` as it is."""
    extends = [d for d in tree.declarations if isinstance(d, s.ExtendsDecl)]
    errors: list[RulecraftError] = []
    if not extends:
        for d in tree.declarations:
            if isinstance(d, HOUSE_ONLY):
                errors.append(UnknownNameError(
                    f"{_what(d)} changes a rule of a base, but this file names none: write "
                    "`extends NAME` (a built-in rulebook or a path) after its `rulebook` line",
                    d.span, tree.source))
        _raise(errors)
        return Overlaid(tree, None, {})
    for extra in extends[1:]:
        errors.append(RulecraftError("a rulebook extends one base (a base may extend another)",
                                     extra.span, tree.source))
    _raise(errors)
    ext = extends[0]
    if loader is None:
        raise RulecraftError(f"extends {ext.base}: this rulebook was given as text, with no way "
                             "to read its base; load it from a file or by name", ext.span,
                             tree.source)
    chain = chain or _Chain.of(tree)
    text, filename, below = _read_base(ext, tree, loader, limits, chain)
    base = overlay(parse(text, filename, limits), loader, limits, below)
    merged, origins = _Merge(base.tree, tree).run()
    files = dict(base.tree.source.files) if isinstance(base.tree.source, Sources) else {}
    files[base.tree.filename] = str(base.tree.source)
    source = Sources(tree.source, files)
    for name, origin in base.origins.items():  # a rule the base changed over its own base
        origins.setdefault(name, origin)
    return Overlaid(s.File(tree.filename, source, merged, tree.trailing_comments), base,
                    origins)


def _read_base(ext: s.ExtendsDecl, tree: s.File, loader: Loader, limits: Limits,
               chain: _Chain) -> tuple[str, str, _Chain]:
    """The text and name of the base `ext` names, and the chain down to it: refused before it
    is read when the chain is as deep as it may go, and before it is parsed when it closes a
    circle or makes the chain too large."""
    if len(chain.files) > limits.extends_depth:
        raise RangeError(f"{chain.names[0]} stands on more than {limits.extends_depth} bases, "
                         f"each extending the next {Limits.hint('extends_depth')}", ext.span,
                         tree.source)
    try:
        text, filename, file = loader(ext.base, tree.filename)
    except RulecraftError as err:
        if err.line is not None:  # an error in the base's own text, shown there
            raise
        raise UnknownRulebookError(err.message, ext.span, tree.source) from None
    if file in chain.files:
        circle = " extends ".join(chain.names + (filename,))
        raise CycleError(f"these rulebooks extend each other in a circle: {circle}", ext.span,
                         tree.source)
    below = chain.then(filename, file, text)
    if below.size > limits.extends_bytes:
        raise RangeError(f"{chain.names[0]} and its bases come to more than "
                         f"{limits.extends_bytes} bytes together, with {filename} "
                         f"{Limits.hint('extends_bytes')}", ext.span, tree.source)
    return text, filename, below


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _file(name: str) -> str:
    """The file a house file's name stands for, as the loader names a base's."""
    try:
        return os.path.realpath(name)
    except (OSError, ValueError):  # a name no file can have (a NUL in it): itself
        return name


def _what(d: Any) -> str:
    if isinstance(d, s.ReplaceDecl):
        return f"replace {KINDS.get(type(d.decl), 'rule')} {d.decl.name}"
    return f"{'amend' if isinstance(d, s.AmendDecl) else 'remove'} {d.kind} {d.name}"


def _raise(errors: list[RulecraftError]) -> None:
    if errors:
        raise errors[0] if len(errors) == 1 else RulecraftErrors(errors)


def _sheet_over(base: s.SheetDecl, house: s.SheetDecl) -> s.SheetDecl:
    """A house file's `cheat sheet:` / `screen:` lines after its base's, as one declaration:
    they change the base's sheet (compiler/cheat_plan.py), marked as the house's."""
    return attrs.evolve(base, title=house.title or base.title, lines=base.lines + house.lines)


class _Merge:
    """Applies a house file's declarations to its (already merged) base, in order."""

    def __init__(self, base: s.File, house: s.File) -> None:
        self.base = base
        self.house = house
        self.errors: list[RulecraftError] = []
        self.rules: dict[str, Any] = {}  # name -> declaration, base order then house additions
        self.header: s.RulebookDecl | None = None
        for d in base.declarations:
            if isinstance(d, s.RulebookDecl):
                self.header = d
            else:
                self.rules[d.name] = d
        self.origins: dict[str, Origin] = {}

    def run(self) -> tuple[tuple[Any, ...], dict[str, Origin]]:
        for d in self.house.declarations:
            if isinstance(d, s.RulebookDecl):
                self.header = d
            elif isinstance(d, s.ReplaceDecl):
                target = self._target(KINDS.get(type(d.decl), "rule"), d.decl.name, d.span)
                if target is not None:
                    self.rules[d.name] = d.decl
                    self._changed(d.name, d.decl.span, target)
            elif isinstance(d, s.RemoveDecl):
                target = self._target(d.kind, d.name, d.span)
                if target is not None:
                    del self.rules[d.name]
                    self.origins[d.name] = Origin("removed", d.span, target.span)
            elif isinstance(d, s.AmendDecl):
                target = self._target(d.kind, d.name, d.span)
                if target is not None:
                    amended = _AMEND[d.kind](self, target, d)
                    if amended is not None:
                        self.rules[d.name] = amended
                        self._changed(d.name, d.span, target)
            elif isinstance(d, s.SheetDecl) and d.name in self.rules:
                self.rules[d.name] = _sheet_over(self.rules[d.name], d)
            elif not isinstance(d, s.ExtendsDecl):
                self._added(d)
        self._still_used()
        _raise(self.errors)
        header = (self.header,) if self.header is not None else ()
        return header + tuple(self.rules.values()), self.origins

    def _still_used(self) -> None:
        """A removed rule that rules left in the rulebook still read: one error, at the
        `remove` line, naming them (not one in each of them, pointing into the base)."""
        removals = [d for d in self.house.declarations if isinstance(d, s.RemoveDecl)
                    and self.origins.get(d.name) is not None
                    and self.origins[d.name].status == "removed"]
        for d in removals:
            readers: dict[str, list[Span]] = {}
            for name, rule in self.rules.items():
                for span in _reads(rule, d.kind, d.name):
                    readers.setdefault(f"{KINDS.get(type(rule), 'rule')} {name}", []).append(span)
            if readers:
                said = "; ".join(
                    f"{who} ({os.path.basename(spans[0].filename)} line"
                    f"{'s' if len({x.line for x in spans}) > 1 else ''} "
                    f"{', '.join(str(n) for n in sorted({x.line for x in spans}))})"
                    for who, spans in readers.items())
                self.error(RulecraftError, f"{d.kind} {d.name} cannot be removed: rules of the "
                           f"rulebook still use it — {said}; replace or amend them too (or "
                           f"remove them), or keep the {d.kind}", d.span)

    # -- targets ------------------------------------------------------------------------------
    def _target(self, kind: str, name: str, span: Span) -> Any:
        """The base's rule a change names: it must exist and be of the kind named."""
        found = self.rules.get(name)
        if found is None:
            same = [n for n, d in self.rules.items() if KINDS.get(type(d)) == kind]
            close = difflib.get_close_matches(name, same, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            self.error(UnknownNameError, f"the base {self.base.filename} has no {kind} {name!r}"
                       f"{hint}", span)
            return None
        if KINDS.get(type(found)) != kind:
            self.error(RulecraftError, f"{name} is a {KINDS.get(type(found))} in the base "
                       f"({found.span}), not a {kind}", span)
            return None
        return found

    def _changed(self, name: str, span: Span, target: Any) -> None:
        before = self.origins.get(name)
        base_span = before.base if before is not None and before.base is not None else target.span
        status = "added" if before is not None and before.status == "added" else "changed"
        self.origins[name] = Origin(status, span, base_span)

    def _added(self, d: Any) -> None:
        existing = self.rules.get(d.name)
        if existing is not None:
            kind = KINDS.get(type(existing), "rule")
            if isinstance(d, s.ExampleDecl):  # named by its title
                self.error(RulecraftError, f"the base already has an example called "
                           f"{d.title!r} ({existing.span}): write `replace example "
                           f'"{d.title}":` to restate it, or give yours a title of its own',
                           d.span)
                return
            self.error(RulecraftError, f"{d.name} is already a {kind} of the base "
                       f"({existing.span}): write `replace {kind} {d.name} …` to change it, "
                       "or give the new rule a name of its own", d.span)
            return
        self.rules[d.name] = d
        self.origins[d.name] = Origin("added", d.span, None)

    def error(self, kind: type[RulecraftError], message: str, span: Span) -> None:
        self.errors.append(kind(message, span, self.house.source))

    # -- tables -------------------------------------------------------------------------------
    def amend_table(self, table: s.TableDecl, amend: s.AmendDecl) -> s.TableDecl | None:
        grid = _Grid.of(table)
        for edit in amend.edits:
            cells = [text for text, _ in edit.row.cells()]
            problem = getattr(grid, edit.op)(cells, edit.row)
            if problem:
                self.error(TableError, f"{table.name}: {problem}", edit.row.span)
        return attrs.evolve(table, rows=grid.rows())

    # -- procedures ---------------------------------------------------------------------------
    def amend_procedure(self, proc: s.ProcedureDecl, amend: s.AmendDecl) -> s.ProcedureDecl:
        steps = proc.steps
        for edit in amend.edits:
            if isinstance(edit, s.ParamEdit):
                proc = self._param(proc, edit)
                continue
            if isinstance(edit, s.OutcomeEdit):
                proc = self._outcome(proc, edit)
                continue
            found = _find(steps, edit.ref)
            target = self._nth(proc, edit.ref, found)
            if target is None:
                self._step_problem(proc, steps, edit.ref, found)
                continue
            if edit.op == "replace":
                steps = _splice(steps, target, edit.steps)
            elif edit.op == "insert_before":
                steps = _splice(steps, target, edit.steps + (target,))
            elif edit.op == "insert_after":
                steps = _splice(steps, target, (target,) + edit.steps)
            else:
                steps = _splice(steps, target, ())
        return attrs.evolve(proc, steps=steps)

    @staticmethod
    def _nth(proc: s.ProcedureDecl, ref: s.StepRef, found: list[Any]) -> Any:
        """The step a place names: the only one, or the one its ordinal picks."""
        if ref.nth is None:
            return found[0] if len(found) == 1 else None
        if ref.nth == "last":
            return found[-1] if found else None
        at = s.ORDINALS.index(ref.nth) if ref.nth in s.ORDINALS else len(found)
        return found[at] if at < len(found) else None

    def _step_problem(self, proc: s.ProcedureDecl, steps: tuple[Any, ...], ref: s.StepRef,
                      found: list[Any]) -> None:
        if ref.nth is not None and ref.nth not in s.ORDINALS and ref.nth != "last":
            self.error(RulecraftError, f"({ref.nth}) does not say which {ref.place}: write "
                       f"(first), (second), … ({s.ORDINALS[-1]}) or (last), in the order the "
                       "steps are written", ref.span)
            return
        lines = ", ".join(str(st.span.line) for st in found)
        if found and ref.nth is not None:
            times = "once" if len(found) == 1 else f"{len(found)} times"
            self.error(UnknownNameError, f"{ref.place} is written {times} in procedure "
                       f"{proc.name} (line{'s' if len(found) > 1 else ''} {lines}): there is no "
                       f"{ref.nth}", ref.span)
            return
        if found:
            which = " or ".join(f"`{ref.place} ({s.ORDINALS[i]})`"
                                for i in range(min(len(found), len(s.ORDINALS))))
            self.error(RulecraftError, f"{ref} is written {len(found)} times in procedure "
                       f"{proc.name} (lines {lines}): say which, in the order written — "
                       f"{which} — or name the one you mean in the base with `step NAME:`",
                       ref.span)
            return
        places = [f"{k} {n}" for k, n in _places(steps)]
        close = difflib.get_close_matches(ref.place, places, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        self.error(UnknownNameError, f"procedure {proc.name} has no step {ref}{hint}", ref.span)

    def _param(self, proc: s.ProcedureDecl, edit: s.ParamEdit) -> s.ProcedureDecl:
        """A parameter added at the end (callers that do not pass it take its default), or one
        retyped or given another default in its place."""
        name = edit.param.name
        at = next((i for i, p in enumerate(proc.params) if p.name == name), None)
        params = list(proc.params)
        if edit.op == "add":
            if at is not None:
                self.error(RulecraftError, f"procedure {proc.name} already has a parameter "
                           f"{name} (line {params[at].span.line} of the base): write `replace "
                           f"parameter {name}: …` to change it", edit.span)
                return proc
            params.append(edit.param)
        elif at is None:
            close = difflib.get_close_matches(name, [p.name for p in params], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            self.error(UnknownNameError, f"procedure {proc.name} has no parameter {name!r}"
                       f"{hint}", edit.span)
            return proc
        else:
            params[at] = edit.param
        return attrs.evolve(proc, params=tuple(params))

    def _outcome(self, proc: s.ProcedureDecl, edit: s.OutcomeEdit) -> s.ProcedureDecl:
        """An outcome added to a procedure's `outcomes:` block, or values added to one outcome
        or to all (`all with`)."""
        if not proc.outcomes:
            self.error(RulecraftError, f"procedure {proc.name} declares no `outcomes:` block: "
                       "its outcomes are the ones its steps end in, so add an `outcome` step "
                       "(`insert after …:`) instead", edit.span)
            return proc
        specs = list(proc.outcomes)
        named = {spec.name: i for i, spec in enumerate(specs) if spec.name is not None}
        if edit.op == "add":
            if edit.name in named:
                self.error(RulecraftError, f"procedure {proc.name} already has an outcome "
                           f"{edit.name} (line {specs[named[edit.name]].span.line} of the "
                           f"base): write `add VALUE to outcome {edit.name}` to give it more "
                           "values", edit.span)
                return proc
            specs.append(s.OutcomeSpec(edit.name, edit.title, edit.fields, edit.span,
                                       edit.comments))
            return attrs.evolve(proc, outcomes=tuple(specs))
        if edit.name is None:
            at = next((i for i, spec in enumerate(specs) if spec.name is None), None)
            if at is None:
                specs.insert(0, s.OutcomeSpec(None, None, (), edit.span))
                at = 0
            where = "every outcome"
        elif edit.name not in named:
            close = difflib.get_close_matches(edit.name, list(named), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            self.error(UnknownNameError, f"procedure {proc.name} has no outcome {edit.name!r}"
                       f"{hint}", edit.span)
            return proc
        else:
            at, where = named[edit.name], f"outcome {edit.name}"
        fields = specs[at].fields
        for value in edit.fields:
            # where the value is already carried: by every outcome, or by this one (or, for
            # every outcome, by any one)
            carried = [spec for spec in specs if value in spec.fields and (
                spec.name is None or edit.name is None or spec.name == edit.name)]
            if carried or value in fields:
                who = (f"outcome {carried[0].name}" if carried and carried[0].name is not None
                       else "every outcome" if carried else where)
                self.error(RulecraftError, f"{who} of procedure {proc.name} already carries "
                           f"{value}", edit.span)
                continue
            fields += (value,)
        specs[at] = attrs.evolve(specs[at], fields=fields)
        return attrs.evolve(proc, outcomes=tuple(specs))

    # -- enums and combatants -----------------------------------------------------------------
    def amend_enum(self, enum: s.EnumDecl, amend: s.AmendDecl) -> s.EnumDecl:
        names = {m.name for m in enum.members}
        added = []
        for member in amend.edits:
            if member.name in names:
                self.error(RulecraftError, f"{member.name!r} is already a member of {enum.name}",
                           member.span)
            names.add(member.name)
            added.append(member)
        return attrs.evolve(enum, members=enum.members + tuple(added))

    def amend_combatant(self, model: s.CombatantDecl, amend: s.AmendDecl) -> s.CombatantDecl:
        fields = list(model.fields)
        for edit in amend.edits:
            at = next((i for i, f in enumerate(fields) if f.name == edit.name), None)
            if edit.op == "add":
                if at is not None:
                    self.error(RulecraftError, f"{model.name} already has {edit.name} (line "
                               f"{fields[at].span.line} of the base): write `replace` before it "
                               "to change it", edit.span)
                    continue
                fields.append(edit.field)
            elif at is None:
                close = difflib.get_close_matches(edit.name, [f.name for f in fields], n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                self.error(UnknownNameError, f"{model.name} has no field {edit.name!r}{hint}",
                           edit.span)
            elif edit.op == "replace":
                fields[at] = edit.field
            else:
                del fields[at]
        return attrs.evolve(model, fields=tuple(fields))


_AMEND: dict[str, Callable[[_Merge, Any, s.AmendDecl], Any]] = {
    "table": _Merge.amend_table, "procedure": _Merge.amend_procedure,
    "enum": _Merge.amend_enum, "combatant": _Merge.amend_combatant,
}


@attrs.define
class _Grid:
    """A table as printed rows of cell texts, addressed by the key cells at the left of a row
    and by the header's labels: what a house rule changes, before the table is read."""

    header: list[str]
    header_line: s.RowLine
    body: list[tuple[list[str], s.RowLine]]  # each row's cells and where it was written
    keys: int  # how many cells at the left of a row address it

    @classmethod
    def of(cls, table: s.TableDecl) -> _Grid:
        printed = [r for r in table.rows if not r.is_rule]
        header = printed[0]
        grid = len(table.keys) >= 2 and table.cell_type is not None
        inverted = any(k.in_cells for k in table.keys)
        keys = 1 if inverted else (len(table.keys) - 1 if grid else len(table.keys))
        return cls([t for t, _ in header.cells()], header,
                   [([t for t, _ in r.cells()], r) for r in printed[1:]], max(1, keys))

    def rows(self) -> tuple[s.RowLine, ...]:
        return (_line(self.header, self.header_line),) + tuple(
            _line(cells, where) for cells, where in self.body)

    def _row(self, key: list[str]) -> int | None:
        return next((i for i, (cells, _) in enumerate(self.body) if cells[:self.keys] == key),
                    None)

    def _no_row(self, key: list[str]) -> str:
        known = [" | ".join(cells[:self.keys]) for cells, _ in self.body]
        close = difflib.get_close_matches(" | ".join(key), known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"no row {' | '.join(key)!r}{hint}"

    def _column(self, label: str) -> int | str:
        if label in self.header[self.keys:]:
            return self.header.index(label, self.keys)
        close = difflib.get_close_matches(label, self.header[self.keys:], n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"no column {label!r}{hint}"

    # Each edit returns a problem to report, or "" when done.
    def row(self, cells: list[str], where: s.RowLine) -> str:
        at = self._row(cells[:self.keys])
        if at is None:
            self.body.append((cells, where))
        else:
            self.body[at] = (cells, where)
        return ""

    def remove_row(self, cells: list[str], where: s.RowLine) -> str:
        at = self._row(cells[:self.keys])
        if at is None:
            return self._no_row(cells[:self.keys])
        del self.body[at]
        return ""

    def cell(self, cells: list[str], where: s.RowLine) -> str:
        if len(cells) != self.keys + 2:
            return (f"a cell is named by {self.keys} key cell(s), then its column, then its new "
                    f"text: | {' | '.join(['key'] * self.keys)} | column | text |")
        key, label, text = cells[:self.keys], cells[self.keys], cells[self.keys + 1]
        at = self._row(key)
        if at is None:
            return self._no_row(key)
        column = self._column(label)
        if isinstance(column, str):
            return column
        row, _ = self.body[at]
        row = row + [""] * (len(self.header) - len(row))
        row[column] = text
        self.body[at] = (row, where)
        return ""

    def add_column(self, cells: list[str], where: s.RowLine) -> str:
        if len(cells) != 1:
            return "add column names one column: | Label |"
        if cells[0] in self.header:
            return f"there is already a column {cells[0]!r}"
        self.header.append(cells[0])
        self.body = [(row + [""], line) for row, line in self.body]
        return ""

    def remove_column(self, cells: list[str], where: s.RowLine) -> str:
        column = self._column(cells[0]) if len(cells) == 1 else "remove column names one column"
        if isinstance(column, str):
            return column
        del self.header[column]
        self.body = [(row[:column] + row[column + 1:], line) for row, line in self.body]
        return ""


def _line(cells: list[str], where: s.RowLine) -> s.RowLine:
    """A printed row from its cells, kept where it was written (errors point there)."""
    return attrs.evolve(where, text="| " + " | ".join(cells) + " |")


# -- finding and splicing steps ---------------------------------------------------------------

_BINDS = {"roll": s.RollStep, "let": s.LetStep, "choose": s.ChooseStep, "call": s.CallStep,
          "step": s.NamedStep}


def _find(steps: tuple[Any, ...], ref: s.StepRef) -> list[Any]:
    kind = _BINDS[ref.kind]
    found = []
    for step in steps:
        if isinstance(step, kind) and step.name == ref.name:
            found.append(step)
        for block in s.blocks(step):
            found += _find(block, ref)
    return found


def _places(steps: tuple[Any, ...]) -> list[tuple[str, str]]:
    names = {v: k for k, v in _BINDS.items()}
    found = []
    for step in steps:
        if type(step) in names:
            found.append((names[type(step)], step.name))
        for block in s.blocks(step):
            found += _places(block)
    return found


def _splice(steps: tuple[Any, ...], target: Any, new: tuple[Any, ...]) -> tuple[Any, ...]:
    """`steps` with `target` (wherever it is nested) replaced by `new`."""
    out: list[Any] = []
    for step in steps:
        if step is target:
            out.extend(new)
            continue
        if isinstance(step, s.IfStep):
            step = attrs.evolve(
                step, branches=tuple(attrs.evolve(b, body=_splice(b.body, target, new))
                                     for b in step.branches),
                otherwise=_splice(step.otherwise, target, new) if step.otherwise else None)
        elif isinstance(step, (s.ForStep, s.NamedStep)):
            step = attrs.evolve(step, body=_splice(step.body, target, new))
        elif isinstance(step, s.RepeatStep):
            step = attrs.evolve(step, body=_splice(step.body, target, new),
                                at_cap=_splice(step.at_cap, target, new) if step.at_cap else None)
        out.append(step)
    return tuple(out)


__all__ = ["Loader", "Overlaid", "overlay"]


def _reads(node: Any, kind: str, name: str) -> Iterator[Span]:
    """Where a rule reads a rule of `kind` called `name`: a table or an enum by its name, a
    formula by a call, a procedure by a `call` step."""
    if kind == "formula" and isinstance(node, s.Call) and node.name == name:
        yield node.span
    elif kind == "procedure" and isinstance(node, s.CallStep) and node.procedure == name:
        yield node.span
    elif kind in ("table", "enum", "combatant") and isinstance(node, s.Name) and node.name == name:
        yield node.span
    if attrs.has(type(node)):
        for field in attrs.fields(type(node)):
            if field.name not in ("span", "comments"):
                yield from _reads(getattr(node, field.name), kind, name)
    elif isinstance(node, (tuple, list)):
        for item in node:
            yield from _reads(item, kind, name)
