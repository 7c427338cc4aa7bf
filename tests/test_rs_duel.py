"""Ringing Steel's duel (issue 8): the `duel` encounter of rulebooks/ringing_steel.rules played
with scripted dice, each test pinning one timing rule of the seed to the tenth."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

SWORDSMAN = dict(strength=12, dexterity=12, constitution=11, willpower=10,
                 training={"Sword": 5, "Shield": 4}, weapon="Sword", armour="Standard")


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("ringing_steel")


def fighters(rb):
    return (rulecraft.read_fighter(rb, "examples/ringing_steel/swordsman.toml"),
            rulecraft.read_fighter(rb, "examples/ringing_steel/spearman.toml"))


def blows_of(fight):
    """The fight's blows (each a call of melee_attack; blow_aftermath reads what each left)."""
    return [e for e in fight.events if e["kind"] == "call" and e["procedure"] == "melee_attack"]


def lines(fight):
    """The log's event lines as (time, who, what)."""
    found = []
    for line in fight.log().splitlines():
        if line.startswith(("ended:", "still standing:")) or ": fatigue" in line:
            continue
        time, _, rest = line.strip().partition(" ")
        who, _, what = rest.strip().partition(" ")
        found.append((int(time), who, what.strip()))
    return found


def turns(fight):
    return [(e["time"], fight.name(e["value"])) for e in fight.events if e["kind"] == "turn"]


def test_closing_attacks_land_at_their_time_and_a_wound_lengthens_the_action_under_way(rb):
    # "AT Attack: Base speed + WF - 3 ... The move is made two tenths before the full time and
    # the attack at the end of it": the spearman (Base Speed 13, walk 6) attacks at 16, the
    # swordsman (14, 6) would at 17. The spearman's blow (d20 15, location d10 6: Chest) is a
    # Serious Wound: "Adds eight tenths to the current action", and "The combatant without the
    # advantage has a two tenths dead time added to the time for his current or newly staring
    # action": the swordsman's attack lands at 17 + 8 + 2 = 27.
    sw, sp = fighters(rb)
    fight = rb.fight([sw, sp], dice=[15, 6, 3, 3, 3, 2, 2, 2, 2, 2], until=28)
    assert turns(fight)[:5] == [(0, "first"), (0, "second"), (14, "second"), (15, "first"),
                                (16, "second")]
    blow = next(e for e in blows_of(fight))
    assert (blow["time"], blow["value"].name, blow["value"]["wound"]) == (16, "hit", "S Wound")
    assert [(e["kind"], e["value"], e["detail"]) for e in fight.events
            if e["kind"] in ("delay", "lengthen") and e["time"] == 16] == [
        ("delay", 0, "now at 17"), ("lengthen", 8, "now at 25"), ("delay", 2, "now at 27")]
    # "After receiving one a combatant must make a Saving Throw against Will Power": 3d6 of 9
    # against Will Power 10, made; he fights on.
    after = next(e for e in fight.events if e["kind"] == "call" and e["procedure"] == "blow_aftermath")
    assert [(d["name"], d["value"]) for d in after["dice"]] == [("throw", 9)]
    assert not any(e["kind"] == "give" and e["value"] == "Passed out" for e in fight.events)
    assert turns(fight)[5] == (27, "first")


