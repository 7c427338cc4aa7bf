"""Issue 15, item 7: the expression constructs the seeds need — local names in formulas, order
on an enum's members, lists filtered, indexed and grouped, a parameter defaulting to dice,
removing a map entry, and recursion down to a declared bound.

Each rule file is a small transcription of the seed passage it quotes."""

from __future__ import annotations

from fractions import Fraction

import pytest

from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.compiler.sheets import render
from rulecraft.runtime.errors import RulecraftError

from samples import HEAD, book, error_of  # tests/samples.py


# ---- local names in formulas: `… where a = …, b = …` --------------------------------------

# RS, Feints: "The detector's skill less his opponent's skill plus a d10 roll is calculated. If
# the result is seven or less then the feint is detected."
FEINT = (
    'formula feint_detected(detector: 0..30, feinter: 0..30, roll: 1..10) "Feint detected" = '
    'result <= 7 where result = difference + roll, difference = detector - feinter\n')


def test_where_names_a_step_of_the_working_and_later_locals_read_earlier_ones():
    rb = book(FEINT)
    f = rb.formulas["feint_detected"]
    assert f(detector=9, feinter=12, roll=10) is True  # 9 - 12 + 10 = 7: "seven or less"
    assert f(detector=9, feinter=12, roll=1) is True
    assert f(detector=12, feinter=9, roll=5) is False  # 8
    assert f.where == (("result", "difference + roll"), ("difference", "detector - feinter"))


def test_where_is_shown_by_show_and_on_sheets_in_words():
    rb = book(FEINT)
    md = render(rb, "md")
    assert "where Result = Difference + Roll" in md
    assert "and Difference = Detector − Feinter" in md
    html = render(rb, "html")
    assert 'class="equation where">where <span class="m-name">Result</span>' in html


def test_where_round_trips_through_the_formatter():
    once = rulecraft.format_rules(HEAD + FEINT)
    assert FEINT in once and rulecraft.format_rules(once) == once


@pytest.mark.parametrize("locals_, line, column, words", [
    ("x = detector + q", 3, 85, "unknown name 'q'"),
    ("x = y + 1, y = x", 3, 70, "worked out from each other in a circle: x → y → x"),
    ("roll = 3", 3, 70, "the local name roll hides the parameter roll of f"),
    ("x = 1, x = 2", 3, 77, "the local name x is given twice in f"),
])
def test_where_errors_name_the_local_at_its_line_and_column(locals_, line, column, words):
    message = error_of('\nformula f(detector: 0..30, feinter: 0..30, roll: 1..10) = roll '
                       f'where {locals_}\n')
    assert f"sample.rules:{line}:{column}: " in message and words in message


def test_a_local_used_in_a_procedure_runs_seeded_scripted_and_in_exact_odds():
    rb = book(FEINT + (
        "procedure detect(detector: 0..30, feinter: 0..30):\n"
        "  roll r = d10\n"
        "  if feint_detected(detector, feinter, r):\n"
        "    outcome detected\n"
        "  outcome missed\n"))
    p = rb.procedures["detect"]
    assert p.run(detector=9, feinter=12, dice=[7]).outcome == "detected"  # 9 - 12 + 7 = 4
    assert p.run(detector=9, feinter=12, dice=[10]).outcome == "detected"  # 7
    assert p.run(detector=15, feinter=12, dice=[5]).outcome == "missed"  # 8
    assert p.odds(detector=15, feinter=12) == {"detected": Fraction(4, 10),
                                                "missed": Fraction(6, 10)}
    assert p.run(detector=9, feinter=9, seed=1).outcome in ("detected", "missed")


# ---- order on an enum's members -----------------------------------------------------------

