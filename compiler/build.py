"""The compiler's driver: run the passes over one file and assemble the runtime Rulebook."""

from __future__ import annotations

import contextlib
import gc
import weakref
from collections.abc import Iterator
from typing import Any

from rulecraft.dsl import syntax as s
from rulecraft.dsl.parser import parse
from rulecraft.runtime.combatants import CombatantModel, Field, Figure, ValueType, check_value
from rulecraft.runtime.errors import (CycleError, RangeError, RulecraftError, RulecraftErrors,
                                      RuleTypeError, Span, text_of)
from rulecraft.runtime.helpers import make_helpers, pair_combiner
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.procedures import Procedure, Step
from rulecraft.runtime.rulebook import Answer, Enum, Formula, Param, Policy, Rulebook
from rulecraft.runtime.space import Hex

from .cells import number, parse_dice
from .cheat_plan import plan_sheets
from .clock_events import check_labels
from .clock_ticks import loop_blocks
from .clock_units import gather as gather_time_units
from .codegen import Writer, fast_check
from .sides import side_groups
from .chain_facts import cap_of, timeless, uncapped
from .stepper import defer as defer_steppers
from .order import formula_calls, names_used, order
from .outcomes import Schema
from .recursion import measures
from .overlay import Loader, Overlaid, overlay
from .scope import FormulaInfo, Scope
from .patterns import read_space
from .columns import read_notations
from .joined import joined_first
from .tables import PendingCell, TableBuilder
from rulecraft.runtime.knowledge import StandingRule

from .referee import check_standing
from .examples import about as example_about, as_procedures, check_titles
from .examples import lines as example_lines
from rulecraft.runtime.examples import Example, _combatant as make_combatant


def _identity(error: RulecraftError) -> tuple[object, ...]:
    """What makes two reports the same report: the place and the words (rendering each error
    with its line to compare them cost a split of the file per error)."""
    span = error.span
    where = (span.filename, span.line, span.column, span.end_line, span.end_column) if span else None
    return (where, error.message)
from .references import plan as plan_references, wire as wire_references
from .types import ANY, FACING, T, Domain


# What `rulecraft eval` needs to compile one more expression against a compiled rulebook.
COMPILED: weakref.WeakKeyDictionary[Rulebook, tuple[Scope, dict[str, Any]]] = \
    weakref.WeakKeyDictionary()


def compile_file(source: str, filename: str, limits: Limits = DEFAULT_LIMITS,
                 loader: Loader | None = None) -> Rulebook:
    """Parse, check and compile one rule file; every error is reported together. A house file
    (`extends …`) is compiled over its base, which `loader` reads; the base is compiled too
    (`Rulebook.base`), so tools can compare the two."""
    with _collector_paused():
        try:
            overlaid = overlay(parse(source, filename, limits), loader, limits)
        except RecursionError:
            raise _too_deep(filename, source) from None
        return _compile_overlaid(overlaid, limits)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a file compiles: compiling makes a node, a span and
    some code for every rule, nearly all kept, and each full collection would walk all of them
    again (a quarter of the time of a large file); what little garbage has cycles is collected
    once it is back on."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _compile_overlaid(overlaid: Overlaid, limits: Limits) -> Rulebook:
    """A rulebook from a tree merged over its bases, and each base's from the trees already
    read (every file of a chain is read once)."""
    tree = overlaid.tree
    try:
        compiler = _Compiler(tree, limits)
        rulebook = compiler.build()
    except RecursionError:
        raise _too_deep(tree.filename, str(tree.source)) from None
    if overlaid.base is not None:
        rulebook.base = _compile_overlaid(overlaid.base, limits)
        rulebook.origins = overlaid.origins
    COMPILED[rulebook] = (compiler.scope, compiler.namespace)
    return rulebook


def _too_deep(filename: str, source: str) -> RuleTypeError:
    return RuleTypeError("a rule here is nested too deeply for rulecraft to read: split it "
                         "into smaller formulas", Span(filename, 1, 1), source)


