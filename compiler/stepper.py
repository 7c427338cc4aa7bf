"""Back end 1b: each procedure again, cut at its rolls and calls, for exact odds by states.

The run form (`p_NAME`, codegen.Writer) plays one path of the dice from start to end. Exact
odds (runtime/exact.py) need to stop at every roll and call and go on once per result, merging
paths that reach the same point with the same values. So the same checked steps are written a
second time, by the same visitors, cut into segments: `x_NAME_3(_ctx, _f)` takes the frame (a
list of every value of the procedure), runs to the next roll, call or outcome, and returns
what happens there:

    (0, pc, frame)                           go on at segment pc (after an `if`, into a loop)
    (4, pc, frame)                           the same, back to the start of a loop's pass
    (1, pc, frame, slot, dice, span)         roll, the total into frame[slot], go on at pc
    (2, pc, frame, slot, name, args, span)   call, its outcome into frame[slot], go on at pc
    (3, outcome, frame)                      the procedure ends

An `if` or a loop without a roll or call inside stays plain Python within one segment; one
with them is cut, a loop keeping its place (`_i1`, `_n1`) in hidden slots of the frame.
Segments are numbered in the order of the rule text, so every step forward goes to a higher
number and only a loop's next pass goes back. What each segment reads, what it sets before
each exit, and where each exit goes, are read off its Python with `ast`: the liveness that
decides which values two paths must share to be merged. The leaves of each `if`'s test, and the
arguments of each call, that read simple values and parameters alone are compiled again as
functions of the frame, for the branches the values every state shares decide
(runtime/exact_known.py).

Then the Python is made fast to play, as it is played once per state: the run context's calls
that only trace are taken out (`_quiet`), and each segment reads only the slots it uses and
writes into the frame, just before each exit, only those it set on the way (`_slim`); a step
forward calls the next segment straight away where the odds being worked out allow it.
"""

from __future__ import annotations

import ast
import copy
import threading
from collections import Counter
from typing import Any

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import Span
from rulecraft.runtime.exact_plan import (ASSIGN, BRANCH, CHANGE, EXIT, GOTO, STATEMENT, Exit,
                                          Item, Segment, Stepper)
from rulecraft.runtime.exact_known import AND, LEAF, NOT, OR, Test, slot_of

from .codegen import Writer, _blocks, _bound_names, _ends
from .expressions import Env
from .order import order
from .scope import Scope, cost
from .sums import fold_sums
from .types import INT, T

_FRAME = "@FRAME@"
# Kinds whose values are hashable as they are and never hold a combatant.
_SIMPLE_KINDS = ("int", "num", "bool", "name", "dice", "none", "nothing")


class _Label:
    """A segment to go to, numbered when it starts (so numbers follow the rule text)."""

    __slots__ = ("pc", "number")

    def __init__(self, number: int) -> None:
        self.number = number
        self.pc: int | None = None


