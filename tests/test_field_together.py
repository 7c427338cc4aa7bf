"""Where issue 15's slices meet: small rule files that combine constructs built apart (units of
time with events and lanes, several `every` blocks with events at the same instants, triggers
in an encounter with sides, the referee inside events, …), each checked seeded, scripted, by
exact odds against a walk of every path, in the fight log, in `show`, in `fmt` and on a sheet."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.runtime.errors import RulecraftError


def everywhere(text: str, tmp_path: Any) -> tuple[rulecraft.Rulebook, str, str]:
    """The rule file compiled, formatted twice the same and compiled again, shown and printed
    on a sheet: (the rulebook, what `show` says, the sheet in markdown)."""
    rb = rulecraft.compile(text, "t.rules")
    formatted = rulecraft.format_rules(text)
    assert rulecraft.format_rules(formatted) == formatted
    rulecraft.compile(formatted, "t.rules")
    path = tmp_path / "t.rules"
    path.write_text(text, encoding="utf-8")
    shown = CliRunner().invoke(cli, ["show", str(path)])
    assert shown.exit_code == 0, shown.output
    return rb, shown.output, rulecraft.sheet(rb, format="md")


def agree(proc: rulecraft.Procedure, by: Any, **args: Any) -> dict[Any, Any]:
    """Exact odds by states, which must be those of walking every path."""
    odds = proc.odds(by=by, **args)
    assert odds == proc.path_odds(by=by, **args)
    return odds


# ---- units of time, labelled actions and lanes, events, several `every` blocks, afterwards ----
# Issue 15: "`act f after 2 seconds as "Walk" on lane move`"; "a missile in flight while its
# target moves"; "every duration may carry one [unit]".
MARCH = """rulebook march "A walk under arrows"
combatant fighter:
  name: name = "x"
  state pos: 0..20 = 0
  state hp: 0..10 = 2
  state tired: 0..50 = 0 clamped

encounter march (a: fighter, b: fighter):
  clock tenths "tenths of a second": second = 10
  act a after 2 seconds as "Walk" on lane move
  act b at 0 as "Shoot"
  turn f:
    if f == b:
      after 1 second as arrow:
        roll hit = d2
        if hit == 2:
          add -1 to a.hp
      act b after 1 second as "Shoot"
    else:
      add 1 to a.pos
      act a after 2 seconds as "Walk" on lane move
  every 1 second:
    add 1 to a.tired
  every 2 seconds after turns:
    add 1 to b.tired
  ends when a.hp == 0 or a.pos >= 2
  at most 30 turns
  afterwards:
    set b.pos = a.tired
"""


def test_an_event_s_time_carries_a_unit(tmp_path):
    # "every duration may carry one": the arrow flies for 1 second (10 tenths), as an action
    # takes 2 seconds.
    rb, shown, sheet = everywhere(MARCH, tmp_path)
    march = rb.procedures["march"]
    a, b = rb.combatant(name="A"), rb.combatant(name="B")
    r = march.run(a=a, b=b, dice=[2, 2])
    assert [e.value for e in r.trace if e.kind == "after"][:2] == [10, 20]
    assert r.outcome == "ended" and r.outcome["time"] == 20
    assert "after 1 second as arrow (line 14)" in shown
    assert "Event Arrow: after 1 second, with the values as they are now:" in sheet
    assert "after 1 second as arrow:" in rulecraft.format_rules(MARCH)
    assert "event arrow scheduled at 10 tenths" in rb.fight([a, b], dice=[2, 2]).log()
    seeded = march.run(a=a, b=b, seed=1)
    assert seeded.outcome == "ended"
    odds = agree(march, lambda r: (r.combatants["a"].hp, r.combatants["a"].tired), a=a, b=b)
    assert sum(odds.values()) == 1
    with pytest.raises(RulecraftError) as info:
        rulecraft.compile(MARCH.replace("after 1 second as", "after 1 parsec as"), "t.rules")
    assert (info.value.line, info.value.column) == (14, 15)
    assert "unknown unit of time of clock tenths 'parsec'" in str(info.value)


def test_every_tick_due_at_the_instant_a_fight_ends_still_comes():
    # The docs: "`ends when` is tested after a tick too, once nothing more is due at that
    # instant". At 2 seconds the second arrow ends the walk; B's fatigue, counted every 2
    # seconds after the turns, is due then too: it is counted before the fight ends.
    rb = rulecraft.compile(MARCH, "t.rules")
    march = rb.procedures["march"]
    r = march.run(a=rb.combatant(name="A"), b=rb.combatant(name="B"), dice=[2, 2])
    assert r.outcome["time"] == 20 and r.combatants["a"].hp == 0
    assert [e.value for e in r.trace if e.kind == "tick"] == [10, 10, 20]
    assert r.combatants["b"].tired == 1
    odds = agree(march, lambda r: r.combatants["b"].tired,
                 a=rb.combatant(name="A"), b=rb.combatant(name="B"))
    assert set(odds) == {1, 2}
