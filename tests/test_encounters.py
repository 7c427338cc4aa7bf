"""Encounters (issue 8, first part): whole fights on the rulebook's clock, declared in the rule
language; fighters from TOML files; `rulecraft fight` and `Rulebook.fight`."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

DUEL = """rulebook duel "Duel"
combatant fighter:
  name: name
  speed: 1..20
  state stamina: 0..30 = 10 clamped
encounter duel "A duel to the end" (a: fighter, b: fighter):
  clock tenths "tenths of a second"
  act a at 0
  act b at 0
  turn f:
    let foe = if f == a then b else a
    roll hit = d6
    set foe.stamina = foe.stamina - hit
    delay foe by 2
    act f after f.speed
  ends when a.stamina == 0 or b.stamina == 0
  at most 100 turns
"""


def duel():
    rb = rulecraft.compile(DUEL, "duel.rules")
    return rb, rb.combatant(name="Ann", speed=10), rb.combatant(name="Bob", speed=12)


def turns(result):
    return [(e.value._values["name"], e.detail) for e in result.trace if e.kind == "turn"]


def test_the_party_whose_action_completes_first_takes_the_next_turn():
    rb, ann, bob = duel()
    r = rb.procedures["duel"].run(a=ann, b=bob, dice=[1] * 40)
    # Both ready at 0 (Ann scheduled first). Ann's blow delays Bob's action to 2; Ann next at
    # 10. Bob hits at 2 (Ann's action under way now ends at 12); Bob next at 14. Ann at 12 …
    assert turns(r)[:4] == [("Ann", "at 0 tenths"), ("Bob", "at 2 tenths"),
                            ("Ann", "at 12 tenths"), ("Bob", "at 16 tenths")]


def test_a_defence_lengthens_the_action_under_way_not_a_finished_one():
    rb, ann, bob = duel()
    r = rb.procedures["duel"].run(a=ann, b=bob, dice=[6] * 4)
    delays = [(e.name, e.value, e.detail) for e in r.trace if e.kind == "delay"]
    assert delays[0] == ("foe", 2, "now at 2")


def test_an_encounter_ends_when_its_condition_holds_and_says_when():
    rb, ann, bob = duel()
    r = rb.procedures["duel"].run(a=ann, b=bob, dice=[6, 6, 6, 6])  # Bob 10 -> 4 -> 0
    assert r.outcome == "ended" and dict(r.outcome) == {"time": 12, "turns": 3}
    assert r.combatants["b"].stamina == 0 and bob.stamina == 10


def test_an_encounter_at_its_cap_is_capped_and_with_nobody_to_act_is_idle():
    rb = rulecraft.compile(DUEL.replace("at most 100 turns", "at most 2 turns"), "d.rules")
    ann, bob = rb.combatant(name="Ann", speed=10), rb.combatant(name="Bob", speed=12)
    r = rb.procedures["duel"].run(a=ann, b=bob, dice=[1, 1])
    assert r.outcome == "capped" and r.outcome["turns"] == 2
    idle = rulecraft.compile(DUEL.replace("  act a at 0\n  act b at 0\n", ""), "d.rules")
    r = idle.procedures["duel"].run(a=ann, b=bob)
    assert r.outcome == "idle" and r.outcome["turns"] == 0


def test_odds_of_a_short_encounter_are_exact():
    rb, ann, bob = duel()
    frail = rb.combatant(name="Bob", speed=12, stamina=2)
    # Ann strikes first: a d6 of 2 or more fells Bob at once.
    odds = rb.procedures["duel"].odds(by="turns", a=ann, b=frail)
    assert odds[1] == Fraction(5, 6) and sum(odds.values()) == 1


ROUNDS = """rulebook brawl "Brawl"
combatant pc:
  name: name
  dex_bonus: -4..4
  state hp: 0..20 = 6 clamped
encounter brawl "Brawl" (party: list pc):
  clock rounds
  each round:
    for each c in sort_descending(c.dex_bonus for c in party):
      if c.hp > 0:
        let foe = argmin(o.hp + (if o == c then 100 else 0) for o in party)
        roll damage = d4
        set foe.hp = foe.hp - damage
  ends when count(c.hp > 0 for c in party) <= 1
  at most 20 rounds
