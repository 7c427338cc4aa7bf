"""Many fighters, sides and targets (issue 15, item 2): encounters of any number of fighters on
two or more sides, each fighter's target kept by the encounter and chosen by policy, turns of
fighters of different models narrowed with `is`, the fight ending when one side is left;
`Rulebook.fight` and `rulecraft fight` side by side, with each side's win rate."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.dsl.formatter import format_file
from rulecraft.dsl.parser import parse

# Issue 15: "Encounters with any number of fighters on two or more sides (two against one, a
# skirmish of six), each fighter's target as state chosen by policy".
SKIRMISH = """rulebook sk "Skirmish"
combatant fighter:
  name: name
  speed: 1..20
  state hp: 0..20 = 3 clamped
encounter skirmish "Two against one" (heroes: list fighter, foes: list fighter):
  clock tenths
  for each f in party:
    act f at f.speed
  turn f:
    # a blow struck at the same time may have left nobody to fight
    if len(foes(f)) > 0:
      if target(f) == none or not standing(target(f)):
        choose foe by f from foes(f) default argmin(o.hp for o in foes(f))
        aim f at foe
      let foe = target(f)
      roll blow = d6
      if blow >= 4:
        set foe.hp = foe.hp - 1
        if foe.hp == 0:
          stop foe
      act f after f.speed
  ends when one side standing
  at most 100 turns
policy brutal "Finish the strongest first":
  foe = argmax(o.hp for o in foes(f))
"""


@pytest.fixture(scope="module")
def sk():
    return rulecraft.compile(SKIRMISH, "sk.rules")


def three(sk, hp=(1, 1, 2)):
    return (sk.combatant(name="Ann", speed=5, hp=hp[0]), sk.combatant(name="Bo", speed=6, hp=hp[1]),
            sk.combatant(name="Cy", speed=4, hp=hp[2]))


def test_two_against_one_with_scripted_dice(sk):
    ann, bo, cy = three(sk)
    # Turns: Cy at 4, Ann at 5, Bo at 6. Cy's 4 fells Ann (the weakest: the default); Ann takes
    # no more turns; Bo's 5 wounds Cy; Cy's 6 at 8 fells Bo: Cy alone stands.
    r = sk.procedures["skirmish"].run(heroes=[ann, bo], foes=[cy], dice=[4, 5, 6])
    assert r.outcome == "ended" and r.outcome["time"] == 8
    aims = [(e.detail.party.name, e.value.name) for e in r.trace if e.kind == "aim"]
    assert aims == [("Cy", "Ann"), ("Bo", "Cy"), ("Cy", "Bo")]
    assert "sk.rules:15:9: aim f = Ann (at Ann)" in r.explain()
    assert [r.combatants[k].hp for k in ("heroes[0]", "heroes[1]", "foes[0]")] == [0, 0, 1]


def test_the_fight_log_says_who_aims_at_whom_and_which_side_won(sk):
    ann, bo, cy = three(sk)
    fight = sk.fight({"heroes": [ann, bo], "foes": [cy]}, dice=[4, 5, 6])
    log = fight.log()
    assert "Cy aims at Ann" in log and "Bo aims at Cy" in log and "Cy aims at Bo" in log
    assert "sides: heroes (Ann, Bo); foes (Cy) — won by foes" in log
    assert fight.winner() == "foes" and [f.name for f in fight.standing()] == ["Cy"]
    data = fight.as_json()
    assert data["sides"] == {"heroes": ["Ann", "Bo"], "foes": ["Cy"]} and data["winner"] == "foes"
    # The same fight from a list of sides, in the order of the encounter's parameters.
    again = sk.fight([[ann, bo], [cy]], dice=[4, 5, 6])
    assert again.log() == log


def test_a_policy_line_chooses_the_target(sk):
    ann, bo, cy = three(sk, hp=(1, 2, 3))
    # "answered by a policy line": brutal goes for the strongest foe (Bo), the default for the
    # weakest (Ann).
    kept = sk.fight([[ann, bo], [cy]], dice=[1, 1, 1], until=6)
    brutal = sk.fight([[ann, bo], [cy]], dice=[1, 1, 1], until=6, policy="brutal")
    assert "Cy aims at Ann" in kept.log() and "Cy aims at Bo" in brutal.log()


def test_a_target_is_scripted_by_the_fighters_name(sk):
    ann, bo, cy = three(sk)
    r = sk.procedures["skirmish"].run(heroes=[ann, bo], foes=[cy], dice=[1, 1, 1],
                                      foe=["Bo", "Cy", "Cy"], time_limit=6)
    assert [e.value.name for e in r.trace if e.kind == "aim"] == ["Bo", "Cy", "Cy"]
    with pytest.raises(rulecraft.RulecraftError, match="cannot choose 'Dee' for foe"):
        sk.procedures["skirmish"].run(heroes=[ann, bo], foes=[cy], dice=[1], foe=["Dee"])


def test_sides_built_ins_read_the_fight():
    text = SKIRMISH.replace("  ends when one side standing", """    let mine = side(f)
    let friends = len(allies(f))
    let left = sides_standing()
  ends when one side standing""")
    rb = rulecraft.compile(text, "sk.rules")
    ann, bo, cy = three(rb)
    r = rb.procedures["skirmish"].run(heroes=[ann, bo], foes=[cy], dice=[4, 1], time_limit=5)
    seen = [(e.name, e.value) for e in r.trace if e.name in ("mine", "friends", "left")]
    # Cy (foes, no allies) fells Ann: two sides still stand; then Ann is out, Bo has no ally.
    assert seen[:3] == [("mine", "foes"), ("friends", 0), ("left", 2)]


def test_exact_odds_of_two_against_one(sk):
    ann, bo, cy = three(sk, hp=(1, 1, 1))
    # Cy strikes at 4 (at Ann, the first weakest), Ann at 5 if still standing: the fight ends at
    # 5 when Cy misses (1/2) and Ann hits (1/2).
    odds = sk.procedures["skirmish"].odds(by="time", heroes=[ann, bo], foes=[cy])
    assert odds[5] == Fraction(1, 4) and sum(odds.values()) == 1
    assert min(odds) == 5  # nobody can end it sooner: Cy alone cannot fell two at 4


def test_ends_when_one_side_standing_reads_back_as_written():
    tree = parse(SKIRMISH, "sk.rules")
    assert "  ends when one side standing\n" in format_file(tree)
    assert format_file(parse(format_file(tree), "sk.rules")) == format_file(tree)


def test_sides_lines_aims_and_is_read_back_as_written():
    text = format_file(parse(MOUNTED, "mount.rules"))
    assert "  sides: knight and steed against footman\n" in text and "if p is horse:" in text
    aimed = format_file(parse(SKIRMISH, "sk.rules"))
    assert "        aim f at foe\n" in aimed
    assert format_file(parse(text, "mount.rules")) == text


MOUNTED = """rulebook mount "A rider and his horse"
combatant rider:
  name: name
  skill: 1..20
  state hp: 0..10 = 3 clamped