class StepWriter(Writer):
    """Writes a procedure's segments with the run form's visitors, cutting where it splits."""

    def __init__(self, scope: Scope) -> None:
        super().__init__(scope)
        self._split = {s.RollStep: self.split_roll, s.CallStep: self.split_call,
                       s.IfStep: self.split_if, s.ForStep: self.split_for,
                       s.RepeatStep: self.split_repeat}
        named = getattr(s, "NamedStep", None)
        if named is not None:
            self._split[named] = lambda step, env, depth: self.steps(step.body, env, depth)

    # -- one procedure ----------------------------------------------------------------------
    def stepper(self, decl: s.ProcedureDecl, params: list[tuple[str, T]]) -> tuple[str, dict]:
        """The Python of a procedure's segments, and what `stepper_from` needs besides."""
        env: Env = {name: (f"v_{name}", t) for name, t in params}
        if self.scope.time_units is not None and self.scope.time_units.calendar is not None:
            env.setdefault("today", ("_ctx.today", INT))  # the run's day, as the run form has
        self.choices = []
        self.unset = set()
        self.loops = 0
        self.schema = self.scope.schemas[decl.name]
        self.secrets = {}
        self.onto: dict[str, str] = {}  # a roll added to a running sum as it is rolled
        decl = fold_sums(decl, {name for name, _ in params}, self._implicit(decl.steps),
                         self.onto)
        names = [n for n, _ in params]
        names += [n for n in dict.fromkeys(_bound_names(decl.steps) + _loop_names(decl.steps))
                  if n not in names]
        self.slots = [f"v_{n}" for n in names]
        self.kinds: dict[str, str] = {f"v_{n}": t.kind for n, t in params}
        self.segments: list[tuple[_Label, list[str]]] = []
        self.labels: list[_Label] = []
        self.prefix = f"x_{decl.name}"
        self._begin(self._label())
        self.steps(decl.steps, env, 1)
        code = self._module()
        values = {n: i for i, n in enumerate(names) if i >= len(params)}
        info = dict(name=decl.name, slots=tuple(self.slots), params=len(params),
                    functions=[f"{self.prefix}_{i}" for i in range(len(self.segments))],
                    simple=frozenset(i for i, v in enumerate(self.slots)
                                     if self.kinds.get(v) in _SIMPLE_KINDS),
                    party_slots=tuple(i for i, v in enumerate(self.slots)
                                      if self.kinds.get(v) not in _SIMPLE_KINDS),
                    values=values, span=decl.span)
        return code, info

    def _implicit(self, steps: tuple[Any, ...]) -> Counter[str]:
        """The values outcome steps read by name: declared fields not given in `with (…)`."""
        found: Counter[str] = Counter()
        if not self.schema.declared:
            return found
        for step in s.all_steps(steps):
            if isinstance(step, s.OutcomeStep):
                given = {a.name for a in step.values}
                found.update(f for f in self.schema.fields.get(step.name, ()) if f not in given)
        return found

    def steps(self, steps: tuple[Any, ...], env: Env, depth: int) -> int:  # type: ignore[override]
        """Each step in turn: plain ones by the run form's visitors, splitting ones cut here.
        Returns the depth the next step goes at (1, in a new segment, after a cut)."""
        for i, step in enumerate(steps):
            if isinstance(step, s.ChangeStep) and not (i and isinstance(steps[i - 1],
                                                                        s.ChangeStep)):
                # A cut before a party changes: paths that differ only in what the change no
                # longer needs merge here, before the work of the change and what follows.
                after = self._label()
                self._go(depth, after)
                self._begin(after)
                depth = 1
            self.origin(depth, step.span)
            split = self._split.get(type(step))
            if _splits(step) and not isinstance(step, s.ChangeStep):  # a change: cut above
                if split is None:
                    raise _Unsupported(f"a {type(step).__name__} that rolls or calls")
                depth = split(step, env, depth)
                continue
            handler = self._dispatch.get(type(step))
            if handler is None:
                raise AssertionError(f"no code generator for {type(step).__name__}")
            handler(step, env, depth)
        return depth

    def _bind(self, env: Env, name: str, t: T, span: Span) -> str:
        var = super()._bind(env, name, t, span)
        known = self.kinds.get(var)
        self.kinds[var] = t.kind if known in (None, t.kind) else "any"
        return var

    def visit_EventStep(self, step: s.EventStep, env: Env, depth: int) -> None:
        """`after T as NAME:` where segments run — a procedure's exact odds, played with no
        clock: the event never comes due, so only its time is worked out (failing where a
        run would), and the run form's record of it, "no clock: not applied"."""
        code = self.time_code(step.after, step.unit, env, "an event comes after")
        party = "None"
        if step.party is not None:
            party = self._event_party(step.party, step.span, env)
        where = self.scope.span_ref(step.span)
        self.line(depth, f"_ev_after(_ctx, {where}, {step.name!r}, {code}, None, (), {party})")

    # -- segments --------------------------------------------------------------------------
    def _label(self) -> _Label:
        label = _Label(len(self.labels))
        self.labels.append(label)
        return label

    def _begin(self, label: _Label) -> None:
        label.pc = len(self.segments)
        self.lines = []
        self.segments.append((label, self.lines))

    def _go(self, depth: int, label: _Label, back: bool = False) -> None:
        self.line(depth, f"return ({4 if back else 0}, @L{label.number}@, {_FRAME})")

    def _hidden(self, name: str, kind: str = "int") -> str:
        self.slots.append(name)
        self.kinds[name] = kind
        return name

    def _slot(self, var: str) -> int:
        return self.slots.index(var)

    # -- what splits -----------------------------------------------------------------------
    def split_roll(self, step: s.RollStep, env: Env, depth: int) -> int:
        code, t = self.expr(step.dice, env)
        code = self.emit.cast(code, t, "dice", step.dice)
        var = self._bind(env, step.name, INT, step.span)
        where = self.scope.span_ref(step.span)
        after = self._label()
        total = self.onto.get(step.name)  # and added to this running sum (sums.py), within
        # the digits the `let` it stands for would allow
        onto = "" if total is None else \
            f", {self._slot(env[total][0])}, {self.scope.limits.number_digits}"
        self.line(depth, f"return (1, @L{after.number}@, {_FRAME}, {self._slot(var)}, {code}, "
                         f"{where}{onto})")
        self._begin(after)
        return 1

    def split_call(self, step: s.CallStep, env: Env, depth: int) -> int:
        # A caller answering its callee's choices (`choosing defence = "Parry"`) hands its
        # answers on with the call: the callee is worked out with them (runtime/exact.py
        # `Exact.called`), as the run form's `_ctx.call(…, answers=…)` plays it.
        answers = self.answers(step, env).removeprefix(", answers=") or "None"
        callee = self.scope.procedures[step.procedure]
        params = self.scope.procedure_params[step.procedure]
        codes = self._arguments(step, callee, params, env)
        var = self._bind(env, step.name, T("outcome", ref=step.procedure), step.span)
        where = self.scope.span_ref(step.span)
        after = self._label()
        args = "".join(c + ", " for c in codes)
        self.line(depth, f"return (2, @L{after.number}@, {_FRAME}, {self._slot(var)}, "
                         f"{step.procedure!r}, ({args}), {where}, {answers})")
        self._begin(after)
        return 1

    def visit_OutcomeStep(self, step: s.OutcomeStep, env: Env, depth: int) -> None:
        """The run form's `_ctx.finish(…)`, returned with the frame instead of raised."""
        super().visit_OutcomeStep(step, env, depth)
        finish = self.lines[-1].strip().removeprefix("return ")
        assert finish.startswith(("_ctx.finish(", "_ctx.done(")), finish
        self.lines[-1] = "    " * depth + f"return (3, {finish}, {_FRAME})"

    def split_if(self, step: s.IfStep, env: Env, depth: int) -> int:
        home = self.lines
        join = self._label()
        before = set(self.unset)
        arms: list[tuple[Env, set[str]]] = []
        bodies = [(f"{'if' if i == 0 else 'elif'} {self.condition(b.test, env)[0]}:",
                   self.scope.span_ref(b.span), self.text(b.test.span), b.body)
                  for i, b in enumerate(step.branches)]
        if step.otherwise is not None:
            bodies.append(("else:", self.scope.span_ref(step.otherwise_span or step.span),
                           "otherwise", step.otherwise))
        for head, where, text, body in bodies:
            self.lines = home
            self.line(depth, head)
            self.line(depth + 1, f"_ctx.branch({where}, {text!r}, True)")
            self.unset = set(before)
            arm = dict(env)
            end = self.steps(body, arm, depth + 1)
            if not _ends(body):
                self._go(end, join)
            arms.append((arm, self.unset))
        self.lines = home
        if step.otherwise is None:
            self._go(depth, join)  # no branch taken
            arms.append((dict(env), set(before)))
        self._merge(env, arms, step.span)
        self._begin(join)
        return 1

    def split_for(self, step: s.ForStep, env: Env, depth: int) -> int:
        code, item = self._collection(step.collection, env)
        self.loops += 1
        items = self._hidden(f"_it{self.loops}", "any")
        index = self._hidden(f"_i{self.loops}")
        where = self.scope.span_ref(step.span)
        before = set(self.unset)
        inner = dict(env)
        inner[step.var] = (f"v_{step.var}", item)
        self.kinds[f"v_{step.var}"] = "any" if item is None else item.kind
        self.line(depth, f"{items} = tuple({code})")
        self.line(depth, f"{index} = 0")
        head, out = self._label(), self._label()
        self._go(depth, head)
        self._begin(head)
        home = self.lines
        self.line(1, f"if {index} < len({items}):")
        self.line(2, f"v_{step.var} = _ctx.item({where}, {step.var!r}, {items}[{index}]"
                     f"{cost(step.body)})")
        self.line(2, f"{index} += 1")
        self.unset = set(before)
        end = self.steps(step.body, inner, 2)
        if not _ends(step.body):
            self._go(end, head, back=True)
        self.lines = home
        self._go(1, out)
        inner.pop(step.var)
        self._merge(env, [(inner, self.unset), (dict(env), before)], step.span)
        self._begin(out)
        return 1

    def split_repeat(self, step: s.RepeatStep, env: Env, depth: int) -> int:
        cap, ct = self.expr(step.cap, env)
        self.loops += 1
        limit = self._hidden(f"_cap{self.loops}")
        count = self._hidden(f"_n{self.loops}")
        where = self.scope.span_ref(step.span)
        self.line(depth, f"{limit} = _ctx.first_pass({where}, "
                         f"{self.emit.cast(cap, ct, 'int', step.cap)})")
        self.line(depth, f"{count} = 0")
        body, out = self._label(), self._label()
        self._go(depth, body)
        self._begin(body)
        self.line(1, f"{count} += 1")
        self.line(1, f"_ctx._pass({where}{cost(step.body)})")
        before = set(self.unset)
        self.unset = set(before)
        end = self.steps(step.body, env, 1)  # the body runs at least once: what it sets is set
        test, _ = self.condition(step.until, env)
        until = self.text(step.until.span)
        self.line(end, f"if _ctx.until({where}, {until!r}, {test}):")
        self._go(end + 1, out)
        self.line(end, f"if {count} < {limit}:")
        self._go(end + 1, body, back=True)
        if step.at_cap is None:
            self.line(end, f"_ctx.capped({where}, {until!r})")
        else:
            cap_where = self.scope.span_ref(step.at_cap_span or step.span)
            self.line(end, f"_ctx.branch({cap_where}, 'at the cap', True)")
            after_body = set(self.unset)
            self.unset = set(after_body)
            arm = dict(env)
            last = self.steps(step.at_cap, arm, end)
            if not _ends(step.at_cap):
                self._go(last, out)
            self._merge(env, [(dict(env), after_body), (arm, self.unset)], step.span)
        self._begin(out)
        return 1

    # -- the module ------------------------------------------------------------------------
    def _module(self) -> str:
        frame = "(" + "".join(f"{v}, " for v in self.slots) + ")"
        numbers = {f"@L{label.number}@": str(label.pc) for label in self.labels
                   if label.pc is not None}
        out: list[str] = []
        for label, lines in self.segments:
            out.append(f"def {self.prefix}_{label.pc}(_ctx, _f):")
            if self.slots:
                out.append(f"    {frame} = _f")
            else:
                out.append("    pass")
            for text in lines:
                if "@" in text:
                    text = text.replace(_FRAME, frame)
                    for mark, number in numbers.items():
                        text = text.replace(mark, number)
                out.append(text)
            out.append("")
        return "\n".join(out) + "\n"


