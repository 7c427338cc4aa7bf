"""Key cells naming several members of an enum (`| Head, Chest | … |`, `| Arm/Leg | … |`): one
printed row standing for a row per member."""

from __future__ import annotations

import itertools
import re
from typing import Any

from rulecraft.runtime.errors import Span

_SEPARATOR = re.compile(r"\s*[,/]\s*")


class Several(tuple):  # type: ignore[type-arg]
    """The members one key cell names, in printed order."""

    __slots__ = ()


def several_members(text: str, members: frozenset[str]) -> Several | None:
    """The members `text` names when it is not one member itself but a list of them
    (separated by commas or slashes); None when it is not (a name with a slash that is one
    member, `Chest/Upper back`, is that member)."""
    if text in members or not _SEPARATOR.search(text):
        return None
    parts = [p for p in _SEPARATOR.split(text.strip())]
    if len(parts) < 2 or not all(p in members for p in parts):
        return None
    return Several(parts)


def strays(text: str, members: frozenset[str]) -> list[str]:
    """The names in a cell listing several (`Head, Foot`) that are not members, when at least
    one is: the cell meant to list members, and these are misspelt."""
    parts = _SEPARATOR.split(text.strip())
    if len(parts) < 2 or not any(p in members for p in parts):
        return []
    return [p for p in parts if p not in members]


def expanded(matchers: list[tuple[Any, ...]], values: list[Any],
             spans: list[tuple[Span, ...]]) -> tuple[list[tuple[Any, ...]], list[Any],
                                                     list[tuple[Span, ...]]]:
    """Each entry whose key cells name several members, once for each member (for each
    combination, when several of its cells do)."""
    if not any(isinstance(x, Several) for m in matchers for x in m):
        return matchers, values, spans
    out_m, out_v, out_s = [], [], []
    for m, v, sp in zip(matchers, values, spans):
        choices = [x if isinstance(x, Several) else (x,) for x in m]
        for combination in itertools.product(*choices):
            out_m.append(tuple(combination))
            out_v.append(v)
            out_s.append(sp)
    return out_m, out_v, out_s
