"""Ringing Steel, part IV: the athletics move-rate table, Wind, the entanglement table, and the
close-quarters fight (`wrestle`) with the shipped fighter files — state carried across a
sequence of procedures: grappling, on the ground, entangled, winded.

Seed: shared/seeds/002_41f740bb26c2da28.txt, lines 231-285, 339-357.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "ringing_steel"


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("ringing_steel")


def load(rb, name):
    return rb.combatant(**tomllib.loads((EXAMPLES / f"{name}.toml").read_text("utf-8")))


# ---- the athletics move-rate table ------------------------------------------------------------

@pytest.mark.parametrize("rate, skill, expected", [
    (3, 0.1, 3), (3, 2.0, 3), (3, 2.1, 3), (3, 4.1, 2), (3, 8.1, 1),   # "3 3 3 2 2 1"
    (6, 2.1, 5), (6, 6.0, 4), (6, 6.1, 3), (6, 9.0, 2),                 # "6 6 5 4 3 2"
    (8, 4.0, 6), (8, 4.1, 6), (8, 6.1, 5),                              # "8 7 6 6 5 4"
    (11, 0.5, 8), (11, 8.0, 6),                                         # "11 8 8 7 6 5"
    (12, 0.1, 9), (12, 2.1, 8), (12, 4.1, 8), (12, 6.1, 7), (12, 12.0, 6),  # "12 9 8 8 7 6"
])
def test_athletic_move_rates_pinned_to_the_seed(rb, rate, skill, expected):
    assert rb.tables["athletic_move_rates"].lookup(rate, skill) == expected


def test_move_rates_outside_the_table(rb):
    f = rb.formulas["athletic_move_rate"]
    assert f(rate=6, athletics=0.0) == 6      # no athletics: the normal rate
    assert f(rate=2, athletics=5.0) == 2      # CHOICE: below the table, kept
    assert f(rate=14, athletics=5.0) == 10    # CHOICE: 12 -> 8, and the 2 over it


def test_athletics_skill_and_wind(rb):
    f = rb.formulas
    # "A combatant has a Wind of Constitution/2, rounding halves down."
    assert (f["wind"](constitution=11), f["wind"](constitution=12)) == (5, 6)
    # "Dexterity is replaced by ( Dexterity + Strength ) / 2 ... an effective armour of 1.0":
    # (12 + 14) / 2 / 4 x ln 5 = 5.23 -> 5.2
    assert f["athletics_skill"](dexterity=12, strength=14, training=4) == pytest.approx(5.2)
    # "a Wind of skill in athletics + (Constitution x ½ ), fractions rounded down after the
    # addition": 5.2 + 7 = 12.2 -> 12; 5.8 + 5.5 = 11.3 -> 11
    assert f["athletic_wind"](athletics=5.2, constitution=14) == 12
    assert f["athletic_wind"](athletics=5.8, constitution=11) == 11


def test_the_brawler_file_moves_and_breathes_as_an_athlete(rb):
    b = load(rb, "brawler")
    # Protection armour: walk 6, run 3; athletics 5.2 (4.1-6.0): walk 4, run 2; Wind 12.
    assert (b.athletics, b.walk, b.run, b.wind) == (pytest.approx(5.2), 4, 2, 12)
    s = load(rb, "swordsman")
    assert (s.athletics, s.walk, s.wind) == (0, 6, 5)


# ---- Wind across a sequence --------------------------------------------------------------------

def test_fatigue_goes_against_the_wind_then_the_limit_and_is_caught_back(rb):
    run = lambda name, **kw: rb.procedures[name].run(dice=[], **kw)  # noqa: E731
    s = load(rb, "swordsman")  # Wind 5
    r = run("take_wind_fatigue", fighter=s, points=4)
    s = r.combatants["fighter"]
    assert (r.outcome, s.wind_taken, s.fatigue) == ("wind", 4, 0)
    # "reduced by one per 20 tenths ... Provided the current amount taken never exceeds the Wind
    # this will continue indefinitely": 45 tenths, 2 points.
    r = run("catch_breath", fighter=s, tenths=45)
    s = r.combatants["fighter"]
    assert (r.outcome["recovered"], s.wind_taken) == (2, 2)
    # "When the Wind is exceeded, the excess fatigue points and all those subsequently taken are
    # counted against the Fatigue Limit": 2 + 5 = 7, 2 over.
    r = run("take_wind_fatigue", fighter=s, points=5)
    s = r.combatants["fighter"]
    assert (r.outcome, r.outcome["over"], s.wind_taken, s.winded, s.fatigue) == (
        "winded", 2, 5, True, 2)
    r = run("take_wind_fatigue", fighter=s, points=1)
    s = r.combatants["fighter"]
    assert (r.outcome, s.fatigue, s.wind_taken) == ("limit", 3, 5)
    # "Fatigue is then as in the normal rules": recovered from the fatigue, not the Wind.
    r = run("catch_breath", fighter=s, tenths=40)
    s = r.combatants["fighter"]
    assert (r.outcome, s.fatigue, s.fatigue_recovered, s.wind_taken) == ("fatigue", 1, 2, 5)


# ---- the entanglement table ---------------------------------------------------------------------

def test_entanglement_table_and_the_timings_it_feeds(rb):
    t = rb.tables["entanglement"]
    whip, net = t.lookup("Whip"), t.lookup("Net")
    assert (whip["free"], whip["action_time"], whip["potentials"]) == (5, 1, 1)
    assert (net["free"], net["action_time"], net["potentials"]) == (10, 5, 3)
    # "This lasts for 10 x ( attack excess + 1 ) tenths"
    assert t.lookup("Whip").lasts(attack_excess=4) == 50
    # "DN Disentangle * + Attack Excess, * = 5 whip, =10 net"
    dn = rb.tables["timings"].lookup("DN")
    assert dn.time(entanglement=5, attack_excess=3) == 8


# ---- the close-quarters fight ---------------------------------------------------------------

def test_a_grab_a_throw_and_the_grapple_on_the_ground(rb):
    # Brawler (hand AP 19, Base Speed 20 - 6.5 - 2 - 5 = 6) against the swordsman (14).
    # 6: grab, d20 20: grappling, the brawler with the advantage. 12: throw, d20 20; the fall:
    # d6 1, d10 5 (reaction), d20 1 (landed well); he follows him down. 14: the swordsman tries to disengage
    # ("the combatant without advantage has his decresed by five"), d20 1: still held.
    b, s = load(rb, "brawler"), load(rb, "swordsman")
    fight = rb.fight([b, s], encounter="wrestle", dice=[20, 20, 1, 5, 1, 1], policy="brawler",
                     until=17)
    calls = [(e["time"], e["name"], e["value"].name) for e in fight.events
             if e["kind"] == "call" and e["name"] != "aftermath"]
    assert calls == [(6, "grabbed", "grappling"), (12, "thrown", "done"), (14, "broke", "held")]
    first, second = fight.fighters
    assert set(fight.conditions(first)) == {"Grappling", "Grapple advantage", "Ground grappling"}
    assert set(fight.conditions(second)) == {"Grappling", "Ground grappling"}
    # "the combatant with advantage must always be making an attack, disengage or throw action":
    # the throw was chosen, and next (on the ground, "no throws are possible") a blow
    assert [e["value"] for e in fight.events if e["kind"] == "choose"] == ["Grab", "Throw"]


def test_wrestling_and_duels_with_the_shipped_unusual_weapons_from_the_command_line():
    runner = CliRunner()
    for args in (["brawler", "swordsman", "--encounter", "wrestle"], ["netman", "spearman"],
                 ["whipman", "swordsman"], ["fencer", "champion"]):
        files = [str(EXAMPLES / f"{n}.toml") for n in args[:2]]
        result = runner.invoke(cli, ["fight", "ringing_steel", *files, *args[2:], "--policy",
                                     "brawler", "--runs", "20", "--workers", "1", "--seed", "5"])
        assert result.exit_code == 0, result.output
        assert "ended: 100.0%" in result.output, result.output


# ---- the pole arm --------------------------------------------------------------------------------

def polearm(rb):
    return rb.combatant(strength=12, dexterity=12, constitution=11, willpower=10,
                        training={"Pole arm": 5}, weapon="Pole arm", armour="Standard")


@pytest.mark.parametrize("dice, passed, outcome, potential", [
    # AP floor(5.4 x 1.4) = 7; the swordsman's PDF 13 "reduced by two": 11
    ([10], False, "blocked", 11),     # 7 + 10 - 11 = 6
    ([3], False, "entered", 11),      # -1: "the opponent is allowed to move into the desired hex"
    ([20], False, "blocked", 11),     # "a roll of 20 always blocking"
    ([], True, "unopposed", None),    # "treated as if coming from an unblocked hex"
])
def test_a_polearm_block(rb, dice, passed, outcome, potential):
    r = rb.procedures["polearm_block"].run(dice=dice, attacker=polearm(rb),
                                           defender=load(rb, "swordsman"), passed=passed)
    assert r.outcome == outcome
    assert r.outcome["block_kept"] is True  # "but the block is not removed"
    if potential is not None:
        assert r.outcome["defence_potential"] == potential


def test_polearm_positions_turns_and_hit_locations(rb):
    f = rb.formulas
    # "When in left or right position it is only possible to change to forward in one action."
    assert f["polearm_change_allowed"](from_position="Left", to_position="Forward") is True
    assert f["polearm_change_allowed"](from_position="Left", to_position="Right") is False
    assert f["polearm_change_allowed"](from_position="Forward", to_position="Right") is True
    # "The time for a turn is that a walk move" (else the run rate: "T* Turn L or R: Run")
    assert f["turn_time"](weapon="Pole arm", walk=6, run=3) == 6
    assert f["turn_time"](weapon="Sword", walk=6, run=3) == 3
    # "Attacks with a polearm are treated as for long, cutting weapons for the purpose of hit
    # location"; the lance "long" too
    assert f["hit_column"](weapon="Pole arm") == "long/cut"
    assert f["hit_column"](weapon="Foot") == "med/stab"
    assert f["hit_column"](weapon="Hand") == "short/stab"


def test_a_skirmish_of_unusual_weapons_two_against_one():
    files = [str(EXAMPLES / f"{n}.toml") for n in ("brawler", "whipman")]
    result = CliRunner().invoke(cli, ["fight", "ringing_steel", *files, "vs",
                                      str(EXAMPLES / "champion.toml"), "--encounter",
                                      "skirmish", "--policy", "brawler", "--runs", "10",
                                      "--workers", "1", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert "ended: 100.0%" in result.output and "side heroes (brawler, whipman)" in result.output
