"""Triggers (issue 15, item 6): `on EVENT by p:` rules that fire on another party's event —
a blocking attack when an opponent enters a blocked position, a reaction when an event is seen
— with built-in events (a state changed or entered, a condition given) and events a step
raises; a triggered party may choose and act out of its turn; chains are bounded."""

from __future__ import annotations

from fractions import Fraction

import pytest

import rulecraft
from rulecraft.runtime import fight_odds

# Issue 15: "a blocking attack that fires when a fighter enters a blocked hex". The position
# is a number until the hex type lands (the state `at`, so `on entered` reads it).
BLOCK = """rulebook block "A blocked hex"
combatant fighter:
  name: name = "x"
  blocks: 0..20 = 0
  state at: 0..20 = 0
  state hp: 0..10 = 1

procedure strike(attacker: fighter, target: fighter):
  roll blow = d6
  if blow >= 4:
    add -1 to target.hp
    outcome hit
  outcome missed

encounter run_past (runner: fighter, guard: fighter):
  clock tenths "tenths of a second"
  # "A blocking attack is made when an opponent enters a hex the fighter blocks."
  on entered by mover:
    for each g in [runner, guard]:
      if g != mover and mover.at == g.blocks and g.hp > 0:
        call block = strike(g, mover)
  act runner at 0 as "Walk"
  turn f:
    add 1 to f.at
    act f after 2 as "Walk"
  ends when runner.at >= 4 or runner.hp == 0
  at most 20 turns
"""


def block():
    rb = rulecraft.compile(BLOCK, "block.rules")
    return rb, rb.combatant(name="Runner"), rb.combatant(name="Guard", blocks=2, at=3)


def test_a_blocking_attack_fires_when_a_fighter_enters_a_blocked_position():
    rb, runner, guard = block()
    # The runner enters 1 (nothing), then 2, the hex the guard blocks: the guard strikes at
    # once, out of turn, at the same tenth; the die (5) hits and the runner is down.
    result = rb.procedures["run_past"].run(runner=runner, guard=guard, dice=[5])
    calls = [(e.name, e.value) for e in result.trace if e.kind == "return"]
    assert calls == [("block", "hit")]
    assert result.outcome.name == "ended" and result.outcome["time"] == 2
    assert result.combatants["runner"].hp == 0
    fired = [(str(e.detail), e.value) for e in result.trace if e.kind == "trigger"]
    assert fired[1][0] == "fires at 2 tenths"


def test_a_missed_blocking_attack_lets_the_runner_through():
    rb, runner, guard = block()
    result = rb.procedures["run_past"].run(runner=runner, guard=guard, dice=[1])
    assert result.combatants["runner"].at == 4 and result.combatants["runner"].hp == 1


def test_the_fight_log_shows_the_rule_firing():
    rb, runner, guard = block()
    log = rb.fight([runner, guard], dice=[5]).log()
    assert "on entered by runner fires at 2 tenths" in log
    assert "block = strike: hit | dice: blow 5" in log


def test_exact_odds_of_the_blocking_attack():
    rb, runner, guard = block()
    fight_odds.TALLY = {}
    try:
        odds = rb.procedures["run_past"].odds(runner=runner, guard=guard)
        assert fight_odds.TALLY["states"] > 0
    finally:
        fight_odds.TALLY = None
    assert odds == {"ended": 1}
    # "blow >= 4" on a d6: the runner is down half the time
    down = rb.procedures["run_past"].odds(by=lambda r: r.combatants["runner"].hp,
                                          runner=runner, guard=guard)
    assert down == {0: Fraction(1, 2), 1: Fraction(1, 2)}


# "a reaction when an event is seen": the blow raises "Parried"; the defender may riposte, a
# choice of his own made out of his turn.
RIPOSTE = """rulebook riposte "Riposte"
combatant fighter:
  name: name = "x"
  state hp: 0..10 = 3
  state stunned: bool = false

procedure attack(attacker: fighter, defender: fighter, riposte: bool = false):
  roll attack_roll = d6
  if attack_roll <= 2:
    if not riposte:
      raise "Parried" for defender
    outcome parried
  add -1 to defender.hp
  outcome hit

encounter duel (a: fighter, b: fighter):
  clock tenths "tenths"
  on "Parried" by p:
    let foe = if p == a then b else a
    choose riposte by p from [true, false] default true
    if riposte:
      call back = attack(p, foe, true)
  on given "Stunned" by p:
    set p.stunned = true
  act a at 0
  turn f:
    let foe = if f == a then b else a
    call blow = attack(f, foe)
    if blow == "hit":
      give foe "Stunned" for 1
    act f after 5
  ends when a.hp == 0 or b.hp == 0
  at most 3 turns
"""


