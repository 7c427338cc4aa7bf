"""A compiled rulebook: its enums, tables, formulas, procedures and combatant model."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .combatants import Combatant, CombatantModel, Param
from .errors import RangeError, Span, UnknownEntryError
from .tables import Table

if TYPE_CHECKING:  # named in annotations only: loading this module loads neither
    from .procedures import Procedure
    from .references import Reference
    from .space import Pattern, Unit


@attrs.define(eq=False)
class Formula:
    """A compiled formula; call it with keyword (or positional) arguments."""

    name: str
    title: str
    params: tuple[Param, ...]
    body: str  # the expression as written in the rule file
    span: Span | None = None
    comments: tuple[str, ...] = ()
    source: str | None = attrs.field(default=None, repr=False)
    fn: Callable[..., Any] = attrs.field(default=None, repr=False)  # checks, converts, computes
    inner: Callable[..., Any] = attrs.field(default=None, repr=False)  # exact values in and out
    where: tuple[tuple[str, str], ...] = ()  # its local names and their expressions, as written

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        """Check the arguments against their declared ranges and compute (plain values out).

        `compiled` below replaces this with the generated function itself, one frame less."""
        return self.fn(*args, **kwargs)

    @classmethod
    def compiled(cls, fn: Callable[..., Any], **fields: Any) -> Formula:
        """A Formula whose calls go straight to its generated function."""
        kind = type(f"Formula_{fields['name']}", (cls,), {"__call__": staticmethod(fn),
                                                         "__slots__": ()})
        return kind(fn=fn, **fields)

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(f'{p.name}: {p.type.text}' for p in self.params)})"


@attrs.frozen
class Origin:
    """Where a rule of a house rulebook comes from: `changed` (replaced or amended), `added`
    or `removed` by the house file (at `span`), the base's own rule at `base`."""

    status: str  # "changed", "added", "removed"
    span: Span | None
    base: Span | None = None


@attrs.frozen
class Enum:
    """A closed vocabulary, in its declared order (the order `max` and `<` use)."""

    name: str
    title: str
    members: tuple[str, ...]
    span: Span | None = attrs.field(default=None, eq=False)
    comments: tuple[str, ...] = ()


@attrs.frozen
class Answer:
    """One choice a policy answers, and the rule text of its answer."""

    choice: str
    text: str
    comments: tuple[str, ...] = ()


@attrs.frozen
class Policy:
    """A named way of making the fighters' choices (`--policy NAME`): what it answers, as
    written, for `show` and the sheets."""

    name: str
    title: str
    answers: tuple[Answer, ...]
    span: Span | None = attrs.field(default=None, eq=False)
    comments: tuple[str, ...] = ()


class NameMap(dict):  # type: ignore[type-arg]
    """Tables, formulas or procedures by name; the printed title finds them too."""

    def __missing__(self, key: str) -> Any:
        wanted = "_".join(str(key).lower().replace("-", " ").split())
        for name, item in self.items():
            title = "_".join(str(getattr(item, "title", "")).lower().replace("-", " ").split())
            if wanted in (name, title):
                return item
        import difflib  # only when a name is wrong

        close = difflib.get_close_matches(str(key), list(self), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UnknownEntryError(f"there is no {key!r} here (there are: {', '.join(self)}){hint}")


@attrs.define(eq=False)
class Rulebook:
    """Everything a rule file defines, ready to play and to render."""

    name: str
    title: str
    meta: Mapping[str, str]
    enums: Mapping[str, Enum]
    tables: Mapping[str, Table] = attrs.field(converter=NameMap)
    formulas: Mapping[str, Formula] = attrs.field(converter=NameMap)
    procedures: Mapping[str, Procedure] = attrs.field(converter=NameMap)
    combatant_model: CombatantModel | None
    filename: str
    source: str = attrs.field(repr=False)
    comments: tuple[str, ...] = ()
    python_source: str = attrs.field(default="", repr=False)
    # Every combatant model by name, the first one (`combatant_model`) included: a rider's
    # horse is `rb.combatant_models["horse"].build(...)`.
    combatant_models: Mapping[str, CombatantModel] = attrs.field(factory=dict, repr=False)
    # A house rulebook: the base it extends (compiled), and each rule the house file changed,
    # added or removed, by name (a rule not named here is the base's as it is).
    base: Rulebook | None = attrs.field(default=None, repr=False)
    origins: Mapping[str, Origin] = attrs.field(factory=dict, repr=False)
    # The quick-reference tables it declares for its sheets, worked out when a sheet asks.
    references: Mapping[str, Reference] = attrs.field(factory=dict, repr=False)
    # Standing constraints on choices (runtime.knowledge.StandingRule), in the order written.
    standing: tuple[Any, ...] = attrs.field(default=(), repr=False)
    # Space (runtime/space.py): its diagrams of hexes and the units it measures distance in.
    patterns: Mapping[str, Pattern] = attrs.field(factory=dict, repr=False)
    units: Mapping[str, Unit] = attrs.field(factory=dict, repr=False)
    # The policies that make the fighters' choices, in the order written.
    policies: Mapping[str, Policy] = attrs.field(factory=dict, repr=False)
    # Its worked examples (runtime/examples.py), a base's first: `rulecraft test` runs them.
    examples: tuple[Any, ...] = attrs.field(default=(), repr=False)
    # What its cheat sheet and screen show, by kind ("cheat", "screen"): runtime/sheet_plan.py.
    sheet_plans: Mapping[str, Any] = attrs.field(factory=dict, repr=False)

    def fight(self, /, fighters: Any, encounter: str | None = None, seed: int | None = None,
              runs: int | None = None, **options: Any) -> Any:
        """Play an encounter of this rulebook (its first, unless named) with `fighters` (a list,
        or side by side: `[[a, b], [c]]`, `{"heroes": [a, b], "foes": [c]}`): the event log,
        each fighter's final state and the side that won (`runtime.fights.Fight`). `runs=N`:
        N fights played without a trace, summed up (`rulecraft.fight.Study`: outcomes, who
        stands, mean length and state; `workers=` as `rulecraft fight --runs` takes it)."""
        if runs is not None:
            from rulecraft.fight import study  # many fights: the façade spreads them

            return study(self, fighters, runs, seed=seed, encounter=encounter, **options)
        from .fights import fight  # the fight runner needs the procedures this module defines

        return fight(self, fighters, encounter=encounter, seed=seed, **options)

    def combatant(self, /, **given: Any) -> Combatant:
        """A combatant of this rulebook from its characteristics, equipment and (optional) state
        (of its first combatant model; `combatant_models[name].build(...)` for another)."""
        if self.combatant_model is None:
            raise RangeError(f"rulebook {self.name} declares no combatant")
        return self.combatant_model.build(**given)
