"""A formula's local names (`… where x = a + 1, y = x * 2`): checked, and put in the order
they read each other."""

from __future__ import annotations

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import CycleError, RuleTypeError

from .order import names_used, order
from .scope import Scope


def local_order(decl: s.FormulaDecl, scope: Scope) -> tuple[list[s.Local], set[str]]:
    """The formula's locals, each after the ones it reads, and the names of those read round
    in a circle; a local named like a parameter or like another local, or a circle, is an
    error at the local."""
    params = {p.name for p in decl.params}
    locals_: dict[str, s.Local] = {}
    for local in decl.where:
        if local.name in params:
            scope.error(RuleTypeError, f"the local name {local.name} hides the parameter "
                        f"{local.name} of {decl.name}: call it something else", local.span)
        elif local.name in locals_:
            scope.error(RuleTypeError, f"the local name {local.name} is given twice in "
                        f"{decl.name}", local.span)
        else:
            locals_[local.name] = local
    reads = {name: [(used, node) for used, node in names_used(local.value, calls=False)
                    if used in locals_]
             for name, local in locals_.items()}
    ordered, cycles = order(reads)
    for cycle in cycles:
        scope.error(CycleError, "these local names are worked out from each other in a "
                    "circle: " + " → ".join(cycle), locals_[cycle[0]].span)
    in_circle = {name for cycle in cycles for name in cycle}
    return [locals_[name] for name in ordered if name not in in_circle], in_circle
