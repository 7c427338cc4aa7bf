"""Units of time (issue 15, item 5): a clock declares its units and every duration may carry
one; the calendar across fights; conditions held at a location and a round's order that its
parties may put off (item 7: d20 delay and ready)."""

from __future__ import annotations

import pytest

import rulecraft
from rulecraft.runtime.errors import RulecraftError

# Ringing Steel counts tenths of a second; its rules speak of seconds and minutes too.
STEEL = """rulebook steel_units "Ringing Steel: units"

combatant fighter:
  name: name
  state stamina: 0..20 = 10

procedure wind(f: fighter):
  # A procedure has no clock of its own: its units are the rulebook's one clock's.
  give f "Winded" for 1 minute
  outcome winded

encounter bout "A bout" (a: fighter):
  clock tenths "tenths of a second": second = 10, minute = 60 seconds
  act a after 2 seconds
  turn f:
    call w = wind(f)
    give f "Ready" for 5 tenths
    act f after 1.5 seconds
  ends when remaining(a, "Winded") == minute
  at most 3 turns
"""


def test_durations_with_units_are_worked_out_in_the_clock_s_own_unit():
    rb = rulecraft.compile(STEEL, "steel.rules")
    r = rb.procedures["bout"].run(a=rb.combatant(name="Ash"))
    acts = [e.value for e in r.trace if e.kind == "act"]
    gives = [e.detail for e in r.trace if e.kind == "give"]
    assert acts == [20, 35]  # 2 seconds, then 1.5 seconds later
    assert gives[:2] == ["until 620", "until 25"]  # 1 minute = 60 seconds = 600 tenths
    assert r.outcome == "ended" and r.outcome["time"] == 20  # a unit read as a number: `== minute`


def test_a_d20_turn_is_ten_minutes_of_rounds():
    # d20 modern: "A Turn equals about 10 minutes." KO: "they are knocked out for 1 turn".
    rules = """rulebook d20t "d20: a turn"
combatant fighter:
  state hp: 0..20 = 10
encounter brawl "A brawl" (a: fighter):
  clock rounds "rounds": minute = 10, turn = 10 minutes
  each round:
    if round == 1:
      give a "Knocked out" for 1 turn
  ends when not has(a, "Knocked out")
  at most 200 rounds
"""
    rb = rulecraft.compile(rules, "t.rules")
    r = rb.procedures["brawl"].run(a=rb.combatant())
    # Given in round 1 for 100 rounds, it lasts through round 101 (as `for 1` lasts through
    # the next round): the brawl ends after round 102.
    assert r.outcome == "ended" and r.outcome["rounds"] == 102
    formatted = rulecraft.format_rules(rules)
    assert "clock rounds \"rounds\": minute = 10, turn = 10 minutes" in formatted
    assert "give a \"Knocked out\" for 1 turn" in formatted


@pytest.mark.parametrize("change, where, words", [
    ('give f "Ready" for 5 tenths', 'give f "Ready" for 5 tenth', None),  # singular is fine
    ('give f "Ready" for 5 tenths', 'give f "Ready" for 5 secnds',
     (17, 26, "unknown unit of time of clock tenths 'secnds'; did you mean 'second'?")),
    ("minute = 60 seconds", "minute = 60 secs",
     (13, 63, "unknown unit of time of clock tenths 'secs'; did you mean 'second'?")),
    ("second = 10,", "second = 0,", (13, 47, "a unit of time is more than nothing")),
    ("minute = 60 seconds", "second = 60",
     (13, 51, "second is already a unit of clock tenths")),
    ("act a after 2 seconds", "act a after 2 weeks",
     (14, 17, "unknown unit of time of clock tenths 'weeks'")),
])
def test_unit_errors_point_at_the_unit(change, where, words):
    text = STEEL.replace(change, where)
    if words is None:
        rulecraft.compile(text, "ok.rules")
        return
    with pytest.raises(RulecraftError) as info:
        rulecraft.compile(text, "u.rules")
    line, column, message = words
    assert f"u.rules:{line}:{column}: {message}" in str(info.value)


def test_a_unit_in_a_procedure_needs_the_rulebook_s_one_clock_to_declare_it():
    text = STEEL.replace(': second = 10, minute = 60 seconds', '')
    with pytest.raises(RulecraftError) as info:
        rulecraft.compile(text, "u.rules")
    assert (info.value.line, info.value.column) == (9, 25)
    assert "unknown unit of time 'minute': this procedure has no clock of its own" in \
        str(info.value)


