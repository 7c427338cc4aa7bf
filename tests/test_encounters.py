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
    # Both due at 0 (Ann scheduled first). Bob's action completes at 0 too, so the 2 tenths
    # Ann's blow costs him go on his next action; Ann next at 10. Bob hits at 0 (Ann's action
    # under way now ends at 12); Bob next at 0 + 12 + 2. Ann at 12 delays him to 16 …
    assert turns(r)[:4] == [("Ann", "at 0 tenths"), ("Bob", "at 0 tenths"),
                            ("Ann", "at 12 tenths"), ("Bob", "at 16 tenths")]


def test_a_delay_lengthens_the_action_under_way_and_a_finished_one_s_successor():
    # "The combatant without the advantage has a two tenths dead time added to the time for his
    # current or newly staring action": an action completing at this very time is done, so the
    # delay goes on the next one (`lengthen` would add nothing).
    rb, ann, bob = duel()
    r = rb.procedures["duel"].run(a=ann, b=bob, dice=[6] * 4)
    delays = [(e.name, e.value, e.detail) for e in r.trace if e.kind == "delay"]
    assert delays[:2] == [("foe", 2, "added to the next action"), ("foe", 2, "now at 12")]
    acts = [(e.value, e.detail) for e in r.trace if e.kind == "act"]
    assert acts[3] == (14, "tenths, 2 carried")


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
    # Ann strikes first: a d6 of 2 or more fells Bob at once — after his own blow, due at the
    # same time (two turns).
    odds = rb.procedures["duel"].odds(by="turns", a=ann, b=frail)
    assert odds[2] == Fraction(5, 6) and sum(odds.values()) == 1 and 1 not in odds


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
        fight = rb.fight([a, b], seed=seed, policy="competent")
        assert fight.result.outcome == "ended"
        fallen = [f for f in fight.fighters if "Passed out" in fight.conditions(f)]
        assert fallen and len(fight.standing()) == 2 - len(fallen)
        # Out from a wound (a Serious one with its throw failed) or from fatigue (a throw at
        # the Fatigue Limit failed).
        assert all(any(i in ("Disable", "Sever", "Death", "S Wound")
                       for injuries in f.injuries.values() for i in injuries)
                   or f.fatigue >= f.fatigue_limit for f in fallen)
        assert rb.fight([a, b], seed=seed, policy="competent").log() == fight.log()


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
    # time, who, what: the encounter's own values first, then each fighter's actions.
    assert lines[0].split() == ["0", "distance", "=", "1"]
    assert any(line.split()[1] in ("swordsman", "spearman") and line.split()[2:4] == [
        "blow", "="] and "dice: attack_roll" in line for line in lines)
    assert lines[-3].startswith("still standing: ")
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
    assert f"{bad}:1: strength must be" in result.output  # the file, the line, the field
    assert f"{bad}:5: weapon must be" in result.output
    broken = tmp_path / "broken.toml"
    broken.write_text("strength = = 3\n")
    result = CliRunner().invoke(cli, ["fight", "ringing_steel", str(broken), str(broken)])
    assert result.exit_code == 1 and "cannot read the fighter" in result.output


# ---- decisions: policies by name, scripts for tests ---------------------------------------------

POLICIES = """rulebook p "P"
combatant fighter:
  skill: 1..20
procedure defend (a: fighter):
  choose how by a from ["Parry", "Dodge", "Nothing"] default (if a.skill > 10 then "Parry" else "Dodge")
  outcome done with (how = how)
policy reckless "Takes every blow":
  how = "Nothing"
policy cunning "Dodges when nimble":
  how = if a.skill > 15 then "Dodge" else "Parry"
"""