# RS, Horses: "Horses move at three speeds, Walk, Canter and Gallop. Their speed can only be
# changed up or down one category at a time." ... "if the horse is initially cantering or
# galloping the effect of being forced to move back is to reduce the speed by one category for
# each move. Once the move rate is down to walk, move backs take place normally."
# BT, Hit location modifiers: "These modifiers are shifted down one category if the opponent is
# in motion when the blow lands, and two categories if the opponent is jumping."
HORSE = (
    'enum speed "Speed": Walk, Canter, Gallop\n'
    'enum modifier "Location modifier": "+10%", "+0%", "-10%", "-25%", "-50%", "-100%"\n'
    'formula faster(s: speed) = next(s)\n'
    'formula slower(s: speed) = previous(s)\n'
    'formula place(s: speed) = index(s)\n'
    'formula moving_fast(s: speed) = s > "Walk"\n'
    'formula shifted(m: modifier, jumping: 0..1) = shift(m, if jumping == 1 then 2 else 1)\n'
    'procedure move_back(s: speed):\n'
    '  roll moves = d3\n'
    '  let now_at = shift(s, -moves)\n'
    '  if now_at == "Walk" and s > now_at:\n'
    '    outcome down_to_walk with speed = now_at\n'
    '  outcome still_moving with speed = now_at\n')


def test_next_and_previous_keep_to_the_declared_order_and_stop_at_its_ends():
    f = book(HORSE).formulas
    assert [f["faster"](s=s) for s in ("Walk", "Canter", "Gallop")] == [
        "Canter", "Gallop", "Gallop"]  # one category at a time; no faster than a gallop
    assert [f["slower"](s=s) for s in ("Walk", "Canter", "Gallop")] == [
        "Walk", "Walk", "Canter"]  # "Once the move rate is down to walk"
    assert [f["place"](s=s) for s in ("Walk", "Canter", "Gallop")] == [0, 1, 2]


def test_shift_moves_by_several_places_and_compare_goes_by_the_declared_order():
    f = book(HORSE).formulas
    assert f["shifted"](m="-10%", jumping=0) == "-25%"  # "shifted down one category"
    assert f["shifted"](m="-10%", jumping=1) == "-50%"  # "and two categories if ... jumping"
    assert f["shifted"](m="-50%", jumping=1) == "-100%"  # no category past the last
    assert [f["moving_fast"](s=s) for s in ("Walk", "Canter", "Gallop")] == [False, True, True]


def test_order_runs_scripted_seeded_and_in_exact_odds():
    p = book(HORSE).procedures["move_back"]
    r = p.run(s="Gallop", dice=[1])
    assert (r.outcome, r.outcome["speed"]) == ("still_moving", "Canter")
    assert p.run(s="Gallop", dice=[3]).outcome["speed"] == "Walk"
    assert p.odds(s="Gallop") == {"still_moving": Fraction(1, 3),
                                  "down_to_walk": Fraction(2, 3)}
    assert p.run(s="Canter", seed=5).outcome == "down_to_walk"  # any of d3 takes it to walk
    assert "let now_at = Walk" in p.run(s="Canter", dice=[2]).explain()


def test_order_reads_in_words_on_sheets():
    md = render(book(HORSE), "md")
    assert "**faster** = the one after S in its order" in md
    assert "**place** = the place of S in its order (the first is 0)" in md
    assert "Now At = S moved by (−Moves) places in its order" in md


@pytest.mark.parametrize("rule, column, words", [
    ("formula f(n: 1..3) = next(n)", 27, "next goes by the order of an enum's members, so it "
                                         "needs a member of an enum (such as an injury), not a "
                                         "whole number"),
    ('formula f(s: speed) = s < "Trot"', 27, "'Trot'"),
    ('formula f(s: speed, m: modifier) = s < m', 36, "a speed and a modifier are of two enums"),
    ('formula f(s: speed) = shift(s, "Walk")', 32, "shift moves a member by a whole number"),
])
def test_order_errors_at_their_line_and_column(rule, column, words):
    message = error_of(HORSE + rule + "\n")
    assert f"sample.rules:15:{column}: " in message and words in message


# ---- lists: filtered, indexed, grouped ---------------------------------------------------

# d20 modern, Massive damage and dying: "a character whose hit points drop to 0 ... is
# disabled; at -1 or lower he is dying" — the fighters still standing are those above 0, and a
# party's sides are counted to see "when one side is left".
PARTY = (
    'enum side: Heroes, Villains\n'
    'combatant fighter:\n'
    '  hp: -10..20\n'
    '  team: side\n'
    'procedure strike(a: fighter, b: fighter, c: fighter):\n'
    '  let standing = [x for x in [a, b, c] if x.hp > 0]\n'
    '  let sides = group(x.team for x in standing)\n'
    '  roll pick = d2\n'
    '  let target = standing[pick - 1]\n'
    '  if len(sides) == 1:\n'
    '    outcome one_side_left with hp = standing[-1].hp\n'
    '  outcome struck with hp = target.hp, heroes = count(x for x in standing if x.team == '
    '"Heroes")\n')


