"""rulecraft: tabletop combat rules as data — load a rulebook, play its tables and procedures."""

from __future__ import annotations

import os as _os
from typing import TYPE_CHECKING

# Run from a checkout's root (where the README leaves a new user), this folder shadows the
# installed package, and the stage folders beside it (dsl/, compiler/, runtime/, rulebooks/) are
# its subpackages: look for them there, as an editable install would.
_ROOT = _os.path.dirname(_os.path.dirname(_os.path.realpath(__file__)))
if _os.path.isfile(_os.path.join(_ROOT, "pyproject.toml")) and \
        _os.path.isfile(_os.path.join(_ROOT, "runtime", "__init__.py")):
    __path__.append(_ROOT)  # noqa: F821 - a package's own search path

# Where each public name lives. Each is imported when first read, so that a program loads only
# what it uses: one that plays a compiled rulebook never loads the parser or the compiler, and
# `rulecraft eval` neither the procedures nor the dice roller.
_HOMES = {
    "rulecraft.runtime.dice": ("Dice", "ScriptedDice", "SeededDice"),
    "rulecraft.runtime.limits": ("DEFAULT_LIMITS", "Limits"),
    "rulecraft.runtime.errors": ("CalculationError", "CycleError", "DiceError", "RangeError",
                                 "RulecraftError", "RulecraftErrors", "RuleSyntaxError",
                                 "RuleTypeError", "TableError", "UnknownEntryError",
                                 "UnknownNameError", "UnknownRulebookError"),
    "rulecraft.runtime.rulebook": ("Rulebook",),
    "rulecraft.runtime.rolls": ("Roll", "dice", "roll"),
    # the façade
    "rulecraft.api": ("builtin_rulebooks", "compile", "evaluate", "format_rules", "load", "sheet"),
    # one target under two rulebooks, a grid; the same of whole fights
    "rulecraft.balance": ("compare", "compare_fights", "sweep", "sweep_fights"),
    "rulecraft.fight": ("read_fighter",),  # a fighter from a TOML file, for `Rulebook.fight`
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

if TYPE_CHECKING:
    from rulecraft.api import builtin_rulebooks, compile, evaluate, format_rules, load, sheet
    from rulecraft.balance import compare, compare_fights, sweep, sweep_fights
    from rulecraft.fight import read_fighter
    from rulecraft.runtime.dice import Dice, ScriptedDice, SeededDice
    from rulecraft.runtime.errors import (CalculationError, CycleError, DiceError, RangeError,
                                          RulecraftError, RulecraftErrors, RuleSyntaxError,
                                          RuleTypeError, TableError, UnknownEntryError,
                                          UnknownNameError, UnknownRulebookError)
    from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
    from rulecraft.runtime.rolls import Roll, dice, roll
    from rulecraft.runtime.rulebook import Rulebook


def __getattr__(name: str) -> object:
    """A public name, from its module (imported now if it was not yet)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'rulecraft' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME])


__all__ = [
    "DEFAULT_LIMITS", "Limits",
    "CalculationError", "CycleError", "Dice", "DiceError", "RangeError", "RuleSyntaxError", "RuleTypeError",
    "Rulebook", "RulecraftError", "RulecraftErrors", "ScriptedDice", "SeededDice", "TableError",
    "UnknownEntryError", "UnknownNameError", "UnknownRulebookError", "builtin_rulebooks", "compile", "evaluate",
    "format_rules", "load", "read_fighter", "sheet", "Roll", "dice", "roll", "compare", "sweep",
    "compare_fights", "sweep_fights",
]