def test_a_policy_by_name_decides_and_the_default_is_the_rule_s_own():
    # "Decisions are asked of a policy ... Each rulebook ships a sensible default policy ...
    # a user picks another by name; a fight can be scripted (a list of decisions) for tests."
    rb = rulecraft.compile(POLICIES, "p.rules")
    defend, a, b = rb.procedures["defend"], rb.combatant(skill=12), rb.combatant(skill=17)
    assert defend.run(a=a).outcome["how"] == "Parry"
    assert defend.run(a=a, policy="reckless").outcome["how"] == "Nothing"
    assert defend.run(a=b, policy="cunning").outcome["how"] == "Dodge"
    assert defend.run(a=a, how=["Dodge"]).outcome["how"] == "Dodge"
    with pytest.raises(rulecraft.RangeError, match="did you mean 'cunning'"):
        defend.run(a=a, policy="cunnin")
    assert defend.odds(a=a, policy="reckless") == {"done": 1}


@pytest.mark.parametrize("line, words", [
    ("  hw = \"Parry\"\n", "did you mean 'how'"),
    ("  how = 3\n", "policy bad answers how with a whole number"),
    ("  how = \"Pary\"\n", "did you mean 'Parry'"),
])
def test_a_policy_is_checked_against_the_choices_it_answers(line, words):
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile(POLICIES + 'policy bad "Bad":\n' + line, "p.rules")
    assert words in str(info.value)


def test_scripted_decisions_are_made_in_order_and_run_out_clearly():
    rb = rulecraft.compile(POLICIES.replace(
        "procedure defend (a: fighter):\n  choose how",
        "procedure defend (a: fighter):\n  choose first by a from [1, 2] default 1\n  choose how"),
        "p.rules")
    with pytest.raises(rulecraft.RangeError, match="scripted decisions for first ran out"):
        rb.procedures["defend"].run(a=rb.combatant(skill=3), first=[])


def test_ringing_steel_ships_a_competent_policy():
    rb = rulecraft.load("ringing_steel")
    a = rulecraft.read_fighter(rb, "examples/ringing_steel/swordsman.toml")
    b = rulecraft.read_fighter(rb, "examples/ringing_steel/spearman.toml")
    # Against a sword (a cut) the spearman parries at 35 and dodges actively at 26: he parries;
    # with no policy named he keeps the step's default, a passive dodge.
    assert (b.parry_cut, b.active_dodge_factor) == (35, 26)
    melee = rb.procedures["melee_attack"]
    assert melee.run(attacker=a, defender=b, policy="competent", dice=[2]).outcome["defence"] \
        == "Parry"
    assert melee.run(attacker=a, defender=b, dice=[2]).outcome["defence"] == "Passive Dodge"
    fight = rb.fight([a, b], seed=3, policy="competent")
    assert any(e["kind"] == "call" and e["value"]["defence"] == "Parry" for e in fight.events)


# ---- lasting conditions ------------------------------------------------------------------------

STUN = """rulebook c "C"
enum condition: Stunned, Prone
combatant pc:
  name: name
  state hp: 0..20 = 5 clamped
encounter brawl (a: pc, b: pc):
  clock rounds
  each round:
    for each attacker in [a, b]:
      let foe = if attacker == a then b else a
      if not has(attacker, "Stunned"):
        roll hit = d6
        set foe.hp = foe.hp - hit
        if hit == 6:
          give foe "Stunned" for 1
  ends when a.hp == 0 or b.hp == 0
  at most 10 rounds
"""


def test_a_stunned_combatant_loses_its_actions_until_the_condition_ends():
    # d20: stunned "for a round"; the condition ends on time (by the round clock).
    rb = rulecraft.compile(STUN, "c.rules")
    r = rb.procedures["brawl"].run(a=rb.combatant(name="A"), b=rb.combatant(name="B", hp=20),
                                   dice=[6] + [1] * 12)
    attacks = [(e.line, round_) for round_, e in _rounds(r) if e.kind == "roll"]
    by_round = {}
    for _, round_ in attacks:
        by_round[round_] = by_round.get(round_, 0) + 1
    assert by_round[1] == 1 and by_round[2] == 1 and by_round[3] == 2  # B stunned rounds 1-2
    gives = [e for e in r.trace if e.kind == "give"]
    assert gives[0].value == "Stunned" and gives[0].detail == "until 2"


