"""A changed state is remembered (the model's cache, the memo of changes) unless it holds a long
list or map ("a run growing a list step by step would keep every size of it"). Only the fields
that can hold a list or map are looked at for that (issue 19, "Fights per second": the look at
every given field was a tenth of a state change's cost); what is remembered is unchanged."""

from __future__ import annotations

import rulecraft
from rulecraft.runtime.combatants import REMEMBERED

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
