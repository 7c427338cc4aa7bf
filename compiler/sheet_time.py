"""Sheets, in words, for time (issue 15): a duration with its unit ("2 seconds"), a condition
at a location ("Shock on the Head"), the heads of `every` and `afterwards:` blocks and a
round's order with its delays. compiler/sheet_steps.py calls these."""

from __future__ import annotations

import re
from collections.abc import Callable

from .sheet_math import Piece, Rich

_NAME = r"[^\W\d]\w*"
_WITH_UNIT = re.compile(rf"(.+?)\s+({_NAME})$")


def duration(text: str, math: Callable[[str], Rich]) -> Rich:
    """`2 seconds`: the amount as math, then its unit in words; a time without a unit as is."""
    found = _WITH_UNIT.match(text)
    if found is not None and not re.search(r"[-+*/(,]$|\b(and|or|not|mod|if|then|else)$",
                                           found[1].strip()):
        return (*math(found[1]), Piece(f" {found[2]}"))
    return math(text)


def condition(text: str, plain: Callable[[str], Rich]) -> Rich:
    """`"Shock" on "Head"`: the condition, at its location."""
    found = re.match(r'(.+?)\s+on\s+(.+)$', text)
    if found is None:
        return plain(text)
    return (*plain(found[1]), Piece(" on "), *plain(found[2]))


def block_head(when: str, math: Callable[[str], Rich]) -> Rich | None:
    """The head of a loop's block besides its body: `every 1 minute`, `afterwards`."""
    if when.startswith("every "):
        found = re.match(rf"every\s+(.+?)\s+({_NAME})(\s+(before|after)\s+turns)?$", when)
        if found is None:
            return (Piece(when + ":"),)
        order = {"before": ", before the turns due then", "after": ", after the turns due "
                 "then"}.get(found[4] or "", "")
        return (Piece("Every "), *math(found[1]), Piece(f" {found[2]}{order}:"))
    if when == "afterwards":
        return (Piece("Once the fight has ended:"),)
    if when.startswith("take turns "):
        return ()
    return None


def turns(text: str, math: Callable[[str], Rich], words: Callable[[str], str]) -> Rich:
    """`take turns c in ORDER`: each party in the order, which may change as the round goes."""
    found = re.match(rf"take\s+turns\s+({_NAME})\s+in\s+(.+)$", text)
    if found is None:
        return (Piece(text),)
    return (Piece(f"Each {words(found[1])} in turn, in the order of "), *math(found[2]),
            Piece(" (a party may put off its action):"))


def round_delay(text: str, math: Callable[[str], Rich], words: Callable[[str], str]) -> Rich:
    """`delay c until after d`, `delay c to the end`, `ready c when COND`."""
    found = re.match(rf"delay\s+({_NAME})\s+until\s+after\s+({_NAME})$", text)
    if found is not None:
        return (Piece(f"{words(found[1]).capitalize()} puts off its action until after "
                      f"{words(found[2])}’s."),)
    found = re.match(rf"delay\s+({_NAME})\s+to\s+the\s+end$", text)
    if found is not None:
        return (Piece(f"{words(found[1]).capitalize()} puts off its action to the end of the "
                      "round."),)
    found = re.match(rf"ready\s+({_NAME})\s+when\s+(.+)$", text)
    if found is not None:
        return (Piece(f"{words(found[1]).capitalize()} readies its action, taken as soon as "),
                *math(found[2]), Piece(" after another’s action (lost if the round ends "
                                       "first)."))
    return (Piece(text),)


__all__ = ["block_head", "condition", "duration", "round_delay", "turns"]
