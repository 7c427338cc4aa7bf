"""Ringing Steel, Procedure and timing and part II Special Situations (slice timing): move and
turn times on the hex grid, reaction times, two weapons' combined base speed, the blocking
attack, active defence lost to a non-target or from behind, and the two-against-one encounter
on the hex grid from the shipped fighter files.

Seed: shared/seeds/002_41f740bb26c2da28.txt. Every expected number is worked by hand.
"""

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

RS = "examples/ringing_steel/"

# Swordsman: Skill 12/4 x ln 6 x 1.0 = 5.375 -> 5.4 (best skill 5.4); Parry-Stab 5.4 x 2.8 + 12
# = 27.12 -> 27; ADF 5.4 x 2 + 16 = 26.8 -> 26.
S = dict(strength=12, dexterity=12, constitution=11, willpower=10, training={"Sword": 5},
         weapon="Sword", armour="Standard")
# Spearman: Skill 11/4 x ln 7 x 1.1 = 5.886 -> 5.9; Anti-Parry 5.9 x 1.8 = 10.62 -> 10.
P = dict(strength=13, dexterity=11, constitution=12, willpower=9, training={"Spear": 6},
         weapon="Spear", armour="Light")


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("ringing_steel")


def test_moving_into_a_front_hex_takes_the_move_rate_and_a_back_hex_twice_it(rb):
    # "To move into a front hex takes a time given by the appropriate move rate. To move into a
    # back hex takes twice this time."
    move = rb.formulas["move_time"]
    assert (move(rate=6, front=True), move(rate=6, front=False), move(rate=3, front=False)) == (
        6, 12, 6)


def test_a_turn_takes_the_run_move_rate_and_twice_it_in_an_obstructed_hex(rb):
    # "To change facing and turn through 60 degrees takes the same time as the run move rate.
    # ... If a hex is obstructed ... turns take twice the usual time."
    turn = rb.formulas["turn_time"]
    assert (turn(run=3), turn(run=3, obstructed=True), turn(run=5)) == (3, 6, 5)


@pytest.mark.parametrize("first, second, combined, second_after", [
    (10, 10, 12, 6),   # average 10, plus two
    (11, 14, 15, 8),   # 12.5 -> 13 ("any halves being rounded up"), plus two; 15/2 -> 8
    (9, 12, 13, 7),    # 10.5 -> 11, plus two; 6.5 -> 7
])
def test_two_weapons_combined_base_speed(rb, first, second, combined, second_after):
    # "a combined base speed is calculated the average of the separate speeds plus two, any
    # halves being rounded up ... those of the second coming being similarly spaced but
    # occurring mid-way between the others, halves again rounded up."
    assert rb.formulas["combined_base_speed"](first=first, second=second) == combined
    assert rb.formulas["second_blow_after"](combined=combined) == second_after
    # "Two is subtracted from the Anti-Parries of both weapons."
    assert rb.formulas["two_weapon_anti_parry"](anti_parry=10) == 8


@pytest.mark.parametrize("d10, time", [(1, 1), (6, 1), (7, 1), (8, 2), (10, 4)])
def test_reaction_time_is_d10_less_best_skill_minimum_one(rb, d10, time):
    # "a reaction time of d10 - Best Skill, minimum one": best skill 5.4; whole tenths rounded
    # down (10 - 5.4 = 4.6 -> 4).
    r = rb.procedures["reaction_time"].run(combatant=rb.combatant(**S), dice=[d10])
    assert r.outcome == "reaction" and r.outcome["time"] == time


def test_reaction_time_exact_odds(rb):
    # d10 1..7 -> 1 (7 - 5.4 = 1.6), 8 -> 2, 9 -> 3, 10 -> 4.
    odds = rb.procedures["reaction_time"].odds(by="time", combatant=rb.combatant(**S))
    assert {k: str(v) for k, v in odds.items()} == {1: "7/10", 2: "1/10", 3: "1/10", 4: "1/10"}


