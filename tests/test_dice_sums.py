"""Independent dice summed in one procedure, exactly and as a convolution (issue 19: "10
independent d10 summed exactly: within 2× icepool").

`roll a = d10 … roll e = d10 … total = a + b + …`: each roll is added to a running sum as it
is rolled (compiler/sums.py), and where the roll's own total is read no more the exact odds
spread the sum's totals alone (runtime/exact.py, `Exit.onto`): a state per total of the sum,
not per pair of the sum and the last roll. Shown by the segments played (never by timing) and
pinned against the dice's own distribution and the path walk.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from fractions import Fraction

import pytest

import rulecraft
from rulecraft.runtime import exact
from rulecraft.runtime.dice import Dice, DiceTerm
from rulecraft.runtime.limits import Limits

HEAD = 'rulebook sample "Sample"\n'


def procedure(body: str, params: str = "") -> rulecraft.runtime.procedures.Procedure:
    rb = rulecraft.compile(HEAD + f'procedure p "P" ({params}):\n' + body, filename="s.rules")
    return rb.procedures["p"]


def summed(n: int, sides: int = 10) -> rulecraft.runtime.procedures.Procedure:
    names = [f"r{i}" for i in range(1, n + 1)]
    return procedure("".join(f"  roll {name} = d{sides}\n" for name in names) +
                     f"  outcome done with (total = {' + '.join(names)})\n")


@pytest.fixture
def played(monkeypatch):
    count: Counter[str] = Counter()
    monkeypatch.setattr(exact, "TALLY", count)
    return count


def test_ten_d10_rolled_one_by_one_are_the_distribution_of_10d10(played):
    """"10 independent d10 summed exactly": the odds of 10d10, each total once."""
    odds = summed(10).odds(by="total")
    assert odds == Dice((DiceTerm(10, 10),)).odds()
    assert len(odds) == 91 and sum(odds.values()) == 1


def test_a_roll_added_to_a_running_sum_makes_a_state_per_total_of_the_sum(played):
    """The work is a convolution: after k d10 the sum has 9k + 1 totals, and a state is
    played per total of the sum before each roll and at the outcome (1 + 10 + 19 + … + 91
    for ten d10), not per (sum, roll) pair (ten times as many)."""
    p = summed(10)
    p.odds(by="total")
    assert played["p"] == sum(9 * k + 1 for k in range(11))
    played.clear()
    p.odds()  # by outcome: nothing is read, one state all the way
    assert played["p"] <= 11


def test_odds_by_a_roll_added_to_a_sum_still_tell_its_totals_apart():
    """A roll added to a sum is still a value of its own: odds by it read it."""
    p = summed(3, 6)
    assert p.odds(by="r2") == {n: Fraction(1, 6) for n in range(1, 7)}
    assert p.odds(by="r2") == p.path_odds(by="r2")
    assert p.odds(by="total") == p.path_odds(by="total")


@pytest.mark.parametrize("body", [
    # dice of several terms and a constant, a number added, a difference (not rolled onto)
    "  roll a = d6\n  roll b = 2d4 + 1\n  outcome done with (total = a + b + 3)\n",
    "  roll a = d6\n  roll b = d8\n  outcome done with (total = a - b)\n",
    "  roll a = d6 + 0.5\n  roll b = d4\n  outcome done with (total = a + b)\n",
    "  roll a = d6\n  roll b = d8\n  outcome done with (total = 2 * a + b)\n",
    # a floor on a roll moves with the sum; a roll read again keeps its own state
    "  roll a = max(1, d6 - 2)\n  roll b = d4\n  outcome done with (total = a + b)\n",
    "  roll a = d6\n  roll b = d4\n  if a >= 5:\n    outcome high with (total = a + b)\n"
    "  outcome low with (total = a + b)\n",
    # a roll only one branch makes, and sums in two places
    "  roll a = d6\n  if a >= 4:\n    roll b = d6\n    outcome two with (total = a + b)\n"
    "  roll c = d4\n  outcome one with (total = c + 1, other = c + a)\n",
    "  roll a = d4\n  roll b = d4\n  roll c = d4\n"
    "  outcome done with (first = a + b, second = b + c)\n",
])
def test_sums_of_rolls_are_the_path_walk_s(body):
    p = procedure(body)
    for by in ("outcome", "total", "first", "second", "other"):
        try:
            walked = p.path_odds(by=by)
        except rulecraft.RulecraftError:
            continue
        assert p.odds(by=by) == walked, by


def test_a_sum_rolled_inside_a_call_is_the_path_walk_s():
    """The callee's sum is convolved as it is worked out for its caller; a call whose outcome
    nothing reads plays one path of it, the sum added there too."""
    rb = rulecraft.compile(HEAD + 'procedure five "Five" ():\n' +
                           "".join(f"  roll r{i} = d6\n" for i in range(5)) +
                           "  outcome done with (total = r0 + r1 + r2 + r3 + r4)\n"
                           'procedure caller "Caller" ():\n'
                           "  call s = five()\n"
                           "  roll bonus = d4\n"
                           "  outcome done with (total = s.total + bonus)\n"
                           'procedure glance "Glance" ():\n'
                           "  call s = five()\n"
                           "  outcome done\n", filename="s.rules")
    caller = rb.procedures["caller"]
    assert caller.odds(by="total") == caller.path_odds(by="total")
    assert caller.odds(by="total") == Dice((DiceTerm(5, 6), DiceTerm(1, 4))).odds()
    assert rb.procedures["glance"].odds() == {"done": 1}


def test_a_sum_past_the_digits_a_number_may_have_is_refused_where_it_is_rolled():
    """The running sum is checked as the `let` it stands for was: within `number_digits`."""
    p = procedure("  roll a = d6\n  roll b = d6\n  outcome done with (total = a + b + big)\n",
                  "big: integer")
    big = 10**59
    assert p.odds(by="total", big=big) == p.path_odds(by="total", big=big)
    near = procedure("  roll a = dice(1, 6) + big\n  roll b = d6\n"
                     "  outcome done with (total = a + b)\n", "big: integer")
    with pytest.raises(rulecraft.RulecraftError, match="60 digits"):
        near.odds(by="total", big=10**60 - 5)
    # ... the digits the rule was compiled with, as the run form's sum checks them.
    assert near.odds(by="total", big=990, limits=Limits(number_digits=3)) == \
        near.path_odds(by="total", big=990, limits=Limits(number_digits=3))


def test_a_roll_shifted_by_a_sum_keeps_its_ways_and_moves_its_totals():
    counts = Dice((DiceTerm(2, 6),)).counts()
    moved = counts.shifted(10)
    assert moved.totals == tuple(t + 10 for t in counts.totals)
    assert (moved.counts, moved.ways) == (counts.counts, counts.ways)
    assert counts.shifted(10) is moved  # made once per amount
    assert [str(t) for t in counts.shifted(Decimal("0.50")).totals][:2] == ["2.50", "3.50"]
    assert counts.shifted(Decimal("0.5")).totals[0] == Decimal("2.5")
    assert str(counts.shifted(Decimal("0.5")).totals[0]) == "2.5"
