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
from rulecraft.runtime.space import Hex


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


# ---- triggers in an encounter of sides and targets, the referee inside them, a condition at a
# location standing over a choice ---------------------------------------------------------------
# Issue 15: "`on EVENT:` blocks for rules that fire on another party's event ... with built-in
# events (parried, gave a condition ...)"; BT: "This hit makes that body part useless"; Ringing
# Steel: "While grappling ... Only dodging and hand parries are possible" (a standing
# constraint). The referee says where the wound is.
SKIRMISH = """rulebook wounds "A skirmish of wounds"
enum location: Head, Arm
enum condition: Shock, Down

combatant fighter:
  name: name
  speed: 1..20 = 5
  state hp: 0..6 = 2 clamped
  state rage: 0..5 = 0

while "Shock", manner may only be "Careful"

procedure strike(attacker: fighter, target: fighter):
  choose manner by attacker from ["Wild", "Careful"] default "Wild"
  roll blow = d6
  let need = if manner == "Wild" then 3 else 5
  if blow >= need:
    add -1 to target.hp
    outcome hit
  outcome missed

encounter skirmish (heroes: list fighter, foes: list fighter):
  clock tenths "tenths of a second": second = 10
  on changed hp by p:
    if p.hp == 1:
      choose spot by referee from location default "Arm"
      give p "Shock" on spot for 1 second
      ruling "the referee says how the wound looks"
    if p.hp == 0:
      give p "Down"
  on given "Shock" by p:
    add 1 to p.rage
  for each f in party:
    act f at f.speed
  turn f:
    if len(foes(f)) > 0:
      if target(f) == none or not standing(target(f)):
        aim f at argmin(o.hp for o in foes(f))
      let foe = target(f)
      after 2 as blow:
        if f.hp > 0 and foe.hp > 0:
          call hit = strike(f, foe)
          if foe.hp == 0:
            stop foe
      act f after f.speed
  ends when one side standing
  at most 12 turns
"""


def _sides(rb: rulecraft.Rulebook) -> dict[str, list[Any]]:
    return {"heroes": [rb.combatant(name="Ann", speed=4), rb.combatant(name="Bo", speed=6)],
            "foes": [rb.combatant(name="Cy", speed=3, hp=3)]}