def fighters(rb: rulecraft.Rulebook, *figures: tuple[int, str]) -> dict[str, object]:
    return {n: rb.combatant(hp=hp, team=team) for n, (hp, team) in zip("abc", figures)}


def test_a_filtered_list_indexed_from_either_end_and_grouped_by_side():
    rb = book(PARTY)
    p = rb.procedures["strike"]
    party = fighters(rb, (0, "Heroes"), (5, "Heroes"), (7, "Villains"))
    r = p.run(**party, dice=[2])
    assert (r.outcome, r.outcome["hp"], r.outcome["heroes"]) == ("struck", 7, 1)
    assert p.run(**party, dice=[1]).outcome["hp"] == 5
    assert p.odds(**party) == {"struck": 1}
    assert p.run(**party, seed=2).outcome == "struck"
    alone = fighters(rb, (0, "Heroes"), (5, "Villains"), (7, "Villains"))
    r = p.run(**alone, dice=[1])
    assert (r.outcome, r.outcome["hp"]) == ("one_side_left", 7)  # standing[-1]: the last
    assert "let sides = Villains: " in r.explain()


def test_an_index_past_the_end_is_an_error_naming_the_rule_line():
    rb = book(PARTY)
    party = fighters(rb, (0, "Heroes"), (5, "Heroes"), (-1, "Villains"))  # one standing
    with pytest.raises(RulecraftError) as caught:
        rb.procedures["strike"].run(**party, dice=[2])
    message = str(caught.value)
    assert "sample.rules:10:16: standing has no item 1: it holds 1 item (0 is the first, -1 " \
        "the last)" in message


def test_lists_read_in_words_on_sheets():
    md = render(book(PARTY), "md")
    assert "Standing = \\[X for each X in \\[A, B, C\\] if X HP \\> 0\\]" in md
    assert "Sides = each X in Standing, grouped by X Team" in md


@pytest.mark.parametrize("rule, column, words", [
    ('  let first = [a, b][a]', 22, "an item of a list is picked by its position, a whole "
                                    "number (0 is the first, -1 the last), not a fighter"),
    ('  let g = group(x for x in [a, b])', 17, "group's key is a name, a whole number or "
                                                "yes/no, not a fighter"),
    ('  let s = [x for x in [a, b] if x.hp]', 33, "a condition must be yes or no"),
])
def test_list_errors_at_their_line_and_column(rule, column, words):
    text = PARTY.replace("  roll pick = d2\n", rule + "\n  roll pick = d2\n")
    message = error_of(text)
    assert f"sample.rules:9:{column}: " in message and words in message


# ---- a parameter defaulting to dice ------------------------------------------------------

# RQ3 house rules, Impale: "Does full weapon damage plus one rolled weapon damage; so a long
# spear (1d10+1) does 11+1d10+1 = d10+12 damage on an impale."
IMPALE = (
    'formula impale_dice(weapon: dice = d10 + 1) "Impale" = weapon + maximum(weapon)\n'
    'procedure impale(weapon: dice = d10 + 1):\n'
    '  roll damage = weapon + maximum(weapon)\n'
    '  outcome done with damage = damage\n')


def test_a_dice_parameter_takes_its_default_when_not_given():
    rb = book(IMPALE)
    p = rb.procedures["impale"]
    assert p.run(dice=[1]).outcome["damage"] == 13  # 11 + 1 + 1: "11+1d10+1"
    assert p.run(weapon=rulecraft.dice("d8"), dice=[1]).outcome["damage"] == 9  # 8 + 1
    odds = p.odds()
    assert set(odds) == {"done"}
    assert p.run(seed=4).outcome["damage"] in range(13, 23)
    assert str(rb.formulas["impale_dice"]()) == "d10 + 12"  # "= d10+12 damage on an impale"


def test_a_dice_default_is_shown_and_printed_on_sheets():
    rb = book(IMPALE)
    assert "Weapon dice, if not given d10 + 1" in render(rb, "md")
    assert rb.procedures["impale"].params[0].default == rulecraft.dice("d10+1")


