"""Worked examples, compiled: each `example "…":` becomes a procedure of no parameters whose
steps are the example's, ending in `done`; each `expect` step checks what came out and records
it in the trace (runtime/examples.py runs them and reports)."""

from __future__ import annotations

from typing import Any

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import RuleTypeError

from .order import names_used
from .scope import Scope

Env = dict[str, tuple[str, Any]]
PREFIX = "example_no_"  # the procedures examples compile to: example_no_1, example_no_2, …


def as_procedures(decls: tuple[Any, ...]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The declarations with each example written as a procedure, and the examples by the
    name of their procedure."""
    out: list[Any] = []
    examples: dict[str, Any] = {}
    for d in decls:
        if isinstance(d, s.ExampleDecl):
            name = f"{PREFIX}{len(examples) + 1}"
            done = s.OutcomeStep("done", "Done", (), d.span)
            out.append(s.ProcedureDecl(name, d.title, (), d.steps + (done,), d.span, d.comments))
            examples[name] = d
        else:
            out.append(d)
    return tuple(out), examples


def check_titles(scope: Scope, examples: dict[str, Any]) -> None:
    """Examples are told apart by their titles: a house file replaces one by it."""
    seen: dict[str, Any] = {}
    for d in examples.values():
        if not d.title.strip():
            scope.error(RuleTypeError, 'an example has a title saying what it shows: `example '
                        '"A natural 20 still misses a high AC":`', d.span)
        elif d.title in seen:
            scope.error(RuleTypeError, f"two examples are called {d.title!r} (the first at line "
                        f"{seen[d.title].span.line}): give each its own title", d.span)
        seen[d.title] = d


def about(d: Any) -> tuple[str, ...]:
    """The names an example's steps read, in order: the procedures of its `call` steps, the
    functions and tables its expressions read (a sheet prints the example under the first that
    is a rule of the rulebook)."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, s.CallStep):
            found.append(node.procedure)
        found.extend(name for name, _ in names_used(node))
        for block in getattr(node, "body", ()) if isinstance(getattr(node, "body", ()), tuple) \
                else ():
            walk(block)

    for step in d.steps:
        walk(step)
    return tuple(dict.fromkeys(found))


def lines(d: Any, source: str) -> tuple[str, ...]:
    """An example's steps as written (its body's lines, comments left out)."""
    body = source[d.span.start:d.span.end].split("\n")[1:]
    return tuple(x.strip() for x in body if x.strip() and not x.strip().startswith("#"))


class ExampleSteps:
    """The `expect` step, for the code writer (compiler/codegen.py)."""

    def visit_ExpectStep(self: Any, step: s.ExpectStep, env: Env, depth: int) -> None:
        if not self.procedure_name.startswith(PREFIX):
            self.scope.error(RuleTypeError, "`expect` checks a worked example's result: it is "
                             'written in an `example "…":` block', step.span)
        where = self.scope.span_ref(step.span)
        text = self.scope.text(step.test.span)
        test = step.test
        if isinstance(test, s.Binary) and test.op in ("==", "!=", "<", "<=", ">", ">="):
            left, _ = self.expr(test.left, env)
            right, _ = self.expr(test.right, env)
            code, _ = self.condition(test, env)
            said = self.scope.text(test.left.span)
            self.line(depth, f"_ctx.expect({where}, {text!r}, {code}, {said!r}, {left})")
        else:
            code, _ = self.condition(test, env)
            self.line(depth, f"_ctx.expect({where}, {text!r}, {code})")
