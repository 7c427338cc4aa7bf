"""Sums of independent rolls, folded as they are rolled: how exact odds convolve them.

`roll a = d10 … roll e = d10 … outcome done with (total = a + b + c + d + e)`: read as
written, exact odds must tell apart every (a, b, c, d, e) until the sum is made, 10^5 states.
Added up as each die is rolled, only the running sum need be told apart: 10 + 19 + … + 46
states, a convolution (icepool adds dice so). So before the segments are written
(`stepper.py`), each summand of a sum that reads one roll alone — `a`, `2 * a`, `(if a >= 8
then 1 else 0)` — is moved to just after its roll, into a running sum the expression then
reads: `let ·sum1 = ·sum1 + a` after `roll a`, and `total = ·sum1`.

A summand moves only where that gives the same value and the same errors on every path: its
roll is the only step binding the name and is in no loop (so it happens at most once, before
every read); every read of the roll is in that summand; the summand reads nothing else that a
step binds (parameters and the rulebook's tables and enums never change), and it cannot fail
(no division, no lookup), since it now runs where the sum may not be reached. The run form
(`p_NAME`) keeps the steps as written.

A roll whose one summand is the roll itself, added (`+ a`), is rolled onto the running sum
instead (`onto`): its exit adds its total to `·sum1` as it sets `a`, so that where nothing reads
`a` again the exact odds spread the running sum's totals alone (runtime/exact_plan.py, `Exit.onto`)
— a state per total of the sum, not per pair of the sum and the roll.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import attrs

from rulecraft.dsl import syntax as s

from .codegen import _blocks, _bound_names
from .order import names_used

_SAFE_BINARY = frozenset(("+", "-", "*", "<", "<=", ">", ">=", "==", "!=", "and", "or"))


def fold_sums(decl: s.ProcedureDecl, params: set[str], implicit: Counter[str],
              onto: dict[str, str] | None = None) -> s.ProcedureDecl:
    """`decl` with the summands of its sums that read one roll alone added as it is rolled.
    `implicit` counts the reads an outcome step makes by name (a field filled from the value
    of the same name). Given `onto`, a roll whose one summand is itself, added, is written
    there (roll -> running sum) instead of being followed by its `let`."""
    rolls = _single_rolls(decl.steps)
    if not rolls:
        return decl
    reads = Counter(name for name, _ in names_used(decl, calls=False)) + implicit
    bound = set(_bound_names(decl.steps)) | set(_loop_vars(decl.steps))
    taken = bound | params
    found = [(node, [(sign, term, _moves(term, rolls, bound))
                     for sign, term in _summands(node, 1)])
             for root in _expressions(decl.steps) for node in _sums(root)]
    # A roll moves if every read of it is in summands that can move.
    covered: Counter[str] = Counter()
    for _, terms in found:
        for _, term, roll in terms:
            if roll is not None:
                covered[roll] += sum(1 for name, _ in names_used(term, calls=False)
                                     if name == roll)
    moving = {roll for roll, n in covered.items() if n == reads[roll]}
    moves: dict[str, list[tuple[str, int, Any]]] = {}  # roll -> (sum, sign, summand) each
    replaced: dict[int, Any] = {}  # id of a sum's node -> its new node
    sums: list[str] = []
    for node, terms in found:
        if not any(roll in moving for _, _, roll in terms):
            continue
        total = _fresh(taken, len(sums) + 1)
        sums.append(total)
        for sign, term, roll in terms:
            if roll in moving:
                moves.setdefault(roll, []).append((total, sign, term))
        kept = [(sign, term) for sign, term, roll in terms if roll not in moving]
        replaced[id(node)] = _rebuild(kept, s.Name(total, node.span), node.span)
    if not moves:
        return decl
    if onto is not None:
        for roll, made in list(moves.items()):
            if len(made) == 1 and made[0][1] > 0 and isinstance(made[0][2], s.Name) and \
                    made[0][2].name == roll:
                onto[roll] = made[0][0]
                del moves[roll]
    start = tuple(s.LetStep(total, s.Number("0", decl.span), decl.span) for total in sums)
    steps = start + _after_rolls(_replace(decl.steps, replaced), moves)
    return attrs.evolve(decl, steps=steps)


def _single_rolls(steps: tuple[Any, ...]) -> set[str]:
    """Names bound by exactly one step, a roll in no loop."""
    binders = Counter(_bound_names(steps))
    return {step.name for step in _outside_loops(steps)
            if isinstance(step, s.RollStep) and binders[step.name] == 1}


def _outside_loops(steps: tuple[Any, ...]) -> list[Any]:
    found: list[Any] = []
    for step in steps:
        found.append(step)
        if not isinstance(step, (s.ForStep, s.RepeatStep)):
            for block in _blocks(step):
                found += _outside_loops(block)
    return found


def _loop_vars(steps: tuple[Any, ...]) -> list[str]:
    names: list[str] = []
    for step in steps:
        if isinstance(step, s.ForStep):
            names.append(step.var)
        for block in _blocks(step):
            names += _loop_vars(block)
    return names


def _expressions(steps: tuple[Any, ...]) -> list[Any]:
    """Every expression written in the steps (nested blocks' too)."""
    found: list[Any] = []
    for step in steps:
        for field in attrs.fields(type(step)):
            value = getattr(step, field.name)
            for item in (value if isinstance(value, tuple) else (value,)):
                if isinstance(item, s.Assign):
                    found.append(item.value)
                elif isinstance(item, s.Target):
                    found.extend(item.index)
                elif isinstance(item, s.Branch):
                    found.append(item.test)
                elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
                    found.append(item[1])  # a named argument
                elif attrs.has(type(item)) and not _is_step(item) and field.name != "span":
                    found.append(item)
        for block in _blocks(step):
            found += _expressions(block)
    return found


def _is_step(node: Any) -> bool:
    return type(node).__name__.endswith("Step") or isinstance(node, s.Branch)


def _sums(node: Any, inside: bool = False) -> list[Any]:
    """The largest sums in an expression (`a + b - c`, not its parts), outermost first."""
    found: list[Any] = []
    is_sum = isinstance(node, s.Binary) and node.op in ("+", "-")
    if is_sum and not inside:
        found.append(node)
    if attrs.has(type(node)):
        for field in attrs.fields(type(node)):
            if field.name == "span":
                continue
            value = getattr(node, field.name)
            for item in (value if isinstance(value, tuple) else (value,)):
                if attrs.has(type(item)):
                    part = is_sum or (isinstance(node, s.Unary) and node.op == "-" and inside)
                    found += _sums(item, part)
    return found


def _summands(node: Any, sign: int) -> list[tuple[int, Any]]:
    if isinstance(node, s.Binary) and node.op in ("+", "-"):
        return _summands(node.left, sign) + _summands(node.right,
                                                      sign if node.op == "+" else -sign)
    if isinstance(node, s.Unary) and node.op == "-":
        return _summands(node.operand, -sign)
    return [(sign, node)]


def _moves(term: Any, rolls: set[str], bound: set[str]) -> str | None:
    """The roll a summand can be added at, if it can (see the module's docstring)."""
    if not _safe(term):
        return None
    names = {name for name, _ in names_used(term, calls=False)}
    mine = [name for name in names if name in rolls]
    if len(mine) != 1 or any(n in bound for n in names if n != mine[0]):
        return None
    return mine[0]


def _safe(node: Any) -> bool:
    """An expression of numbers, comparisons and choices only: it cannot fail."""
    if isinstance(node, (s.Name, s.Number)):
        return True
    if isinstance(node, s.Unary):
        return node.op in ("-", "not") and _safe(node.operand)
    if isinstance(node, s.Binary):
        return node.op in _SAFE_BINARY and _safe(node.left) and _safe(node.right)
    if isinstance(node, s.Conditional):
        return _safe(node.test) and _safe(node.then) and _safe(node.otherwise)
    return False


def _fresh(taken: set[str], number: int) -> str:
    """A name no rule can write (`·` is not a letter) and no step of this procedure uses."""
    name = f"·sum{number}"
    while name in taken:
        number += 1
        name = f"·sum{number}"
    taken.add(name)
    return name


def _rebuild(kept: list[tuple[int, Any]], total: Any, span: Any) -> Any:
    """The summands that stay, then the running sum: `x - y + ·sum1`."""
    node: Any = None
    for sign, term in kept:
        if node is None:
            node = term if sign > 0 else s.Unary("-", term, term.span)
        else:
            node = s.Binary("+" if sign > 0 else "-", node, term, span)
    return total if node is None else s.Binary("+", node, total, span)


def _replace(node: Any, replaced: dict[int, Any]) -> Any:
    """A copy of a tree (steps or expression) with the nodes in `replaced` swapped in."""
    node = replaced.get(id(node), node)  # and on into it: a sum inside a summand that stays
    if isinstance(node, tuple):
        return tuple(_replace(item, replaced) for item in node)
    if not attrs.has(type(node)):
        return node
    changes = {}
    for field in attrs.fields(type(node)):
        if field.name.endswith("span"):
            continue
        value = getattr(node, field.name)
        new = _replace(value, replaced)
        if new is not value:
            changes[field.name] = new
    return attrs.evolve(node, **changes) if changes else node


def _after_rolls(steps: tuple[Any, ...], moves: dict[str, tuple[str, int, Any]]
                 ) -> tuple[Any, ...]:
    """The steps, with `let ·sumN = ·sumN ± summand` after each roll a summand moved to."""
    out: list[Any] = []
    for step in steps:
        if isinstance(step, s.RollStep) and step.name in moves:
            out.append(step)
            for total, sign, term in moves[step.name]:
                add = s.Binary("+" if sign > 0 else "-", s.Name(total, step.span), term,
                               step.span)
                out.append(s.LetStep(total, add, step.span))
            continue
        changes = {}
        if isinstance(step, s.IfStep):
            branches = tuple(attrs.evolve(b, body=_after_rolls(b.body, moves))
                             for b in step.branches)
            changes["branches"] = branches
            if step.otherwise is not None:
                changes["otherwise"] = _after_rolls(step.otherwise, moves)
        elif hasattr(step, "body") and not isinstance(step, (s.ForStep, s.RepeatStep)):
            changes["body"] = _after_rolls(step.body, moves)  # a named step
        out.append(attrs.evolve(step, **changes) if changes else step)
    return tuple(out)


__all__ = ["fold_sums"]