@pytest.mark.parametrize("roll, outcome", [(20, "blocked"), (15, "blocked"), (14, "moved_past"),
                                           (1, "moved_past")])
def test_a_blocking_attack_reduces_the_movers_defence_by_two(rb, roll, outcome):
    # "the blocker makes a 'blocking attack' with the opponent's defence potential being reduced
    # by two. If the 'attack' is successful the opponent is forced to remain in his previous
    # hex ... If the attack fails the opponent moves into the hex and the blocking combatant is
    # no longer in a blocking position ... a roll of 20 always blocking and a roll of l always
    # failing". The spear stabs: the swordsman's best is Parry-Stab 27, less two = 25; Anti-
    # Parry 10 + 15 = 25 blocks, + 14 does not.
    r = rb.procedures["blocking_attack"].run(blocker=rb.combatant(**P, blocking=True),
                                             mover=rb.combatant(**S), dice=[roll])
    assert r.outcome == outcome and r.outcome["defence_potential"] == 25
    assert r.combatants["blocker"].blocking == (outcome == "blocked")


def test_no_active_defence_against_a_non_target_or_from_behind(rb):
    # "An active defence cannot be made if the attacker is behind the defender or if the
    # attacker is not the defender's target. In such cases a Passive Dodge is automatically
    # made": Passive Dodge Factor 5.9 + 8 = 13.9 -> 13 for the spearman.
    attack = rb.procedures["melee_attack"]
    r = attack.run(attacker=rb.combatant(**S), defender=rb.combatant(**P), dice=[2],
                   defence="Parry", active_defence=False)
    assert (r.outcome["defence"], r.outcome["defence_potential"]) == ("Passive Dodge", 13)
    r = attack.run(attacker=rb.combatant(**S), defender=rb.combatant(**P), dice=[2],
                   defence="Parry")
    assert r.outcome["defence"] == "Parry"


def test_two_against_one_on_the_hex_grid_from_the_shipped_files():
    # Issue 18, done when: "A whole Ringing Steel encounter with two fighters against one ...
    # run with `rulecraft fight` from shipped combatant files."
    runner = CliRunner()
    args = ["fight", "ringing_steel", RS + "swordsman.toml", RS + "spearman.toml", "vs",
            RS + "champion.toml", "--encounter", "grid_skirmish", "--seed", "1", "--policy",
            "competent"]
    once = runner.invoke(cli, args)
    assert once.exit_code == 0, once.output
    out = once.output
    # Walking ("WF": Standard armour walks at 6), blocking attacks on stepping into a blocked
    # hex, turning, a reaction time when a target falls, blows.
    assert "swordsman's action completes at 6 (as Walking)" in out
    assert "block = blocking_attack:" in out and "block_roll" in out
    assert "(as Turning)" in out and "reaction = reaction_time:" in out
    assert "blow = melee_attack:" in out
    assert "sides: heroes (swordsman, spearman); foes (champion) — won by" in out
    assert "won by nobody" not in out
    assert once.output == runner.invoke(cli, args).output  # seeded: the same fight


def test_avoid_walks_back_out_of_range(rb):
    # "Avoid: Move back to attempt to remain out of range." ("AV Avoid *F or *B": a Walk Back,
    # WB = 2*WF = 12 in Standard armour.) Both avoid: one hex apart, then two, then three, and
    # one walks back in (WF 6) before closing again.
    fight = rb.fight([rb.combatant(**S), rb.combatant(**S)],
                     choices={"closing": ["Avoid", "Avoid", "Attack", "Attack"]},
                     dice=[5] * 20, until=40, names=["Ann", "Bob"])
    log = fight.log()
    assert "0 Ann          Ann's action completes at 12 (as Avoiding)" in log
    assert "12 Ann          distance = 2" in log and "12 Bob          distance = 3" in log
    assert "Bob's action completes at 18 (as Walking)" in log


