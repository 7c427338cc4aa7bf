"""rulecraft: tabletop combat rules as data — load a rulebook, play its tables and procedures."""

from __future__ import annotations

from pathlib import Path as _Path

# Run from a checkout's root (where the README leaves a new user), this folder shadows the
# installed package, and the stage folders beside it (dsl/, compiler/, runtime/, rulebooks/) are
# its subpackages: look for them there, as an editable install would.
_ROOT = _Path(__file__).resolve().parent.parent
if (_ROOT / "pyproject.toml").is_file() and (_ROOT / "runtime" / "__init__.py").is_file():
    __path__.append(str(_ROOT))  # noqa: F821 - a package's own search path

from rulecraft.runtime.dice import Dice, ScriptedDice, SeededDice
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.errors import (CalculationError, CycleError, DiceError, RangeError,
                                      RulecraftError, RulecraftErrors, RuleSyntaxError,
                                      RuleTypeError, TableError, UnknownEntryError,
                                      UnknownNameError, UnknownRulebookError)
from rulecraft.runtime.rulebook import Rulebook
from rulecraft.runtime.rolls import Roll, dice, roll

_FACADE = ("builtin_rulebooks", "compile", "evaluate", "format_rules", "load", "sheet")


def __getattr__(name: str) -> object:
    """The façade's functions, imported when first used: a program that only plays a compiled
    rulebook (rulecraft.runtime) never loads the parser or the compiler."""
    if name in _FACADE:
        from . import api

        return getattr(api, name)
    if name in ("compare", "sweep"):  # balance views: one target under two rulebooks, a grid
        from . import balance

        return getattr(balance, name)
    if name == "read_fighter":  # a fighter from a TOML file, for `Rulebook.fight`
        from .fight import read_fighter

        return read_fighter
    raise AttributeError(f"module 'rulecraft' has no attribute {name!r}")

__all__ = [
    "DEFAULT_LIMITS", "Limits",
    "CalculationError", "CycleError", "Dice", "DiceError", "RangeError", "RuleSyntaxError", "RuleTypeError",
    "Rulebook", "RulecraftError", "RulecraftErrors", "ScriptedDice", "SeededDice", "TableError",
    "UnknownEntryError", "UnknownNameError", "UnknownRulebookError", "builtin_rulebooks", "compile", "evaluate",
    "format_rules", "load", "read_fighter", "sheet", "Roll", "dice", "roll", "compare", "sweep",
]