def test_a_defence_delays_the_defender_and_a_stopped_blow_costs_the_attacker_dead_time(rb):
    # Policy competent: the slower swordsman (Base Speed 14 to 13) Waits, "Add two to defence
    # potential against opponent's first attack", and parries with his shield (the better of
    # parry and dodge): 28 + 2. "A modifier of two tenths is used for shield parries": he has
    # no action under way (he waits), so it goes on the one he starts, as the attacker's two
    # tenths of dead time ("The combatant without the advantage") go on his.
    sw, sp = fighters(rb)
    fight = rb.fight([sw, sp], dice=[5, 2, 2, 2, 2, 2], policy="competent", until=20)
    assert [e["value"] for e in fight.events if e["kind"] == "choose"] == ["Wait", "Attack"]
    blow = next(e for e in blows_of(fight))
    assert (blow["time"], blow["value"].name) == (16, "parried")
    assert (blow["value"]["defence_potential"], blow["value"]["defender_delay"]) == (30, 2)
    assert [(fight.name(e["party"]), e["value"], e["detail"]) for e in fight.events
            if e["kind"] == "delay" and e["value"]] == [
        ("first", 2, "added to the next action"), ("second", 2, "added to the next action")]
    # The swordsman fights back at once, two tenths later, and strikes after his Base Speed
    # ("SK Strike: Base speed"); the spearman's next blow comes at 16 + 13 + 2.
    acts = [(e["time"], fight.name(e["party"]), e["value"]) for e in fight.events
            if e["kind"] == "act" and e["time"] >= 16]
    assert acts == [(16, "first", 18), (16, "second", 31), (18, "first", 32)]


def test_two_simultaneous_attacks_both_land_with_two_added_and_no_active_defence(rb):
    # "When two combatants attack each other at the same time, they are unable to defend
    # properly. Active Dodges and parries with the attacking weapon are not possible. Two is
    # added to the Anti-Parry of each for the attack." Two like swordsmen without shields both
    # attack at 17; the competent policy would parry, but neither can.
    ann = rb.combatant(**SWORDSMAN)
    bob = rb.combatant(**SWORDSMAN)
    fight = rb.fight([ann, bob], dice=[5, 6, 7, 6], policy="competent", until=20,
                     names=["ann", "bob"])
    blows = [e for e in blows_of(fight)]
    assert [(b["time"], fight.name(b["who"]), b["value"]["defence"]) for b in blows] == [
        (17, "ann", "Passive Dodge"), (17, "bob", "Passive Dodge")]
    inside = [(e.name, e.value) for e in fight.result.trace
              if e.depth == 1 and e.name in ("anti_parry", "defence")]
    # The choice made (Parry), refused ("Passive Dodge"), then Anti-Parry 10 + 2, for each.
    assert inside == [("defence", "Parry"), ("defence", "Passive Dodge"), ("anti_parry", 12)] * 2
    # Both blows are L Wounds: each fighter's next attack is 14 + 2 (the wound) + 2 (dead time)
    # + 2 (the wound on the action under way, or carried to the one starting) later.
    assert [(e["time"], e["value"]) for e in fight.events if e["kind"] == "act"
            and e["time"] == 17] == [(17, 31), (17, 35)]
    assert sorted(t for t, _ in turns(fight)) == [0, 0, 15, 15, 17, 17]
    # With a shield the one struck may still parry, and its two tenths go on the next action:
    # "any modifiers for parrying with shield ... is added to the time for the next action".
    shielded = rb.fight([ann, rb.combatant(**SWORDSMAN, shield=True)], dice=[5, 7, 6],
                        policy="competent", until=20, names=["ann", "bob"])
    first = next(e for e in blows_of(shielded))
    assert first["value"]["defence"] == "Parry" and first["value"]["defender_delay"] == 2
    assert (first["time"], first["value"].name) == (17, "parried")
    assert any(e["kind"] == "delay" and e["value"] == 2 and
               e["detail"] == "added to the next action" for e in shielded.events)


def test_closing_actions_give_their_bonuses_to_the_first_attack_only(rb):
    # "Wait: Let opponent make first attack, making no move. Add two to defence potential
    # against opponent's first attack." "Charge: ... Adds three to Anti-Parry to own first
    # attack. Subtracts three from defence potential against opponent's first attack."
    sw, sp = fighters(rb)
    fight = rb.fight([sw, sp], dice=[2] * 12, choices={"closing": ["Wait", "Charge"]}, until=40)
    first, second = [e for e in blows_of(fight)][:2]
    # The spearman charges: his Anti-Parry 9 + 3 against the waiting swordsman's passive dodge
    # 13 + 2.
    anti = [e.value for e in fight.result.trace if e.depth == 1 and e.name == "anti_parry"]
    assert anti[:2] == [12, 10]
    assert first["value"]["defence_potential"] == 15
    # The swordsman, waiting, fights back once the first attack is made; against the charger
    # (passive dodge 13 - 3) ...
    assert fight.name(second["who"]) == "first" and second["value"]["defence_potential"] == 10
    # ... and the bonuses are spent: the next blows are plain.
    third = [e for e in blows_of(fight)][2]
    assert third["value"]["defence_potential"] == 13


