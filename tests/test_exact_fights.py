"""Exact odds of whole fights (issue 9): an encounter's runs merged at the head of each pass of
its loop, then played on one pass at a time (runtime/fight_odds.py).

Issue 9: "Exact odds that grow with the number of distinct states, not the number of dice
paths: merge paths that reach the same point of a procedure with the same values and state ...
Loops and whole fights with small state (a duel to the end between two fighters with a few hit
points each) get exact odds too."

Each fight is pinned against the path walk (`path_odds`) where that can be walked, against
seeded fights (`sample`) where it cannot, and by counting the states and runs played, never by
timing anything.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

import rulecraft
from rulecraft import Limits
from rulecraft.runtime import fight_odds
from rulecraft.runtime.exact import TooLarge

from test_encounters import BT_COUNTS, D20, DUEL, ROUNDS, RQ3_SR, STUN

# The duel to the end, saying who won: the blow that empties a stamina ends it.
WON = DUEL.replace("    set foe.stamina = foe.stamina - hit\n",
                   "    set foe.stamina = foe.stamina - hit\n"
                   "    if foe.stamina == 0:\n"
                   "      outcome won with (winner = f.name)\n")

# Blows that wind a fighter, and breath got back on the clock: an `every` tick that rolls,
# run inside a pass before the turn due at its time.
WINDED = DUEL.replace("  ends when", "  every 7 tenths:\n"
                                     "    for each f in [a, b]:\n"
                                     "      if f.stamina < 4:\n"
                                     "        roll breath = d2\n"
                                     "        set f.stamina = f.stamina + breath - 1\n"
                                     "  ends when").replace("at most 100 turns", "at most 5 turns")

# Initiative rolled before the loop (the dice a state's runs replay as they fell), and values
# of its own that the loop reads (`lead`) or does not (`a_init`, `b_init`: merged over).
INITIATIVE = DUEL.replace("  act a at 0\n  act b at 0\n",
                          "  roll a_init = d6\n"
                          "  roll b_init = d6\n"
                          "  let lead = if a_init >= b_init then a else b\n"
                          "  act a at (if lead == a then 0 else 3)\n"
                          "  act b at (if lead == b then 0 else 3)\n"
                          ).replace("    delay foe by 2\n",
                                    "    delay foe by (if f == lead then 2 else 1)\n")


@pytest.fixture
def tally(monkeypatch):
    """The states made, the states played (`expanded`), the runs and steps, the calls worked
    out, of every fight's exact odds."""
    counted: dict[str, int] = {}
    monkeypatch.setattr(fight_odds, "TALLY", counted)
    return counted


def duel(text: str = DUEL, stamina: int = 10, **more):
    rb = rulecraft.compile(text, "duel.rules")
    return rb.procedures["duel"], dict(a=rb.combatant(name="Ann", speed=10, stamina=stamina),
                                       b=rb.combatant(name="Bob", speed=12, stamina=stamina),
                                       **more)


def agree(procedure, bys, **args):
    """The odds by states and by paths, the same for each question; one of them."""
    for by in bys:
        odds = procedure.odds(by=by, **args)
        assert odds == procedure.path_odds(by=by, **args), by
        assert sum(odds.values()) == 1
    return odds


# ---- (1) the same odds as the path walk ---------------------------------------------------------

@pytest.mark.parametrize("stamina", [3, 4, 5, 6])
def test_small_duels_agree_with_the_path_walk(stamina):
    procedure, args = duel(stamina=stamina)
    agree(procedure, ["outcome", "turns", "time", "hit", "foe"] if stamina < 6 else ["turns"],
          **args)
    procedure, args = duel(WON, stamina)
    agree(procedure, ["outcome", "winner"], **args)


def test_ticks_of_the_clock_initiative_and_a_time_limit_agree_with_the_path_walk():
    procedure, args = duel(WINDED, 3)
    agree(procedure, ["turns", "breath"], **args)
    procedure, args = duel(INITIATIVE, 4)
    agree(procedure, ["turns", "time", "lead"], **args)
    procedure, args = duel(stamina=6, time_limit=25)
    odds = agree(procedure, ["turns", "outcome"], **args)
    assert 0 < odds["capped"] < 1  # some fights are cut short at 25 tenths


def test_round_by_round_fights_agree_with_the_path_walk():
    rb = rulecraft.compile(ROUNDS, "brawl.rules")
    party = [rb.combatant(name="Slow", dex_bonus=0, hp=4), rb.combatant(name="Quick",
                                                                          dex_bonus=3, hp=3)]
    agree(rb.procedures["brawl"], ["outcome", "rounds", "damage", "foe"], party=party)
    rb = rulecraft.compile(STUN, "stun.rules")
    agree(rb.procedures["brawl"], ["rounds", "hit"], a=rb.combatant(name="A", hp=4),
          b=rb.combatant(name="B", hp=5))


