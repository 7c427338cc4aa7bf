"""Compile and run one expression in a compiled rulebook's scope (`rulecraft eval`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.dsl.parser import parse_expression
from rulecraft.runtime.dice import Dice
from rulecraft.runtime.errors import (ARITHMETIC, CalculationError, DiceError, RulecraftError,
                                      RulecraftErrors, RuleSyntaxError, calculation_message)
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.values import to_public

from .cells import parse_dice
from .expressions import Emitter
from .scope import Scope

if TYPE_CHECKING:
    from rulecraft.runtime.rulebook import Rulebook


def evaluate_in(rulebook: Rulebook, text: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """The value of `text`, checked like any rule expression; never Python's eval of user text."""
    from .build import COMPILED  # compiled in this process (the driver, imported only then)

    scope, namespace = COMPILED[rulebook]
    return evaluate_scope(scope, namespace, text, limits)


def evaluate_scope(scope: Scope, namespace: dict[str, Any], text: str,
                   limits: Limits = DEFAULT_LIMITS) -> Any:
    """`text` checked against a compiled rulebook's symbol table and run among its generated
    globals: those of a rulebook compiled here, or kept on disk (compiler/kept.py)."""
    # A copy of the symbol table with its own globals: what this expression adds (constants,
    # spans) goes when it is done, never into the compiled rulebook.
    local = attrs.evolve(scope, source=text, filename="<expression>", errors=[],
                         constants=dict(scope.constants), shared=dict(scope.shared))
    node = parse_expression(text, "<expression>", limits=limits)
    code, _ = Emitter(local).expr(node, {})
    if local.errors:
        raise local.errors[0] if len(local.errors) == 1 else RulecraftErrors(local.errors)
    generated = f"def _expression():\n    return {code}\n"
    env = dict(namespace)
    env.update(local.constants)
    try:
        code = compile(generated, "<rulecraft: expression>", "exec")
    except (SyntaxError, RecursionError, MemoryError):
        raise RuleSyntaxError("this expression is nested too deeply for Python to compile "
                              f"{Limits.hint('nesting_depth')}", node.span, text) from None
    exec(code, env)  # built from the checked tree only
    try:
        return to_public(env["_expression"]())
    except ARITHMETIC as err:
        raise CalculationError(calculation_message(err), node.span, text) from None
    except RulecraftError as err:
        if err.filename == "<expression>":
            err.source = text  # the caret goes under the expression, not the rule file
        raise


def parse_dice_text(text: str, limits: Limits = DEFAULT_LIMITS) -> Dice:
    """A dice expression typed by a person (`2d4+12`, `4d6kh3 + d8`) as a Dice value."""
    try:
        node = parse_expression(text, "<dice>", limits=limits)
    except RuleSyntaxError as err:
        if "(limit " in err.message:
            raise  # a limit's own message says what to do
        raise DiceError("dice are written like 2d4+12, d20 or 4d6kh3 (keep the highest 3)",
                        err.span, text) from None
    return _dice_of(node, text)


def _dice_of(node: s.Expr, text: str) -> Dice:
    if isinstance(node, s.DiceLit):
        dice = parse_dice(node.text)
        if dice is not None:
            return dice
    if isinstance(node, s.Number) and "." not in node.text:
        return Dice((), int(node.text))
    if isinstance(node, s.Unary) and node.op == "-":
        return -_dice_of(node.operand, text)
    if isinstance(node, s.Binary) and node.op in ("+", "-"):
        left, right = _dice_of(node.left, text), _dice_of(node.right, text)
        return left + right if node.op == "+" else left - right
    raise DiceError("a dice expression is dice and whole numbers joined by + and -, "
                    "like 2d4+12 or 4d6kh3", node.span, text)
