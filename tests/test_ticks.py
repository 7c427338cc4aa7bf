"""Ticks of the clock (issue 15, item 6): several `every` blocks in one encounter, each in a
unit of the clock; the order of things at one instant (`every … after turns:`); `ends when`
tested after a tick; `afterwards:` steps once the loop has ended."""

from __future__ import annotations

import pytest

import rulecraft
from rulecraft.runtime.errors import RulecraftError

# BT chapter 3: "the bleeding person loses 1 HTK ever minute unless the wound is bound. The
# effect is cumulative: so someone hit three times with a minor would be losing 3 HTK every
# minute." Fatigue counted every 20 counts beside it: two `every` blocks on one clock of counts.
BT = """rulebook bt_ticks "BT: bleeding beside fatigue"

combatant fighter:
  name: name
  counts_per_blow: 1..600 = 100
  state htk: 0..40 = 10
  state bleeding: 0..10 = 0
  state fatigue: 0..100 = 0 clamped

procedure slice(attacker: fighter, defender: fighter):
  roll cut = d6
  if cut >= 4:
    # "The minor side effect of slicing is bleeding."
    add 1 to defender.bleeding
    outcome bleeding
  outcome missed

encounter fight "A fight on the count" (a: fighter, b: fighter):
  clock counts "counts": minute = 240
  act a after a.counts_per_blow
  act b after b.counts_per_blow
  turn f:
    let foe = if f == a then b else a
    call blow = slice(f, foe)
    act f after f.counts_per_blow
  every 1 minute:
    for each p in [a, b]:
      set p.htk = max(0, p.htk - p.bleeding)
  every 20 counts after turns:
    for each p in [a, b]:
      add 1 to p.fatigue
  ends when a.htk == 0 or b.htk == 0
  at most 40 turns
"""


@pytest.fixture(scope="module")
def bt() -> rulecraft.Rulebook:
    return rulecraft.compile(BT, "bt_ticks.rules")


def _timeline(result: rulecraft.Result) -> list[tuple[str, object]]:
    """What happens, in order: ticks by their period, turns by the party's name."""
    seen = []
    for e in result.trace:
        if e.kind == "tick":
            seen.append(("tick", e.value))
        elif e.kind == "turn" and e.depth == 0:
            seen.append(("turn", e.value["name"]))
    return seen


def test_two_every_blocks_tick_each_on_its_own_period(bt):
    fight = bt.procedures["fight"]
    a = bt.combatant(name="Alf", counts_per_blow=120, htk=10)
    b = bt.combatant(name="Bo", counts_per_blow=120, htk=10)
    # Every blow misses: four blows, then the fight is capped at 4 turns.
    r = fight.run(a=a, b=b, dice=[1, 1, 1, 1], time_limit=240)
    line = _timeline(r)
    # "every 1 minute" is every 240 counts; fatigue every 20 counts.
    assert line.count(("tick", 240)) == 1 and line.count(("tick", 20)) == 12
    # At 240 the minute's tick comes before the turns due then (the default), the 20 counts'
    # tick after them (`after turns`).
    at_240 = line[line.index(("tick", 240)):]
    assert at_240 == [("tick", 240), ("turn", "Alf"), ("turn", "Bo"), ("tick", 20)]
    assert r.combatants["a"].fatigue == 12 and r.outcome == "capped"


def test_bleeding_per_minute_is_cumulative(bt):
    fight = bt.procedures["fight"]
    a = bt.combatant(name="Alf", counts_per_blow=120, htk=10)
    b = bt.combatant(name="Bo", counts_per_blow=120, htk=10)
    # Alf cuts Bo twice (at 120 and 240), Bo misses: Bo bleeds 1 at the first minute (the
    # cut at 240 comes after the minute's tick), 2 at the second.
    r = fight.run(a=a, b=b, dice=[6, 1, 6, 1, 1, 1, 1, 1], time_limit=480)
    assert r.combatants["b"].htk == 10 - 1 - 2
    assert r.combatants["a"].htk == 10


def test_ends_when_is_tested_after_a_tick(bt):
    # Bo, at 1 HTK and bleeding, dies on the minute's tick at 240, when nobody's blow is due
    # (blows at 100, 200, 300): the fight ends there, no turn after it — once the fatigue of
    # that count (every 20 counts, also due at 240) is counted.
    fight = bt.procedures["fight"]
    a = bt.combatant(name="Alf", counts_per_blow=100, htk=10)
    b = bt.combatant(name="Bo", counts_per_blow=100, htk=1, bleeding=1)
    r = fight.run(a=a, b=b, dice=[1, 1, 1, 1])
    assert r.outcome == "ended" and r.outcome["time"] == 240 and r.outcome["turns"] == 4
    assert _timeline(r)[-2:] == [("tick", 240), ("tick", 20)]
    assert r.combatants["a"].fatigue == 12
    assert r.combatants["b"].htk == 0


def test_ends_when_after_a_tick_waits_for_turns_due_at_the_same_time(bt):
    # Blows at 120 and 240: Bo bleeds to death on the minute's tick at 240, but the turns due
    # at 240 still come (all that happens at one instant happens before the fight ends).
    fight = bt.procedures["fight"]
    a = bt.combatant(name="Alf", counts_per_blow=120, htk=10)
    b = bt.combatant(name="Bo", counts_per_blow=120, htk=1, bleeding=1)
    r = fight.run(a=a, b=b, dice=[1, 1, 1, 1])
    assert r.outcome == "ended" and r.outcome["time"] == 240 and r.outcome["turns"] == 4


