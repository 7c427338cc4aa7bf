"""Combatants: characteristics and equipment given, figures derived, state changed by a fight."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from heapq import heappop, heappush
from operator import itemgetter
from typing import Any

import attrs

from .dice import Dice
from .errors import (ARITHMETIC, CalculationError, RangeError, RangeErrors, Span,
                     calculation_message)
from .values import NotARuleValue, display, match_name, to_internal, to_public


@attrs.frozen
class ValueType:
    """A declared type: what a parameter, characteristic or state field accepts."""

    kind: str  # "integer", "number", "enum", "name", "map", "list", "dice", "combatant", "bool",
    # "hex", "any"
    text: str  # as written in the rule file, for messages and sheets
    low: Any = None
    high: Any = None
    members: tuple[str, ...] | None = None
    key: ValueType | None = None
    item: ValueType | None = None

    def index_names(self) -> list[str]:
        """The key type names of nested maps (`map area -> list injury` gives ["area"])."""
        names: list[str] = []
        vt: ValueType | None = self
        while vt is not None and vt.kind == "map":
            assert vt.key is not None
            names.append(vt.key.text)
            vt = vt.item
        return names

    def describe(self) -> str:
        if self.kind in ("integer", "number") and self.low is not None:
            whole = "a whole number" if self.kind == "integer" else "a number"
            return f"{whole} from {display(self.low)} to {display(self.high)}"
        if self.members is not None:
            return "one of " + ", ".join(self.members)
        return f"a {self.text}"


@attrs.frozen
class Param:
    """A formula or procedure parameter: name, declared type (with its range) and where.
    Beside its type rather than in rulebook.py: generated code holds its parameters, and
    `rulecraft eval` runs that code without loading the rulebook's classes."""

    name: str
    type: ValueType
    span: Span | None = attrs.field(default=None, eq=False)
    default: Any = None
    has_default: bool = False


def check_value(name: str, vt: ValueType, value: Any, span: Span | None, source: str | None) -> Any:
    """Validate and convert a value handed in from Python against its declared type."""
    if type(value) is bool and vt.kind == "bool":  # most calls in a fight (`_check`): yes/no
        return value
    try:
        value = to_internal(value)
    except NotARuleValue as err:
        raise RangeError(f"{name} must be {vt.describe()}; {err}", span, source) from None
    except (RecursionError, TypeError):  # a self-containing list; an unhashable map key
        raise RangeError(f"{name} must be {vt.describe()}; the value given cannot be read",
                         span, source) from None
    kind = vt.kind
    ok = True
    if kind == "hex":  # a Hex, or a pair of whole numbers: `at = [2, -1]` in a fighter file
        from .space import as_hex

        found = as_hex(value)
        ok = found is not None
        value = found if found is not None else value
    elif kind == "integer":
        ok = type(value) is int and (vt.low is None or vt.low <= value <= vt.high)
    elif kind == "number":
        ok = type(value) is not bool and isinstance(value, (int, type(to_internal(0.5))))
        ok = ok and (vt.low is None or vt.low <= value <= vt.high)
    elif kind == "enum":
        ok = isinstance(value, str) and vt.members is not None and value in vt.members
        if not ok and vt.members and match_name(value, vt.members) is not None:
            return match_name(value, vt.members)
        if not ok and isinstance(value, str) and vt.members:
            import difflib  # only when a name is wrong

            close = difflib.get_close_matches(value, vt.members, n=1)
            if close:
                raise RangeError(
                    f"{name} must be {vt.describe()}; got {value!r} — did you mean {close[0]!r}?",
                    span,
                    source,
                )
    elif kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "name":
        ok = type(value) is str
    elif kind == "dice":
        ok = type(value) is int or isinstance(value, Dice)
    elif kind == "combatant":
        ok = isinstance(value, Combatant) and value.model.name == vt.text
    elif kind == "map":
        if not isinstance(value, Mapping):
            ok = False
        else:
            assert vt.key is not None and vt.item is not None
            return {
                check_value(f"{name} key", vt.key, k, span, source): check_value(
                    f"{name}[{k}]", vt.item, v, span, source
                )
                for k, v in value.items()
            }
    elif kind == "list":
        if type(value) is not tuple:
            ok = False
        else:
            assert vt.item is not None
            return tuple(check_value(f"{name} item", vt.item, v, span, source) for v in value)
    if not ok:
        got = _shown(value)
        if isinstance(value, str) and kind in ("integer", "number"):
            got = f"the text {value!r} (write numbers without quotes)"
            if value.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
                got = f"{value!r}, which is not a number a rule can use"
        raise RangeError(f"{name} must be {vt.describe()}; got {got}", span, source)
    return value