def test_a_raised_event_lets_the_other_party_choose_and_act_out_of_turn():
    rb = rulecraft.compile(RIPOSTE, "riposte.rules")
    a, b = rb.combatant(name="A"), rb.combatant(name="B")
    # A attacks (1: parried); B ripostes at once (6: hit A).
    result = rb.procedures["duel"].run(a=a, b=b, dice=[1, 6, 6, 6], riposte=[True])
    calls = [(e.name, e.value) for e in result.trace if e.kind == "return"]
    assert calls[:2] == [("blow", "parried"), ("back", "hit")]
    assert [e.detail for e in result.trace if e.kind == "raise"] == ["for defender"]
    declined = rb.procedures["duel"].run(a=a, b=b, dice=[1, 6, 6], riposte=[False])
    assert [e.name for e in declined.trace if e.kind == "return"][:2] == ["blow", "blow"]


def test_a_rule_fires_when_a_condition_is_given():
    rb = rulecraft.compile(RIPOSTE, "riposte.rules")
    result = rb.procedures["duel"].run(a=rb.combatant(name="A"), b=rb.combatant(name="B"),
                                       dice=[6, 6, 6])
    assert result.combatants["b"].stunned is True


def test_exact_odds_when_a_call_raises_an_event_walk_the_paths():
    rb = rulecraft.compile(RIPOSTE.replace("at most 3 turns", "at most 2 turns"), "r.rules")
    a, b = rb.combatant(name="A"), rb.combatant(name="B")
    odds = rb.procedures["duel"].odds(a=a, b=b)
    assert odds == rb.procedures["duel"].path_odds(a=a, b=b) and sum(odds.values()) == 1


CHAIN = BLOCK.replace("""  act runner at 0 as "Walk"
""", """  on changed hp by p:
    if p.hp < 10:
      add 1 to p.hp
  act runner at 0 as "Walk"
""").replace("state hp: 0..10 = 1", "state hp: 0..100 = 1")


def test_a_chain_of_rules_firing_each_other_is_bounded_and_names_the_limit():
    rb = rulecraft.compile(CHAIN, "chain.rules")
    runner, guard = rb.combatant(name="R"), rb.combatant(name="G", blocks=2, at=3)
    with pytest.raises(rulecraft.RulecraftError, match="limit trigger_chain"):
        rb.procedures["run_past"].run(runner=runner, guard=guard, dice=[5],
                                      limits=rulecraft.Limits(trigger_chain=5))
    ran = rb.procedures["run_past"].run(runner=runner, guard=guard, dice=[5])
    assert ran.combatants["runner"].hp == 10


@pytest.mark.parametrize("old, new, line, column, words", [
    ("on entered by mover:", "on changed place by mover:", 18, 3,
     "unknown state (`on changed FIELD` names a state of the combatants) 'place'"),
    ('on "Parried" by p:', 'on "Parryed" by p:', 18, 3,
     "unknown event (no step raises it"),
    ('raise "Parried" for defender', 'raise "Parried" for nobody', 11, 7, "unknown party"),
    ("    act f after 5\n", "    act f after 5\n    on given \"Stunned\" by q:\n"
     "      set q.stunned = true\n", 32, 5, "before its loop"),
])
def test_trigger_mistakes_are_errors_at_their_line_and_column(old, new, line, column, words):
    base = BLOCK if "entered" in old else RIPOSTE
    text = base.replace(old, new, 1)
    assert text != base
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile(text, "t.rules")
    errors = getattr(info.value, "errors", [info.value])
    found = [e for e in errors if words in str(e)]
    assert found, str(info.value)
    assert (found[0].line, found[0].column) == (line, column), str(found[0])


def test_triggers_format_and_read_in_words_on_the_sheet():
    text = rulecraft.format_rules(RIPOSTE)
    assert 'on "Parried" by p:' in text and 'on given "Stunned" by p:' in text
    assert 'raise "Parried" for defender' in text
    assert rulecraft.format_rules(text) == text
    assert "on entered by mover:" in rulecraft.format_rules(BLOCK)
    sheet = rulecraft.sheet(rulecraft.compile(BLOCK, "b.rules"), format="md")
    assert "Whenever Mover enters a hex, at once (out of turn):" in sheet


RIPOSTES = '''rulebook chain "A parry answered, now and then, by another"

combatant fighter:
  state parries: 0..1000 = 0

encounter bout "A bout" (a: fighter, b: fighter):
  clock tenths "tenths"
  on "Parried" by p:
    roll riposte = d6
    add 1 to p.parries
    if riposte == 6:
      raise "Parried" for p
  act a at 0
  turn f:
    raise "Parried" for f
    stop f
  ends when a.parries > 999
  at most 3 turns
'''


def test_a_chain_of_rules_long_only_on_unlikely_dice_refuses_exact_odds_offering_samples():
    """Exact odds walk every path of the dice, the one of twenty-one sixes in a row too: past
    `trigger_chain` they are refused with `--samples` offered (as past their own limits), while
    a run, or a sample of runs, meets such a chain only as often as the dice make it."""
    rb = rulecraft.compile(RIPOSTES, filename="chain.rules")
    a, b = rb.combatant(), rb.combatant()
    with pytest.raises(rulecraft.RulecraftError) as caught:
        rb.procedures["bout"].odds(a=a, b=b)
    text = str(caught.value)
    assert "chain.rules:12:7" in text and "trigger_chain" in text and "--samples" in text
    assert rb.procedures["bout"].sample(50, seed=1, a=a, b=b)["idle"].count == 50
