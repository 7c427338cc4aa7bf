"""What the d20 modern tests share: a typical hero's figures, and running a procedure."""

from __future__ import annotations

from typing import Any

BASE = dict(level=3, str=2, dex=1, con=1, wis=0, cha=0, max_hp=20, hp=20, weapon="Fists")


def hero(rb: Any, **figures: Any) -> Any:
    return rb.combatant(**{**BASE, **figures})


def run(rb: Any, name: str, dice: list[int], **args: Any) -> Any:
    return rb.procedures[name].run(dice=dice, **args)
