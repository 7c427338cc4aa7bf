"""The order `odds --by` lists values in: each kind of value in its own order, never by how
likely it is (the probabilities are beside it to read).

Numbers go by size, a procedure's outcomes in the order they are declared, members of an enum
(or of a table's rows) in their declared order — severity, for injuries — other text
alphabetically, and the paths that have no such value last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

from rulecraft.compiler.build import COMPILED
from rulecraft.runtime.rulebook import Rulebook
from rulecraft.runtime.values import display


def in_order(rb: Rulebook, proc: Any, by: str,
             odds: Mapping[Any, Fraction]) -> list[tuple[Any, Fraction]]:
    """The rows of `odds` (value → probability) in the order of the values."""
    rank = _ranking(_declared(rb, proc, by, [k for k in odds if isinstance(k, str)]))
    return sorted(odds.items(), key=lambda row: rank(row[0]))


def _ranking(declared: Mapping[str, int]) -> Callable[[Any], tuple[Any, ...]]:
    def rank(value: Any) -> tuple[Any, ...]:
        if value is None:
            return (3,)
        if isinstance(value, (int, float, Decimal, Fraction)):  # yes/no too: no before yes
            return (0, value)
        if isinstance(value, str):
            return (1, declared.get(value, len(declared)), value.casefold(), value)
        return (2, display(value))  # maps and lists, as they are printed

    return rank


def _declared(rb: Rulebook, proc: Any, by: str, names: list[str]) -> dict[str, int]:
    """Each name's place in the order it is declared in, as far as one is known: the outcomes
    of `proc`, else the type the compiler gave the value, else the first enum holding them all."""
    if by == "outcome":
        return _places(getattr(proc, "outcomes", ()))
    compiled = COMPILED.get(rb)
    schema = getattr(compiled[0], "schemas", {}).get(proc.name) if compiled else None
    for (_, field), t in getattr(schema, "types", {}).items():
        domain = getattr(t, "domain", None)
        if field == by and domain is not None and set(names) <= set(domain.members):
            return _places(domain.members)
    for enum in rb.enums.values():
        if names and set(names) <= set(enum.members):
            return _places(enum.members)
    return {}


def _places(names: Iterable[str]) -> dict[str, int]:
    return {name: i for i, name in enumerate(names)}


__all__ = ["in_order"]