@pytest.mark.parametrize("rule, column, words", [
    ("procedure p(weapon: dice = d10 + x):\n  outcome done\n", 28, "dice such as 2d6 for a "
                                                                  "parameter of dice"),
    ("procedure p(n: 1..3 = 2d6):\n  outcome done\n", 23, "a default is written as a plain "
                                                           "value"),
])
def test_a_default_that_is_not_dice_written_out_is_an_error(rule, column, words):
    message = error_of(rule)
    assert f"sample.rules:2:{column}: " in message and words in message


# ---- removing a map entry ----------------------------------------------------------------

# RQ3 house rules, Impale: "Impaling weapons are stuck in the wound (which then cannot be
# healed) unless the attacker rolls 1/5 of their raw ... skill immediately. ... Victims may
# withdraw impaling weapon by rolling (STR+CON-weapon ENC)x2% or less".
STUCK = (
    'enum location: Head, Chest, Arm, Leg\n'
    'combatant victim:\n'
    '  str: 3..21\n'
    '  con: 3..21\n'
    '  state stuck: map location -> 0..10\n'
    'procedure withdraw(v: victim, where: location, enc: 0..10):\n'
    '  set v.stuck["Chest"] = enc\n'
    '  set v.stuck[where] = enc\n'
    '  roll d = d100\n'
    '  if d <= (v.str + v.con - enc) * 2:\n'
    '    remove where from v.stuck\n'
    '    outcome withdrawn with still_stuck = len(v.stuck)\n'
    '  outcome stuck with still_stuck = len(v.stuck)\n')


def test_remove_takes_an_entry_out_of_a_map_in_every_dice_mode():
    rb = book(STUCK)
    p = rb.procedures["withdraw"]
    v = rb.combatant(str=12, con=13)
    r = p.run(v=v, where="Arm", enc=5, dice=[40])  # 40 <= (12 + 13 - 5) x 2
    assert (r.outcome, r.outcome["still_stuck"]) == ("withdrawn", 1)  # the chest's is left
    assert "change v.stuck = Chest: 5 (remove Arm)" in r.explain()
    assert p.run(v=v, where="Arm", enc=5, dice=[41]).outcome["still_stuck"] == 2
    assert p.run(v=v, where="Chest", enc=5, dice=[1]).outcome["still_stuck"] == 0
    assert p.odds(v=v, where="Arm", enc=5) == {"withdrawn": Fraction(40, 100),
                                               "stuck": Fraction(60, 100)}
    assert p.run(v=v, where="Arm", enc=5, seed=7).outcome in ("withdrawn", "stuck")


def test_remove_reads_in_words_on_sheets_and_round_trips():
    assert "Take the Where entry out of V’s Stuck." in render(book(STUCK), "md")
    once = rulecraft.format_rules(HEAD + STUCK)
    assert "    remove where from v.stuck\n" in once and rulecraft.format_rules(once) == once


@pytest.mark.parametrize("step, column, words", [
    ("  remove where from v.str\n", 21, "str is a characteristic"),
    ("  remove 3 from v.stuck\n", 10, "stuck is looked up by a location, not a whole number"),
    ('  remove "Foot" from v.stuck\n', 10, "unknown location 'Foot'"),
])
def test_remove_errors_at_their_line_and_column(step, column, words):
    message = error_of(STUCK.replace("  roll d = d100\n", step + "  roll d = d100\n"))
    assert f"sample.rules:10:{column}: " in message and words in message


# ---- `rulecraft show` ------------------------------------------------------------------------


def test_show_prints_locals_and_dice_defaults(tmp_path):
    path = tmp_path / "sample.rules"
    path.write_text(HEAD + FEINT + IMPALE)
    shown = CliRunner().invoke(cli, ["show", str(path), "feint_detected"])
    assert shown.exit_code == 0
    assert "    = result <= 7\n    where result = difference + roll\n" \
        "          difference = detector - feinter" in shown.output
    shown = CliRunner().invoke(cli, ["show", str(path), "impale"])
    assert "impale(weapon: dice = d10 + 1)" in shown.output


# ---- recursion down to a declared bound ---------------------------------------------------