def test_a_dodge_opens_the_distance_and_the_fighter_with_the_advantage_closes_again(rb):
    # "When a defender dodges, he moves one hex to the back"; "Movement due to dodging need not
    # result in a break off as the combatant with the advantage can immediately move back into
    # range." The swordsman dodges the spearman's blow (d20 2: stopped, so he has the
    # advantage); the dodge d6 sends him back.
    sw, sp = fighters(rb)
    dodge = ["Active Dodge"] + ["Passive Dodge"] * 5
    pressing = rb.fight([sw, sp], dice=[2, 1] + [2] * 10, choices={"defence": dodge}, until=30)
    distances = [e["value"] for e in pressing.events if e["kind"] == "let" and
                 e["name"] == "distance"]
    assert distances[:3] == [1, 2, 1]
    # Without closing in, both are out of reach: they break off and close again.
    apart = rb.fight([sw, sp], dice=[2, 1] + [2] * 10,
                     choices={"defence": dodge, "close_in": [False]}, until=40)
    assert [e["value"] for e in apart.events if e["kind"] == "let" and e["name"] in
            ("distance", "engaged")][:5] == [1, False, True, 2, False]
    assert [e["value"] for e in apart.events if e["kind"] == "choose" and
            e["name"] == "closing"][2:3] == ["Attack"]


def test_fatigue_is_recovered_one_point_per_twenty_tenths_when_not_attacking(rb):
    # "When not performing any of the above, fatigue points are recovered at a rate of one per
    # twenty tenths." A tired swordsman walking in from sixteen hexes apart recovers at 20 and
    # 40; once his attack is under way (from 42) he no longer does.
    sw, sp = fighters(rb)
    tired = [rb.combatant(**dict(SWORDSMAN, fatigue=5)), sp]
    fight = rb.fight(tired, dice=[2] * 20, settings={"apart": 16}, until=65)
    ticks = [e["time"] for e in fight.events if e["kind"] == "tick"]
    assert ticks == [20, 40, 60]
    # The clock's own changes (the blows' show too, under their procedures' names).
    changes = [(e["time"], e["name"], e["value"]) for e in fight.events
               if e["kind"] == "change" and e["name"].startswith("f.")]
    assert changes == [(20, "f.fatigue", 4), (20, "f.fatigue_recovered", 1),
                       (40, "f.fatigue", 3), (40, "f.fatigue_recovered", 2)]
    assert fight.fighters[0].fatigue == 4  # 3, and a point for the attack he made


def test_a_failed_saving_throw_ends_the_fight_and_dead_fights_on(rb):
    # "If this fails the combatant will pass out": 3d6 of 18 against Will Power 10.
    sw, sp = fighters(rb)
    out = rb.fight([sw, sp], dice=[15, 6, 6, 6, 6])
    assert out.result.outcome == "ended" and out.result.outcome["time"] == 16
    assert [out.name(f) for f in out.standing()] == ["second"]
    assert "Passed out" in out.conditions(out.fighters[0])
    assert out.log().splitlines()[-3] == "still standing: second"
    # `until = "dead"`: the fight goes on against a fighter who makes no action ("a defence
    # potential of zero is used") until one is dead.
    dead = rb.fight([sw, sp], dice=[15, 6, 6, 6, 6] + [10, 6] * 20, until="dead")
    assert dead.result.outcome == "ended"
    assert "Dead" in dead.conditions(dead.fighters[0])
    later = [e for e in blows_of(dead)][2:]
    assert later and all(e["value"]["defence"] == "No Action" for e in later)


