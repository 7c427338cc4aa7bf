"""Procedures that call each other in a circle, allowed when every call round the circle
passes a whole-number parameter less than the caller's own (`call f = fall(height - 10)`): the
callee's declared range (`height: 0..30`) is checked on each call, so the circle ends."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from rulecraft.dsl import syntax as s

from .cells import number


def measures(circle: list[str], found: dict[str, s.ProcedureDecl]) -> dict[str, str] | None:
    """For each procedure of the circle, the parameter that every call between them makes
    smaller (`height` given `height - 10`), or None when no choice of parameters does."""
    names = list(dict.fromkeys(circle))
    candidates = [[p.name for p in found[n].params if _whole_range(p.type)] for n in names]
    for chosen in itertools.product(*candidates):
        measure = dict(zip(names, chosen))
        if all(_smaller(call, measure[caller], measure[call.procedure], found[call.procedure])
               for caller in names for call in _calls(found[caller])
               if call.procedure in measure):
            return measure
    return None


def _whole_range(t: s.TypeExpr | None) -> bool:
    return isinstance(t, s.RangeType) and isinstance(number(t.low), int) and \
        isinstance(number(t.high), int)


def _calls(decl: s.ProcedureDecl) -> Iterator[s.CallStep]:
    return (st for st in s.all_steps(decl.steps) if isinstance(st, s.CallStep))


def _smaller(call: s.CallStep, mine: str, theirs: str, callee: s.ProcedureDecl) -> bool:
    """Whether the call gives the callee's `theirs` the caller's `mine` less a written
    positive number (`height - 10`)."""
    names = [p.name for p in callee.params]
    given = dict(zip(names, call.args)) | dict(call.named)
    arg = given.get(theirs)
    if not (isinstance(arg, s.Binary) and arg.op == "-" and isinstance(arg.left, s.Name) and
            arg.left.name == mine and isinstance(arg.right, s.Number)):
        return False
    return number(arg.right.text) > 0
