"""A changed state is remembered (the model's cache, the memo of changes) unless it holds a long
list or map ("a run growing a list step by step would keep every size of it"). Only the fields
that can hold a list or map are looked at for that (issue 19, "Fights per second": the look at
every given field was a tenth of a state change's cost); what is remembered is unchanged."""

from __future__ import annotations

import rulecraft
from rulecraft.runtime.combatants import MEMO_SIZE, REMEMBERED, Figure

RULES = """rulebook t "T"

combatant c:
  strength: 1..20
  state marks: list integer = []
  state tally: map integer -> integer
  state fatigue: integer = 0
  derived load = strength + fatigue + len(marks)
"""


def model_and_fighter() -> tuple[rulecraft.Combatant, object]:
    rb = rulecraft.compile(RULES, "remember.rules")
    fighter = rb.combatant(strength=3, tally={})
    return fighter, fighter.model


def test_only_list_and_map_fields_are_looked_at() -> None:
    _, model = model_and_fighter()
    assert model.listy_names == ("marks", "tally")


def test_a_short_change_is_remembered_and_a_long_list_is_not() -> None:
    fighter, model = model_and_fighter()
    model._cache.clear()
    tired = fighter.changed("fatigue", 2)
    assert tired.load == 5 and len(model._cache) == 1
    assert fighter.changed("fatigue", 2) is tired  # the memo of changes
    long = tuple(range(REMEMBERED + 1))
    marked = tired.changed("marks", long)
    assert marked.load == 5 + REMEMBERED + 1
    assert len(model._cache) == 1  # not kept: it holds a long list
    assert tired.changed("marks", long) is not marked
    tallied = tired.changed("tally", {i: i for i in range(REMEMBERED + 1)})
    assert tallied.load == 5 and len(model._cache) == 1
    short = tired.changed("marks", (1, 2))
    assert short.load == 7 and len(model._cache) == 2


def test_a_figure_is_remembered_by_the_values_it_reads_and_their_types() -> None:
    """"a fight's fatigue goes up and down through a few dozen values, and its ~30 figures were
    worked out again each time": a figure met with the same values read is not worked out
    again; 1, 1.0 and true are equal in Python but not the same value to a rule."""
    calls: list[object] = []

    def kind(values: dict) -> str:
        calls.append(values["x"])
        return type(values["x"]).__name__ + str(values["y"])

    figure = Figure("kind", kind, frozenset({"x", "y"}))
    assert figure.worked_out({"x": 1, "y": 2, "z": 0}) == "int2"
    assert figure.worked_out({"x": 1, "y": 2, "z": 5}) == "int2"  # z is not read
    assert figure.worked_out({"x": True, "y": 2}) == "bool2"
    assert figure.worked_out({"x": 1.0, "y": 2}) == "float2"
    assert figure.worked_out({"x": 1, "y": 3}) == "int3"
    assert calls == [1, True, 1.0, 1]
    assert figure.worked_out({"x": {"Arm": ("Bruise",)}, "y": 2}) == "dict2"  # a map: no key
    assert figure.worked_out({"x": {"Arm": ("Bruise",)}, "y": 2}) == "dict2"
    assert len(calls) == 6


def test_a_figure_reading_one_field_or_none_is_remembered_too() -> None:
    calls: list[int] = []
    one = Figure("double", lambda v: calls.append(1) or v["x"] * 2, frozenset({"x"}))
    assert one.worked_out({"x": 4}) == 8 and one.worked_out({"x": 4}) == 8
    none = Figure("seven", lambda v: calls.append(1) or 7)
    assert none.worked_out({}) == 7 and none.worked_out({"x": 1}) == 7
    assert calls == [1, 1]


def test_a_figures_memory_is_bounded() -> None:
    figure = Figure("same", lambda v: v["x"], frozenset({"x"}))
    for x in range(MEMO_SIZE * 2 + 5):
        assert figure.worked_out({"x": x}) == x
    assert len(figure._memo) <= MEMO_SIZE


def test_a_yes_no_value_is_checked_as_before() -> None:
    """The check of a yes/no argument (most of a fight's `check_value` calls) answers as the
    full check does: true and false pass, 1 and "yes" do not."""
    import pytest

    from rulecraft.runtime.combatants import ValueType, check_value
    from rulecraft.runtime.errors import RangeError

    yes_no = ValueType("bool", "bool")
    assert check_value("winded", yes_no, True, None, None) is True
    assert check_value("winded", yes_no, False, None, None) is False
    for wrong in (1, 0, "yes", None):
        with pytest.raises(RangeError, match="winded must be"):
            check_value("winded", yes_no, wrong, None, None)


def test_a_state_met_again_by_another_path_is_the_same_state() -> None:
    # A fight's fatigue goes up a point at each blow and down at each twentieth tenth: the
    # state it comes back to is the one it was, with the changes already made from it, so
    # the next blow's point is found, not worked out (nor the state's image hashed) again.
    fighter, _ = model_and_fighter()
    tired = fighter.changed("fatigue", 1)
    rested = tired.changed("fatigue", 0)
    assert rested.changed("fatigue", 1) is tired
    assert rested.changed("fatigue", 1).changed("fatigue", 0) is rested
    assert rested.load == fighter.load and tired.load == fighter.load + 1


def test_two_fighters_built_alike_stay_two() -> None:
    # A mirror match (a swordsman against a swordsman): built from the same sheet, they share
    # their states' figures but are two fighters, each with its own handle in a run.
    fighter, model = model_and_fighter()
    twin = model.build(strength=3, tally={})
    assert twin is not fighter and twin == fighter and twin._values is fighter._values
