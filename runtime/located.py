"""Conditions held at a location: BT's shock "makes that body part useless", so a fighter
may be in Shock on the Head and not on the Arm (`give f "Shock" on "Head" for 1 minute`,
`has(f, "Shock", on="Head")`). A condition at a location is kept among the party's other
conditions under a key of its own, so the fight's state (runtime/fight_states.py) tells
locations apart with nothing added; `has(f, "Shock")` asks whether it is held anywhere.
"""

from __future__ import annotations

from typing import Any


class Located(str):
    """A condition at one location, shown as the book says it: "Shock on Head"."""

    condition: Any
    location: Any

    def __new__(cls, condition: Any, location: Any) -> Located:
        made = super().__new__(cls, f"{condition} on {location}")
        made.condition, made.location = condition, location
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return Located, (self.condition, self.location)


def anywhere(held: dict[Any, Any], condition: Any) -> Any:
    """Until when a condition is held at any location (the longest; None: until ended), or
    False when it is held at none."""
    found: Any = False
    for key, until in held.items():
        if type(key) is Located and key.condition == condition:
            if until is None:
                return None
            found = until if found is False else max(found, until)
    return found


def located(held: dict[Any, Any], condition: Any) -> list[Located]:
    """The keys of a condition held at some location (`end f "Shock"` ends them all)."""
    return [key for key in held if type(key) is Located and key.condition == condition]


__all__ = ["Located", "anywhere", "located"]