"""


def test_a_round_by_round_fight_in_initiative_order():
    # d20: "The combatants will then be ranked from high roll to lowest and attack, in order,
    # each rd." (here ranked by Dex bonus; tests/test_systems_dynamic.py has the roll-offs)
    rb = rulecraft.compile(ROUNDS, "brawl.rules")
    party = [rb.combatant(name="Slow", dex_bonus=0), rb.combatant(name="Quick", dex_bonus=3)]
    r = rb.procedures["brawl"].run(party=party, dice=[4, 2, 3])  # Quick 4, Slow 2, Quick 3
    assert r.outcome == "ended" and r.outcome["rounds"] == 2
    assert (r.combatants["party[0]"].hp, r.combatants["party[1]"].hp) == (0, 4)
    assert [e.value for e in r.trace if e.name == "round"] == [1, 2]


@pytest.mark.parametrize("text, words", [
    ("procedure p (a: fighter):\n  act a at 0\n  outcome o\n", "belong in an encounter"),
    ("encounter e (a: fighter):\n  clock tenths\n  turn f:\n    act f after 1\n"
     "  ends when now > 5\n  at most 5 rounds\n", "write `at most N turns`"),
    ("encounter e (a: fighter):\n  clock tenths\n  turn f:\n    act g after 1\n"
     "  ends when now > 5\n  at most 5 turns\n", "unknown party 'g'"),
    ("encounter e (a: fighter):\n  clock tenths\n  turn f:\n    act f after \"soon\"\n"
     "  ends when now > 5\n  at most 5 turns\n", "a time is a number of tenths"),
])
def test_encounter_mistakes_are_caught_when_compiling(text, words):
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile(DUEL.split("encounter")[0] + text, "e.rules")
    assert words in str(info.value)


def test_a_turn_in_the_past_is_a_rule_error():
    text = DUEL.replace("act f after f.speed", "act f at now - 1")
    rb = rulecraft.compile(text, "d.rules")
    with pytest.raises(rulecraft.RangeError, match="before now"):
        rb.procedures["duel"].run(a=rb.combatant(name="A", speed=5),
                                  b=rb.combatant(name="B", speed=5), dice=[1] * 10)


def test_an_encounter_formats_as_written():
    assert rulecraft.format_rules(DUEL) == DUEL.replace("\ncombatant", "\n\ncombatant").replace(
        "\nencounter", "\n\nencounter")


# ---- Ringing Steel: a duel to the end, and `rulecraft fight` ------------------------------------

def test_a_ringing_steel_duel_runs_until_someone_passes_out_or_dies():
    rb = rulecraft.load("ringing_steel")
    a = rulecraft.read_fighter(rb, "examples/ringing_steel/swordsman.toml")
    b = rulecraft.read_fighter(rb, "examples/ringing_steel/spearman.toml")
    for seed in range(5):
        fight = rb.fight([a, b], seed=seed)
        assert fight.result.outcome == "ended"
        fallen = fight.result.values["fallen"]
        assert any(i in ("Disable", "Sever", "Death", "S Wound")
                   for injuries in fallen.injuries.values() for i in injuries)
        assert rb.fight([a, b], seed=seed).log() == fight.log()


def test_a_wound_slows_the_fighter_who_took_it():
    # "Wounds and fatigue ... slow both through Base Speed": the next attack of a wounded
    # fighter takes longer by the wound's tenths (Types of injury: a Wound adds 4).
    rb = rulecraft.load("ringing_steel")
    a = rulecraft.read_fighter(rb, "examples/ringing_steel/swordsman.toml")
    hurt = rb.combatant(strength=12, dexterity=12, constitution=11, willpower=10,
                        training={"Sword": 5}, weapon="Sword", armour="Standard",
                        injuries={"Chest": ["Wound"]})
    assert hurt.base_speed == a.base_speed + 4


def test_rulecraft_fight_prints_a_log_and_the_fighters_states(tmp_path):
    runner = CliRunner()
    args = ["fight", "ringing_steel", "examples/ringing_steel/swordsman.toml",
            "examples/ringing_steel/spearman.toml", "--seed", "7"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[:3] == ["0", "tenths", "act"]
    assert any("turn    attacker = swordsman" in line for line in lines)
    assert lines[-2].startswith("swordsman: fatigue ") and lines[-1].startswith("spearman: ")
    data = json.loads(runner.invoke(cli, args + ["--json"]).output)
    assert data["outcome"]["name"] == "ended" and data["clock"] == "tenths"
    assert [f["name"] for f in data["fighters"]] == ["swordsman", "spearman"]
    assert runner.invoke(cli, args).output == result.output  # the same seed, the same fight


def test_a_fighter_file_s_mistakes_name_the_file_and_the_field(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('strength = 40\ndexterity = 12\nconstitution = 11\nwillpower = 10\n'
                   'weapon = "Swrod"\narmour = "Standard"\n[training]\nSword = 5\n')
    result = CliRunner().invoke(cli, ["fight", "ringing_steel", str(bad),
                                      "examples/ringing_steel/spearman.toml"])
    assert result.exit_code == 1
    assert f"{bad}: strength must be" in result.output and "weapon" in result.output
    broken = tmp_path / "broken.toml"
    broken.write_text("strength = = 3\n")
    result = CliRunner().invoke(cli, ["fight", "ringing_steel", str(broken), str(broken)])
    assert result.exit_code == 1 and "cannot read the fighter" in result.output