def _rounds(result):
    current = 0
    for entry in result.trace:
        if entry.kind == "let" and entry.name == "round":
            current = entry.value
        yield current, entry


def test_a_condition_in_tenths_ends_at_its_time():
    rulebook = DUEL.replace('rulebook duel "Duel"\n', 'rulebook duel "Duel"\nenum condition: Dazed\n'
                            ).replace("    delay foe by 2\n",
                                      "    give foe \"Dazed\" for 5\n    let dazed = has(foe, \"Dazed\")\n"
                                      "    let left = remaining(foe, \"Dazed\")\n")
    rb = rulecraft.compile(rulebook, "d.rules")
    r = rb.procedures["duel"].run(a=rb.combatant(name="Ann", speed=10),
                                  b=rb.combatant(name="Bob", speed=12), dice=[1] * 40)
    lets = [(e.name, e.value) for e in r.trace if e.kind == "let" and e.name in ("dazed", "left")]
    assert lets[:2] == [("dazed", True), ("left", 5)]
    # Ann is dazed at 0 (until 5): by her next turn at 10 it has ended.
    assert rb.procedures["duel"].run(a=rb.combatant(name="Ann", speed=10),
                                     b=rb.combatant(name="Bob", speed=12),
                                     dice=[1] * 40).outcome == "ended"


# ---- each system's clock, on small rule files --------------------------------------------------

BT_COUNTS = """rulebook bt "BT counts"
combatant fighter:
  name: name
  action_counts: 1..20
  state hits: integer = 0
encounter melee "BT melee" (a: fighter, b: fighter):
  clock counts "counts"
  # "an action of X counts": X/2 winding up and X/2 in motion; the blow lands when it completes.
  act a after a.action_counts
  act b after b.action_counts
  turn f:
    let foe = if f == a then b else a
    add 1 to foe.hits
    act f after f.action_counts
  ends when now >= 30
  at most 100 turns
"""


def test_bt_counts_give_the_faster_fighter_more_blows():
    rb = rulecraft.compile(BT_COUNTS, "bt.rules")
    r = rb.procedures["melee"].run(a=rb.combatant(name="Quick", action_counts=5),
                                   b=rb.combatant(name="Slow", action_counts=10))
    assert r.outcome == "ended" and r.outcome["time"] == 30
    assert (r.combatants["b"].hits, r.combatants["a"].hits) == (6, 3)


RQ3_SR = """rulebook rq "RQ3 strike ranks"
combatant adventurer:
  name: name
  strike_rank: 1..12
  state struck_at: list number
encounter round_of_melee "A melee round" (party: list adventurer):
  clock strike_ranks "strike ranks"
  # "actions at their SR, a second attack 3 SR later, nothing past SR 10"
  for each p in party:
    act p at p.strike_rank
  turn p:
    add now to p.struck_at
    if now + 3 <= 10:
      act p after 3
  ends when now >= 10
  at most 40 turns
"""


def test_rq3_strike_ranks_order_the_actions_of_a_round():
    rb = rulecraft.compile(RQ3_SR, "rq.rules")
    party = [rb.combatant(name="Slow", strike_rank=7), rb.combatant(name="Fast", strike_rank=3)]
    r = rb.procedures["round_of_melee"].run(party=party)
    order = [(e.value._values["name"], e.detail) for e in r.trace if e.kind == "turn"]
    assert order == [("Fast", "at 3 strike_ranks"), ("Fast", "at 6 strike_ranks"),
                     ("Slow", "at 7 strike_ranks"), ("Fast", "at 9 strike_ranks"),
                     ("Slow", "at 10 strike_ranks")]


