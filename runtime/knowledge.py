"""Choices that know more than a name: standing constraints, secrets, a caller's answers.

A `choose` step goes through here (`RunContext._choose_knowing`) only when its rule says so —
a standing constraint names it (`while "Stunned", defence may only be "Parry"`), it is made
`in secret`, or a call under way answers it (`call … choosing manner = "Split attack"`) — so
every other choice keeps the run context's quick path.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

import attrs

from .errors import RangeError, Span
from .values import display, match_name, to_internal

@attrs.frozen
class StandingRule:
    """A standing constraint as the compiled rulebook keeps it, for tools and sheets:
    `while "Grappling", defence may only be ["Active Dodge", "Hand parry"]`."""

    condition: Any  # the condition the choosing party is under
    choice: str  # the `choose` it binds, in any procedure
    mode: str  # "only": these options are left; "not": these are taken away
    options: tuple[Any, ...]
    span: Span | None = attrs.field(default=None, eq=False)


# One standing constraint as generated code hands it over: the condition the choosing party is
# under, the options it names, "only" (keep these) or "not" (take these away), and the rule's
# line.
Standing = tuple[Any, tuple[Any, ...], str, Span]


def narrowed(ctx: Any, span: Span, name: str, party: str, who: Any,
             rules: tuple[Standing, ...], options: Sequence[Any]) -> tuple[tuple[Any, ...],
                                                                             list[str]]:
    """The options left by the standing constraints whose condition the party is under, and
    those conditions. None left is the rules' contradiction: an error naming them."""
    left = tuple(options)
    held: list[str] = []
    for condition, named, mode, _ in rules:
        if not ctx.has(who, condition):
            continue
        held.append(display(condition))
        left = tuple(o for o in left if (o in named) == (mode == "only"))
    if not left:
        raise RangeError(f"{party} has no option left for {name} while "
                         f"{' and '.join(held)}: the standing constraints take away every one "
                         f"of {', '.join(display(o) for o in options)}", span, ctx.source)
    return left, held


def choose_knowing(ctx: Any, span: Span, name: str, party: str, options: Sequence[Any],
                   default: Any, standing: tuple[Any, tuple[Standing, ...]] | None,
                   seeing: tuple[str, ...] | None, secret: bool,
                   unset: str = "default") -> Any:
    """The choice as `RunContext.choose` makes it, and: the options a standing constraint
    leaves (the default, when it is no longer open, is the first option left); the caller's
    answer before any other; a secret kept until `reveal`."""
    held: list[str] = []
    if standing is not None:
        who, rules = standing
        options, held = narrowed(ctx, span, name, party, who, rules, options)
        if held and default not in options:
            default = options[0]  # CHOICE: the constraint's first option stands for the default
    if name in ctx.answered:
        chosen = _open(ctx, span, name, party, to_internal(ctx.answered[name]), options,
                       "the caller answers")
        ctx.values[name] = chosen
        ctx.trace.append(("choose", name, chosen, span,
                          _detail(party, "answered by the caller", held, secret)))
    else:
        trace = ctx.trace
        before = len(trace)
        chosen = ctx._chosen(span, name, party, options, default, seeing, unset)
        if (held or secret) and len(trace) > before and trace[-1][0] == "choose":
            entry = trace[-1]
            trace[-1] = entry[:4] + (_detail(party, entry[4].split(", ", 1)[-1], held,
                                             secret),)
    if secret:
        ctx.secrets[name] = party
    return chosen


def _open(ctx: Any, span: Span, name: str, party: str, chosen: Any, options: Sequence[Any],
          who: str) -> Any:
    """An answer checked against the options open to the party."""
    options = list(options)
    if chosen not in options and match_name(chosen, options) is not None:
        chosen = match_name(chosen, options)
    if chosen not in options:
        shown = ", ".join(display(o) for o in options)
        close = difflib.get_close_matches(str(chosen), [str(o) for o in options], n=1)
        hint = f" — did you mean {close[0]!r}?" if close else ""
        raise RangeError(f"{who} {name} with {display(chosen)!r}, which {party} cannot choose: "
                         f"the options are {shown}{hint}", span, ctx.source)
    return chosen


def _detail(party: str, by: str, held: list[str], secret: bool) -> str:
    """A choice's trace detail: who made it and how, under what, whether in secret."""
    under = f", while {' and '.join(held)}" if held else ""
    return f"by {party}, {by}{under}" + (", in secret" if secret else "")


__all__ = ["StandingRule", "choose_knowing", "narrowed"]