def test_a_clock_declares_its_units_once():
    second = STEEL + """
encounter spar "A spar" (a: fighter):
  clock tenths "tenths": second = 12
  act a at 0
  turn f:
    stop f
  ends when true
  at most 1 turns
"""
    with pytest.raises(RulecraftError) as info:
        rulecraft.compile(second, "u.rules")
    assert (info.value.line, info.value.column) == (23, 26)
    assert "clock tenths has its units declared at line 13 already, differently" in \
        str(info.value)
    # Written once, another encounter of the same clock uses them.
    rulecraft.compile(second.replace(': second = 12', '').replace(
        "stop f", "act f after 1 second"), "ok.rules")


# ---- the calendar: days across fights --------------------------------------------------------
# RQ3 house rules: "You can DI once/wk per god worshipped per SR."
CALENDAR = """rulebook rq3_days "RQ3: days"

calendar days "days": week = 7

combatant worshipper:
  name: name
  pow: 3..21
  state last_intervention: -1000..100000 = -1000

procedure divine_intervention(p: worshipper):
  if today - p.last_intervention < week:
    outcome refused
  set p.last_intervention = today
  roll prayer = d100
  if prayer <= p.pow:
    outcome answered
  outcome unanswered

encounter plea "A plea in the fight" (p: worshipper):
  clock strike_ranks "strike ranks"
  act p at 1
  turn f:
    call di = divine_intervention(f)
    stop f
  ends when true
  at most 1 turns
"""


def test_once_a_week_on_the_calendar():
    rb = rulecraft.compile(CALENDAR, "days.rules")
    di = rb.procedures["divine_intervention"]
    p = rb.combatant(name="Ulf", pow=15, last_intervention=5)
    assert di.run(p=p, day=10, dice=[1]).outcome == "refused"
    r = di.run(p=p, day=12, dice=[1])
    assert r.outcome == "answered" and r.combatants["p"].last_intervention == 12
    from fractions import Fraction

    assert di.odds(p=p, day=12) == {"answered": Fraction(15, 100),
                                    "unanswered": Fraction(85, 100)}
    assert di.odds(p=p, day=11) == {"refused": 1}
    # A fight's exact odds on a day: the same fight a week on is another fight.
    text = CALENDAR.replace("    call di = divine_intervention(f)\n",
                            "    call di = divine_intervention(f)\n"
                            "    if di == \"refused\":\n      outcome refused\n")
    plea = rulecraft.compile(text, "days.rules").procedures["plea"]
    assert plea.odds(p=p, day=8) == {"refused": 1}
    assert plea.odds(p=p, day=12) == {"ended": 1}
    assert plea.run(p=p, day=8, dice=[]).outcome == "refused"


def test_fighters_carry_the_calendar_from_fight_to_fight():
    rb = rulecraft.compile(CALENDAR, "days.rules")
    ulf = rb.combatant(name="Ulf", pow=15)
    first = rb.fight([ulf], day=3, seed=1)
    after = first.fighters[0]
    assert after.last_intervention == 3
    again = rb.fight([after], day=8, seed=1)  # five days later: not yet a week
    assert "di = divine_intervention: refused" in again.log()
    week_on = rb.fight([after], day=10, seed=1)
    assert "refused" not in week_on.log()


def test_today_needs_a_calendar_and_a_day_is_a_whole_number():
    with pytest.raises(RulecraftError) as info:
        rulecraft.compile(CALENDAR.replace('calendar days "days": week = 7\n', ''), "d.rules")
    assert "unknown name 'today'" in str(info.value)
    rb = rulecraft.compile(CALENDAR, "days.rules")
    with pytest.raises(RulecraftError, match="a day is a whole number"):
        rb.procedures["divine_intervention"].run(p=rb.combatant(name="U", pow=3), day=1.5)
    with pytest.raises(RulecraftError) as info:
        rulecraft.compile(CALENDAR.replace("act p at 1", "act p after 1 week"), "d.rules")
    assert "week is a unit of the calendar" in str(info.value)


# ---- conditions at a location ----------------------------------------------------------------
# BT: "The major effect is shock. This hit makes that body part useless for the rest of that
# combat. Head and chest shots cause stun effects, limb shots cause the temporary loss of that
# limb."
SHOCK = """rulebook bt_shock "BT: shock by location"

enum location: Head, Arm

combatant fighter:
  state htk: 0..20 = 10

encounter hit "A hit" (a: fighter):
  clock counts "counts": minute = 240
  each round:
    if round == 1:
      roll spot = d2
      let struck = if spot == 1 then "Head" else "Arm"
      give a "Shock" on struck for 1 minute
    if has(a, "Shock", on="Head"):
      set a.htk = a.htk - 2
    else if has(a, "Shock"):
      set a.htk = a.htk - 1
  ends when round == 3
  at most 3 rounds
"""