def test_changing_weapons(rb):
    # "To draw a weapon or to replace it in its sheath takes a time equal to te combatant's Base
    # Speed with the weapon To drop a weapon takes two tenths. ... to pick up ... two Walk
    # moves. During these moves no active defence can be made."
    table = rb.tables["weapon_changes"]
    assert list(table.key_values()) == ["Draw", "Sheathe", "Drop", "Pick up"]
    times = {k: table.lookup(k).time for k in table.key_values()}
    assert times["Draw"](base_speed=12, walk=6) == 12 and times["Sheathe"](base_speed=9, walk=6) == 9
    assert times["Drop"] == 2 and times["Pick up"](base_speed=12, walk=7) == 14
    assert [table.lookup(k).active_defence for k in ("Drop", "Pick up")] == ["yes", "no"]


def test_close_quarters(rb):
    # "When in close quarters only short range weapons may be used"; "A combatant using a short
    # range weapon may attempt to come into close quarters ... with the attack failing by at
    # least two."
    usable = rb.formulas["usable_at_close_quarters"]
    assert (usable(weapon="Dagger"), usable(weapon="Shield"), usable(weapon="Sword")) == (
        True, True, False)
    enter = rb.formulas["may_enter_close_quarters"]
    assert (enter(weapon="Dagger", excess=-2), enter(weapon="Dagger", excess=-1),
            enter(weapon="Sword", excess=-5)) == (True, False, False)


def test_a_retreat_after_a_stopped_attack_takes_a_walk_back(rb):
    # "A break off can also be achieved by ode combatant making a Retreat action. This consists
    # off two moves back ... It can only occur immediately after an attack has been
    # successfully stopped, when the combatant has the advantage. The time for this action is
    # that for a single Walk Back" (RT: WB, 2 x 6 tenths in Standard armour).
    made = [rulecraft.read_fighter(rb, RS + n + ".toml") for n in ("swordsman", "spearman",
                                                                    "champion")]
    fight = rb.fight([made[:2], made[2:]], encounter="grid_skirmish", seed=1, policy="competent",
                     names=["swordsman", "spearman", "champion"],
                     choices={"retreat": [True] * 400}, until=60)
    log = fight.log()
    assert "27 champion     retreat = yes (by foe, scripted)" in log
    assert "27 champion     swordsman's action completes at 39 (as Retreating)" in log
    # Without the choice (the policy keeps the default) nobody retreats.
    plain = rb.fight([made[:2], made[2:]], encounter="grid_skirmish", seed=1, policy="competent",
                     names=["swordsman", "spearman", "champion"], until=60).log()
    assert "retreat = no" in plain and "(as Retreating)" not in plain


def test_defending_only_against_two_attackers_and_their_attacks_at_one_tenth(rb):
    # "A combatant who is the target of two or more opponents may choose to defend only ... He
    # is then able to make active defences against the attacks of both unless they make attacks
    # at the same time when only one is defended against, chosen at random." Two like swordsmen
    # strike at the champion at the same tenth: a d2 says which one he defends against.
    def swordsman():
        return rulecraft.read_fighter(rb, RS + "swordsman.toml")

    champion = rulecraft.read_fighter(rb, RS + "champion.toml")
    fight = rb.fight([[swordsman(), swordsman()], [champion]],
                     encounter="grid_skirmish", seed=9, policy="competent",
                     names=["ann", "bob", "champion"], choices={"defend_only": [True] * 400},
                     until=330)
    log = fight.log()
    assert "0 champion     champion is Defending only (until ended)" in log
    assert "0 champion     champion's action completes at 1 (as Designating)" in log
    # d2 = 1: Bob's blow is parried, Ann's at the same tenth meets a Passive Dodge.
    lines = log.splitlines()
    at = lines.index("    92 bob          defended = 1")
    assert lines[at + 1] == "    92 bob          ann is Undefended (until ended)"
    assert "defence Parry" in lines[at + 2]
    ann = next(line for line in lines[at:] if line.startswith("    92 ann          blow ="))
    assert "defence Passive Dodge" in ann
    # d2 = 2: the first of the two blows meets the Passive Dodge.
    at = lines.index("   320 ann          defended = 2")
    assert "defence Passive Dodge" in lines[at + 1]
