"""A lookup with given figures (`timings["SK", base_speed = b].time`, at every blow of a duel)
is remembered by the figures given (runtime/helpers.py `_given_field`): the same answers as
working the cell out each time, and a lookup missing a figure refused every time it is made."""

from __future__ import annotations

import pytest

import rulecraft

RB = rulecraft.compile('''rulebook lookups "Given lookups"

table timings "Timings" by code given walk, skill:
  | Code | Action     | Time          |
  | WB   | Walk Back  | = 2 * walk    |
  | MT   | Mount      | = 20 - skill  |
  | FA   | Fall       | 10            |

formula back(walk: number) "Walk back" = timings["WB", walk = walk].time
formula mount(skill: number) "Mount" = timings["MT", skill = skill].time
formula timed(code: name, walk: number) "Any time, walk given" = timings[code, walk = walk].time
''', "lookups.rules")


def test_a_remembered_lookup_gives_each_figure_its_own_answer():
    # "WB Walk Back = 2 * walk": asked again and again, each walk its own time
    for walk in (3, 4, 3, 6, 4):
        assert rulecraft.evaluate(RB, f"back({walk})") == 2 * walk
    assert rulecraft.evaluate(RB, "mount(12)") == 8 and rulecraft.evaluate(RB, "mount(2)") == 18


def test_figures_with_decimals_are_worked_out_as_given():
    # "WB = 2 * walk" with a walk of 1.25 is 2.5, remembered apart from a walk of 1 or 2
    assert rulecraft.evaluate(RB, "back(1)") == 2
    assert rulecraft.evaluate(RB, "back(1.25)") == 2.5
    assert rulecraft.evaluate(RB, "back(2)") == 4
    assert rulecraft.evaluate(RB, "back(1.25)") == 2.5


def test_a_lookup_missing_a_figure_is_refused_each_time():
    # "MT Mount = 20 - skill" needs skill; "WB" does not, and is remembered in between.
    for _ in range(2):
        with pytest.raises(rulecraft.RangeError, match="skill"):
            rulecraft.evaluate(RB, 'timed("MT", 3)')
        assert rulecraft.evaluate(RB, 'timed("WB", 3)') == 6