def test_fight_until_a_time_or_a_name_from_the_command_line():
    runner = CliRunner()
    base = ["fight", "ringing_steel", "examples/ringing_steel/swordsman.toml",
            "examples/ringing_steel/spearman.toml", "--seed", "5", "--json"]
    timed = json.loads(runner.invoke(cli, base + ["--until", "10"]).output)
    assert timed["outcome"]["name"] == "capped" and timed["outcome"]["values"]["time"] == 10
    dead = runner.invoke(cli, base + ["--until", "dead", "--policy", "competent"])
    assert dead.exit_code == 0, dead.output
    data = json.loads(dead.output)
    assert any("Dead" in f["conditions"] for f in data["fighters"])
    bad = runner.invoke(cli, base[:-1] + ["--until", "sideways"])
    assert bad.exit_code == 1 and "until must be one of out, dead" in bad.output
    assert "Traceback" not in bad.output


def test_set_strikes_one_tenth_after_the_opponent_comes_in_reach_or_after_its_base_time(rb):
    # "Set: Make no move but prepare to attack as soon as opponent is in range. Attack made
    # after base time or one tenth after opponent comes in range, whichever is later. Takes one
    # tenth." Two hexes apart: the spearman's Attack moves him into reach at 14 (its move two
    # tenths before its blow at 16); the swordsman set at 0 (Base Speed 14) strikes at 15.
    sw, sp = fighters(rb)
    fight = rb.fight([sw, sp], dice=[2] * 6, choices={"closing": ["Set", "Attack"]},
                     settings={"apart": 2}, until=16)
    blows = [(e["time"], fight.name(e["who"])) for e in blows_of(fight)]
    assert blows == [(15, "first"), (16, "second")]
    moved = [(e["time"], e["value"]) for e in fight.events if e["kind"] == "let" and
             e["name"] == "distance"]
    assert moved == [(0, 2), (14, 1)]


def test_defend_moves_a_hex_and_waits_on_guard(rb):
    # "Defend: Move one hex and let opponent make first attack. Add two to defence potential
    # against opponent's first attack. Time is Walk Move Rate."
    sw, sp = fighters(rb)
    fight = rb.fight([sw, sp], dice=[2] * 6, choices={"closing": ["Defend", "Attack"]},
                     settings={"apart": 2}, until=29)
    moved = [(e["time"], e["value"]) for e in fight.events if e["kind"] == "let" and
             e["name"] == "distance"]
    assert moved == [(0, 2), (6, 1)]
    first = next(e for e in blows_of(fight))
    assert (first["time"], fight.name(first["who"])) == (16, "second")
    assert first["value"]["defence_potential"] == 13 + 2
    # He fights back once it is made: a strike after his Base Speed (14), from 16.
    assert [(e["time"], e["value"]) for e in fight.events if e["kind"] == "act" and
            fight.name(e["party"]) == "first"][-1] == (16, 30)


def test_the_fighter_files_serve_run_and_odds_too(tmp_path):
    # The example fighters are TOML; `run` and `odds` read `party=@file` as `fight` reads them.
    runner = CliRunner()
    args = ["attacker=@examples/ringing_steel/swordsman.toml",
            "defender=@examples/ringing_steel/spearman.toml"]
    done = runner.invoke(cli, ["run", "ringing_steel", "melee_attack", *args, "--dice", "8,3"])
    assert done.exit_code == 0, done.output
    assert done.output.splitlines()[0] == "hit"
    odds = runner.invoke(cli, ["odds", "ringing_steel", "melee_attack", *args, "--json"])
    assert odds.exit_code == 0
    assert {"outcome": "hit", "probability": "9/10", "percent": 90.0} in json.loads(odds.output)
    bad = tmp_path / "bad.toml"
    bad.write_text("strength = = 3\n")
    refused = runner.invoke(cli, ["run", "ringing_steel", "melee_attack", f"attacker=@{bad}",
                                  args[1]])
    assert refused.exit_code == 1 and "cannot read combatant attacker" in refused.output
    assert "Traceback" not in refused.output
