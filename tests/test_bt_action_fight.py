"""BT chapter 3, the action half: movement modes and forced movement, presses and retreats, the
optional basic rule, a fighter's action on the count clock and whole fights (two fighters and a
melee of four) from the shipped files, pinned to the seed (shared/seeds/000_0f73853bd0a076ff.txt).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "bt"


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("bt")


def fighter(rb, **figures):
    return rb.combatant(**{"weapon": "Mace", "htk": 40, "skill": 80, **figures})


# ---- modes and forced movement -------------------------------------------------------------------

# "In the Defensive mode the character will always retreat when pressed closer than the set
# distance. If the character's opponent moves away the character will hold his(her) position.
# ... In the Offensive mode the character will always advance if the character's opponent leaves
# the set distance ... If the character's opponent advances the character will continue to hold
# ... In Static mode you will attempt to maintain melee distance between you as constant. ... In
# Locked mode you will hold your ground"
@pytest.mark.parametrize("mode,closer,farther", [
    ("Defensive", "Back", "Hold"), ("Offensive", "Hold", "Forward"),
    ("Static", "Back", "Forward"), ("Locked", "Hold", "Hold"),
])
def test_each_mode_moves_as_the_book_says(rb, mode, closer, farther):
    fm = rb.formulas["forced_move"]
    assert (fm(mode, 4, 5), fm(mode, 6, 5), fm(mode, 5, 5)) == (closer, farther, "Hold")


# "When forced to retreat the character rolls a 2d6/2(pre-set initiative)- his SPD/2 ... The
# character may use speed points from RANK in Combat Maneuver to the INIT roll."
def test_the_forced_movement_initiative(rb):
    init = rb.procedures["forced_move_initiative"]
    r = init.run(mover=fighter(rb, spd=3, speed_points=1), dice=[5, 6])
    assert dict(r.outcome)["counts"] == 3               # (11 - 3) / 2 = 4, less a speed point
    r = init.run(mover=fighter(rb, spd=4), dice=[4, 4])
    assert dict(r.outcome)["counts"] == 2               # (8 - 4) / 2
    r = init.run(mover=fighter(rb, spd=12, speed_points=2), dice=[1, 1])
    assert dict(r.outcome)["counts"] == 0


def test_a_defensive_fighter_pressed_walks_back_to_its_set_distance(rb):
    spear = fighter(rb, weapon="Spear", mode="Defensive", distance=7, spd=3)
    r = rb.procedures["forced_movement"].run(mover=spear, other=fighter(rb), dice=[5, 6])
    v = dict(r.outcome)
    assert (r.outcome.name, v["way"], v["counts"]) == ("moving", "Back", 7)   # 4 + 3 ft at 1 ft/ct
    locked = fighter(rb, weapon="Spear", mode="Locked", distance=7)
    assert rb.procedures["forced_movement"].run(mover=locked, other=fighter(rb)).outcome.name == "holds"


# ---- presses and retreats ------------------------------------------------------------------------

# "Presses and Retreats are done by rolling under the Combat Maneuver skill (PCF if no skill
# exists) and comparing the success numbers- for every 20 greater one character has over the
# other he gains one stage ... (Though moving towards your opponent automatically sets you to
# Offensive, and moving away sets you to Defensive)"
def test_a_press_of_two_stages_with_a_spear(rb):
    spear = fighter(rb, weapon="Spear", combat_maneuver=60, distance=10, mode="Defensive")
    other = fighter(rb, pcf=40, distance=10)            # no Combat Maneuver: the PCF
    r = rb.procedures["maneuver"].run(mover=spear, other=other, direction="Press", dice=[10, 35])
    v = dict(r.outcome)
    assert (v["mine"], v["theirs"], v["stages"]) == (50, 5, 2)
    assert v["distance"] == 7                           # two 1½-ft units
    assert r.combatants["mover"].mode == "Offensive"
    assert r.combatants["mover"].stage == "Press 2"
    assert r.combatants["other"].distance == 7


def test_a_retreat_that_gains_nothing_holds_but_still_sets_defensive(rb):
    a, b = fighter(rb, combat_maneuver=50, distance=4.5), fighter(rb, combat_maneuver=50, distance=4.5)
    r = rb.procedures["maneuver"].run(mover=a, other=b, direction="Retreat", dice=[30, 20])
    assert r.outcome.name == "held"
    assert r.combatants["mover"].mode == "Defensive" and r.combatants["mover"].distance == 4.5


# "Let people make a Retreat(PCF) roll. ... Successful retreat puts people out of combat ... Norm
# failed retreat puts people in stage two retreat(-20%, -2)"
def test_the_optional_basic_retreat(rb):
    r = rb.procedures["basic_retreat"].run(mover=fighter(rb, pcf=50), other=fighter(rb), dice=[50])
    assert r.outcome.name == "out" and r.combatants["mover"].stage == "Out"
    r = rb.procedures["basic_retreat"].run(mover=fighter(rb, pcf=50), other=fighter(rb), dice=[51])
    assert r.outcome.name == "retreat_2" and r.combatants["mover"].stage == "Retreat 2"


# ---- a fighter's action --------------------------------------------------------------------------

# "At count X the impact and damage occurs." "It then takes ... X to return to a couched
# position. From a held couched position it would take 3*X/4 to strike!"
def test_an_action_couches_then_strikes_in_three_quarters(rb):
    act = rb.procedures["action"]
    f, foe = fighter(rb), fighter(rb)
    r = act.run(f=f, foe=foe, plan="Couch")
    assert (r.outcome.name, dict(r.outcome)["counts"]) == ("couching", 8)
    r = act.run(f=r.combatants["f"], foe=foe, finished="Couch")
    assert r.combatants["f"].couched
    assert (r.outcome.name, dict(r.outcome)["counts"], dict(r.outcome)["wind_up"]) == ("attacking", 6, 3)


def test_an_attack_completing_strikes_and_starts_recovery(rb):
    f, foe = fighter(rb, swing=8), fighter(rb, htk=100)
    r = rb.procedures["action"].run(f=f, foe=foe, finished="Attack", dice=[95])
    assert r.combatants["f"].recovered_at == 4          # half of 8 from count 0
    assert "strike" in r.explain()


def test_out_of_range_a_fighter_presses_and_makes_no_attack(rb):
    f, foe = fighter(rb, distance=20), fighter(rb, distance=20)
    r = rb.procedures["action"].run(f=f, foe=foe, dice=[90, 90])
    assert "choose movement = Press" in r.explain()
    assert r.outcome.name == "ready" and dict(r.outcome)["counts"] == 1


# "Breaking off an attack is easier in the focus and aim stage"
def test_breaking_off_when_the_foe_is_out_of_reach(rb):
    bo = rb.formulas["breaks_off"]
    assert (bo(False, "Out"), bo(False, "Over 3"), bo(False, "Retreat 3"), bo(True, "Out")) == (
        True, True, False, False)


# ---- whole fights --------------------------------------------------------------------------------

def read(rb, name):
    return rulecraft.read_fighter(rb, str(EXAMPLES / f"{name}.toml"))


def test_a_whole_fight_on_the_count_clock_between_shipped_fighters(rb):
    knight, spear = read(rb, "knight"), read(rb, "spearman")
    fight = rb.fight([knight, spear], seed=1, policy="steady")
    assert fight.result.outcome == "ended"
    assert len(fight.standing()) == 1
    log = fight.log()
    assert "done = action: attacking" in log and "event half_way happens" in log
    assert ".mode = Offensive" in log and ".htk_lost" in log
    again = rb.fight([knight, spear], seed=1, policy="steady")
    assert again.log() == log


def test_the_fight_from_the_command_line_with_runs():
    runner = CliRunner()
    args = ["fight", "bt", str(EXAMPLES / "knight.toml"), str(EXAMPLES / "axeman.toml"),
            "--policy", "steady", "--seed", "3"]
    one = runner.invoke(cli, args)
    assert one.exit_code == 0, one.output
    assert "still standing" in one.output
    many = runner.invoke(cli, args + ["--runs", "20", "--json"])
    assert many.exit_code == 0, many.output
    data = json.loads(many.output)
    assert data["runs"] == 20


def test_a_melee_of_four_on_the_count_clock(rb):
    sides = {"heroes": [read(rb, "knight"), read(rb, "duelist")],
             "foes": [read(rb, "axeman"), read(rb, "spearman")]}
    fight = rb.fight(sides, encounter="melee", seed=2, policy="steady")
    assert fight.result.outcome == "ended"
    assert fight.winner() in ("heroes", "foes")
    assert "aims at" in fight.log()


def test_a_gunman_shoots_regardless_of_stage(rb):
    gun, axe = read(rb, "gunman"), read(rb, "axeman")
    fight = rb.fight([gun, axe], seed=4, policy="steady")
    assert fight.result.outcome == "ended"


# "Attacks against people closing with you at faster than 2 ft/ct can be made at 1/2 WSD (round
# up)." and "For every 5 ft/ct above 5 ft/ct one is moving relative to the target one does an
# extra.5*DAM." A charger at 12 ft/ct: the mace (WSD 8) meets it in 4 counts; its own blow does
# half as much again (12 is 7 over 5: one step of 5) and its charge ends with the blow.
def test_a_charge_is_met_at_half_wsd_and_strikes_harder(rb):
    charger = fighter(rb, weapon="Mace", velocity=12, skill=200)
    stander = fighter(rb, htk=400)
    r = rb.procedures["action"].run(f=stander, foe=charger)
    assert (r.outcome.name, dict(r.outcome)["counts"]) == ("attacking", 4)
    # skill 200 - 40 (moving) - 120 (velocities 12 ft/ct apart) = 40; rolls 10: SL 3; chest; the
    # mace's 3 and 3: 14, half as much again: 21
    r = rb.procedures["action"].run(f=charger, foe=stander, finished="Attack", movement="Hold",
                                    dice=[10, 30, 3, 3, 1, 1, 1, 1])
    trace = r.explain()
    assert "let sl = 3" in trace and "let scale = 1.5" in trace
    assert "rolled = 14" in trace and "let damage = 21" in trace
    assert r.combatants["f"].velocity == 0