def _splits(step: Any) -> bool:
    """Whether a step rolls, calls or changes a party (a cut goes before a change), itself or
    in a block inside it. An event's steps are not played here (`visit_EventStep`)."""
    if isinstance(step, (s.RollStep, s.CallStep, s.ChangeStep)):
        return True
    if isinstance(step, s.EventStep):
        return False
    return any(_splits(inner) for block in _blocks(step) for inner in block)


def _loop_names(steps: tuple[Any, ...]) -> list[str]:
    names: list[str] = []
    for step in steps:
        if isinstance(step, s.ForStep):
            names.append(step.var)
        for block in _blocks(step):
            names.extend(_loop_names(block))
    return names


# ---- liveness, read off the Python ---------------------------------------------------------

def segments_of(tree: ast.Module, info: dict) -> list[tuple[str, tuple[Item, ...], bool,
                                                               frozenset[int]]]:
    """Each segment's statements as liveness reads them, read off its Python as it runs
    (`_quiet`), before `_slim` cuts its frame: (function name, items, whether it changes a
    party, the slots it sets). The leaves of branches' tests and the arguments of calls
    that read simple values and parameters' parties alone are kept in `info["tests"]`, to
    be compiled as functions of the frame (`_leaf`); the fields its changes set, in
    `info["changes"]` (None if one is not known)."""
    index = {v: i for i, v in enumerate(info["slots"])}
    asked = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and
             isinstance(node.value, ast.Name) and node.value.id == "_ctx"}
    if asked - _CONTEXT:
        raise _Unsupported(f"the run context's {sorted(asked - _CONTEXT)}")
    info["loops"] = bool(asked & _PASSES)
    info["tests"] = []
    fields = [node.args[3] for node in ast.walk(tree) if _is_change(node)]
    info["changes"] = frozenset(f.value for f in fields) if all(  # type: ignore[attr-defined]
        isinstance(f, ast.Constant) and isinstance(f.value, str) for f in fields) else None
    found = []
    for fn in tree.body:
        assert isinstance(fn, ast.FunctionDef)
        local = {node.id for node in ast.walk(fn) if isinstance(node, ast.Name)
                 and isinstance(node.ctx, ast.Store) and node.id not in index}
        reader = _Reader(index, info, local)
        items = tuple(reader.item(stmt) for stmt in fn.body[1:])
        mutates = any(_is_change(node) for node in ast.walk(fn))
        sets = frozenset(index[node.id] for stmt in fn.body[1:] for node in ast.walk(stmt)
                         if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
                         and node.id in index)
        found.append((fn.name, items, mutates, sets))
    return found


