"""`x == none` and `x != none` ask whether a value is none: written as Python's `is None`, which
a number answers at once (a Decimal asked `!= None` first looks through Python's number classes:
Ringing Steel's `parries_with` asks it of a weapon's `ds` at every blow). Issue 19, per-step costs.
"""

from __future__ import annotations

import rulecraft

RULES = '''rulebook n "None"
table weapons by weapon:
  | Weapon | Type | DS  |
  | Sword  | Cut  | 2.8 |
  | Net    | Cut  |     |
formula parries(weapon: weapon) = weapon.ds != none
formula blank(weapon: weapon) = none == weapon.ds
'''


def test_comparing_with_none_asks_whether_it_is_none() -> None:
    rb = rulecraft.compile(RULES, "n.rules")
    assert "is not None" in rb.python_source and "!= None" not in rb.python_source
    assert rb.formulas["parries"](weapon="Sword") is True
    assert rb.formulas["parries"](weapon="Net") is False
    assert rb.formulas["blank"](weapon="Net") is True
    assert rb.formulas["blank"](weapon="Sword") is False