def test_two_simultaneous_blows_both_land():
    # Ringing Steel's simultaneous blows: actions completing at the same time all happen before
    # the encounter may end.
    rb = rulecraft.compile(DUEL.replace("    delay foe by 2\n", ""), "d.rules")
    r = rb.procedures["duel"].run(a=rb.combatant(name="Ann", speed=10, stamina=1),
                                  b=rb.combatant(name="Bob", speed=10, stamina=1), dice=[6, 6])
    assert r.outcome == "ended" and r.outcome["turns"] == 2
    assert (r.combatants["a"].stamina, r.combatants["b"].stamina) == (0, 0)


def test_many_fights_report_win_rates_the_same_whatever_the_workers():
    # "`rulecraft fight ... --runs 10000`: many fights, reporting win rates with confidence
    # intervals, the mean fight length and the injury distribution ... the same figures for the
    # same seed whatever the number of workers."
    from rulecraft.fight import study

    rb = rulecraft.load("ringing_steel")
    fighters = [rulecraft.read_fighter(rb, f"examples/ringing_steel/{n}.toml")
                for n in ("swordsman", "spearman")]
    one = study(rb, fighters, 300, seed=5, names=["swordsman", "spearman"], workers=1)
    two = study(rb, fighters, 300, seed=5, names=["swordsman", "spearman"], workers=2)
    assert one == two and one.runs == 300 and sum(one.outcomes.values()) == 300
    rate, low, high = one.win_rates()["spearman"]
    assert low < rate < high and 0 < rate < 1
    assert any(k.startswith("injuries: ") for k in one.states["spearman"])
    result = CliRunner().invoke(cli, ["fight", "ringing_steel",
                                      "examples/ringing_steel/swordsman.toml",
                                      "examples/ringing_steel/spearman.toml", "--runs", "50",
                                      "--seed", "5", "--workers", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["runs"] == 50 and set(data["win_rates"]) == {"swordsman", "spearman"}


# ---- space ---------------------------------------------------------------------------------------

def test_fighters_apart_close_a_hex_per_walk_before_the_first_blow():
    # "WF Walk Front: Given in armour table": Standard armour walks a hex in 6 tenths. The move
    # that brings them into reach is a closing action's: "Attack: Move one hex and make attack
    # ... Takes Base Speed + Walk Move Rate - 3 tenths. The move is made two tenths before the
    # full time": from 6, the spearman (13 + 6 - 3) moves at 20 and strikes at 22.
    runner = CliRunner()
    result = runner.invoke(cli, ["fight", "ringing_steel", "examples/ringing_steel/swordsman.toml",
                                 "examples/ringing_steel/spearman.toml", "--seed", "7",
                                 "--set", "apart=3", "--json"])
    assert result.exit_code == 0, result.output
    events = json.loads(result.output)["events"]
    steps = [(e["name"], e["value"]) for e in events if e["kind"] == "let" and
             e["name"] == "distance"]
    assert steps[:3] == [("distance", 3), ("distance", 2), ("distance", 1)]
    first_call = next(e for e in events if e["kind"] == "call")
    assert (first_call["time"], first_call["who"]) == (22, "spearman")
    assert [e["time"] for e in events if e["kind"] == "let" and e["name"] == "distance"][:3] \
        == [0, 6, 20]
    bad = runner.invoke(cli, ["fight", "ringing_steel", "examples/ringing_steel/swordsman.toml",
                              "examples/ringing_steel/spearman.toml", "--set", "apart"])
    assert bad.exit_code == 1 and "NAME=VALUE" in bad.output


@pytest.mark.parametrize("expression, value", [
    ("hex_distance(0, 0, 2, -1)", 2), ("hex_distance(0, 0, -3, 3)", 3),
    ("hex_in_front(0, 0, 0, 1, 0)", True), ("hex_in_front(0, 0, 0, 0, 1)", True),
    ("hex_in_front(0, 0, 0, -1, 0)", False), ("hex_in_front(0, 0, 3, -2, 0)", True),
])
def test_hex_grid_helpers(expression, value):
    # "A duel needs only the distance between two fighters; Ringing Steel's hex grid with facing
    # is there for its multi-combatant rules."
    rb = rulecraft.compile('rulebook h "H"\nformula f(x: 0..1) = 1\n', "h.rules")
    assert rulecraft.evaluate(rb, expression) == value


# ---- a d20 modern-style fight: initiative order, withdrawal -------------------------------------

D20 = """rulebook d20 "d20 modern (a small part)"
combatant fighter:
  name: name
  bab: 0..20
  str_bonus: -5..5
  ac: 1..30
  initiative: 1..30
  state hp: 0..40 = 10 clamped
procedure attack "Attack roll" (attacker: fighter, target: fighter):
  # "Roll 1d20 + BAB + Str or Dex bonus against the opponent's AC. If it is equal or more, it's a
  # hit." "Unlike other D20 games, Natural 1's and 20's are not automatic misses and hits."
  roll attack_roll = d20
  if attack_roll + attacker.bab + attacker.str_bonus >= target.ac:
    roll damage = d6
    set target.hp = target.hp - damage
    outcome hit with (damage = damage)
  outcome missed
encounter brawl "A brawl" (a: fighter, b: fighter):
  clock rounds
  each round:
    for each c in sort_descending(c.initiative for c in [a, b]):
      let foe = if c == a then b else a
      if c.hp > 0 and foe.hp > 0:
        choose action by c from ["attack", "orderly withdrawal", "routed"] default "attack"
        if action == "attack":
          call blow = attack(c, foe)
        else if action == "routed":
          # "If routed, the retreating gives up their attack and their opponent will instead
          # get an extra attack on them."
          call extra = attack(foe, c)
          give c "Withdrawn"
        else:
          # "If orderly, the retreating cannot attack, but their opponent gains no advantage."
          give c "Withdrawn"
  ends when a.hp == 0 or b.hp == 0 or has(a, "Withdrawn") or has(b, "Withdrawn")
  at most 20 rounds
"""


def test_a_d20_fight_in_initiative_order_and_a_routed_withdrawal():
    rb = rulecraft.compile(D20, "d20.rules")
    a = rb.combatant(name="Ace", bab=3, str_bonus=1, ac=12, initiative=15)
    b = rb.combatant(name="Bo", bab=1, str_bonus=0, ac=14, initiative=9)
    brawl = rb.procedures["brawl"]
    # Round 1: Ace first (initiative 15) hits (10 + 4 >= 14) for 4; Bo misses (3 + 1 < 12).
    r = brawl.run(a=a, b=b, action=["attack", "attack", "attack", "routed"],
                  dice=[10, 4, 3, 18, 5, 20, 6])
    calls = [(e.kind, e.name, e.value) for e in r.trace if e.kind in ("return",)]
    assert calls[:3] == [("return", "blow", "hit"), ("return", "blow", "missed"),
                         ("return", "blow", "hit")]
    # Round 2: Ace hits again (18) for 5; Bo routs: Ace gets the extra attack (20, 6 damage).
    assert calls[3] == ("return", "extra", "hit")
    assert r.outcome == "ended" and r.outcome["rounds"] == 2
    assert (r.combatants["a"].hp, r.combatants["b"].hp) == (10, 0)


STUNNED = """rulebook d20s "d20 modern: stunned"
enum condition: Stunned
combatant fighter:
  name: name
  bab: 0..20
  ac: 1..30
  initiative: 1..30
  state hp: 0..40 = 10 clamped
procedure attack "Attack roll" (attacker: fighter, target: fighter):
  # The target defends: fighting defensively raises his AC by 2 (a stand-in for any defence).
  choose guard by target from ["defensively", "openly"] default "defensively"
  let ac = target.ac + (if guard == "defensively" then 2 else 0)
  roll attack_roll = d20
  if attack_roll + attacker.bab >= ac:
    set target.hp = target.hp - 3
    if attack_roll == 20:
      give target "Stunned" for 1
    outcome hit
  outcome missed
encounter brawl "A brawl" (a: fighter, b: fighter):
  clock rounds
  each round:
    for each c in sort_descending(c.initiative for c in [a, b]):
      let foe = if c == a then b else a
      # "A stunned combatant cannot take any action in that condition, except to defend
      # themselves."
      if c.hp > 0 and foe.hp > 0 and not has(c, "Stunned"):
        call blow = attack(c, foe)
  ends when a.hp == 0 or b.hp == 0
  at most 20 rounds
"""


def test_a_stunned_d20_combatant_can_only_defend_until_the_round_is_over():
    # d20 modern: "A stunned combatant cannot take any action in that condition, except to
    # defend themselves." Ace's 20 stuns Bo for a round: Bo makes no attack in rounds 1 and 2
    # but still defends against Ace's (his guard is chosen, his AC 12 + 2 counts: a 9 + 3
    # misses); in round 3 he attacks again.
    rb = rulecraft.compile(STUNNED, "d20s.rules")
    a = rb.combatant(name="Ace", bab=3, ac=12, initiative=15)
    b = rb.combatant(name="Bo", bab=1, ac=12, initiative=9)
    r = rb.procedures["brawl"].run(a=a, b=b, dice=[20, 9, 5, 11], time_limit=3)
    assert r.outcome == "capped" and dict(r.outcome) == {"time": 3, "rounds": 3}
    rounds = {}
    for round_, entry in _rounds(r):
        if entry.kind == "call":
            rounds.setdefault(round_, []).append("attack")
        if entry.kind == "choose" and entry.name == "guard":
            rounds.setdefault(round_, []).append(entry.detail.split(",")[0])
    assert rounds == {1: ["attack", "by target"], 2: ["attack", "by target"],
                      3: ["attack", "by target", "attack", "by target"]}
    assert [e.value for e in r.trace if e.kind == "return"] == ["hit", "missed", "missed",
                                                                "missed"]


BLEEDING = """rulebook bleed "Bleeding"
enum condition: Bleeding, Bound
combatant fighter:
  name: name
  state htk: 0..40 = 20 clamped
  state wounds: 0..10 = 0
encounter fight "Bleeding out" (a: fighter):
  clock rounds
  give a "Bleeding"
  each round:
    if round == 25:
      end a "Bleeding"
  # BT: "the bleeding person loses 1 HTK ever minute unless the wound is bound. The effect is
  # cumulative" — here on a clock of six-second rounds, a minute is ten rounds.
  every 10 rounds:
    if has(a, "Bleeding"):
      set a.htk = a.htk - a.wounds
  ends when a.htk == 0
  at most 40 rounds
"""


def test_bleeding_ticks_every_minute_until_it_is_bound():
    rb = rulecraft.compile(BLEEDING, "bleed.rules")
    r = rb.procedures["fight"].run(a=rb.combatant(name="Cut", wounds=3))
    changes = [e.value for e in r.trace if e.kind == "change"]
    # Three wounds bleed 3 HTK at rounds 10 and 20; bound at 25, no more at 30 or 40.
    assert changes == [17, 14] and r.outcome == "capped"
    with pytest.raises(rulecraft.RulecraftError, match="write `every N rounds:`"):
        rulecraft.compile(BLEEDING.replace("every 10 rounds", "every 10 tenths"), "b.rules")


INITIATIVE = """rulebook d20i "d20 modern: initiative"
combatant fighter:
  name: name
  side: name
  dex_bonus: -4..4
  hth_trained: bool = false
  bab: 0..20
  ac: 1..30
  state hp: 0..40 = 6 clamped
  state roll: 0..20 = 0
procedure attack "Attack roll" (attacker: fighter, target: fighter):
  roll attack_roll = d20
  if attack_roll + attacker.bab >= target.ac:
    set target.hp = target.hp - 3
    outcome hit
  outcome missed
encounter brawl "A brawl" (party: list fighter, surprise_by: name = "nobody"):
  clock rounds
  # "Figure out the initiative order before the attack anyway": every combatant rolls a d20;
  # "Have a roll off between any ties" — the tied roll again until no two share a roll.
  for each c in party:
    roll initiative = d20
    set c.roll = initiative
  repeat until all(count(o.roll == c.roll for o in party) == 1 for c in party), at most 20 times:
    for each c in party:
      if count(o.roll == c.roll for o in party) > 1:
        roll again = d20
        set c.roll = again
  # "anyone with a +3 or +4 in Dex bonus will act first in every rd. (In HTH combat, those with
  # the HTH Trained skill will go first over untrained.)"; then "ranked from high roll to lowest".
  let order = sort_descending((if c.dex_bonus >= 3 then 1000 else 0) + (if c.dex_bonus >= 3 and c.hth_trained then 100 else 0) + c.roll for c in party)
  # Surprise: "The attackers may act without a counterattack from the other side."
  if surprise_by != "nobody":
    for each c in order:
      let foe = argmin(o.hp + (if o.side == c.side then 100 else 0) for o in party)
      if c.side == surprise_by and foe.side != c.side:
        call surprise = attack(c, foe)
  each round:
    for each c in order:
      let foe = argmin(o.hp + (if o.side == c.side or o.hp == 0 then 100 else 0) for o in party)
      if c.hp > 0 and foe.hp > 0 and foe.side != c.side:
        call blow = attack(c, foe)
  ends when count(c.hp > 0 and c.side == "heroes" for c in party) == 0 or count(c.hp > 0 and c.side == "thugs" for c in party) == 0
  at most 20 rounds
"""


def test_d20_initiative_the_quick_first_ties_rolled_off_and_a_surprise_round():
    # d20 modern, Initiative: the quick (+3 or +4 Dex) first, the HTH trained among them before
    # the untrained; the rest by a d20, ties rolled off; the same order every round. Surprise:
    # the attackers act once first, unanswered.
    rb = rulecraft.compile(INITIATIVE, "d20i.rules")
    party = [rb.combatant(name="Ace", side="heroes", dex_bonus=1, bab=2, ac=12),
             rb.combatant(name="Bo", side="thugs", dex_bonus=3, bab=1, ac=11),
             rb.combatant(name="Cy", side="thugs", dex_bonus=4, hth_trained=True, bab=1, ac=11),
             rb.combatant(name="Di", side="heroes", dex_bonus=0, bab=2, ac=12)]
    # Rolls: Ace 12, Bo 5, Cy 2, Di 12 — Ace and Di tie and roll off: 7 and 15.
    brawl = rb.procedures["brawl"]
    r = brawl.run(party=party, dice=[12, 5, 2, 12, 7, 15] + [1] * 40, time_limit=1)
    order = [e.value for e in r.trace if e.kind == "let" and e.name == "order"][0]
    assert [c.name for c in order] == ["Cy", "Bo", "Di", "Ace"]
    attackers = [e.value.name for e in r.trace if e.kind == "each" and e.name == "c"][-4:]
    assert attackers == ["Cy", "Bo", "Di", "Ace"]
    # With surprise by the heroes, Di and Ace strike first (and only they) before round 1.
    r = brawl.run(party=party, surprise_by="heroes", dice=[12, 5, 2, 12, 7, 15] + [1] * 40,
                  time_limit=1)
    calls = [(e.name, e.line) for e in r.trace if e.kind == "call"]
    assert [n for n, _ in calls[:2]] == ["surprise", "surprise"] and len(calls) == 6