def _shown(value: Any) -> str:
    """A value handed in, as an error message shows it."""
    if type(value) is str:
        return repr(value)
    if type(value) is tuple:
        return f"the list [{display(value)}]"
    if type(value) is dict:
        return "a map"
    if value is None:
        return "none"
    return display(value)


def _freeze(values: dict[str, Any]) -> tuple[Any, ...]:
    """A hashable image of a combatant's given values (lists are already tuples)."""
    return tuple((k, _frozen(v)) if type(v) is dict else (k, v) for k, v in values.items())


def _frozen(value: dict[Any, Any]) -> tuple[Any, ...]:
    return tuple((k, _frozen(v)) if type(v) is dict else (k, v) for k, v in value.items())


@attrs.frozen
class Field:
    """One line of a combatant model: a characteristic, a derived figure or a state field."""

    name: str
    role: str  # "characteristic", "derived" or "state"
    type: ValueType | None
    text: str  # the declaration as written
    span: Span | None = attrs.field(default=None, eq=False)
    comments: tuple[str, ...] = ()
    default: Any = None
    has_default: bool = False
    combine: str | None = None  # the pair table that merges a state list's items
    clamped: bool = False  # `set`/`add` hold it to its range instead of refusing


_MISSING = object()
MEMO_SIZE = 4096  # a figure's remembered results, at most (then it starts again)


