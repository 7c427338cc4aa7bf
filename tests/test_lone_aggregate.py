"""An expression going over one collection needs no budget gathering its aggregates: its items
are the whole of it (issue 19, "the engine's own per-step cost ... comes down"). Ringing Steel's
duel asks `count(i == "S Wound" for i in flatten(foe.injuries))` at every blow, and each time
made a closure to open a budget for it.

What must not move: "every aggregate and list made item by item spends one budget of items per
evaluation (`aggregate_items`)" (tests/test_hardening_budget.py) — the same items are spent, and
the same evaluations are refused, with or without the gathering.
"""

from __future__ import annotations

import pytest

import rulecraft

HEAD = 'rulebook lone "Lone"\n'
SMALL = rulecraft.Limits(aggregate_items=1000)


def compiled(text: str) -> rulecraft.Rulebook:
    return rulecraft.compile(HEAD + text, "lone.rules", SMALL)


def refused(rb: rulecraft.Rulebook, **given: object) -> bool:
    try:
        rb.formulas["f"](**given)
    except rulecraft.RangeError as err:
        assert "aggregate_items" in err.message and err.line == 2
        return True
    return False


def test_a_lone_aggregate_is_worked_out_without_gathering_its_budget() -> None:
    rb = compiled("formula f(m: map integer -> list integer) = "
                  "count(i == 7 for i in flatten(m))\n")
    assert "_evaluation" not in rb.python_source
    assert "_flattened(" in rb.python_source  # the list is made once, spent by the aggregate
    assert rb.formulas["f"](m={1: (7, 7, 1), 2: (7,)}) == 3


@pytest.mark.parametrize("items, stopped", [(500, False), (501, True)])
def test_flatten_gone_over_spends_its_items_twice_as_before(items: int, stopped: bool) -> None:
    """Flattening spends each item and going over it spends it again: 2 × 500 fit in 1,000."""
    rb = compiled("formula f(m: map integer -> list integer) = "
                  "count(i == 7 for i in flatten(m))\n")
    assert refused(rb, m={1: tuple(range(items))}) is stopped


@pytest.mark.parametrize("n, stopped", [(500, False), (501, True)])
def test_two_aggregates_in_a_row_still_share_one_budget(n: int, stopped: bool) -> None:
    rb = compiled("formula f(n: integer) = sum(x for x in 1..n) + sum(y for y in 1..n)\n")
    assert "_evaluation" in rb.python_source
    assert refused(rb, n=n) is stopped


@pytest.mark.parametrize("n, stopped", [(500, False), (501, True)])
def test_an_aggregate_beside_a_list_looked_through_still_shares_it(n: int, stopped: bool) -> None:
    rb = compiled("formula f(n: integer, l: list integer) = "
                  "sum(x for x in 1..n) + (if 3 in l then 1 else 0)\n")
    assert "_evaluation" in rb.python_source
    assert refused(rb, n=n, l=tuple(range(500))) is stopped