def test_a_condition_is_held_at_a_location():
    rb = rulecraft.compile(SHOCK, "shock.rules")
    hit = rb.procedures["hit"]
    r = hit.run(a=rb.combatant(), dice=[1])
    assert r.combatants["a"].htk == 10 - 3 * 2
    gives = [e for e in r.trace if e.kind == "give"]
    assert gives[0].value == "Shock on Head"
    r = hit.run(a=rb.combatant(), dice=[2])
    assert r.combatants["a"].htk == 10 - 3 * 1
    log = rb.fight([rb.combatant()], dice=[2]).log()
    assert "is Shock on Arm" in log
    # Ended at its location, or everywhere.
    for ending, left in (('end a "Shock" on "Arm"', 9), ('end a "Shock" on "Head"', 7),
                         ('end a "Shock"', 9)):
        text = SHOCK.replace("    if has(a,", f"    if round == 2:\n      {ending}\n    if has(a,")
        r = rulecraft.compile(text, "s.rules").procedures["hit"].run(a=rb.combatant(), dice=[2])
        assert r.combatants["a"].htk == left, ending


def test_exact_odds_keep_locations_apart():
    rb = rulecraft.compile(SHOCK, "shock.rules")
    hit = rb.procedures["hit"]
    by_htk = hit.odds(by=lambda r: r.combatants["a"].htk, a=rb.combatant())
    assert by_htk == hit.path_odds(by=lambda r: r.combatants["a"].htk, a=rb.combatant())
    from fractions import Fraction

    assert by_htk == {4: Fraction(1, 2), 7: Fraction(1, 2)}


def test_location_calls_and_steps_are_checked():
    bad = SHOCK.replace('has(a, "Shock", on="Head")', 'has(a, "Shock", at="Head")')
    with pytest.raises(RulecraftError) as info:
        rulecraft.compile(bad, "s.rules")
    assert "has takes a party, a condition and `on=` a location" in str(info.value)
    assert (info.value.line, info.value.column) == (15, 8)
    bad = SHOCK.replace('give a "Shock" on struck', 'give a "Shock" on 3')
    with pytest.raises(RulecraftError) as info:
        rulecraft.compile(bad, "s.rules")
    assert 'a location is named ("Head"), not a whole number' in str(info.value)
    assert (info.value.line, info.value.column) == (14, 25)
    formatted = rulecraft.format_rules(SHOCK)
    assert 'give a "Shock" on struck for 1 minute' in formatted
    assert rulecraft.format_rules(formatted) == formatted


# ---- d20: delaying within a round ------------------------------------------------------------
# d20 modern: "If other attackers, who delayed their action in the rd, are assisting (up to
# three more), add their Str scores to the Str check." "The combatants will then be ranked
# from high roll to lowest and attack, in order, each rd."
DELAY = """rulebook d20_delay "d20 modern: delay and ready"

combatant fighter:
  name: name
  initiative: 1..30
  plan: name = "attack"
  state hp: 0..20 = 10
  state place: 0..10 = 0

encounter melee "A melee" (party: list fighter):
  clock rounds "rounds"
  let slowest = argmin(p.initiative for p in party)
  let acted = 0
  each round:
    take turns c in sort_descending(p.initiative for p in party):
      if c.plan == "delay" and not waited(c):
        delay c until after slowest
      else if c.plan == "ready" and not waited(c):
        ready c when slowest.hp < 10
      else if c.plan == "end" and not waited(c):
        delay c to the end
      else:
        let acted = acted + 1
        set c.place = acted
        roll blow = d2
        set slowest.hp = slowest.hp - blow
  ends when round == 1
  at most 1 rounds
"""


def _melee(plans: dict[str, str], dice: list[int] | None = None) -> rulecraft.Result:
    rb = rulecraft.compile(DELAY, "delay.rules")
    party = [rb.combatant(name=n, initiative=i, plan=plans.get(n, "attack"))
             for n, i in (("Alf", 18), ("Bo", 12), ("Cy", 5))]
    return rb.procedures["melee"].run(party=party, dice=dice or [1, 1, 1])


def _places(r: rulecraft.Result) -> dict[str, int]:
    return {c.name: c.place for c in r.combatants.values()}


def test_a_party_delays_until_after_another():
    assert _places(_melee({})) == {"Alf": 1, "Bo": 2, "Cy": 3}
    assert _places(_melee({"Alf": "delay"})) == {"Bo": 1, "Cy": 2, "Alf": 3}
    assert _places(_melee({"Alf": "end"})) == {"Bo": 1, "Cy": 2, "Alf": 3}
    assert _places(_melee({"Alf": "end", "Bo": "end"})) == {"Cy": 1, "Alf": 2, "Bo": 3}