def _reader(reads: frozenset[str]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """The values of `reads`, in a fixed order, as a tuple (`itemgetter` gives a bare value
    for one name, nothing for none)."""
    names = sorted(reads)
    if len(names) > 1:
        return itemgetter(*names)
    if names:
        only = names[0]
        return lambda values: (values[only],)
    return lambda values: ()


@attrs.frozen
class Figure:
    """A derived figure's own generated function (`d_anti_parry(v)`) and the fields it reads
    (given or derived): when none of them changed, neither did it; when they hold values met
    before (by this combatant or another of the model), it is what it was then."""

    name: str
    fn: Callable[[dict[str, Any]], Any] = attrs.field(repr=False)
    reads: frozenset[str] = frozenset()
    _read: Callable[[dict[str, Any]], tuple[Any, ...]] = attrs.field(
        init=False, repr=False, eq=False, default=attrs.Factory(
            lambda self: _reader(self.reads), takes_self=True))
    _memo: dict[tuple[Any, ...], Any] = attrs.field(init=False, repr=False, eq=False,
                                                    factory=dict)

    def worked_out(self, values: dict[str, Any]) -> Any:
        """The figure for `values`, remembered by what it reads: a fight's fatigue goes up and
        down through a few dozen values, and its ~30 figures were worked out again each time.
        The key holds each value's type too (1, 1.0 and true are equal in Python, not in a
        rule's arithmetic); a map read (injuries) cannot be a key, and is worked out."""
        read = self._read(values)
        key = (*read, *map(type, read))
        memo = self._memo
        try:
            found = memo.get(key, _MISSING)
        except TypeError:  # unhashable: a map among the values read
            return self.fn(values)
        if found is _MISSING:
            found = self.fn(values)
            if len(memo) >= MEMO_SIZE:
                memo.clear()
            memo[key] = found
        return found


@attrs.define(eq=False)
class Downstream:
    """What a change of one field moves: the figures reading it directly (`direct`), and the
    figures downstream of those (`names`), which depend on nothing but the fields they read
    from outside themselves (`inputs`: the direct figures among them). What the downstream
    figures come to is remembered by what the inputs hold; a map among them is keyed by its
    frozen image."""

    direct: tuple[Figure, ...]  # in dependency order
    names: tuple[str, ...]  # sorted, as `results` gives their values
    inputs: tuple[str, ...]  # sorted, as `key` reads them
    maps: bool  # whether an input can hold a map
    memo: dict[tuple[Any, ...], tuple[Any, ...]] = attrs.field(factory=dict)
    _inputs: Callable[[dict[str, Any]], tuple[Any, ...]] = attrs.field(init=False)
    results: Callable[[dict[str, Any]], tuple[Any, ...]] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._inputs = _reader(frozenset(self.inputs))
        self.results = _reader(frozenset(self.names))

    @classmethod
    def of(cls, model: CombatantModel, changed: str) -> Downstream:
        direct = tuple(f for f in model.figures if changed in f.reads)
        names = model.moved_by((changed,)) - {changed} - {f.name for f in direct}
        reads = set().union(*(f.reads for f in model.figures if f.name in names))
        inputs = reads - names
        return cls(direct, tuple(sorted(names)), tuple(sorted(inputs)),
                   bool(inputs & set(model.listy_names)))

    def key(self, values: dict[str, Any]) -> tuple[Any, ...]:
        """What the inputs hold, with each value's type (1, 1.0 and true are equal in Python,
        not in a rule's arithmetic). A map is keyed by its frozen image; anything else that
        cannot be a key makes the memo refuse it (TypeError)."""
        held = self._inputs(values)
        if self.maps:
            held = tuple(_frozen(v) if type(v) is dict else v for v in held)
        return (*held, *map(type, held))


@attrs.define(eq=False)
class CombatantModel:
    """What a combatant of a rulebook is made of, and how its derived figures are computed."""

    name: str
    title: str
    fields: tuple[Field, ...]
    span: Span | None = None
    comments: tuple[str, ...] = ()
    source: str | None = attrs.field(default=None, repr=False)
    derive: Callable[[dict[str, Any]], None] = attrs.field(default=None, repr=False)
    combiners: Mapping[str, Callable[..., Any]] = attrs.field(factory=dict, repr=False)
    figures: tuple[Figure, ...] = attrs.field(default=(), repr=False)  # in dependency order
    _read_by: dict[str, tuple[int, ...]] | None = attrs.field(default=None, repr=False,
                                                              init=False)
    _downstream: dict[str, Downstream] = attrs.field(factory=dict, repr=False, init=False)
    _cache: dict[Any, Combatant] = attrs.field(factory=dict, repr=False, init=False)
    _given: tuple[str, ...] | None = attrs.field(default=None, repr=False, init=False)
    _by_name: dict[str, Field] | None = attrs.field(default=None, repr=False, init=False)
    _given_at: dict[str, int] | None = attrs.field(default=None, repr=False, init=False)
    _listy: tuple[str, ...] | None = attrs.field(default=None, repr=False, init=False)
    _states: tuple[str, ...] | None = attrs.field(default=None, repr=False, init=False)

    def field(self, name: str) -> Field:
        if self._by_name is None:
            self._by_name = {f.name: f for f in self.fields}
        return self._by_name[name]

    def given_at(self, name: str) -> int:
        """Where a characteristic or state field stands among `given_names` (and in a frozen
        image of them)."""
        if self._given_at is None:
            self._given_at = {n: i for i, n in enumerate(self.given_names)}
        return self._given_at[name]

    @property
    def given_names(self) -> tuple[str, ...]:
        """Characteristics and state: what a combatant is made from (the rest is derived)."""
        if self._given is None:
            self._given = tuple(f.name for f in self.fields if f.role != "derived")
        return self._given

    @property
    def state_names(self) -> tuple[str, ...]:
        """The state fields: what a fight changes."""
        if self._states is None:
            self._states = tuple(f.name for f in self.fields if f.role == "state")
        return self._states

    def moved_by(self, fields: Iterable[str]) -> set[str]:
        """`fields` and every derived figure downstream of them: what a change of them may
        move (the figures are in dependency order, a reader after what it reads)."""
        moved = set(fields)
        for figure in self.figures:
            if figure.reads & moved:
                moved.add(figure.name)
        return moved

    @property
    def listy_names(self) -> tuple[str, ...]:
        """The given fields that can hold a list or map: only they can be `bulky` (a whole
        number or a name never is), so only they are looked at before a state is remembered."""
        if self._listy is None:
            self._listy = tuple(f.name for f in self.fields if f.role != "derived" and (
                f.type is None or f.type.kind in ("map", "list", "any")))
        return self._listy

    def _combined(self, f: Field, value: Any, given: dict[str, Any]) -> Any:
        """A state list as it stands once its items are combined ("two Bruises ... a L Wound")."""
        names = f.type.index_names() if f.type is not None else []
        if len(given) < len(names):
            name = names[len(given)]
            return {k: self._combined(f, v, {**given, name: k}) for k, v in value.items()}
        return self.combiners[f.combine](value, given) if f.combine else value

    def derived(self, values: dict[str, Any], key: tuple[Any, ...] | None = None,
                changed: str | None = None) -> dict[str, Any]:
        """`values` with the derived figures added; remembered, as fights revisit states
        (`key`: their frozen image, when the caller has it already). `changed`: `values` are
        another state's, figures and all, with that one field replaced; only the figures
        downstream of it are worked out again, and a figure that comes out as it was stops
        the change there (a point of fatigue below the limit moves no penalty)."""
        if key is None:
            key = _freeze(values)
        found = self._cache.get(key)
        if found is None:
            found = self._worked_out(values, key, changed)
        return found._values

    def _worked_out(self, values: dict[str, Any], key: tuple[Any, ...],
                    changed: str | None = None, own: bool = False) -> Combatant:
        """The state `derived` finds once `key` is known not to be remembered (`changed` has
        looked), remembered as a combatant: one met again by another path of changes finds
        the changes already made from it (`Combatant._next`). `own`: `values` is the caller's
        fresh copy, filled in place instead of copied again."""
        cached = values if own else dict(values)
        try:
            if changed is None or not self.figures:
                self.derive(cached)
            else:
                self._rederive(cached, changed)
        except ARITHMETIC as err:
            raise CalculationError(f"{calculation_message(err)} in a derived figure of this "
                                   f"{self.name}", self.span, self.source) from None
        state = Combatant(self, cached)
        state._key = key
        if not any(bulky(cached[n]) for n in self.listy_names):  # what the key holds
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[key] = state
        return state

    def _rederive(self, values: dict[str, Any], changed: str) -> None:
        """The figures downstream of `changed`, worked out again. Those reading it directly
        are worked out (or found remembered: `Figure.worked_out`); the rest depend on nothing
        but the fields they read from outside themselves (`Downstream`), and when those hold
        values met before, they are what they came to then, set in one go. A fight's fatigue
        moves a dozen figures through the few values its penalties take, and its injuries
        through the few sums of their effects, under every mix of the two."""
        plan = self._downstream.get(changed)
        if plan is None:
            plan = self._downstream[changed] = Downstream.of(self, changed)
        moved = False
        for figure in plan.direct:
            old, new = values[figure.name], figure.worked_out(values)
            if type(new) is not type(old) or new != old:
                values[figure.name] = new
                moved = True
        if not moved or not plan.names:  # a figure that comes out as it was passes nothing on
            return
        key: tuple[Any, ...] | None = plan.key(values)
        try:
            found = plan.memo.get(key, _MISSING)
        except TypeError:  # a value that cannot be a key: worked out, not remembered
            key, found = None, _MISSING
        if found is not _MISSING:
            values.update(zip(plan.names, found))
            return
        readers = self._readers()
        self._propagate(values, sorted({at for figure in plan.direct
                                        for at in readers.get(figure.name, ())}))
        if key is not None:
            if len(plan.memo) >= MEMO_SIZE:
                plan.memo.clear()
            plan.memo[key] = plan.results(values)

    def _propagate(self, values: dict[str, Any], due: list[int]) -> None:
        """The figures at `due` (places in `figures`, a heap) worked out again in dependency
        order, each passing a change on to its readers only when it came out different."""
        figures, readers = self.figures, self._readers()
        while due:
            figure = figures[heappop(due)]
            old, new = values[figure.name], figure.worked_out(values)
            if type(new) is not type(old) or new != old:
                values[figure.name] = new
                for at in readers.get(figure.name, ()):
                    if at not in due:
                        heappush(due, at)

    def _readers(self) -> dict[str, tuple[int, ...]]:
        """For each field, where the figures reading it directly stand in `figures`."""
        if self._read_by is None:
            found: dict[str, list[int]] = {}
            for at, figure in enumerate(self.figures):
                for name in figure.reads:
                    found.setdefault(name, []).append(at)
            self._read_by = {name: tuple(ats) for name, ats in found.items()}
        return self._read_by

    def build(self, /, **given: Any) -> Combatant:
        """Validate the given characteristics and state, then compute every derived figure."""
        values: dict[str, Any] = {}
        problems: list[RangeError] = []  # every one, so a sheet is fixed in one go
        known = {f.name for f in self.fields if f.role != "derived"}
        for extra in given:
            if extra not in known:
                import difflib  # only when a name is wrong

                close = difflib.get_close_matches(extra, sorted(known), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                problems.append(_about(extra, RangeError(
                    f"a {self.name} has no characteristic or state called {extra!r}{hint}",
                    self.span, self.source)))
        for f in self.fields:
            if f.role == "derived":
                continue
            try:
                # A field declared `= none` takes none back (a fighter copied for `--runs`).
                if f.name in given and not (given[f.name] is None and f.has_default
                                            and f.default is None):
                    assert f.type is not None
                    values[f.name] = check_value(f.name, f.type, given[f.name], f.span,
                                                 self.source)
                    if f.combine is not None:
                        values[f.name] = self._combined(f, values[f.name], {})
                elif f.has_default:
                    values[f.name] = f.default
                else:
                    described = f.type.describe() if f.type else ""
                    raise RangeError(f"a {self.name} needs {f.name} ({described})", f.span,
                                     self.source)
            except RangeError as err:
                problems.append(_about(f.name, err))
        if problems:
            raise problems[0] if len(problems) == 1 else RangeErrors(problems)
        return Combatant(self, self.derived(values))


def _about(name: str, err: RangeError) -> RangeError:
    """The error, marked with the field it is about (a fighter file's line is found by it)."""
    err.field = name  # type: ignore[attr-defined]
    return err


REMEMBERED = 64  # a state holding a longer list or map is not remembered as a change's result


def bulky(value: Any) -> bool:
    """Whether a state value is too long to remember as the result of a change: each state
    remembers the next, so a run growing a list step by step would keep every size of it."""
    return type(value) in (tuple, dict) and len(value) > REMEMBERED


class Combatant:
    """One combatant: read figures as attributes (`fighter.anti_parry`) or items."""

    __slots__ = ("model", "_values", "_next", "_key")

    def __init__(self, model: CombatantModel, values: dict[str, Any]) -> None:
        self.model = model
        self._values = values
        self._next: dict[tuple[str, Any], Combatant] = {}  # changed() results, by change
        # The frozen image of its given values (the model's key for its derived figures),
        # once worked out: the next state's is this one with one entry replaced.
        self._key: tuple[Any, ...] | None = None

    def __getattr__(self, name: str) -> Any:
        try:
            return to_public(self._values[name])
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name: str) -> Any:
        return to_public(self._values[name])

    def as_dict(self) -> dict[str, Any]:
        """Every characteristic, derived figure and state value, as plain Python values."""
        return {k: to_public(v) for k, v in self._values.items()}

    def changed(self, name: str, value: Any) -> Combatant:
        """A copy with one state field replaced and the derived figures recomputed."""
        key = (name, _frozen(value) if type(value) is dict else value)
        found = self._next.get(key)
        if found is None:
            model = self.model
            image = self._key
            if image is None:
                image = self._key = _freeze({n: self._values[n] for n in model.given_names})
            at = model.given_at(name)
            image = image[:at] + (key,) + image[at + 1:]
            found = model._cache.get(image)
            if found is None:
                values = dict(self._values)  # its figures too: those downstream are redone
                values[name] = value
                found = model._worked_out(values, image, changed=name, own=True)
            if not bulky(value):
                if len(self._next) > 256:
                    self._next.clear()
                self._next[key] = found
        return found

    def handle(self) -> Combatant:
        """A copy for one run to change in place (`become`); this combatant stays as it is."""
        copy = object.__new__(Combatant)  # one per party per run: no `__init__`, no empty memo
        copy.model, copy._values = self.model, self._values
        copy._next = self._next  # the same state: the same memo of changes from it
        copy._key = self._key
        return copy

    def become(self, other: Combatant) -> None:
        """Take another state of the same combatant (a run's `set`/`add` on its handle)."""
        self._values = other._values
        self._next = other._next
        self._key = other._key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Combatant) and other._values == self._values

    def __hash__(self) -> int:
        return hash(tuple(sorted((k, repr(v)) for k, v in self._values.items())))

    def __repr__(self) -> str:
        given = [f.name for f in self.model.fields if f.role == "characteristic"]
        # Dice as a rule writes them (`damage=d6`), the rest as Python would.
        inner = ", ".join(f"{n}={self._values[n]}" if type(self._values[n]).__name__ == "Dice"
                          else f"{n}={self._values[n]!r}" for n in given)
        return f"{self.model.name}({inner})"