def test_calls_choices_and_conditions_agree_with_the_path_walk():
    # Calls that roll, change a party and give a condition; a choice by default, given,
    # scripted (a list: its place in the script is part of the state) and made in a call.
    rb = rulecraft.compile(D20.replace("at most 20 rounds", "at most 1 rounds"), "d20.rules")
    brawl = rb.procedures["brawl"]
    a = rb.combatant(name="Ace", bab=3, str_bonus=1, ac=12, initiative=15, hp=2)
    b = rb.combatant(name="Bo", bab=1, str_bonus=0, ac=14, initiative=9, hp=2)
    agree(brawl, ["outcome", "rounds"], a=a, b=b)
    agree(brawl, ["outcome"], a=a, b=b, action=["attack", "routed"])
    agree(brawl, ["outcome"], a=a, b=b, action="routed")


# A blow that is a procedure of its own, with every effect a call can have on a fight: a
# choice of the defender's, a condition given and read (and how long it has left), the
# defender's action lengthened and delayed; a look at when the foe's turn comes (a time as it
# is); a fighter stopped, breath got back on the clock.
EFFECTS = """rulebook effects "Effects"
combatant fighter:
  name: name
  speed: 1..20
  state stamina: 0..30 = 4 clamped
procedure blow "Blow" (attacker: fighter, defender: fighter):
  choose stance by defender from ["Guard", "Open"] default "Open"
  roll hit = d4
  if stance == "Guard":
    give defender "Guarding" for 3
    lengthen defender by 1
  if hit >= 3:
    set defender.stamina = defender.stamina - (if has(defender, "Dazed") then hit + 1 else hit - 1)
    delay defender by hit
    give defender "Dazed" for 4
    outcome struck with (hit = hit, left = remaining(defender, "Dazed"))
  outcome missed with (hit = hit, left = none)
procedure peek "Peek" (who: fighter):
  let when = next_turn(who)
  roll r = d2
  outcome seen with (when = when, r = r)
encounter duel "Duel" (a: fighter, b: fighter, spy: bool = false):
  clock tenths
  roll first = d2
  act a at (if first == 1 then 0 else 2)
  act b at (if first == 2 then 0 else 2)
  let blows = 0
  turn f:
    let foe = if f == a then b else a
    call strike = blow(f, foe)
    let blows = blows + 1
    if spy:
      call look = peek(foe)
      if look.r == 2 and look.when != none:
        delay foe by 1
    if foe.stamina == 0:
      stop foe
    act f after f.speed
  every 5 tenths:
    if a.stamina < 2:
      roll rest = d2
      set a.stamina = a.stamina + rest - 1
  ends when a.stamina == 0 or b.stamina == 0 or blows >= 6
  at most 12 turns
"""


def test_every_effect_of_a_call_on_the_fight_agrees_with_the_path_walk():
    rb = rulecraft.compile(EFFECTS, "effects.rules")
    fights = rb.procedures["duel"]
    a, b = rb.combatant(name="A", speed=4), rb.combatant(name="B", speed=5)
    agree(fights, ["turns", "rest"], a=a, b=b)
    agree(fights, ["time"], a=a, b=b, stance=["Guard", "Open", "Guard", "Guard"] * 5)
    agree(fights, ["time"], a=a, b=b, spy=True, time_limit=8)


DAZED = """rulebook daze "Dazed"
combatant pc:
  name: name
  state hp: 0..20 = 2 clamped
procedure look "Look" (target: pc):
  outcome seen
encounter brawl "Brawl" (a: pc, b: pc):
  clock rounds
  each round:
    call seen = look(b)
    if has(b, "Dazed"):
      set b.hp = b.hp - 1
    roll r = d2
    if r == 2:
      give b "Dazed" for 1
  ends when b.hp == 0
  at most 4 rounds
"""


def test_a_condition_for_a_round_lasts_through_the_next_across_a_call():
    # "On a round clock a condition given `for 1` lasts through the next round": a call on
    # the dazed party in that round (what it leaves of its parties is put back) keeps it.
    rb = rulecraft.compile(DAZED, "daze.rules")
    odds = agree(rb.procedures["brawl"], ["rounds"], a=rb.combatant(name="A"),
                 b=rb.combatant(name="B"))
    assert odds == {3: Fraction(1, 4), 4: Fraction(3, 4)}


def test_fights_without_dice_have_one_path():
    rb = rulecraft.compile(BT_COUNTS, "bt.rules")
    melee = rb.procedures["melee"]
    assert agree(melee, ["outcome", "turns"], a=rb.combatant(name="Quick", action_counts=5),
                 b=rb.combatant(name="Slow", action_counts=10)) == {9: 1}
    rb = rulecraft.compile(RQ3_SR, "rq.rules")
    party = [rb.combatant(name="Slow", strike_rank=7), rb.combatant(name="Fast", strike_rank=3)]
    assert agree(rb.procedures["round_of_melee"], ["turns"], party=party) == {5: 1}