def test_exact_odds_of_two_every_blocks_agree_with_the_path_walk(bt):
    fight = bt.procedures["fight"]
    a = bt.combatant(name="Alf", counts_per_blow=120, htk=1)
    b = bt.combatant(name="Bo", counts_per_blow=180, htk=2)
    args = dict(a=a, b=b, time_limit=300)  # three blows: 216 paths to walk
    odds = fight.odds(**args)
    assert odds == fight.path_odds(**args)
    assert sum(odds.values()) == 1 and set(odds) == {"ended", "capped"}


def test_ticks_show_in_the_fight_log_and_on_the_sheet(bt):
    done = bt.fight([bt.combatant(name="Alf", counts_per_blow=120),
                     bt.combatant(name="Bo", counts_per_blow=120)], seed=3, until=240)
    log = done.log()
    assert "the clock ticks (every 240)" in log and "the clock ticks (every 20)" in log
    steps = bt.procedures["fight"].steps
    heads = [head for st in steps for head, _ in st.blocks]
    assert "every 1 minute" in heads and "every 20 counts after turns" in heads
    sheet = rulecraft.sheet(bt, format="md")
    assert "Every 1 minute:" in sheet and "Every 20 counts, after the turns due then:" in sheet


def test_several_every_blocks_on_a_round_clock_before_and_after_the_turns():
    rules = """rulebook d20r "d20: rounds"
combatant fighter:
  state hp: 0..20 = 10
  state minutes: 0..5 = 0
encounter fight "A fight" (a: fighter):
  clock rounds "rounds": minute = 10
  each round:
    set a.hp = min(20, a.hp + 1)
  every 2 rounds before turns:
    set a.hp = max(0, a.hp - 3)
  every 1 minute:
    add 1 to a.minutes
  ends when a.hp == 0
  at most 12 rounds
"""
    rb = rulecraft.compile(rules, "r.rules")
    r = rb.procedures["fight"].run(a=rb.combatant())
    values = [e.value for e in r.trace if e.kind == "change" and e.name == "a.hp"]
    # Round 1: healed to 11; round 2: poison at its start (8), then healed (9); …
    assert values[:6] == [11, 8, 9, 10, 7, 8]
    assert r.outcome == "capped" and r.combatants["a"].minutes == 1  # a minute: 10 rounds
    # A tick at a round's start that ends the fight ends it there: round 2 is not played.
    r = rb.procedures["fight"].run(a=rb.combatant(hp=2))
    assert r.outcome == "ended" and r.outcome["rounds"] == 2 and r.combatants["a"].hp == 0
    assert [e.value for e in r.trace if e.kind == "change"] == [3, 0]


# ---- afterwards: steps after the loop (end-of-combat checks) --------------------------------
# d20 modern: "An Encounter is a complete combat encounter, which is considered ended when
# there is 1 turn of rest following it." BT's bleeding goes on after the fight: ten minutes
# until the wound is bound.
AFTER = """rulebook after "Afterwards"
combatant fighter:
  state htk: 0..40 = 10
  state bleeding: 0..10 = 0
encounter fight "A fight" (a: fighter):
  clock counts "counts": minute = 240
  act a at 0
  turn f:
    add 1 to f.bleeding
    act f after 1 minute
  ends when f.bleeding == 3
  at most 5 turns
  afterwards:
    if ending == "ended":
      set a.htk = max(0, a.htk - 10 * a.bleeding)
    if a.htk == 0:
      outcome bled_out with time = now
"""


def test_afterwards_runs_once_the_loop_has_ended_and_reads_how():
    rb = rulecraft.compile(AFTER, "after.rules")
    fight = rb.procedures["fight"]
    r = fight.run(a=rb.combatant(htk=40))
    assert r.outcome == "ended" and r.combatants["a"].htk == 10
    assert r.outcome["time"] == 480
    r = fight.run(a=rb.combatant(htk=30))  # ten minutes at 3 HTK a minute: bled out
    assert r.outcome == "bled_out" and r.outcome["time"] == 480
    r = fight.run(a=rb.combatant(htk=40), time_limit=300)  # capped: no bleeding counted
    assert r.outcome == "capped" and r.combatants["a"].htk == 40
    assert fight.odds(a=rb.combatant(htk=30)) == {"bled_out": 1}
    assert ("afterwards" in [h for st in fight.steps for h, _ in st.blocks])
    assert "Once the fight has ended:" in rulecraft.sheet(rb, format="md")


def test_the_formatter_prints_ticks_and_afterwards_back():
    for text in (BT, AFTER):
        formatted = rulecraft.format_rules(text)
        assert rulecraft.format_rules(formatted) == formatted
        assert "every 20 counts after turns:" in formatted or "afterwards:" in formatted


def test_every_in_a_unit_the_clock_lacks_is_an_error_at_the_unit():
    bad = BT.replace("every 1 minute:", "every 1 minit:")
    with pytest.raises(RulecraftError) as info:
        rulecraft.compile(bad, "bad.rules")
    err = info.value
    assert (err.line, err.column) == (26, 11)
    assert "unknown unit of time of clock counts 'minit'; did you mean 'minute'?" in str(err)
    assert str(err).splitlines()[-1].strip() == "^^^^^"  # the caret under the unit