def test_a_readied_action_is_taken_when_its_condition_holds_or_lost():
    # Bo readies until Cy is hurt, Alf waits to the end: Cy's own blow hurts him, and Bo's
    # readied action comes at once, before Alf's.
    assert _places(_melee({"Alf": "end", "Bo": "ready"})) == {"Cy": 1, "Bo": 2, "Alf": 3}
    # The condition is tested after each action that follows the readying: Cy, already hurt
    # by Alf when Bo readies, acts before Bo's readied action.
    assert _places(_melee({"Bo": "ready"})) == {"Alf": 1, "Cy": 2, "Bo": 3}
    # Alf delays until after Cy and Bo readies: Cy hurts himself first; the readied action
    # comes before the delayed one.
    assert _places(_melee({"Alf": "delay", "Bo": "ready"})) == {"Cy": 1, "Bo": 2, "Alf": 3}
    # Bo and Cy both ready after Alf's blow: no action follows theirs, so the round ends
    # with both readied actions lost.
    r = _melee({"Bo": "ready", "Cy": "ready"})
    assert _places(r) == {"Alf": 1, "Bo": 0, "Cy": 0}
    assert [e.value for e in r.trace if e.kind == "ready"] == ["lost", "lost"]


def test_delays_show_in_the_log_and_have_exact_odds():
    rb = rulecraft.compile(DELAY, "delay.rules")
    party = [rb.combatant(name="Alf", initiative=18, plan="delay"),
             rb.combatant(name="Bo", initiative=12, plan="ready"),
             rb.combatant(name="Cy", initiative=5)]
    log = rb.fight([party[0], party[1], party[2]], seed=2).log()
    assert "waits until after another's action" in log
    assert "waits with an action readied" in log and "readied action is taken" in log
    melee = rb.procedures["melee"]
    hp = melee.odds(by=lambda r: r.combatants["party[2]"].hp, party=party)
    assert hp == melee.path_odds(by=lambda r: r.combatants["party[2]"].hp, party=party)
    assert set(hp) == {4, 5, 6, 7}


def test_delay_and_ready_belong_in_a_round_s_order():
    bad = DELAY.replace("    take turns c in sort_descending(p.initiative for p in party):\n",
                        "    for each c in sort_descending(p.initiative for p in party):\n")
    with pytest.raises(RulecraftError) as info:
        rulecraft.compile(bad, "d.rules")
    assert "write them in `take turns c in ORDER:`" in str(info.value)
    alone = DELAY.split("encounter melee")[0] + """procedure order(party: list fighter):
  take turns c in party:
    set c.place = 1
  outcome done
"""
    with pytest.raises(RulecraftError) as info:
        rulecraft.compile(alone, "d.rules")
    assert "take turns is a round's order: write it in an encounter's `each round:`" in \
        str(info.value)
    assert (info.value.line, info.value.column) == (11, 3)
    formatted = rulecraft.format_rules(DELAY)
    assert rulecraft.format_rules(formatted) == formatted
    assert "delay c until after slowest" in formatted and "ready c when" in formatted


# ---- shown in `show`, on sheets and from the command line ------------------------------------


def test_show_sheets_and_the_command_line_say_the_units(tmp_path):
    from click.testing import CliRunner

    from rulecraft.cli import cli

    steel, days = tmp_path / "steel.rules", tmp_path / "days.rules"
    steel.write_text(STEEL, encoding="utf-8")
    days.write_text(CALENDAR, encoding="utf-8")
    shown = CliRunner().invoke(cli, ["show", str(steel)])
    assert "clock tenths: second = 10 tenths, minute = 600 tenths" in shown.output
    shown = CliRunner().invoke(cli, ["show", str(days)])
    assert "calendar days: week = 7 days" in shown.output
    sheet = rulecraft.sheet(rulecraft.compile(STEEL, "steel.rules"), format="md")
    assert "A’s next action completes after 2 seconds." in sheet
    assert "F is Winded for 1 minute." in sheet
    sheet = rulecraft.sheet(rulecraft.compile(SHOCK, "shock.rules"), format="md")
    assert "A is Shock on Struck for 1 minute." in sheet
    sheet = rulecraft.sheet(rulecraft.compile(DELAY, "delay.rules"), format="md")
    assert "C puts off its action until after Slowest’s." in sheet
    assert "C readies its action, taken as soon as" in sheet
    ulf = tmp_path / "ulf.toml"
    ulf.write_text('name = "Ulf"\npow = 15\nlast_intervention = 3\n', encoding="utf-8")
    fought = CliRunner().invoke(cli, ["fight", str(days), str(ulf), "--day", "8", "--seed", "1"])
    assert fought.exit_code == 0 and "di = divine_intervention: refused" in fought.output
    fought = CliRunner().invoke(cli, ["fight", str(days), str(ulf), "--day", "10", "--seed",
                                      "1", "--runs", "4", "--workers", "1"])
    assert fought.exit_code == 0, fought.output
    bad = CliRunner().invoke(cli, ["run", str(days), "divine_intervention", "p=@" + str(ulf),
                                   "day=soon"])
    assert bad.exit_code == 1 and "a day is a whole number" in bad.output
