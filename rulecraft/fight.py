"""Fighters from TOML files, for `rulecraft fight` and `rulecraft.read_fighter`."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence

from rulecraft.runtime.combatants import Combatant
from rulecraft.runtime.errors import RangeError, RulecraftError, UnknownRulebookError
from rulecraft.runtime.fights import Fight, encounters, fight
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.rulebook import Rulebook

from .api import read_bounded


def read_fighter(rulebook: Rulebook, path: str, model: str | None = None,
                 limits: Limits = DEFAULT_LIMITS) -> Combatant:
    """A combatant from a TOML file: its fields as the rulebook names them; `model = "horse"`
    picks a model other than the first. Errors name the file and the field."""
    try:
        data = tomllib.loads(read_bounded(path, limits.input_bytes, "input_bytes").decode())
    except (ValueError, UnicodeDecodeError) as err:  # TOMLDecodeError is a ValueError
        raise UnknownRulebookError(f"cannot read the fighter {path}: {err}") from None
    chosen = data.pop("model", model)
    models = rulebook.combatant_models
    if chosen is None:
        chosen = next(iter(models), None)
    if chosen not in models:
        raise RangeError(f"{path}: the rulebook {rulebook.name} has no combatant model "
                         f"{chosen!r} (it has: {', '.join(models) or 'none'})")
    try:
        return models[chosen].build(**data)
    except RulecraftError as err:
        problems = getattr(err, "errors", [err])
        raise RangeError("\n".join(f"{path}: {e.message}" for e in problems)) from None


def fighter_files(paths: Sequence[str]) -> list[str]:
    """Each path as given, refusing folders with a clear message."""
    for path in paths:
        if os.path.isdir(path):
            raise UnknownRulebookError(f"{path} is a folder; give the fighters' .toml files")
    return list(paths)


__all__ = ["Fight", "encounters", "fight", "fighter_files", "read_fighter"]
