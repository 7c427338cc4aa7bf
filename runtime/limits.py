"""The limits a rule file or a caller can run into, with their defaults in one place.

Rule files and combatant files are untrusted input (shared on forums, loaded into bots): every
piece of work they can ask for is bounded here, and every error that a limit stops names the
limit and how to raise it (`--limit NAME=VALUE` on the command line, `Limits(NAME=VALUE)` from
Python).
"""

from __future__ import annotations

from typing import Any

import attrs

from .errors import RangeError


def _positive(instance: Any, attribute: attrs.Attribute[int], value: int) -> None:
    if type(value) is not int or value < 1:
        raise RangeError(f"limit {attribute.name} must be a whole number of 1 or more, "
                         f"not {value!r}")


@attrs.frozen(cache_hash=True)
class Limits:
    """Caps that keep reading a rule file, rolling or enumerating from running away."""

    # -- reading a rule file ---------------------------------------------------------------
    source_bytes: int = attrs.field(default=1_000_000, validator=_positive)  # 28x Ringing Steel; 1 MB of formulas compiles in ~15 s
    number_digits: int = attrs.field(default=60, validator=_positive)  # digits in one number
    nesting_depth: int = attrs.field(default=50, validator=_positive)  # if blocks count; Python breaks at ~100
    table_rows: int = attrs.field(default=10_000, validator=_positive)  # rows of one table
    table_cells: int = attrs.field(default=200_000, validator=_positive)  # cells of one table
    key_span: int = attrs.field(default=1_000_000, validator=_positive)  # values of one range key
    extends_depth: int = attrs.field(default=8, validator=_positive)  # bases under a house file
    extends_bytes: int = attrs.field(default=1_000_000, validator=_positive)  # a chain, all files
    # -- rolling -----------------------------------------------------------------------------
    dice_per_roll: int = attrs.field(default=1000, validator=_positive)
    sides_per_die: int = attrs.field(default=10_000, validator=_positive)
    # -- playing -----------------------------------------------------------------------------
    loop_passes: int = attrs.field(default=100_000, validator=_positive)  # for/repeat, one run
    list_items: int = attrs.field(default=10_000, validator=_positive)  # a list a rule joins
    # items gone over in one evaluation, by aggregates however nested (formulas they call
    # too): five passes over the largest range; a shipped rule goes over at most 32
    aggregate_items: int = attrs.field(default=5_000_000, validator=_positive)
    # one command's work (a run, odds, a sheet, a sweep; each fight of `fight --runs`): every
    # loop pass, procedure call, aggregate item and reference cell draws from it
    # (runtime/work.py); a unit is about an aggregate's item (~0.3 µs), so the default is about
    # two seconds; a Ringing Steel duel takes about 20,000
    work: int = attrs.field(default=6_000_000, validator=_positive)
    # rules firing on events (`on EVENT by p:`) that fire each other in a row, as calls nest
    trigger_chain: int = attrs.field(default=20, validator=_positive)
    # a run's trace keeps its newest entries within this, a list held counting its items
    trace_entries: int = attrs.field(default=200_000, validator=_positive)
    # -- exact odds --------------------------------------------------------------------------
    enumeration_paths: int = attrs.field(default=500_000, validator=_positive)  # path walk
    odds_states: int = attrs.field(default=100_000, validator=_positive)  # distinct states
    enumeration_work: int = attrs.field(default=5_000_000, validator=_positive)  # steps, all paths or states
    keep_drop_outcomes: int = attrs.field(default=200_000, validator=_positive)
    distribution_work: int = attrs.field(default=5_000_000, validator=_positive)  # one roll's
    # -- what a caller hands in --------------------------------------------------------------
    input_bytes: int = attrs.field(default=1_000_000, validator=_positive)  # a combatant file
    input_depth: int = attrs.field(default=20, validator=_positive)  # nesting of given values
    # -- what a command writes ---------------------------------------------------------------
    output_bytes: int = attrs.field(default=20_000_000, validator=_positive)  # a sheet, a log

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(a.name for a in attrs.fields(cls))

    def raised(self, **changes: int) -> Limits:
        """These limits with some set anew (`--limit enumeration_paths=2000000`)."""
        for name in changes:
            if name not in self.names():
                raise RangeError(f"there is no limit called {name!r}; the limits are "
                                 f"{', '.join(self.names())}")
        return attrs.evolve(self, **changes)

    @staticmethod
    def hint(name: str) -> str:
        """How to raise a limit, for the end of the error it stopped."""
        return (f"(limit {name}; raise it with --limit {name}=N on the command line, "
                f"or Limits({name}=N) from Python)")


DEFAULT_LIMITS = Limits()