def _slim(tree: ast.Module, slots: tuple[str, ...]) -> ast.Module:
    """Each segment reading and writing only the slots it uses: it takes from the frame the
    values it reads, and hands on the frame it was given with the values set on the way to
    that exit written into it. Unpacking and packing every slot of a large procedure cost
    more than most segments' own work."""
    index = {v: i for i, v in enumerate(slots)}
    for fn in tree.body:
        assert isinstance(fn, ast.FunctionDef)
        body = _Framed(slots).visit(ast.Module(fn.body[1:], []))
        sets, unsure = _exit_sets(body.body, index)
        read = {node.target for node in ast.walk(body) if isinstance(node, ast.AugAssign)}
        taken = sorted({index[node.id] for node in ast.walk(body) if isinstance(node, ast.Name)
                        and (isinstance(node.ctx, ast.Load) or node in read)
                        and node.id in index} | unsure)
        body = _Handed(sets, slots, fn.name).visit(body).body
        head = [ast.Assign([ast.Tuple([ast.Name(slots[i], ast.Store()) for i in taken],
                                      ast.Store())],
                           ast.Tuple([ast.Subscript(ast.Name("_f", ast.Load()), ast.Constant(i),
                                                    ast.Load()) for i in taken], ast.Load()))
                ] if taken else []
        fn.body = head + body or [ast.Pass()]
    return ast.fix_missing_locations(tree)


def _exit_sets(stmts: list[ast.stmt], index: dict[str, int]
               ) -> tuple[dict[int, list[int]], set[int]]:
    """Per exit (the id of its `return`), the slots a path to it may have set; and the slots
    some exit hands on that not every path to it set (read from the frame first)."""
    found: dict[int, list[int]] = {}
    unsure: set[int] = set()

    def stores(node: ast.AST) -> frozenset[int]:
        return frozenset(index[n.id] for n in ast.walk(node) if isinstance(n, ast.Name)
                         and isinstance(n.ctx, ast.Store) and n.id in index)

    def block(stmts: list[ast.stmt], maybe: frozenset[int], sure: frozenset[int]
              ) -> tuple[frozenset[int], frozenset[int]] | None:
        for stmt in stmts:
            if isinstance(stmt, ast.Return):
                found[id(stmt)] = sorted(maybe)
                unsure.update(maybe - sure)
                return None  # this path ends here
            if isinstance(stmt, ast.If):
                arms = [arm for arm in (block(stmt.body, maybe, sure),
                                        block(stmt.orelse, maybe, sure)) if arm is not None]
                if not arms:
                    return None
                maybe = frozenset().union(*(m for m, _ in arms))
                sure = frozenset.intersection(*(s for _, s in arms))
                continue
            set_here = stores(stmt)
            for inner in ast.walk(stmt):  # an exit inside a loop: whatever it may have set
                if isinstance(inner, ast.Return):
                    found[id(inner)] = sorted(maybe | set_here)
                    unsure.update((maybe | set_here) - sure)
            maybe |= set_here
            if isinstance(stmt, (ast.Assign, ast.AugAssign)):  # always run through
                sure |= set_here
        return maybe, sure

    block(stmts, frozenset(), frozenset())
    return found, unsure