def test_a_rule_fires_on_a_condition_given_at_a_location(tmp_path):
    # `on given "Shock"` fires for "Shock on Arm" as for "Shock": the condition is given.
    rb, shown, sheet = everywhere(SKIRMISH, tmp_path)
    sides = _sides(rb)
    # Cy (3) aims at Ann; his blow lands at 5 (die 4, a wild blow): Ann at 1 HTK, in Shock on
    # the Arm (the referee's default), and in a rage.
    r = rb.procedures["skirmish"].run(**sides, dice=[4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
    ann = r.combatants["heroes[0]"]
    assert ann.hp == 1 and ann.rage == 1
    assert [e.value for e in r.trace if e.kind == "give"][0] == "Shock on Arm"
    assert [e.value for e in r.trace if e.kind == "ruling"] == [
        "the referee says how the wound looks"]
    log = rb.fight(_sides(rb), dice=[4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]).log()
    assert 'on given "Shock" by Ann fires at 5 tenths' in log
    assert "spot = Arm (by referee, default)" in log
    assert "the referee's call: the referee says how the wound looks" in log
    assert "standing constraints:\n  while Shock, manner may only be Careful (line 11)" in shown
    assert "on given \"Shock\" by p (line 31)" in shown
    assert "While Shock, only Careful." in sheet


def test_a_rule_fired_by_a_party_s_event_survives_the_party_being_stopped():
    # The blow that fells a fighter stops him (`stop foe`): the rule firing on his HTK changing
    # ("on changed hp by p: … give p "Down"") still runs — it is no part of his action.
    rb = rulecraft.compile(SKIRMISH, "t.rules")
    # Cy's blows at 5 and 8 (4 and 3, wild) fell Ann; Ann's and Bo's miss.
    r = rb.procedures["skirmish"].run(**_sides(rb), dice=[4, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1])
    ann = r.combatants["heroes[0]"]
    assert ann.hp == 0
    assert [(e.name, e.value) for e in r.trace if e.kind == "give"][-1][1] == "Down"
    seeded = rb.procedures["skirmish"].run(**_sides(rb), seed=0)
    felled = [c for c in seeded.combatants.values() if c.hp == 0]
    assert len(felled) == 2 and ", Down\nBo: hp 0" in rb.fight(_sides(rb), seed=0).log()
    assert len([e for e in seeded.trace if e.kind == "give" and e.value == "Down"]) == 2


# ---- a round clock: take turns with delay, a condition at a location for a minute, formulas
# with `where` and enum order in `ends when`, list filters over foes(c), a bounded recursion
# called from the encounter, and the calendar ---------------------------------------------------
ROUNDS = """rulebook rounds "A melee by rounds"
enum location: Head, Arm
enum wound: Light, Serious, Critical

calendar days "days": week = 7

combatant fighter:
  name: name
  initiative: 1..30
  plan: name = "attack"
  state hp: 0..20 = 6 clamped
  state worst: wound = "Light"
  state last_heal: -100..1000 = -100

# "Falling is very dangerous": each stage of the fall, the rest of it the same rule again
procedure fall(height: 0..30):
  roll hurt = d2
  if height >= 10:
    call rest = fall(height - 10)
    outcome landed with damage = hurt + rest.damage
  outcome landed with damage = hurt

formula worse(w: wound, by: 0..2) = if index(w) + s > 2 then w else shift(w, s) where s = by
formula beyond(w: wound, mark: wound) = w > mark and step >= 1 where step = index(w) - index(mark)

encounter melee (heroes: list fighter, foes: list fighter):
  clock rounds "rounds": minute = 10
  each round:
    take turns c in sort_descending(p.initiative for p in party):
      if c.plan == "delay" and not waited(c):
        delay c to the end
      else if c.hp > 0 and len([o for o in foes(c) if o.hp > 0]) > 0:
        let foe = argmin(o.hp for o in [o for o in foes(c) if o.hp > 0])
        if has(c, "Shock", on="Arm"):
          call f = fall(10)
          set c.hp = c.hp - f.damage
        else:
          roll blow = d2
          set foe.hp = foe.hp - blow
          if blow == 2:
            give foe "Shock" on "Arm" for 1 minute
            set foe.worst = worse(foe.worst, 1)
    for each h in heroes:
      if today - h.last_heal >= week:
        set h.hp = h.hp + 1
        set h.last_heal = today
  ends when sides_standing() <= 1 or beyond(foes[0].worst, "Serious") or round == 3
  at most 3 rounds
"""


def _melee(rb: rulecraft.Rulebook) -> dict[str, list[Any]]:
    return {"heroes": [rb.combatant(name="Ann", initiative=12, plan="delay", hp=3)],
            "foes": [rb.combatant(name="Cy", initiative=8, hp=3),
                     rb.combatant(name="Di", initiative=5, hp=2)]}


def test_a_melee_by_rounds_meets_delay_locations_formulas_filters_and_the_calendar(tmp_path):
    rb, shown, sheet = everywhere(ROUNDS, tmp_path)
    melee = rb.procedures["melee"]
    # Round 1: Ann waits to the end; Cy and Di hit her for 1 each; her blow (2) fells Di, in
    # Shock on the Arm and worse wounded; she heals a day's point (day 10: a week since -100).
    r = melee.run(**_melee(rb), dice=[1, 1, 2, 1, 1, 1], day=10)
    hp = {c.name: (c.hp, c.worst, c.last_heal) for c in r.combatants.values()}
    assert hp == {"Ann": (0, "Light", 10), "Cy": (2, "Light", -100), "Di": (0, "Serious", -100)}
    assert r.outcome == "ended" and r.outcome["rounds"] == 3
    # A shocked arm makes Cy fall instead (the recursion called from the encounter).
    # Cy's 2 leaves Ann (at 6) in Shock on the Arm: when her turn comes she falls 10 feet.
    sides = _melee(rb)
    sides["heroes"] = [rb.combatant(name="Ann", initiative=12, plan="delay", hp=6)]
    shocked = melee.run(**sides, dice=[2, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1], day=10)
    assert [(e.name, e.value) for e in shocked.trace if e.kind == "outcome"][:2] == [
        ("landed", "landed"), ("landed", "landed")]
    assert shocked.combatants["heroes[0]"].hp < 6 - 2
    odds = agree(melee, lambda r: tuple(c.hp for c in r.combatants.values()), **_melee(rb),
                 day=10)
    assert sum(odds.values()) == 1
    assert melee.run(**_melee(rb), seed=3, day=10).outcome == "ended"
    assert "calendar days: week = 7 days" in shown
    assert "Foe is Shock on Arm for 1 minute." in sheet


def test_a_fight_log_by_rounds_is_timed_by_its_rounds():
    # The log's first column is the time: on a clock of rounds, the round (a condition given
    # in round 1 for 1 minute, 10 rounds, lasts until 11).
    rb = rulecraft.compile(ROUNDS, "t.rules")
    log = rb.fight(_melee(rb), dice=[1, 1, 2, 1, 1, 1], day=10).log()
    assert "     1              round = 1\n" in log
    assert "     2              round = 2\n" in log
    assert "     1              Di is Shock on Arm (until 11)" in log


# ---- an event and the referee inside a called procedure, `choosing` on that call, hexes in a
# fight's exact odds, and a house rule amending the procedure --------------------------------
# Issue 15: "`now` and `cancel PARTY` inside procedures called from an encounter"; "a caller
# answering a callee's choice"; "amendments that add an outcome to a base procedure, change
# its parameters".
VOLLEY = """rulebook volley "A volley"
combatant fighter:
  name: name = "x"
  state at: hex = hex(0, 0)
  state hp: 0..5 = 2

procedure loose(archer: fighter, target: fighter):
  outcomes:
    loosed "Loosed"
  choose flight by referee from 1..3 default 2
  choose aim by archer from ["Body", "Head"] default "Body"
  let aimed_at = target.at
  after flight as arrow:
    if target.at == aimed_at:
      roll hit = d6
      let need = if aim == "Head" then 6 else 4
      if hit >= need:
        add -1 to target.hp
        ruling "the referee says where the arrow struck"
  outcome loosed

encounter volley (archer: fighter, target: fighter):
  clock tenths "tenths of a second"
  act archer at 0 as "Shoot"
  act target at 3 as "Walk"
  turn f:
    if f == archer:
      call shot = loose(archer, target) choosing aim = "Head"
      act archer after 3 as "Shoot"
    else:
      set target.at = step(target.at, 0)
      act target after 4 as "Walk"
  ends when target.hp == 0 or hex_distance(target.at, hex(0, 0)) >= 2
  at most 12 turns
"""

HOUSE = """rulebook volley_house "Our volley"

extends "volley.rules"

amend procedure loose:
  add parameter volley: 1..3 = 1
  add outcome wasted "Wasted"
  replace choose flight:
    choose flight by referee from 1..4 default 3
  insert before let aimed_at:
    if volley > 2:
      outcome wasted
"""


def test_an_arrow_loosed_in_a_call_with_the_referee_and_choosing(tmp_path):
    rb, shown, sheet = everywhere(VOLLEY, tmp_path)
    volley = rb.procedures["volley"]
    ann, bo = rb.combatant(name="Ann"), rb.combatant(name="Bo")
    # Arrows loosed at 0 and 3 (the referee's flight: 2) land at 2 and 5 on the hex Bo stood
    # in; aimed at the head (`choosing aim = "Head"`) a 6 hits, and the referee rules.
    r = volley.run(archer=ann, target=bo, dice=[6, 4])
    assert r.combatants["target"].hp == 1 and r.combatants["target"].at == Hex(2, 0)
    assert [e.value for e in r.trace if e.kind == "ruling"] == [
        "the referee says where the arrow struck"]
    odds = agree(volley, lambda r: (r.combatants["target"].hp, r.combatants["target"].at),
                 archer=ann, target=bo)
    assert odds[(2, Hex(2, 0))] == pytest.approx(25 / 36)
    assert volley.run(archer=ann, target=bo, seed=0).outcome == "ended"
    assert "choose aim by archer: Body | Head (default Body), in loose" in shown
    assert "its Aim chosen by this procedure: Head" in sheet
    log = rb.fight([ann, bo], dice=[6, 4]).log()
    assert "the referee's call: the referee says where the arrow struck" in log
    assert "flight = 2 (by referee, default)" in log


def test_the_log_shows_an_event_scheduled_inside_a_call():
    # An event scheduled by a called procedure joins the encounter's clock "all the same": the
    # log says when it is due, as for one the encounter schedules itself.
    rb = rulecraft.compile(VOLLEY, "t.rules")
    log = rb.fight([rb.combatant(name="Ann"), rb.combatant(name="Bo")], dice=[6, 4]).log()
    assert "event arrow scheduled at 2 tenths" in log
    assert log.index("event arrow scheduled at 2 tenths") < log.index("event arrow happens")


def test_a_house_rule_amends_a_procedure_with_an_event_and_the_referee(tmp_path):
    (tmp_path / "volley.rules").write_text(VOLLEY, encoding="utf-8")
    (tmp_path / "house.rules").write_text(HOUSE, encoding="utf-8")
    rb = rulecraft.load(str(tmp_path / "house.rules"))
    loose, volley = rb.procedures["loose"], rb.procedures["volley"]
    ann, bo = rb.combatant(name="Ann"), rb.combatant(name="Bo")
    assert loose.odds(archer=ann, target=bo, volley=3) == {"wasted": 1}
    # The referee's flight is 3 now: the second arrow, loosed at 3, lands at 6 on the hex Bo
    # left at 3 — only the first can hit.
    odds = agree(volley, lambda r: r.combatants["target"].hp, archer=ann, target=bo)
    assert odds == {2: pytest.approx(5 / 6), 1: pytest.approx(1 / 6)}
    shown = CliRunner().invoke(cli, ["show", str(tmp_path / "house.rules")]).output
    assert "loose(archer: fighter, target: fighter, volley: 1..3 = 1)" in shown
    assert "choose flight by referee: 1..4 (default 3), in loose" in shown
    sheet = rulecraft.sheet(rb, format="md")
    assert "The referee chooses the Flight: 1–4 (by default 3)." in sheet
    assert rulecraft.format_rules(HOUSE) == HOUSE


# ---- a raised event in a call fires a rule; the referee decides; the rule's event makes a
# call `choosing`; a formula with `where` and enum order runs in a trigger and in `ends when`; a
# policy answers the referee --------------------------------------------------------------------
RIPOSTE = """rulebook riposte "Riposte"
enum stance: Low, Middle, High

combatant fighter:
  name: name
  state hp: 0..3 = 2 clamped
  state guard: stance = "Middle"

formula lower(s: stance) = if s == lowest then s else previous(s) where lowest = "Low"

procedure attack(attacker: fighter, defender: fighter):
  choose manner by attacker from ["Cut", "Thrust"] default "Cut"
  roll roll = d6
  let need = if manner == "Thrust" then 5 else 4
  if roll >= need:
    add -1 to defender.hp
    outcome hit
  if roll == 1:
    raise "Parried" for defender
  outcome missed

encounter duel (a: fighter, b: fighter):
  clock tenths "tenths"
  on "Parried" by p:
    choose riposte by referee from [true, false] default true
    if riposte:
      let foe = if p == a then b else a
      after 1 as riposte_blow:
        call back = attack(p, foe) choosing manner = "Thrust"
  on changed hp by p:
    set p.guard = lower(p.guard)
  act a at 0
  act b at 1
  turn f:
    let foe = if f == a then b else a
    aim f at foe
    call blow = attack(f, foe)
    act f after 3
  ends when a.hp == 0 or b.hp == 0 or b.guard < "Middle" and a.guard < "Middle"
  at most 4 turns

policy cautious "Cautious":
  riposte = false
  manner = "Thrust"
"""


def test_a_parry_in_a_call_fires_a_riposte_the_referee_allows(tmp_path):
    rb, shown, sheet = everywhere(RIPOSTE, tmp_path)
    duel = rb.procedures["duel"]
    a, b = rb.combatant(name="A"), rb.combatant(name="B")
    # A's cut (1) is parried: the referee allows B's riposte, a thrust a tenth later (6: A
    # is hit, his guard drops to Low).
    r = duel.run(a=a, b=b, dice=[1, 2, 6, 2, 2])
    made = [(e.name, e.value) for e in r.trace if e.kind in ("choose", "return")]
    assert made[:6] == [("manner", "Cut"), ("blow", "missed"), ("riposte", True),
                        ("manner", "Cut"), ("blow", "missed"), ("manner", "Thrust")]
    assert r.combatants["a"].guard == "Low" and r.combatants["a"].hp == 1
    # A cautious referee allows none.
    cautious = duel.run(a=a, b=b, dice=[1, 2, 6, 2, 2], policy="cautious")
    assert ("riposte", False) in [(e.name, e.value) for e in cautious.trace
                                  if e.kind == "choose"]
    by = (lambda r: (r.combatants["a"].hp, r.combatants["b"].hp, r.combatants["a"].guard))
    assert sum(agree(duel, by, a=a, b=b).values()) == 1
    assert sum(agree(duel, by, a=a, b=b, policy="cautious").values()) == 1
    log = rb.fight([a, b], dice=[1, 2, 6, 2, 2]).log()
    assert "riposte = yes (by referee, default)" in log
    assert "event riposte_blow scheduled at 1 tenths" in log
    assert "back = attack: hit | dice: roll 6" in log
    assert 'on "Parried" by p (line 24)' in shown
    assert "“Parried” happens to Defender." in sheet


def test_the_log_shows_a_rule_fired_inside_a_call():
    # "Parried" is raised inside the blow: the log says the rule fires, as it does for a rule
    # fired by the encounter's own steps.
    rb = rulecraft.compile(RIPOSTE, "t.rules")
    log = rb.fight([rb.combatant(name="A"), rb.combatant(name="B")], dice=[1, 2, 6, 2, 2]).log()
    assert 'on Parried by b fires at 0 tenths' in log


# ---- a round clock with events pending, ticks at a round's start and afterwards -------------
# The docs: "A tick at a round's start that ends the fight ends it before the round is played";
# an event "cannot end the encounter with an outcome (`ends when` is tested after it)".
BLEED = """rulebook bleed "Bleeding by rounds"
combatant fighter:
  name: name
  state hp: 0..9 = 5
  state bled: 0..20 = 0

encounter e (a: fighter, b: fighter):
  clock rounds "rounds": minute = 2
  each round:
    if round == 1:
      after 2 as bleed:
        add 1 to a.bled
    add -1 to a.hp
  every 1 minute before turns:
    add 10 to a.bled
  ends when a.bled >= 11
  at most 6 rounds
  afterwards:
    set b.bled = now
"""


def test_an_event_at_a_round_s_start_that_ends_the_fight_ends_it_before_the_round(tmp_path):
    # The minute's tick at the start of round 2 brings a to 10; the bleeding event due at the
    # start of round 3 brings him to 11: the fight ends there, round 3 unplayed (a lost 1 HTK
    # a round in rounds 1 and 2 only).
    rb, _, _ = everywhere(BLEED, tmp_path)
    e = rb.procedures["e"]
    r = e.run(a=rb.combatant(name="A"), b=rb.combatant(name="B"), dice=[])
    assert r.combatants["a"].bled == 11 and r.combatants["a"].hp == 3
    assert r.outcome == "ended" and r.outcome["time"] == 3 and r.combatants["b"].bled == 3
    by = agree(e, lambda r: r.combatants["a"].hp, a=rb.combatant(name="A"),
               b=rb.combatant(name="B"))
    assert by == {3: 1}
    log = rb.fight([rb.combatant(name="A"), rb.combatant(name="B")], seed=0).log()
    assert "     3              event bleed happens\n     3              a.bled = 11\n" in log


# ---- lists of fighters from the sides: indexed, filtered, passed on --------------------------
PICK = """rulebook pick "Pick the first foe"
combatant fighter:
  name: name
  state hp: 0..5 = 2 clamped

procedure volley_at(archer: fighter, targets: list fighter):
  for each t in targets:
    roll hit = d2
    if hit == 2:
      add -1 to t.hp
  outcome loosed

encounter pick (heroes: list fighter, foes: list fighter):
  clock rounds "rounds"
  each round:
    for each c in party:
      if len(foes(c)) > 0:
        let first = foes(c)[0]
        let last = [o for o in party if side(o) != side(c)][-1]
        if c == party[0]:
          call shots = volley_at(c, foes(c))
        else:
          add -1 to first.hp
          add -1 to last.hp
  ends when round == 1
  at most 1 rounds
"""


def test_the_sides_lists_are_lists_like_any_other():
    # `foes(c)[0]`, `party[0]` and `foes(c)` handed to a procedure taking a list of fighters.
    rb = rulecraft.compile(PICK, "t.rules")
    pick = rb.procedures["pick"]
    sides = {"heroes": [rb.combatant(name="Ann")],
             "foes": [rb.combatant(name="Cy"), rb.combatant(name="Di")]}
    # Ann's volley hits Cy (2) and misses Di (1); Cy strikes Ann twice (first and last foe),
    # Di too.
    r = pick.run(**sides, dice=[2, 1])
    assert [c.hp for c in r.combatants.values()] == [0, 1, 2]
    assert sum(agree(pick, lambda r: tuple(c.hp for c in r.combatants.values()),
                     **sides).values()) == 1


def test_ends_when_at_a_round_s_start_reads_the_round_last_played():
    # `ends when round == 2` ends the fight after round 2, whether or not a tick at a round's
    # start (`every 2 rounds before turns:`) or an event due then comes first.
    base = """rulebook r "r"
combatant fighter:
  name: name
  state hp: 0..9 = 5
encounter e (a: fighter):
  clock rounds "rounds"
  each round:
    if round == 1:
      after 1 as sting:
        add 0 to a.hp
    add -1 to a.hp
  every 2 rounds before turns:
    add 0 to a.hp
  ends when round == 2
  at most 5 rounds
"""
    for text in (base, base.replace("  every 2 rounds before turns:\n    add 0 to a.hp\n", ""),
                 base.replace("    if round == 1:\n      after 1 as sting:\n        add 0 to a.hp\n",
                              "")):
        rb = rulecraft.compile(text, "t.rules")
        r = rb.procedures["e"].run(a=rb.combatant(name="A"))
        assert r.outcome["time"] == 2 and r.combatants["a"].hp == 3, text


def test_an_event_scheduled_afterwards_is_an_error_at_it():
    # `afterwards:` runs once the loop has ended: an event scheduled there would never come.
    text = BLEED.replace("    set b.bled = now\n", "    after 1 as late:\n      add 1 to b.bled\n")
    with pytest.raises(RulecraftError) as info:
        rulecraft.compile(text, "t.rules")
    assert (info.value.line, info.value.column) == (19, 5)
    assert "the fight is over when `afterwards:` runs: an event scheduled there never comes" \
        in str(info.value)


# ---- a second lane, a rule firing on entering, a tick after the turns -------------------------
LANES = """rulebook lanes "Walking past a guard"
combatant fighter:
  name: name = "x"
  state at: 0..20 = 0
  state hp: 0..3 = 2
  state seen: name = "nothing"

encounter e (a: fighter, b: fighter):
  clock tenths "tenths": second = 10
  on entered by mover:
    if mover == a and mover.at == 2:
      set b.seen = if action(a, "move") == none then "still" else action(a, "move")
      cancel a
  act a after 1 second as "Walk" on lane move
  act a at 0 as "Guard"
  act b at 5 as "Wait"
  turn f:
    if f == a and action(a) == none and last_action(a) == "Walk":
      add 1 to a.at
      act a after 1 second as "Walk" on lane move
    else if f == b:
      roll r = d2
      if r == 2:
        add -1 to a.hp
      act b after 1 second as "Wait"
  every 1 second after turns:
    if a.hp == 0:
      stop a
  ends when b.seen != "nothing" or a.hp == 0
  at most 20 turns
"""


def test_a_walk_on_a_second_lane_seen_by_a_rule_on_entering(tmp_path):
    rb, shown, sheet = everywhere(LANES, tmp_path)
    e = rb.procedures["e"]
    a, b = rb.combatant(name="A"), rb.combatant(name="B")
    r = e.run(a=a, b=b, dice=[1, 1])
    # A walks a hex a second on his lane; entering hex 2 (at 2 seconds) B sees him walking,
    # and A's walk is cancelled.
    assert (r.combatants["a"].at, r.combatants["b"].seen) == (2, "Walk")
    assert [e.detail for e in r.trace if e.kind == "cancel"] == ["Walk on lane move"]
    odds = agree(e, lambda r: (r.combatants["a"].at, r.combatants["a"].hp,
                               r.combatants["b"].seen), a=a, b=b)
    assert odds == {(2, 2, "Walk"): pytest.approx(1 / 4), (2, 1, "Walk"): pytest.approx(1 / 2),
                    (1, 0, "nothing"): pytest.approx(1 / 4)}
    log = rb.fight([a, b], dice=[1, 1]).log()
    assert "a's action completes at 20 (Walk on lane move)" in log
    assert "on entered by mover (line 10)" in shown
    assert "A’s next action completes after 1 second (the action: Walk on lane Move)." in sheet


# ---- `ends when` with a list filter, tested after a rule fires --------------------------------
def test_ends_when_with_a_list_filter_is_tested_after_an_event():
    # Both runners felled by rules firing at 1 tenth: the fight has ended there (no runner
    # standing short of the line), not gone idle for want of turns.
    text = """rulebook block "Blocking on the hex grid"
combatant fighter:
  name: name
  state at: hex = hex(0, 0)
  state facing: facing = 0
  state hp: 0..2 = 1

encounter e (runners: list fighter, guards: list fighter):
  clock tenths "tenths"
  on entered by mover:
    for each g in foes(mover):
      if hex_distance(g.at, mover.at) <= 1 and g.hp > 0 and mover.hp > 0:
        roll blow = d2
        if blow == 2:
          add -1 to mover.hp
          if mover.hp == 0:
            stop mover
  for each f in runners:
    act f at 1
  turn f:
    set f.at = step(f.at, f.facing)
    act f after 2
  ends when len([r for r in runners if r.hp > 0 and r.at.q < 3]) == 0
  at most 10 turns
"""
    rb = rulecraft.compile(text, "t.rules")
    e = rb.procedures["e"]
    sides = {"runners": [rb.combatant(name="R1"), rb.combatant(name="R2", at=Hex(0, 1))],
             "guards": [rb.combatant(name="G", at=Hex(2, 0))]}
    r = e.run(**sides, dice=[2, 2])
    assert r.outcome == "ended" and r.outcome["time"] == 1
    # both felled at once one time in four: the fight ends at 1 tenth
    odds = agree(e, lambda r: (r.outcome.name, r.outcome["time"] == 1), **sides)
    assert odds[("ended", True)] == pytest.approx(1 / 4) and sum(odds.values()) == 1
