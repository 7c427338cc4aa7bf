"""A short `for each` (`for each f in [first, second]`, run at every tick of a duel) pays its
passes before the first, in one step (runtime/context.py `_ahead`): the same passes counted
against `loop_passes` and the command's work as paying pass by pass, and a loop that would go
over is still refused at the pass that goes over, having played the passes before it."""

from __future__ import annotations

import pytest

import rulecraft

RULES = """rulebook loops "Short loops"

procedure p (n: 1..9):
  let total = 0
  for each i in [1, 2, 3]:
    let total = total + i
  for each i in [4, 5]:
    let total = total + i
  outcome done with (total = total)
"""
RB = rulecraft.compile(RULES, "loops.rules")


def test_short_loops_count_every_pass_against_loop_passes():
    # five passes in all: within five, and refused at the fifth when only four are allowed
    assert RB.procedures["p"].run(n=1, limits=rulecraft.Limits(loop_passes=5)).outcome[
        "total"] == 15
    with pytest.raises(rulecraft.RangeError, match="loop_passes"):
        RB.procedures["p"].run(n=1, limits=rulecraft.Limits(loop_passes=4))


def test_a_short_loop_that_would_go_over_is_refused_in_it():
    # Two passes allowed: the first loop (line 5) plays two passes, then is refused at the
    # third, as paying pass by pass does; not before it starts, nor in the second loop.
    with pytest.raises(rulecraft.RangeError, match="loop_passes") as info:
        RB.procedures["p"].run(n=1, limits=rulecraft.Limits(loop_passes=2))
    assert info.value.line == 5


def test_short_loops_spend_the_work_of_every_pass():
    # The work a run may spend is shared by its passes: a budget that pays for the first loop
    # but not the second is refused in the second (at line 7), not in the first.
    full = RB.procedures["p"]
    lines = []
    for work in range(1, 200):
        try:
            full.run(n=1, limits=rulecraft.Limits(work=work))
        except rulecraft.RangeError as err:
            lines.append(err.line)
        else:
            break
    assert lines and set(lines) <= {5, 7} and 7 in lines and lines == sorted(lines)