def test_another_encounter_inside_a_fight_walks_the_paths(monkeypatch):
    # A fight cannot key the state of an encounter it calls (its own clock): the paths are
    # walked, as before.
    text = DUEL + ('encounter bouts "Two bouts" (a: fighter, b: fighter):\n'
                   "  clock tenths\n  act a at 0\n  turn f:\n    call bout = duel(a, b)\n"
                   "    act f after 100\n  ends when now >= 100\n  at most 2 turns\n")
    rb = rulecraft.compile(text, "bouts.rules")
    bouts = rb.procedures["bouts"]
    walked = []
    monkeypatch.setattr(type(bouts), "path_odds",
                        lambda self, *a, **k: walked.append(self.name) or {"walked": 1})
    assert bouts.odds(a=rb.combatant(name="A", speed=10, stamina=2),
                      b=rb.combatant(name="B", speed=12, stamina=2)) == {"walked": 1}
    assert walked == ["bouts"]


# ---- (2) a duel of ten stamina each, exact and small -----------------------------------------

def test_a_duel_of_ten_stamina_each_is_exact(tally):
    procedure, args = duel(stamina=10)
    with pytest.raises(rulecraft.DiceError, match="enumeration_work"):
        procedure.path_odds(**args)  # the path walk is refused: 832,986 paths
    odds = procedure.odds(by="turns", **args)
    assert sum(odds.values()) == 1 and all(type(p) is Fraction for p in odds.values())
    # Ann's two first blows (turns 1 and 3) fell Bob on 10 or more: 6 of 36.
    assert min(odds) == 3 and odds[3] == Fraction(1, 6)
    assert tally["states"] <= 464 and tally["runs"] <= 6 * tally["expanded"]


# ---- (3) the same odds as many seeded fights ---------------------------------------------------

def test_exact_odds_agree_with_twenty_thousand_seeded_fights():
    procedure, args = duel(WON, 10)
    exact = procedure.odds(by="winner", **args)
    sampled = procedure.sample(20_000, by="winner", seed=9, **args)
    for winner, p in exact.items():
        sigma = math.sqrt(p * (1 - p) / 20_000)
        assert abs(float(sampled[winner]) - p) < 4 * sigma, winner
    exact = procedure.odds(by="outcome", **dict(args, time_limit=40))
    sampled = procedure.sample(20_000, seed=9, time_limit=40, **args)
    assert set(exact) == set(sampled) == {"won", "capped"}
    for name, p in exact.items():
        assert abs(float(sampled[name]) - p) < 4 * math.sqrt(p * (1 - p) / 20_000), name


# ---- (4) the work grows with the states, not the paths -------------------------------------

def test_the_states_played_are_far_fewer_than_the_paths(tally):
    procedure, args = duel(stamina=6)
    paths = len(procedure.enumerate(**args))
    procedure.odds(**args)
    assert paths == 2461 and tally["states"] <= 103 and tally["runs"] < paths // 3
    tally.clear()
    procedure, args = duel(INITIATIVE, 6)
    procedure.odds(by="turns", **args)
    # 36 initiative rolls, two leads: `a_init` and `b_init` are read no more after the loop
    # begins, so the first pass head has two states, not 36.
    assert tally["states"] < 2 * 103


def test_a_call_is_walked_once_per_situation(tally):
    # d20: "Roll 1d20 + BAB + Str or Dex bonus against the opponent's AC" then d6: 75 paths
    # an attack, merged into what the caller can tell apart (missed, or hit for 1 to 6 with
    # the target's hit points after); each worked out once per attacker and their hit points,
    # whatever the round.
    rb = rulecraft.compile(D20, "d20.rules")
    a = rb.combatant(name="Ace", bab=3, str_bonus=1, ac=12, initiative=15, hp=4)
    b = rb.combatant(name="Bo", bab=1, str_bonus=0, ac=14, initiative=9, hp=4)
    odds = rb.procedures["brawl"].odds(by="rounds", a=a, b=b)
    assert sum(odds.values()) == 1
    assert tally["calls"] <= 2 * 5 * 5  # who attacks whom, their hit points
    assert tally["runs"] <= tally["expanded"] * 7 * 7 + tally["calls"] * 75


# ---- (5) refused at once past the limits ----------------------------------------------------

def test_past_odds_states_the_odds_are_refused_at_once(tally):
    procedure, args = duel(stamina=10)
    with pytest.raises(TooLarge) as info:
        procedure.odds(limits=Limits(odds_states=100), **args)
    message = str(info.value)
    assert "procedure duel: the exact odds need more than 100 distinct states" in message
    assert "--limit odds_states=N" in message and "--samples 100000" in message
    assert tally["states"] == 101


def test_a_ringing_steel_duel_is_refused_at_once_with_the_reason(tally):
    # Two fighters' fatigue, injuries by area, conditions and actions under way, on a clock
    # of tenths: far too many states. It is refused from the first passes it plays, long
    # before the limit is spent, and sampling is offered.
    rb = rulecraft.load("ringing_steel")
    a = rulecraft.read_fighter(rb, "examples/ringing_steel/swordsman.toml")
    b = rulecraft.read_fighter(rb, "examples/ringing_steel/spearman.toml")
    with pytest.raises(TooLarge) as info:
        rb.procedures["duel"].odds(first=a, second=b)
    message = str(info.value)
    assert "foreseen from those played so far" in message and "--samples" in message
    assert tally["work"] < Limits().enumeration_work // 2