class _Compiler:
    def __init__(self, tree: s.File, limits: Limits = DEFAULT_LIMITS) -> None:
        self.tree = tree
        self.scope = Scope(tree.filename, tree.source, limits=limits)
        self.writer = Writer(self.scope)
        self.pending: list[PendingCell] = []

    def fail_if_errors(self) -> None:
        if self.scope.errors:
            errors = sorted(self.scope.errors, key=lambda e: (e.line or 0, e.column or 0))
            unique = list({_identity(e): e for e in errors}.values())
            raise unique[0] if len(unique) == 1 else RulecraftErrors(unique)

    def build(self) -> Rulebook:
        # Worked examples compile as procedures of their own, taken out again below.
        decls, examples = as_procedures(self.tree.declarations)
        check_titles(self.scope, examples)
        header = self._header(decls)
        self._names(decls)
        self.scope.time_units = gather_time_units(decls, self.scope)
        self._enums(decls)
        tables = self._tables(decls)
        patterns, units = read_space(self.scope, decls)
        self._model_fields()  # formulas may read a combatant's fields
        formula_order = self._formula_order()
        formula_fields = self._formulas(formula_order)
        models = self._combatants()
        cells = [self.writer.cell(i, p.expr, p.given) for i, p in enumerate(self.pending)]
        procedures = self._procedures(decls)
        self._check_policies(procedures)
        check_labels(self.scope, decls)  # labels read are labels written (clock_events.py)
        references = plan_references(self.writer, decls)
        sheet_plans = plan_sheets(self.scope, decls, self._sheet_rules(decls))
        self.fail_if_errors()
        namespace = self._execute()
        for (name, params), pending in zip(cells, self.pending):
            pending.cell.params = params
            pending.cell._fn = namespace[name]  # takes the names in `params`, in order
        formulas = {name: Formula.compiled(namespace[f"pub_{name}"], inner=namespace[f"f_{name}"],
                                           **fields)
                    for name, fields in formula_fields.items()}
        built = {}
        for name, (decl, fields, function, figures) in models.items():
            combiners = {f.combine: pair_combiner(self.scope.tables[f.combine].runtime)
                         for f in fields if f.combine}
            built[name] = CombatantModel(decl.name, decl.title or decl.name, tuple(fields),
                                         decl.span, decl.comments, self.tree.source,
                                         namespace[function], combiners,
                                         tuple(Figure(n, namespace[fn], reads)
                                               for n, fn, reads in figures))
        model = next(iter(built.values()), None)
        # A combatant a rule writes out (an example's fighter) is built by its model.
        namespace["_MODELS"], namespace["_combatant"] = built, make_combatant
        for proc in procedures.values():
            proc.fn = namespace[f"p_{proc.name}"]  # called with the arguments in order
        defer_steppers(self.scope, decls, procedures, namespace, self.tree.source)
        worked = tuple(Example(d.title, d.span, d.dice, procedures.pop(name), d.comments,
                               example_about(d),
                               example_lines(d, text_of(self.tree.source, d.span.filename) or ""))
                       for name, d in examples.items())
        name, title, meta, comments = header
        rulebook = Rulebook(name, title, meta,
                        {d.name: Enum(d.name, d.title or d.name, self.scope.enums[d.name].members,
                                      d.span, d.comments)
                         for d in decls if isinstance(d, s.EnumDecl) and d.name in self.scope.enums},
                        tables, formulas, procedures, model, self.tree.filename, self.tree.source,
                        comments + self.tree.trailing_comments, self.python, built)
        rulebook.references = wire_references(references, namespace, self.tree.source)
        rulebook.sheet_plans = sheet_plans
        rulebook.standing = tuple(
            StandingRule(d.condition, d.choice, d.mode, _options_of(d.options), d.span)
            for d in self.scope.standing)
        rulebook.patterns, rulebook.units = patterns, units
        rulebook.examples = worked
        rulebook.policies = {
            d.name: Policy(d.name, d.title or d.name, tuple(
                Answer(line.choice, self.scope.text(line.value.span), line.comments)
                for line in d.lines), d.span, d.comments)
            for d in self.scope.policies.values()}
        return rulebook

    # -- passes ----------------------------------------------------------------------------
    def _sheet_rules(self, decls: tuple[Any, ...]) -> dict[str, str]:
        """What a cheat sheet or screen may show: every table, pattern, quick reference,
        formula and procedure, by name."""
        found = {name: "table" for name in self.scope.tables}
        found.update((d.name, "table") for d in decls if isinstance(d, s.PatternDecl))
        found.update((d.name, "reference") for d in decls if isinstance(d, s.ReferenceDecl))
        found.update((name, "formula") for name in self.scope.formulas)
        found.update((name, "procedure") for name in self.scope.procedures)
        return found

    def _header(self, decls: tuple[Any, ...]) -> tuple[str, str, dict[str, str], tuple[str, ...]]:
        headers = [d for d in decls if isinstance(d, s.RulebookDecl)]
        if not headers:
            self.scope.error(RuleTypeError, "a rule file starts with `rulebook NAME \"Title\"`",
                             Span(self.tree.filename, 1, 1))
            return "unnamed", "unnamed", {}, ()
        for extra in headers[1:]:
            self.scope.error(RuleTypeError, "only one `rulebook` line per file", extra.span)
        h = headers[0]
        return h.name, h.title or h.name, {m.key: m.value for m in h.meta}, h.comments

    def _names(self, decls: tuple[Any, ...]) -> None:
        seen: dict[str, Any] = {}
        for d in decls:
            if isinstance(d, s.RulebookDecl):
                continue
            if d.name in seen:
                self.scope.error(RuleTypeError, f"{d.name} is defined twice (first at line "
                                 f"{seen[d.name].span.line})", d.span)
                continue
            seen[d.name] = d
            if isinstance(d, s.CombatantDecl):
                # The first model is the rulebook's combatant (`rb.combatant(...)`); others
                # (a horse beside its rider) are `rb.combatant_models[name]`.
                if self.scope.combatant is None:
                    self.scope.combatant = d
                self.scope.models[d.name] = d
            elif isinstance(d, s.ProcedureDecl):
                self.scope.procedures[d.name] = d
            elif isinstance(d, s.PolicyDecl):
                self.scope.policies[d.name] = d
            elif isinstance(d, s.StandingDecl):
                self.scope.standing.append(d)

    def _enums(self, decls: tuple[Any, ...]) -> None:
        for d in decls:
            if isinstance(d, s.EnumDecl):
                seen: set[str] = set()
                for m in d.members:
                    if m.name in seen:
                        self.scope.error(RuleTypeError, f"{m.name!r} is listed twice", m.span)
                    seen.add(m.name)
                members = tuple(dict.fromkeys(m.name for m in d.members))
                self.scope.enums[d.name] = Domain(d.name, members)

    def _tables(self, decls: tuple[Any, ...]) -> dict[str, Any]:
        built = {}
        notations = read_notations(self.scope, decls)
        tables = [d for d in decls if isinstance(d, s.TableDecl)]
        by_name = {d.name: d for d in tables}
        for d in joined_first(tables):
            builder = TableBuilder(self.scope, d, notations, by_name)
            info = builder.build()
            self.pending.extend(builder.pending)
            if info is not None:
                self.scope.tables[d.name] = info
                built[d.name] = info.runtime
        return {d.name: built[d.name] for d in tables if d.name in built}

    def _formula_order(self) -> list[str]:
        decls = {d.name: d for d in self.tree.declarations if isinstance(d, s.FormulaDecl)}
        for name, d in decls.items():
            self._unique_params(d.params)
            params = [(p.name, self.scope.resolve_type(p.type)) for p in d.params]
            self.scope.formulas[name] = FormulaInfo(d, params)
        depends = {n: [(u, node) for part in (d.body, *d.where) for u, node in names_used(part)
                       if u in decls] for n, d in decls.items()}
        ordered, cycles = order(depends)
        for cycle in cycles:
            first = decls[cycle[0]]
            self.scope.error(CycleError, "these formulas depend on each other in a circle: "
                             + " → ".join(cycle), first.span)
        self._formula_costs(ordered, decls)
        return ordered

    def _formula_costs(self, ordered: list[str], decls: dict[str, s.FormulaDecl]) -> None:
        """Formulas calling formulas twice over, and so on down, would make a number of calls
        doubling with each level: counted before anything runs, and refused past the budget
        an evaluation has (`aggregate_items`)."""
        limit, costs = self.scope.limits.aggregate_items, self.scope.formula_costs
        over: set[str] = set()  # reported where the count first passes the budget, not above
        for name in ordered:
            calls = [c for part in (decls[name].body, *decls[name].where)
                     for c in formula_calls(part, decls)]
            costs[name] = min(limit, 1 + sum(costs.get(c.name, 1) for c in calls))
            if any(c.name in over for c in calls):
                over.add(name)
            elif costs[name] == limit:
                over.add(name)
                self.scope.error(RangeError, f"working out {name} would call formulas more "
                                 f"than {limit} times {Limits.hint('aggregate_items')}",
                                 decls[name].span)

    def _formulas(self, ordered: list[str]) -> dict[str, dict[str, Any]]:
        """Generate every formula; returns each Formula's fields (its code comes after exec)."""
        out: dict[str, dict[str, Any]] = {}
        params = {name: tuple(self._param(p) for p in info.decl.params)
                  for name, info in self.scope.formulas.items()}
        checks = {name: [(p.name, self._fast_check(p), self.scope.constant("PARAM_", p))
                         for p in ps] for name, ps in params.items()}
        for name, formula_checks in checks.items():
            self.scope.formulas[name].param_refs = {p: ref for p, _, ref in formula_checks}
        for name in ordered:
            info = self.scope.formulas[name]
            info.result = self.writer.formula(info.decl, info.params, checks[name])
        # Each name once: a formula defined twice is an error already, not many more to write.
        for name in dict.fromkeys(d.name for d in self.tree.declarations
                                  if isinstance(d, s.FormulaDecl)):
            info = self.scope.formulas[name]
            defaults = {p.name: self.writer.emit.expr(p.default, {})[0]
                        for p in info.decl.params if p.default is not None}
            self.writer.public_formula(info.decl, checks[name], defaults)
            out[name] = dict(name=name, title=info.decl.title or name, params=params[name],
                             body=self.writer.text(info.decl.body.span), span=info.decl.span,
                             where=tuple((v.name, self.writer.text(v.value.span))
                                         for v in info.decl.where),
                             comments=info.decl.comments, source=self.tree.source)
        return out

    def _unique_params(self, params: tuple[s.Param, ...], reserved: tuple[str, ...] = ()) -> None:
        """Each parameter once, each with a declared type (an untyped one would take any
        Python value), none named like an option of `run`/`odds`."""
        seen: set[str] = set()
        for p in params:
            if p.name in seen:
                self.scope.error(RuleTypeError, f"the parameter {p.name} is listed twice", p.span)
            seen.add(p.name)
            if p.type is None:
                self.scope.error(RuleTypeError, f"the parameter {p.name} needs a type, such as "
                                 f"`{p.name}: integer`, `{p.name}: 1..20` or `{p.name}: weapon`",
                                 p.span)
            if p.name in reserved:
                self.scope.error(RuleTypeError, f"a procedure's parameter cannot be called "
                                 f"{p.name}: {', '.join(reserved)} are the options of run and "
                                 "odds", p.span)

    def _fast_check(self, p: Param) -> str:
        vt = p.type
        if vt.kind in ("integer", "number"):
            t = T("int") if vt.kind == "integer" else T("num")
            low = vt.low if vt.low is None or isinstance(vt.low, int) else \
                self.scope.constant("C", vt.low)
            high = vt.high if vt.high is None or isinstance(vt.high, int) else \
                self.scope.constant("C", vt.high)
            return fast_check(f"v_{p.name}", t, low, high, None)
        if vt.kind == "enum" and vt.members is not None:
            return fast_check(f"v_{p.name}", ANY, None, None,
                              self.scope.constant("MEMBERS_", frozenset(vt.members)))
        return "False"

    def _param(self, p: s.Param) -> Param:
        vt = self.value_type(p.type)
        if p.default is None:
            return Param(p.name, vt, p.span)
        default = _literal(p.default)
        if default is None and vt.kind == "dice":  # `dmg: dice = 2d6`, `= d8 + 1`
            default = parse_dice(self.writer.text(p.default.span).replace("d%", "d100"))
        if default is None and not isinstance(p.default, s.Constant):
            self.scope.error(RuleTypeError, "a default is written as a plain value (a number, "
                             "a quoted name, true, false or none; dice such as 2d6 for a "
                             "parameter of dice)", p.default.span)
        else:
            default = self._checked_default(p.name, vt, default, p.default)
        return Param(p.name, vt, p.span, default, True)

    def _checked_default(self, name: str, vt: ValueType, default: Any, node: s.Expr) -> Any:
        """A default must be a value its declared type takes (`state hp: 1..20 = 30` is not)."""
        if default is None or vt.kind in ("combatant", "any"):
            return default
        try:
            return check_value(name, vt, default, node.span, self.tree.source)
        except RangeError as err:
            self.scope.error(RangeError, f"the default is outside its type: {err.message}",
                             node.span)
            return default

    def value_type(self, node: s.TypeExpr | None) -> ValueType:
        """A declared type as the runtime's ValueType (ranges and members for checking calls)."""
        if node is None:
            return ValueType("any", "any")
        text = self.writer.text(node.span)
        if isinstance(node, s.RangeType):
            low, high = number(node.low), number(node.high)
            kind = "integer" if isinstance(low, int) and isinstance(high, int) else "number"
            return ValueType(kind, text, low, high)
        if isinstance(node, s.MapType):
            return ValueType("map", text, key=self.value_type(node.key),
                             item=self.value_type(node.item))
        if isinstance(node, s.ListType):
            return ValueType("list", text, item=self.value_type(node.item))
        t = self.scope.resolve_type(node)
        if t.kind == "name" and t.domain is not None:
            return ValueType("enum", node.name, members=t.domain.members)
        if t == FACING:  # checked like 0..5: a facing set to 6 is an error, turns go round
            return ValueType("integer", node.name, 0, 5)
        kinds = {"int": "integer", "num": "number", "bool": "bool", "dice": "dice",
                 "name": "name", "combatant": "combatant", "hex": "hex"}
        return ValueType(kinds.get(t.kind, "any"), node.name)

    def _model_fields(self) -> None:
        """Every model's fields with their types, before formulas and derived figures are
        compiled (a derived figure's type is known once it is: until then, checked at run time)."""
        for decl in self.scope.models.values():
            fields = self.scope.model_fields.setdefault(decl.name, {})
            for f in decl.fields:
                fields[f.name] = ANY if f.role == "derived" else self.scope.resolve_type(f.type)
        if self.scope.models:
            self.scope.combatant_fields = self.scope.model_fields[next(iter(self.scope.models))]

    def _combatants(self) -> dict[str, tuple[s.CombatantDecl, list[Field], str, list[tuple[str, str, frozenset[str]]]]]:
        """Each combatant model's fields, the generated function deriving its figures, and
        each figure's own function with the fields it reads."""
        if not self.scope.models:
            self.writer.line(0, "def derive(v):\n    return v\n")
            return {}
        out = {}
        for i, decl in enumerate(self.scope.models.values()):
            function = "derive" if i == 0 else f"derive_{i}"
            figures: list[tuple[str, str, frozenset[str]]] = []
            out[decl.name] = (decl, self._combatant(decl, function, figures), function, figures)
        return out

    def _combatant(self, decl: s.CombatantDecl, function: str,
                   figures: list[tuple[str, str, frozenset[str]]]) -> list[Field]:
        types = self.scope.model_fields[decl.name]
        env = {}
        fields: list[Field] = []
        seen: dict[str, s.FieldDecl] = {}
        for f in decl.fields:
            if f.name in seen:
                self.scope.error(RuleTypeError, f"{f.name} is declared twice in {decl.name} "
                                 f"(first at line {seen[f.name].span.line})", f.span)
            seen.setdefault(f.name, f)
        for f in decl.fields:
            if f.role == "derived":
                continue
            env[f.name] = (f"v[{f.name!r}]", types[f.name])
        derived = {f.name: f for f in decl.fields if f.role == "derived"}
        depends = {n: [(u, node) for u, node in names_used(f.value, calls=False) if u in derived]
                   for n, f in derived.items()}
        ordered, cycles = order(depends)
        for cycle in cycles:
            self.scope.error(CycleError, "these derived figures depend on each other in a "
                             "circle: " + " → ".join(cycle), derived[cycle[0]].span)
        for f in derived.values():
            types.setdefault(f.name, ANY)
            env.setdefault(f.name, (f"v[{f.name!r}]", ANY))  # known, even inside a cycle
        made = self.writer.derive([derived[n] for n in ordered], env, types, function, decl)
        if not cycles:
            fields_read = set(seen)
            figures += [(n, made[n], frozenset(u for u, _ in names_used(
                derived[n].value, calls=False) if u in fields_read)) for n in ordered]
        for f in decl.fields:
            text = self.writer.text(f.span)
            if f.role == "derived":
                fields.append(Field(f.name, "derived", None, text, f.span, f.comments))
                continue
            vt = self.value_type(f.type)
            if f.combined_by is not None:
                self._check_combiner(f)
            has_default, default = f.value is not None, _literal(f.value)
            if isinstance(f.value, s.DiceLit):  # `damage: dice = 1d6`
                default = parse_dice(f.value.text)
            if default is None and f.value is not None and not (
                    isinstance(f.value, s.Constant) and f.value.value is None):
                self.scope.error(RuleTypeError, f"{f.name}'s default is written as it is: a "
                                 "number, a text, dice, a list, a hex or none (a figure "
                                 "worked out from others is `derived`)", f.value.span)
            if f.value is not None:
                default = self._checked_default(f.name, vt, default, f.value)
            if not has_default and vt.kind in ("map", "list"):
                has_default, default = True, ({} if vt.kind == "map" else ())
            if f.clamped and _leaf(vt).low is None:
                self.scope.error(RuleTypeError, f"{f.name} is clamped, so it needs a range such "
                                 "as 0..20", f.span)
            fields.append(Field(f.name, f.role, vt, text, f.span, f.comments, default,
                                has_default, f.combined_by, f.clamped))
        return fields

    def _check_combiner(self, f: s.FieldDecl) -> None:
        info = self.scope.tables.get(f.combined_by or "")
        if info is None:
            self.scope.unknown("table", f.combined_by or "", f.span, list(self.scope.tables))
        elif len(info.key_types) != 2:
            self.scope.error(RuleTypeError, f"combined by {f.combined_by}: the table needs two "
                             "keys (held, new)", f.span)

    def _procedures(self, decls: tuple[Any, ...]) -> dict[str, Procedure]:
        """Generate each procedure after those it calls (a cycle of calls is an error: every
        run ends)."""
        found = {d.name: d for d in decls if isinstance(d, s.ProcedureDecl)}
        depends = {name: [(c.procedure, c) for c in _call_steps(d.steps) if c.procedure in found]
                   for name, d in found.items()}
        ordered, cycles = order(depends)
        for cycle in cycles:
            if measures(cycle, found) is None:  # no parameter shrinks round it to its bound
                self.scope.error(CycleError, "these procedures call each other in a circle (a "
                                 "run must end): " + " → ".join(cycle) + "; a call round it "
                                 "may pass a whole-number parameter less than the caller's "
                                 "(`height - 10` for `height: 0..30`)", found[cycle[0]].span)
        self._call_depths(ordered, depends)
        self.writer.circles = frozenset(name for cycle in cycles for name in cycle)
        built: dict[str, Procedure] = {}
        signatures = {}
        for name in ordered:  # every signature first: a circle's calls check their arguments
            d = found[name]
            self._unique_params(d.params, RUN_OPTIONS)
            params = [(p.name, self.scope.resolve_type(p.type)) for p in d.params]
            runtime_params = tuple(self._param(p) for p in d.params)
            for p in runtime_params:
                if p.type.kind not in ("combatant", "any"):
                    self.scope.procedure_checks[(name, p.name)] = self.scope.constant("PARAM_", p)
            signatures[name] = params, runtime_params
        for name in ordered:
            self.scope.procedure_params[name] = signatures[name][0]
            declared = Schema.declared_by(found[name])
            if declared.declared:  # read by a circle's calls written before it
                self.scope.schemas[name] = declared
        for name in ordered:
            d = found[name]
            params, runtime_params = signatures[name]
            choices = self.writer.procedure(d, params)
            self.scope.procedure_params[name] = params
            self.scope.procedure_choices[name] = tuple(dict.fromkeys(choices))
            for step in _choose_steps(d.steps):
                if step.name in RUN_OPTIONS:
                    self.scope.error(RuleTypeError, f"a choice cannot be called {step.name}: "
                                     f"{', '.join(RUN_OPTIONS)} are the options of run and odds",
                                     step.span)
            built[d.name] = Procedure(d.name, d.title or d.name, runtime_params,
                                      tuple(self._step(st) for st in d.steps), d.span, d.comments,
                                      tuple(dict.fromkeys(choices)), self.tree.source,
                                      outcomes=self._outcomes(name),
                                      clock=d.clock[0] if d.clock else None,
                                      sides=side_groups(d),
                                      timeless=timeless(d, found, self.scope.policies),
                                      cap=cap_of(d), uncapped=uncapped(d))
        return {name: built[name] for name in found if name in built}

    def _call_depths(self, ordered: list[str], depends: dict[str, list[tuple[str, Any]]]
                     ) -> None:
        """Calls nest as blocks do (a frame of every run and of exact odds each): a chain of
        procedures calling each other deeper than `nesting_depth` is refused, at the call
        that first makes it too deep, for every command alike."""
        limit = self.scope.limits.nesting_depth
        deepest: dict[str, tuple[int, str | None]] = {}  # procedure -> its chain, next in it
        for name in ordered:
            below = [(deepest[callee][0], callee, step) for callee, step in depends[name]
                     if callee in deepest]
            depth, callee, step = max(below, key=lambda b: b[0], default=(0, None, None))
            deepest[name] = (depth + 1, callee)
            if depth == limit:  # its callee's chain was at the limit: this call goes past it
                chain, at = [name], callee
                while at is not None:
                    chain.append(at)
                    at = deepest[at][1]
                shown = chain[:3] + ["…", chain[-1]] if len(chain) > 4 else chain
                self.scope.error(RangeError, f"this call makes a chain of {limit + 1} "
                                 f"procedures calling each other ({' → '.join(shown)}), more "
                                 f"than {limit} deep {Limits.hint('nesting_depth')}", step.span)

    def _check_policies(self, procedures: dict[str, Procedure]) -> None:
        """A policy answers choices some procedure makes; each procedure knows the policies."""
        choices = sorted({c for p in procedures.values() for c in p.choice_names})
        for decl in self.scope.policies.values():
            seen: set[str] = set()
            for line in decl.lines:
                if line.choice not in choices:
                    self.scope.unknown(f"choice (policy {decl.name} answers the `choose` steps "
                                       "of procedures):", line.choice, line.span, choices)
                elif line.choice in seen:
                    self.scope.error(RuleTypeError, f"policy {decl.name} answers "
                                     f"{line.choice} twice", line.span)
                seen.add(line.choice)
        check_standing(self.scope, {p.name: p.choice_names for p in procedures.values()})
        for proc in procedures.values():
            proc.policies = tuple(self.scope.policies)

    def _outcomes(self, name: str) -> dict[str, tuple[str, ...]]:
        """Each outcome of a procedure with the values it carries (for tools and `show`)."""
        schema = self.scope.schemas.get(name)
        return {o: tuple(fields) for o, fields in schema.fields.items()} if schema else {}

    def _step(self, node: Any) -> Step:
        kind = type(node).__name__.replace("Step", "").lower()
        blocks: tuple[tuple[str, tuple[Step, ...]], ...] = ()
        if isinstance(node, s.IfStep):
            blocks = tuple((self.writer.text(b.test.span), tuple(self._step(x) for x in b.body))
                           for b in node.branches)
            if node.otherwise is not None:
                blocks += (("otherwise", tuple(self._step(x) for x in node.otherwise)),)
        elif isinstance(node, s.EncounterLoop):
            head = f"turn {node.var}" if node.kind == "turn" else "each round"
            blocks = ((head, tuple(self._step(x) for x in node.body)),) + loop_blocks(
                self.writer, node, self._step)
        elif isinstance(node, (s.EventStep, s.TriggerStep)):  # steps that run later
            head = self.writer.text(node.span).split("\n")[0].rstrip(":")
            blocks = ((head, tuple(self._step(x) for x in node.body)),)
        elif isinstance(node, s.TurnsStep):
            blocks = ((f"take turns {node.var}", tuple(self._step(x) for x in node.body)),)
        elif isinstance(node, s.NamedStep):
            blocks = ((f"step {node.name}", tuple(self._step(x) for x in node.body)),)
        elif isinstance(node, s.ForStep):
            blocks = (("each", tuple(self._step(x) for x in node.body)),)
        elif isinstance(node, s.RepeatStep):
            blocks = (("repeat", tuple(self._step(x) for x in node.body)),)
            if node.at_cap is not None:
                blocks += (("at the cap", tuple(self._step(x) for x in node.at_cap)),)
        text = self.writer.text(node.span).split("\n")[0]
        return Step(kind, text, node.span, node.comments, blocks)

    def _execute(self) -> dict[str, Any]:
        header = (f"# Generated by rulecraft from {self.tree.filename!r}; edit the rule file, "
                  "not this code.\n")
        self.python = header + "\n".join(self.writer.lines)
        namespace: dict[str, Any] = dict(make_helpers(self.tree.source))
        namespace.update(self.scope.constants)
        filename = f"<rulecraft: {self.tree.filename}>"
        for start, chunk in _chunks(self.python):
            try:  # padded, so that a traceback's line is the module's own
                code = compile("\n" * start + chunk, filename, "exec")
            except (SyntaxError, RecursionError, MemoryError) as err:
                raise RuleTypeError("this rule is nested too deeply for Python to compile: split "
                                    "it into smaller formulas " + Limits.hint("nesting_depth"),
                                    self._rule_at(getattr(err, "lineno", 0)),
                                    self.tree.source) from None
            exec(code, namespace)  # generated from the checked tree only: no rule text runs
        self.namespace = namespace
        return namespace


    def _rule_at(self, generated_line: int | None) -> Span:
        """The rule line behind a line of generated code, from the comment above it."""
        prefix = f"# {self.tree.filename}:"
        for text in reversed(self.python.split("\n")[: generated_line or 0]):
            marker = text.strip()
            if marker.startswith(prefix):
                line = marker[len(prefix):].split(":", 1)[0]
                if line.isdigit():
                    return Span(self.tree.filename, int(line), 1)
        return Span(self.tree.filename, 1, 1)