combatant horse:
  name: name
  speed: 1..30
  state hp: 0..10 = 5 clamped
encounter charge "A mounted knight against a footman" (knight: rider, steed: horse, footman: rider):
  clock tenths
  sides: knight and steed against footman
  for each p in party:
    act p at 1
  turn p:
    if len(foes(p)) > 0:
      let foe = argmin(o.hp for o in foes(p))
      if p is horse:
        roll kick = d6
        if kick + p.speed >= 15:
          set foe.hp = foe.hp - 1
        act p after 30 - p.speed
      else:
        roll blow = d20
        if blow <= p.skill:
          set foe.hp = foe.hp - 1
        act p after 10
      if foe.hp == 0:
        stop foe
  ends when one side standing
  at most 50 turns
"""


def mounted():
    rb = rulecraft.compile(MOUNTED, "mount.rules")
    return rb, (rb.combatant(name="Bors", skill=12),
                rb.combatant_models["horse"].build(name="Dobbin", speed=12),
                rb.combatant(name="Jack", skill=10, hp=1))


def test_a_rider_and_his_horse_take_turns_of_their_own():
    # Issue 15: "turns of fighters of different combatant models (a rider and a horse: the
    # turn's party typed as any of the encounter's models, narrowed with `if p is horse:`)".
    rb, (bors, dobbin, jack) = mounted()
    # All act at 1: Bors misses (13 > 12), Dobbin kicks 3 + 12 = 15 and fells Jack.
    fight = rb.fight([bors, dobbin, jack], dice=[13, 3], names=["Bors", "Dobbin", "Jack"])
    rolls = [(e["who"].name, e["name"]) for e in fight.events if e["kind"] == "roll"]
    assert rolls == [("Bors", "blow"), ("Dobbin", "kick")]
    assert fight.winner() == "knight and steed"
    assert "sides: knight and steed (Bors, Dobbin); footman (Jack)" in fight.log()
    assert rb.procedures["charge"].sides == (("knight and steed", ("knight", "steed")),
                                             ("footman", ("footman",)))
    # Side by side too: the side's fighters to its parameters in order.
    again = rb.fight({"knight and steed": [bors, dobbin], "footman": [jack]}, dice=[13, 3])
    assert again.winner() == "knight and steed"


@pytest.mark.parametrize("old, new, line, col, words", [
    ("        if kick + p.speed >= 15:", "        if kick + p.skill >= 15:", 20, 19,
     "unknown field of a horse: 'skill'"),
    ("      let foe = argmin(o.hp for o in foes(p))",
     "      let foe = argmin(o.hp + p.speed for o in foes(p))", 17, 31,
     "p may be a rider or a horse, and only a horse has speed: ask first (`if p is horse:`)"),
    ("if p is horse:", "if p is dragon:", 18, 15, "unknown combatant model 'dragon'"),
    ("sides: knight and steed against footman", "sides: knight against footman", 12, 3,
     "the fighter parameter steed is on no side"),
    ("sides: knight and steed against footman", "sides: knight and mare against footman", 12,
     21, "unknown fighter parameter 'mare'"),
    ("sides: knight and steed against footman",
     "sides: knight and steed against footman and steed", 12, 47, "steed is on more than one side"),
    ("      let foe = argmin(o.hp for o in foes(p))",
     "      let foe = argmin(o.hp for o in foes(p))\n      aim p at 3", 18, 16,
     "p aims at a fighter, not a whole number"),
    ("      let foe = argmin(o.hp for o in foes(p))",
     "      let foe = argmin(o.hp for o in foes())", 17, 38, "foes takes one fighter: foes(fighter)"),
])
def test_mistakes_with_sides_are_caught_at_their_line(old, new, line, col, words):
    assert old in MOUNTED
    with pytest.raises(rulecraft.RulecraftError) as caught:
        rulecraft.compile(MOUNTED.replace(old, new), "mount.rules")
    assert f"mount.rules:{line}:{col}: {words}" in str(caught.value)


def test_sides_belong_to_an_encounter():
    text = MOUNTED + "procedure hit (a: rider):\n  let them = foes(a)\n  aim a at a\n  outcome done\n"
    with pytest.raises(rulecraft.RulecraftError) as caught:
        rulecraft.compile(text, "mount.rules")
    message = str(caught.value)
    assert "mount.rules:33:14: foes(…) reads the sides of a fight: it belongs in an encounter" \
        in message
    assert "mount.rules:34:3: aim keeps a fighter's target in a fight" in message


def test_fighters_given_to_sides_that_do_not_fit_are_refused(sk):
    ann, bo, cy = three(sk)
    with pytest.raises(rulecraft.RulecraftError, match="has no side 'villains'"):
        sk.fight({"heroes": [ann], "villains": [bo]})
    with pytest.raises(rulecraft.RulecraftError, match="has 2 side"):
        sk.fight([[ann], [bo], [cy]])


# ---- the command line ------------------------------------------------------------------------

def files(tmp_path):
    for name, speed, hp in (("ann", 5, 1), ("bo", 6, 1), ("cy", 4, 2)):
        (tmp_path / f"{name}.toml").write_text(f'name = "{name}"\nspeed = {speed}\nhp = {hp}\n')
    (tmp_path / "sk.rules").write_text(SKIRMISH)
    return [str(tmp_path / n) for n in ("sk.rules", "ann.toml", "bo.toml", "cy.toml")]


def test_fight_takes_several_files_a_side(tmp_path):
    rules, ann, bo, cy = files(tmp_path)
    runner = CliRunner()
    done = runner.invoke(cli, ["fight", rules, ann, bo, "vs", cy, "--seed", "3"])
    assert done.exit_code == 0, done.output
    assert "sides: heroes (ann, bo); foes (cy) — won by" in done.output
    assert "cy aims at" in done.output
    many = runner.invoke(cli, ["fight", rules, ann, bo, "vs", cy, "--seed", "3", "--runs", "20"])
    assert many.exit_code == 0, many.output
    assert "side heroes (ann, bo) wins:" in many.output and "side foes (cy) wins:" in many.output
    assert "draws (no side alone standing):" in many.output
    data = json.loads(runner.invoke(cli, ["fight", rules, ann, bo, "vs", cy, "--seed", "3",
                                          "--runs", "20", "--json"]).output)
    won = data["sides"]["heroes"]["rate"] + data["sides"]["foes"]["rate"] + data["draws"]["rate"]
    assert data["sides"]["heroes"]["fighters"] == ["ann", "bo"] and won == pytest.approx(1)
    assert data["sides"]["foes"]["low"] <= data["sides"]["foes"]["rate"] <= \
        data["sides"]["foes"]["high"]


def test_fight_files_that_do_not_make_sides_are_refused(tmp_path):
    rules, ann, bo, cy = files(tmp_path)
    runner = CliRunner()
    empty = runner.invoke(cli, ["fight", rules, ann, "vs"])
    assert empty.exit_code == 1 and "each side needs a fighter's file" in empty.output
    three_sides = runner.invoke(cli, ["fight", rules, ann, "vs", bo, "vs", cy])
    assert three_sides.exit_code == 1 and "has 2 side(s) (heroes, foes); 3 given" in \
        three_sides.output
    flat = runner.invoke(cli, ["fight", rules, ann, bo, cy])  # as before: one a parameter
    assert flat.exit_code == 1 and "takes 2 fighter(s)" in flat.output


def test_the_same_file_twice_on_a_side_is_two_fighters(tmp_path):
    rules, ann, bo, cy = files(tmp_path)
    done = CliRunner().invoke(cli, ["fight", rules, ann, ann, "vs", cy, "--seed", "1"])
    assert done.exit_code == 0 and "heroes (ann, ann 2)" in done.output


# ---- Ringing Steel: two against one ----------------------------------------------------------

RS = "examples/ringing_steel/"


def test_ringing_steel_two_against_one_from_the_shipped_files():
    # Issue 15, done when: "`rulecraft fight` runs a two-against-one Ringing Steel fight from
    # shipped fighter files, seeded and with `--runs`, and reports each side's win rate."
    runner = CliRunner()
    args = ["fight", "ringing_steel", RS + "swordsman.toml", RS + "spearman.toml", "vs",
            RS + "champion.toml", "--encounter", "skirmish", "--seed", "1", "--policy",
            "competent"]
    once = runner.invoke(cli, args)
    assert once.exit_code == 0, once.output
    assert "champion aims at" in once.output and "blow = melee_attack:" in once.output
    assert "sides: heroes (swordsman, spearman); foes (champion) — won by" in once.output
    assert once.output == runner.invoke(cli, args).output  # seeded: the same fight
    many = runner.invoke(cli, args + ["--runs", "6"])
    assert many.exit_code == 0, many.output
    assert "side heroes (swordsman, spearman) wins:" in many.output
    assert "side foes (champion) wins:" in many.output


def test_ringing_steel_skirmish_targets_by_the_competent_policy():
    rb = rulecraft.load("ringing_steel")
    made = [rulecraft.read_fighter(rb, RS + n + ".toml") for n in ("swordsman", "spearman",
                                                                    "champion")]
    fight = rb.fight([made[:2], made[2:]], encounter="skirmish", seed=2, policy="competent",
                     names=["swordsman", "spearman", "champion"])
    chosen = [e for e in fight.events if e["kind"] == "choose" and e["name"] == "target"]
    assert chosen and all(e["value"] is not e["who"] for e in chosen)
    assert fight.winner() in ("heroes", "foes")
    # Exact odds of so many states are refused, with sampling offered.
    with pytest.raises(rulecraft.RulecraftError, match="--samples"):
        rb.procedures["skirmish"].odds(heroes=made[:2], foes=made[2:])


def test_a_party_of_several_models_is_handed_on_only_once_narrowed():
    kick = "procedure kick (h: horse):\n  roll k = d6\n  outcome soft\n"
    loose = MOUNTED.replace("      let foe = argmin(o.hp for o in foes(p))",
                            "      let foe = argmin(o.hp for o in foes(p))\n"
                            "      call k = kick(p)") + kick
    with pytest.raises(rulecraft.RulecraftError) as caught:
        rulecraft.compile(loose, "mount.rules")
    assert "mount.rules:18:21: kick's h must be a horse, not a rider or horse" in \
        str(caught.value)
    narrowed = MOUNTED.replace("        roll kick = d6\n",
                               "        call k = kick(p)\n        roll kick = d6\n") + kick
    rb = rulecraft.compile(narrowed, "mount.rules")
    assert "kick" in rb.procedures


def test_show_and_the_sheet_say_the_sides(tmp_path):
    path = tmp_path / "mount.rules"
    path.write_text(MOUNTED)
    runner = CliRunner()
    shown = runner.invoke(cli, ["show", str(path)])
    assert shown.exit_code == 0 and "    sides: knight and steed against footman" in shown.output
    sheet = runner.invoke(cli, ["sheet", str(path), "--format", "md"])
    assert "Given: Knight rider, Steed horse, Footman rider; sides: Knight and Steed against " \
        "Footman" in sheet.output
    assert "is a Horse" in sheet.output and "foes still standing" in sheet.output
    rs = runner.invoke(cli, ["sheet", "ringing_steel", "--format", "md"])
    assert "Fighter takes Target as his target." in rs.output


def test_a_skirmish_of_six_on_three_sides():
    # Issue 15: "a skirmish of six": three sides of two, until one side alone stands.
    rb = rulecraft.compile(SKIRMISH.replace("(heroes: list fighter, foes: list fighter)",
                                            "(reds: list fighter, blues: list fighter, "
                                            "greens: list fighter)"), "sk.rules")
    six = [[rb.combatant(name=f"{c}{i}", speed=3 + i + n, hp=2) for i in (1, 2)]
           for n, c in enumerate("RBG")]
    for seed in range(4):
        fight = rb.fight(six, seed=seed)
        won = fight.winner()
        assert won in ("reds", "blues", "greens") and fight.result.outcome == "ended"
        sides = dict(fight.sides)
        assert all(f in sides[won] for f in fight.standing())
        aims = {(e["party"].name, e["value"].name) for e in fight.events if e["kind"] == "aim"}
        assert all(a[0] != b[0] for a, b in aims)  # nobody aims at his own side


def test_going_over_the_fighters_is_work():
    # docs/untrusted.md: `foes(f)` costs the number of the encounter's fighters, as an
    # aggregate's items do.
    from rulecraft.runtime.limits import DEFAULT_LIMITS
    from rulecraft.runtime.work import budget

    looked = SKIRMISH.replace("      act f after f.speed", "      let many = len(foes(f))\n"
                              "      let more = len(foes(f))\n      act f after f.speed")
    spent = []
    for text in (SKIRMISH.replace("      act f after f.speed",
                                  "      let many = 0\n      let more = 0\n"
                                  "      act f after f.speed"), looked):
        rb = rulecraft.compile(text, "sk.rules")
        crowd = [[rb.combatant(name=f"{s}{i}", speed=5, hp=1) for i in range(20)] for s in "HF"]
        with budget(DEFAULT_LIMITS, own=True) as work:
            r = rb.procedures["skirmish"].run(heroes=crowd[0], foes=crowd[1], seed=1,
                                              time_limit=5)
        spent.append((work.spent, r.outcome["turns"]))
    (plain, turns), (looking, again) = spent
    assert turns == again and turns > 20 and looking - plain >= 2 * 40 * turns


def test_several_fighters_for_a_side_of_one_say_how_to_play_them():
    # README: "Sides of several fighters are written apart by `vs` (`a.toml b.toml vs c.toml`:
    # two against one; Ringing Steel's `skirmish`)". Given to the duel (a fighter a side), the
    # refusal says to name an encounter whose side takes a list.
    steel = str(Path(__file__).resolve().parent.parent / "examples" / "ringing_steel") + "/"
    result = CliRunner().invoke(cli, [
        "fight", "ringing_steel", steel + "swordsman.toml", steel + "spearman.toml", "vs",
        steel + "swordsman.toml", "--seed", "2"])
    assert result.exit_code == 1
    assert "the side first of encounter duel is fighter; 2 fighter(s) given" in result.output
    assert "--encounter NAME" in result.output and "lists the encounters" in result.output