class _Framed(ast.NodeTransformer):
    """The frame an exit hands on, `return (kind, where, (v_a, v_b, …), …)`, marked
    `_FRAME_` for `_Handed`."""

    def __init__(self, slots: tuple[str, ...]) -> None:
        self.slots = list(slots)

    def visit_Return(self, node: ast.Return) -> ast.AST:
        if not _is_exit(node):
            return node
        exit = node.value
        assert isinstance(exit, ast.Tuple)
        frame = exit.elts[2] if len(exit.elts) >= 3 else None
        if isinstance(frame, ast.Tuple) and \
                [getattr(e, "id", None) for e in frame.elts] == self.slots:
            exit.elts[2] = ast.Name(_MARK, ast.Load())
        return node


class _Handed(ast.NodeTransformer):
    """An exit's frame: the frame given, with the values set on the way written into it (the
    frame belongs to the state being played, which is done with once played: runtime/exact.py
    copies a frame wherever two states would share one). A step forward to another segment
    goes straight into it (a call of its function) where the odds being worked out say that
    no state arriving that way could merge with another there (`_ctx.fused`): the engine
    would only have played it next."""

    def __init__(self, sets: dict[int, list[int]], slots: tuple[str, ...], name: str) -> None:
        self.sets = sets
        self.slots = slots
        self.prefix, pc = name.rsplit("_", 1)
        self.pc = int(pc)

    def visit_Return(self, node: ast.Return) -> Any:
        marks = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == _MARK]
        if not marks:
            return node
        for mark in marks:
            mark.id = "_f"
        made: list[ast.stmt] = [
            ast.Assign([ast.Subscript(ast.Name("_f", ast.Load()), ast.Constant(i), ast.Store())],
                       ast.Name(self.slots[i], ast.Load())) for i in self.sets[id(node)]]
        exit = node.value
        assert isinstance(exit, ast.Tuple) and isinstance(exit.elts[0], ast.Constant)
        where = exit.elts[1]
        if exit.elts[0].value == GOTO and isinstance(where, ast.Constant) and \
                where.value > self.pc:
            target = where.value
            fused = ast.Attribute(ast.Name("_ctx", ast.Load()), "fused", ast.Load())
            call = ast.Call(ast.Name(f"{self.prefix}_{target}", ast.Load()),
                            [ast.Name("_ctx", ast.Load()), ast.Name("_f", ast.Load())], [])
            made.append(ast.If(ast.Compare(ast.Constant(target), [ast.In()], [fused]),
                               [ast.Return(call)], []))
        return made + [node]


_MARK = "_FRAME_"


def _is_exit(stmt: ast.Return) -> bool:
    """`return (KIND, …)`: a segment's exit."""
    return isinstance(stmt.value, ast.Tuple) and bool(stmt.value.elts) and \
        isinstance(stmt.value.elts[0], ast.Constant)