CHUNK_LINES = 2000  # generated lines compiled at once: Python's compiler holds ~100x a module


def _chunks(python: str) -> Iterator[tuple[int, str]]:
    """The generated module in pieces of about CHUNK_LINES lines, each with the line it starts
    after, cut only before a `def` at the margin (a new statement); run in order into one
    namespace they do what the whole does, while compiling a large rule file takes a fraction
    of the memory."""
    lines = python.split("\n")
    start = 0
    for at in range(CHUNK_LINES, len(lines)):
        if at - start >= CHUNK_LINES and lines[at].startswith("def "):
            yield start, "\n".join(lines[start:at])
            start = at
    yield start, "\n".join(lines[start:])


# Keywords of Procedure.run/enumerate/odds: a parameter or choice of the same name could not be
# given from Python.
RUN_OPTIONS = ("self", "dice", "seed", "choices", "limits", "by")


def _choose_steps(steps: tuple[Any, ...]) -> list[s.ChooseStep]:
    return [st for st in s.all_steps(steps) if isinstance(st, s.ChooseStep)]


def _call_steps(steps: tuple[Any, ...]) -> list[s.CallStep]:
    return [st for st in s.all_steps(steps) if isinstance(st, s.CallStep)]


def _options_of(node: s.Expr) -> tuple[Any, ...]:
    """A standing constraint's options, as written: one, or a list of them."""
    value = _literal(node)
    return value if isinstance(value, tuple) else (value,)


def _leaf(vt: ValueType) -> ValueType:
    """The type of what a map or list field finally holds."""
    while vt.item is not None:
        vt = vt.item
    return vt


def _literal(node: s.Expr | None) -> Any:
    """A default value written as a literal (`0`, `"Sword"`, `[]`, `none`)."""
    if node is None:
        return None
    if isinstance(node, s.Number):
        return number(node.text)
    if isinstance(node, s.String):
        return node.value
    if isinstance(node, s.Constant):
        return node.value
    if isinstance(node, s.ListLit):
        return tuple(_literal(i) for i in node.items)
    if isinstance(node, s.Unary) and node.op == "-" and isinstance(node.operand, s.Number):
        value = number(node.operand.text)
        return -value
    if isinstance(node, s.Call) and node.name == "hex" and len(node.args) == 2 and \
            not node.named:  # `state at: hex = hex(0, 0)`
        q, r = (_literal(a) for a in node.args)
        if type(q) is int and type(r) is int:
            return Hex(q, r)
    return None


__all__ = ["COMPILED", "compile_file"]
