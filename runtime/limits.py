"""The limits a rule file or a caller can run into, with their defaults in one place."""

from __future__ import annotations

import attrs


@attrs.frozen
class Limits:
    """Caps that keep a roll or an enumeration from running away; errors name the limit."""

    dice_per_roll: int = 1000
    sides_per_die: int = 10_000
    enumeration_paths: int = 500_000
    keep_drop_outcomes: int = 200_000
    distribution_work: int = 5_000_000  # steps to work out one roll's exact distribution


DEFAULT_LIMITS = Limits()
