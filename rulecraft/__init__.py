"""rulecraft: tabletop combat rules as data — load a rulebook, play its tables and procedures."""

from __future__ import annotations

from rulecraft.runtime.dice import Dice, ScriptedDice, SeededDice
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.errors import (CalculationError, CycleError, DiceError, RangeError,
                                      RulecraftError, RulecraftErrors, RuleSyntaxError,
                                      RuleTypeError, TableError, UnknownEntryError,
                                      UnknownNameError, UnknownRulebookError)
from rulecraft.runtime.rulebook import Rulebook

from .api import builtin_rulebooks, compile, evaluate, format_rules, load

__all__ = [
    "DEFAULT_LIMITS", "Limits",
    "CalculationError", "CycleError", "Dice", "DiceError", "RangeError", "RuleSyntaxError", "RuleTypeError",
    "Rulebook", "RulecraftError", "RulecraftErrors", "ScriptedDice", "SeededDice", "TableError",
    "UnknownEntryError", "UnknownNameError", "UnknownRulebookError", "builtin_rulebooks", "compile", "evaluate",
    "format_rules", "load",
]