# BT, Falling: "Falling is very dangerous- here is a chart showing velocities and distances at
# various counts." — and RQ3 house rules, Knockback: "1d6 damage per m remaining to be traveled
# if anything is hit along the way": damage for each stage of a fall, the rest of the fall the
# same rule again, shorter.
FALL = (
    'procedure fall(height: 0..30):\n'
    '  roll hurt = d6\n'
    '  if height >= 10:\n'
    '    call rest = fall(height - 10)\n'
    '    outcome landed with damage = hurt + rest.damage\n'
    '  outcome landed with damage = hurt\n')


def test_a_procedure_calling_itself_on_a_smaller_argument_runs_in_every_dice_mode():
    p = book(FALL).procedures["fall"]
    r = p.run(height=25, dice=[1, 2, 3])  # 25, 15, 5: three stages
    assert r.outcome["damage"] == 6
    assert [e.depth for e in r.trace if e.kind == "roll"] == [0, 1, 2]
    three_d6 = p.odds(height=20, by="damage")
    assert three_d6[3] == Fraction(1, 216) and three_d6[10] == Fraction(1, 8)
    assert p.odds(height=5) == {"landed": 1}
    assert p.run(height=30, seed=2).outcome["damage"] in range(4, 25)


def test_two_procedures_calling_each_other_down_to_a_bound():
    rb = book(
        'procedure tumble(height: 0..30):\n'
        '  outcomes:\n'
        '    stopped with stages\n'
        '  if height >= 5:\n'
        '    call more = roll_on(height - 5)\n'
        '    outcome stopped with stages = more.stages + 1\n'
        '  outcome stopped with stages = 0\n'
        'procedure roll_on(left: 0..30):\n'
        '  roll d = d6\n'
        '  if d <= 3:\n'
        '    outcome stopped with stages = 0\n'
        '  call more = tumble(left - 1)\n'
        '  outcome stopped with stages = more.stages\n')
    p = rb.procedures["tumble"]
    assert p.run(height=12, dice=[6, 6]).outcome["stages"] == 2  # 12, 6 (roll 6), 1
    assert p.odds(height=12, by="stages") == {1: Fraction(1, 2), 2: Fraction(1, 2)}


def test_a_call_past_the_declared_bound_is_an_error_where_it_is_made():
    p = book(FALL.replace("if height >= 10:", "if height >= 5:")).procedures["fall"]
    with pytest.raises(RulecraftError) as caught:
        p.run(height=5, dice=[1, 1])
    assert "height must be a whole number from 0 to 30; got -5" in str(caught.value)


def test_recursion_is_bounded_by_nesting_depth_when_the_rule_runs():
    p = book('procedure down(n: 0..1000):\n'
             '  if n > 0:\n'
             '    call rest = down(n - 1)\n'
             '    outcome done\n'
             '  outcome done\n').procedures["down"]
    assert p.run(n=40).outcome == "done"
    for attempt in (lambda: p.run(n=60), lambda: p.odds(n=60)):
        with pytest.raises(RulecraftError) as caught:
            attempt()
        assert "sample.rules:4:5: procedures call one another more than 50 deep here " \
            "(limit nesting_depth" in str(caught.value)


@pytest.mark.parametrize("call", ["fall(height + 10)", "fall(height)", "fall(10)",
                                  "fall(height - 0)"])
def test_a_circle_without_a_parameter_shrinking_stays_an_error(call):
    message = error_of(FALL.replace("fall(height - 10)", call))
    assert "sample.rules:2:1: these procedures call each other in a circle (a run must end): " \
        "fall → fall; a call round it may pass a whole-number parameter less than the " \
        "caller's" in message


def test_the_reference_examples_compile():
    from pathlib import Path
    import re

    text = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text("utf-8")
    blocks = re.findall(r"```(?:rulecraft)?\n(.*?)```", text, re.S)

    def block(starting: str) -> str:
        return next(b for b in blocks if starting in b)

    rb = book(block("formula feint_detected") + block("procedure fall(") +
              block("procedure impale("))
    assert rb.formulas["feint_detected"](detector=9, feinter=12, roll=10) is True
    assert rb.procedures["fall"].run(height=25, dice=[1, 2, 3]).outcome["damage"] == 6
    assert rb.procedures["impale"].run(dice=[1]).outcome["damage"] == 13