def _is_change(node: ast.AST) -> bool:
    """`_ctx.change(…)`: a state change of the party its third argument holds."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr == "change" and isinstance(node.func.value, ast.Name) and \
        node.func.value.id == "_ctx"


class _Reader:
    """A segment's statements as liveness sees them: an assignment to a slot (`v_x = …`,
    `_i1 += 1`), a change of a party's state, an exit, an `if` (each branch read on its own),
    or any other statement with all it reads and the exits inside it."""

    def __init__(self, index: dict[str, int], info: dict, local: set[str]) -> None:
        self.index = index
        self.simple: frozenset[int] = info["simple"]  # numbers, names, yes/no and dice alone
        self.params: int = info["params"]
        self.local = local  # other names the segment sets: a leaf reading one is not framed
        # The leaves made functions of the frame, by the name each is compiled under.
        self.leaves: list[tuple[str, ast.Lambda, Test]] = info["tests"]
        self.prefix = f"_test_{info['name']}"

    def item(self, stmt: ast.stmt) -> Item:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == _UNREAD:
            return Item(ASSIGN, None, self._slots(stmt.value))  # read by nothing: never live
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id in self.index:
            return Item(ASSIGN, self.index[stmt.targets[0].id], self._slots(stmt.value))
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and \
                stmt.target.id in self.index:
            slot = self.index[stmt.target.id]
            return Item(ASSIGN, slot, self._slots(stmt.value) | {slot})
        if isinstance(stmt, ast.Expr) and _is_change(stmt.value) and \
                isinstance(stmt.value.args[2], ast.Name) and stmt.value.args[2].id in self.index:
            return Item(CHANGE, self.index[stmt.value.args[2].id], self._slots(stmt.value))
        if isinstance(stmt, ast.Return) and _is_exit(stmt):
            return Item(EXIT, None, frozenset(), (self._exit(stmt.value.elts),))  # type: ignore[union-attr]
        if isinstance(stmt, ast.If):  # each branch read on its own
            leaves = len(self.leaves)
            test = self._test(stmt.test)  # kept where some leaf is a function of the frame
            framed = len(self.leaves) > leaves
            return Item(BRANCH, None, self._slots(stmt.test), (),
                        tuple(self.item(s) for s in stmt.body),
                        tuple(self.item(s) for s in stmt.orelse), test if framed else None)
        exits: list[Exit] = []
        uses = self._loads(stmt, exits)
        return Item(STATEMENT, None, uses, tuple(exits))

    def _test(self, node: ast.expr) -> Test:
        """A branch's test taken apart at `and`, `or` and `not` (runtime/exact_known.py
        `Test`); a leaf reading simple values and fields of parameters' parties alone (no
        outcome, no run context) is a function of the frame (`_framed`)."""
        if isinstance(node, ast.BoolOp):
            return Test(AND if isinstance(node.op, ast.And) else OR,
                        tuple(self._test(v) for v in node.values))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return Test(NOT, (self._test(node.operand),))
        leaf = Test(LEAF, uses=self._slots(node))
        ok = all(slot_of(u) in self.simple or type(u) is tuple and slot_of(u) < self.params
                 and u[1] != "@name" and type(u[1]) is str for u in leaf.uses)
        return self._framed(node, leaf) if ok else leaf

    def _argument(self, node: ast.expr) -> Test | None:
        """A call's argument as a function of the frame, where it reads simple values and
        parameters (a party as it is) alone."""
        leaf = Test(LEAF, uses=self._slots(node))
        if all(type(u) is int and (u in self.simple or u < self.params) for u in leaf.uses):
            return self._framed(node, leaf)
        return None

    def _framed(self, node: ast.expr, leaf: Test) -> Test:
        """The leaf, its function of the frame to be compiled with the segments (`_leaf`),
        unless the expression reads the run context or a name the segment sets."""
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        if not names & (self.local | {"_ctx", "_f"}) and \
                not any(isinstance(n, (ast.NamedExpr, ast.Lambda)) for n in ast.walk(node)):
            self.leaves.append((f"{self.prefix}_{len(self.leaves)}", _leaf(node, self.index),
                                leaf))
        return leaf

    def _slots(self, node: ast.AST) -> frozenset[Any]:
        """What an expression reads: a slot (its index), or one field of the outcome a slot
        holds (`(index, "level")` for `v_attack._values.get('level')`; `(index, "@name")`
        for `v_save == 'made'`, which reads only the outcome's name), or a comparison of a
        slot with a whole number (`(index, ("==", 1))` for `v_attack_roll == 1`)."""
        found: set[Any] = set()
        self._reads(node, found)
        return frozenset(found)

    def _reads(self, node: ast.AST, found: set[Any]) -> None:
        field = self._field(node)
        if field is not None:
            found.add(field)
            return
        if isinstance(node, ast.Name) and node.id in self.index and \
                isinstance(node.ctx, ast.Load):
            found.add(self.index[node.id])
            return
        for child in ast.iter_child_nodes(node):
            self._reads(child, found)

    def _field(self, node: ast.AST) -> tuple[int, Any] | None:
        """`v_x._values.get('f')` or `v_x._values['f']`: field f of slot x; `v_x == 'text'`
        (or `!=`): its name (an outcome's) or itself (a name's); `v_x < 5` (any one
        comparison with a whole number, or `== none`; `!=` as `==`, telling the same values
        apart): the comparison alone (runtime/exact_plan.py `_key_function`)."""
        compared = _compared(node, self.index)
        if compared is not None:
            return compared
        held: ast.AST | None = None
        key: ast.AST | None = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "get" and len(node.args) == 1:
            held, key = node.func.value, node.args[0]
        elif isinstance(node, ast.Subscript):
            held, key = node.value, node.slice
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and \
                isinstance(node.ops[0], (ast.Eq, ast.NotEq)) and \
                isinstance(node.left, ast.Name) and node.left.id in self.index and \
                isinstance(node.comparators[0], ast.Constant) and \
                isinstance(node.comparators[0].value, str):
            return self.index[node.left.id], "@name"
        if held is None or not (isinstance(held, ast.Attribute) and held.attr == "_values"
                                and isinstance(held.value, ast.Name)
                                and held.value.id in self.index):
            return None
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return None
        return self.index[held.value.id], key.value

    def _loads(self, stmt: ast.AST, exits: list[Exit]) -> frozenset[Any]:
        """What a statement reads (its exits apart), collecting the exits inside it."""
        if isinstance(stmt, ast.Return) and _is_exit(stmt):
            exits.append(self._exit(stmt.value.elts))  # type: ignore[union-attr]
            return frozenset()
        found: set[Any] = set()
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and \
                stmt.target.id in self.index:
            found.add(self.index[stmt.target.id])
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, (ast.stmt, ast.excepthandler)):
                found |= self._loads(child, exits)
            else:
                found |= self._slots(child)
        return frozenset(found)

    def _exit(self, elts: list[ast.expr]) -> Exit:
        kind = elts[0].value  # type: ignore[attr-defined]
        if kind in (0, 4):
            return Exit(kind, elts[1].value, None, frozenset())  # type: ignore[attr-defined]
        if kind == 1:  # the dice are read; a running sum added to is read where it is live
            onto = elts[6].value if len(elts) > 6 else None  # type: ignore[attr-defined]
            return Exit(1, elts[1].value, elts[3].value,  # type: ignore[attr-defined]
                        self._slots(elts[4]), onto=onto)
        if kind == 2:  # the arguments are read, each as the callee needs it
            args = elts[5]
            assert isinstance(args, ast.Tuple)
            answers = self._slots(elts[7])  # what the caller answers with is read too
            return Exit(2, elts[1].value, elts[3].value,  # type: ignore[attr-defined]
                        self._slots(args) | answers,
                        args=tuple(self._slots(a) for a in args.elts),
                        callee=elts[4].value,  # type: ignore[attr-defined]
                        values=tuple(self._argument(a) for a in args.elts))
        finish = elts[1]
        assert isinstance(finish, ast.Call) and isinstance(finish.args[2], ast.Dict)
        fields = {}
        for key, value in zip(finish.args[2].keys, finish.args[2].values):
            assert isinstance(key, ast.Constant)
            fields[key.value] = self._slots(value)
        name = finish.args[1].value  # type: ignore[attr-defined]
        return Exit(3, None, None, frozenset(), name, fields)


_COMPARED = {ast.Eq: "==", ast.NotEq: "==", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
             ast.GtE: ">=", ast.Is: "==", ast.IsNot: "=="}  # `is`: with None alone (below)


def _compared(node: ast.AST, index: dict[str, int]) -> tuple[int, tuple[str, Any]] | None:
    """`v_x < 5`: (x's slot, ("<", 5)); `v_x is None` (or `is not`, `==`, `!=`): (x's slot,
    ("==", None));
    None for anything else. The value may be checked on the way, as the run form does
    (`_present(v_x, …) < 5`, `(v_x if type(v_x) is int else _cast(v_x, …)) < 5`): a whole
    number is compared as it is."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and
            type(node.ops[0]) in _COMPARED and isinstance(node.comparators[0], ast.Constant)):
        return None
    left = node.left
    if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and \
            left.func.id == "_present" and left.args:
        left = left.args[0]
    elif isinstance(left, ast.IfExp) and isinstance(left.body, ast.Name) and \
            ast.unparse(left.test) == f"type({left.body.id}) is int":
        left = left.body
    op, number = _COMPARED[type(node.ops[0])], node.comparators[0].value
    if isinstance(node.ops[0], (ast.Is, ast.IsNot)) and number is not None:
        return None  # the run form writes `is` against none only (`x == none`)
    if not (isinstance(left, ast.Name) and left.id in index):
        return None
    if type(number) is int or number is None and op == "==" and left is node.left:
        return index[left.id], (op, number)
    return None


def _leaf(node: ast.expr, index: dict[str, int]) -> ast.Lambda:
    """`lambda _f: …` of a test's leaf, each slot read from the frame (`v_style` → `_f[22]`)."""
    class Framed(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.AST:
            if name.id not in index:
                return name
            return ast.Subscript(ast.Name("_f", ast.Load()), ast.Constant(index[name.id]),
                                 ast.Load())

    body = Framed().visit(copy.deepcopy(node))
    return ast.Lambda(ast.arguments([], [ast.arg("_f")], None, [], [], None, []), body)


def stepper_from(read: list[tuple[str, tuple[Item, ...], bool, frozenset[int]]], info: dict,
                 namespace: dict[str, Any], source: str | None) -> Stepper:
    for name, _, test in info["tests"]:
        test.fn = namespace[name]
    segments = tuple(Segment(namespace[name], items, mutates, sets)
                     for name, items, mutates, sets in read)
    return Stepper(info["name"], info["slots"], info["params"], segments, info["simple"],
                   info["party_slots"], info["values"], info["span"], source, info["loops"],
                   info["changes"])


def defer(scope: Scope, decls: tuple[Any, ...], procedures: dict[str, Any],
          namespace: dict[str, Any], source: str | None) -> None:
    """Have the procedures' segments written the first time one is asked for (`attach`):
    most uses of a rulebook (a run, a lookup, `eval`) never need them."""
    lock = threading.RLock()

    def write_all() -> None:
        with lock:
            if any(p.steppers is not None for p in procedures.values()):
                attach(scope, decls, procedures, namespace, source)
                for proc in procedures.values():
                    proc.steppers = None

    for proc in procedures.values():
        proc.steppers = write_all


def attach(scope: Scope, decls: tuple[Any, ...], procedures: dict[str, Any],
           namespace: dict[str, Any], source: str | None) -> None:
    """Write, compile and attach every procedure's segments (`Procedure.stepper`). A procedure
    whose steps the segments cannot follow (a step kind they do not cut, a run-context call
    that keeps state of its own), or that calls one, keeps `stepper = None`: its odds walk
    the paths."""
    writer = StepWriter(scope)
    found = {d.name: d for d in decls if isinstance(d, s.ProcedureDecl)}
    timed = _on_a_clock(found)
    written = []
    for name, proc in procedures.items():
        params = scope.procedure_params.get(name)
        if params is None or name not in found or name in timed:
            continue
        reported = len(scope.errors)
        try:
            written.append((proc, *writer.stepper(found[name], params)))
        except _Unsupported:
            pass
        del scope.errors[reported:]  # the run form has reported every error once already
    namespace.update(scope.constants)
    trees = []
    for proc, code, info in written:
        tree = _quiet(ast.parse(code))
        try:
            trees.append((proc, tree, info, segments_of(tree, info)))
        except _Unsupported:
            pass
    module = ast.Module([stmt for _, tree, info, _ in trees
                         for stmt in _slim(tree, info["slots"]).body], [])
    module.body += [ast.Assign([ast.Name(name, ast.Store())], leaf)  # type: ignore[call-arg]
                    for _, _, info, _ in trees for name, leaf, _ in info["tests"]]
    ast.fix_missing_locations(module)
    exec(compile(module, "<rulecraft: exact odds>", "exec"), namespace)  # from the checked tree
    steppers = {proc.name: stepper_from(read, info, namespace, source)
                for proc, _, info, read in trees}
    calls = {name: {st.procedure for st in s.all_steps(d.steps) if isinstance(st, s.CallStep)}
             for name, d in found.items()}
    dropped = True
    while dropped:  # a caller of a procedure without segments walks the paths too
        dropped = False
        for name in list(steppers):
            if calls.get(name, set()) - set(steppers):
                del steppers[name]
                dropped = True
    circled = {name for cycle in order({n: [(c, None) for c in cs] for n, cs in calls.items()})[1]
               for name in cycle}
    for proc, _, _ in written:
        if proc.name in steppers:
            steppers[proc.name].in_circle = proc.name in circled
            steppers[proc.name].callees = steppers
            proc.stepper = steppers[proc.name]


class _Quiet(ast.NodeTransformer):
    """The segments with the run context's calls that only trace taken out: exact odds play
    them in `ExactContext`, where `let`, `until` give back their value and `branch` does
    nothing, and a state is played once per distinct state, so every call saved counts.
    A `delay` (no clock runs) only has its arguments worked out, into a name nothing reads:
    they fail where a run would, yet keep no value alive for liveness."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        return node.args[2] if _context_call(node, _GIVE_BACK) else node

    def visit_Expr(self, node: ast.Expr) -> ast.AST | None:
        if isinstance(node.value, ast.Call) and _context_call(node.value, _NOTHING):
            return None
        if isinstance(node.value, ast.Call) and _context_call(node.value, _UNREAD_ARGS, 4):
            return ast.Assign([ast.Name(_UNREAD, ast.Store())],
                              ast.Tuple(node.value.args[2:], ast.Load()))
        return self.generic_visit(node)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        if isinstance(node, (ast.If, ast.For, ast.While, ast.FunctionDef)) and not node.body:
            node.body = [ast.Pass()]
        return node


# What ExactContext does with these calls: give back the last argument, or nothing; of a
# `delay` (whom, by how much), only the arguments are worked out, into `_UNREAD`.
_GIVE_BACK, _NOTHING, _UNREAD_ARGS = (frozenset(("let", "until")),
                                      frozenset(("branch", "ruling", "reveal")),
                                      frozenset(("delay", "lengthen")))
_UNREAD = "_unread"


def _context_call(node: ast.Call, names: frozenset[str], arguments: int = 3) -> bool:
    return isinstance(node.func, ast.Attribute) and node.func.attr in names and \
        isinstance(node.func.value, ast.Name) and node.func.value.id == "_ctx" and \
        len(node.args) == arguments and not node.keywords


def _quiet(module: ast.Module) -> ast.Module:
    return ast.fix_missing_locations(_Quiet().visit(module))


class _Unsupported(Exception):
    """What the segments cannot follow: the procedure's odds walk the paths."""


# What segments may ask of the run context: the calls that keep no state between states (a
# condition given, an encounter's clock, a script of choices each would). Exact odds play a
# procedure on its own, as `run` does: no condition is given (`give` is not here), no clock
# runs, so `has`, `remaining` and `next_turn` read the same (nothing) in every state.
_CONTEXT = frozenset(("let", "branch", "choose", "change", "each", "passes", "until", "capped",
                      "item", "first_pass", "_pass", "finish", "done", "policy", "delay",
                      "lengthen", "has", "remaining", "next_turn", "ruling", "reveal",
                      "today"))


# The run context's calls that count loop passes.
_PASSES = frozenset(("each", "passes", "item", "first_pass", "_pass"))


def _on_a_clock(found: dict[str, s.ProcedureDecl]) -> set[str]:
    """Encounters, and procedures that call one: their odds walk the paths (`path_odds`), as
    the scheduler's time is not a value the states are merged on."""
    timed = {name for name, d in found.items() if d.clock is not None}
    grew = True
    while grew:
        grew = False
        for name, d in found.items():
            calls = {st.procedure for st in s.all_steps(d.steps) if isinstance(st, s.CallStep)}
            if name not in timed and calls & timed:
                timed.add(name)
                grew = True
    return timed


__all__ = ["StepWriter", "attach", "defer"]
