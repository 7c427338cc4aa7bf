"""Issue 15's field, together: a Ringing Steel two-against-one on the hex grid (facing, front
and back hexes, a blocking attack made out of turn when a fighter enters a blocked hex), an
arrow in flight while its target walks, and a rider and his horse taking turns of their own —
tests/rules/grid_skirmish.rules, written as the book says; and the seams where the issue's
constructs meet."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.runtime.space import Hex

# ---- seams between the constructs ------------------------------------------------------------

MOUNTED = """rulebook mount "A rider and his horse"
combatant rider:
  skill: 1..20
  state hp: 0..10 = 3 clamped
combatant horse:
  speed: 1..30
  state hp: 0..10 = 5 clamped
encounter charge (knight: rider, steed: horse, footman: rider):
  clock tenths
  sides: knight and steed against footman
  for each p in party:
    act p at 1
  turn p:
    if p is horse:
      act p after 30 - p.speed
    else if p == knight:
      act p after 20 - p.skill
    else:
      act p after p.skill
  ends when one side standing
  at most 5 turns
"""


def test_a_party_of_several_models_is_compared_with_one_and_narrowed_down_an_else_if_chain():
    # "narrowed with `if p is horse:`": past `if p is horse:`, each `else if` and the last
    # `else:` read p as a rider; and a rider or horse may be the knight.
    rb = rulecraft.compile(MOUNTED, "m.rules")
    knight = rb.combatant(skill=12)
    steed = rb.combatant_models["horse"].build(speed=12)
    footman = rb.combatant(skill=4)
    log = rb.fight([knight, steed, footman], seed=1, names=["Bors", "Dobbin", "Jack"]).log()
    assert "1 Bors         Bors's action completes at 9" in log      # 20 - skill 12
    assert "1 Dobbin       Dobbin's action completes at 19" in log   # 30 - speed 12
    assert "1 Jack         Jack's action completes at 5" in log      # skill 4



def test_a_sides_line_survives_formatting_when_lines_above_it_move():
    # The formatter's check compared the sides line's spans (`side_spans`), so a file whose
    # layout moved a line above an encounter with `sides:` was refused as a formatter bug.
    text = MOUNTED.replace("encounter charge", "\n\n\nencounter charge")
    formatted = rulecraft.format_rules(text)
    assert "  sides: knight and steed against footman\n" in formatted
    assert rulecraft.format_rules(Path(RULES).read_text(encoding="utf-8")).startswith(
        "rulebook grid_skirmish")

INDEXED = """rulebook idx "The fight's lists, indexed"
combatant fighter:
  name: name
  state at: hex = hex(0, 0)
  state hp: 0..3 = 1
encounter skirmish (heroes: list fighter, foes: list fighter):
  clock tenths
  for each f in party:
    act f at 1
  turn f:
    if len(foes(f)) > 0:
      let first_foe = foes(f)[0]
      let last_ally = if len(allies(f)) > 0 then allies(f)[-1] else f
      let nearest = parties_within(f.at, 5)[0]
      let beside = party_at(f.at + hex(1, 0))
      let lead = heroes[0]
      let last = party[-1]
      stop first_foe
  ends when one side standing
  at most 5 turns
"""


def test_the_lists_a_fight_reads_its_sides_by_are_lists_of_the_language():
    # `foes(f)[0]` (issue 15 item 7's "list ... index" on item 2's sides): foes, allies and
    # party were Python lists, which indexing refused ("foes(f) is not a list").
    rb = rulecraft.compile(INDEXED, "idx.rules")
    a, b, c = (rb.combatant(name=n, at=(i, 0)) for i, n in enumerate("ABC"))
    fight = rb.fight({"heroes": [a, b], "foes": [c]}, seed=1)
    seen = {e["name"]: e["value"].name for e in fight.events if e["kind"] == "let"}
    assert seen == {"first_foe": "C", "last_ally": "B", "nearest": "A", "beside": "B",
                    "lead": "A", "last": "C"}
    assert fight.winner() == "heroes"


def test_a_side_of_one_fighter_is_given_by_the_fighter_itself():
    # `rb.fight({"heroes": [a, b], "foes": c})`: a side's one fighter was read as a list of
    # fighters and failed with a KeyError from Python.
    rb = rulecraft.compile(INDEXED, "idx.rules")
    a, b, c = (rb.combatant(name=n, at=(i, 0)) for i, n in enumerate("ABC"))
    fight = rb.fight({"heroes": [a, b], "foes": c}, seed=1)
    assert fight.winner() == "heroes" and [f.name for f in fight.sides[1][1]] == ["C"]


# ---- the grid skirmish: tests/rules/grid_skirmish.rules -----------------------------------------

RULES = "tests/rules/grid_skirmish.rules"


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load(RULES)


def spearman(rb, **figures):
    """Cy, a spearman in (0, 0) facing 0 (towards (1, 0)), in a forward blocking position: he
    blocks (2, 0), (2, -1) and (1, 1)."""
    return rb.combatant(**{"name": "Cy", "weapon_range": "Long", "at": (0, 0), "facing": 0,
                           "base_speed": 12, "blocking": True, **figures})


def swordsmen(rb, ann_at=(3, 0), bo_at=(6, -3)):
    """Ann and Bo, swordsmen facing 3 (towards the spearman), a hex a walk."""
    return (rb.combatant(name="Ann", at=ann_at, facing=3, walk=5),
            rb.combatant(name="Bo", at=bo_at, facing=3, walk=6))


def calls(events):
    """The calls a fight made: who, which, how it came out."""
    return [(e["who"].name if e["who"] else None, e["name"], e["value"].name) for e in events
            if e["kind"] == "call"]


def changes(fight, who, field):
    return [e["value"] for e in fight.events if e["kind"] == "change" and e["name"] == field
            and e["party"] is not None and e["party"].name == who]


def test_a_blocking_attack_fires_when_a_fighter_steps_into_a_blocked_hex(rb):
    # RS, Blocking and moving past: "When an opponent tries to enter a blocked hex the blocker
    # makes a 'blocking attack' with the opponent's defence potential being reduced by two. If
    # the 'attack' is successful the opponent is forced to remain in his previous hex".
    ann, bo = swordsmen(rb)
    # Ann steps at 0 from (3, 0) into (2, 0), two hexes ahead of Cy: Cy's blocking attack,
    # out of his turn, at once: 10 + Anti-Parry 8 >= defence 14 - 2. Ann is back in (3, 0).
    fight = rb.fight({"heroes": [ann, bo], "foes": spearman(rb)}, dice=[10], until=4)
    assert calls(fight.events) == [(None, "block", "blocked")]
    ann_after, bo_after, cy_after = fight.fighters
    assert ann_after.at == Hex(3, 0) and ann_after.hp == 2  # "not having any other effect"
    assert bo_after.at == Hex(5, -3) and cy_after.blocking is True
    log = fight.log()
    assert "on entered by Ann fires at 0 tenths" in log
    assert "on entered by Bo fires at 0 tenths" in log  # Bo entered a hex: nobody blocks it
    assert "block = blocking_attack: blocked | dice: attack_roll 10" in log


def test_a_failed_blocking_attack_lets_him_past_and_the_block_is_lost(rb):
    # "If the attack fails the opponent moves into the hex and the blocking combatant is no
    # longer in a blocking position."
    ann, bo = swordsmen(rb)
    # 3 + 8 < 12: she is past; Cy, his turn due at 0 too, strikes at her now in his reach (1).
    fight = rb.fight({"heroes": [ann, bo], "foes": spearman(rb)}, dice=[3, 1], until=4)
    assert calls(fight.events) == [(None, "block", "moved_past"), ("Cy", "strike", "done")]
    ann_after, _, cy_after = fight.fighters
    assert ann_after.at == Hex(2, 0) and cy_after.blocking is False


def test_no_blocking_attack_when_he_steps_into_a_hex_not_blocked(rb):
    # Ann from (4, 0) steps into (3, 0) at 0 (not blocked): the rule fires, no attack, no die.
    ann, bo = swordsmen(rb, ann_at=(4, 0))
    fight = rb.fight({"heroes": [ann, bo], "foes": spearman(rb)}, dice=[], until=4)
    assert calls(fight.events) == []
    assert fight.fighters[0].at == Hex(3, 0)
    # Her next step, at 5, is into (2, 0): blocked.
    fight = rb.fight({"heroes": [ann, bo], "foes": spearman(rb)}, dice=[10], until=6)
    assert calls(fight.events) == [(None, "block", "blocked")]
    # Nor when the blocker has not taken up his position.
    ann, bo = swordsmen(rb)
    fight = rb.fight({"heroes": [ann, bo], "foes": spearman(rb, blocking=False)}, dice=[1],
                     until=4)
    assert calls(fight.events) == [("Cy", "strike", "done")]
    assert fight.fighters[0].at == Hex(2, 0)
    # Nor when she steps elsewhere: from (3, 0) to her front right, (3, -1), not blocked.
    ann, bo = swordsmen(rb)
    fight = rb.fight({"heroes": [ann, bo], "foes": spearman(rb)}, dice=[], until=4,
                     choices={"to": [Hex(3, -1), Hex(5, -3)]})
    assert calls(fight.events) == [] and fight.fighters[0].at == Hex(3, -1)
    assert "Ann's action completes at 5 (as Walk)" in fight.log()


def test_a_back_hex_takes_twice_the_walk_and_a_fighter_turns_to_his_target(rb):
    # "To move into a front hex takes a time given by the appropriate move rate. To move into a
    # back hex takes twice this time." Ann, facing Cy, steps back to (4, 0): 2 x 5 tenths.
    ann, bo = swordsmen(rb)
    fight = rb.fight({"heroes": [ann, bo], "foes": spearman(rb)}, dice=[], until=4,
                     choices={"to": [Hex(4, 0), Hex(5, -3)]})
    assert "Ann's action completes at 10 (as Walk)" in fight.log()
    # "To change facing and turn through 60 degrees takes the same time as the run move rate"
    # (half the walk here): Ann with her back to Cy turns first, to the left.
    ann = rb.combatant(name="Ann", at=(4, 0), facing=0, walk=5)
    fight = rb.fight({"heroes": [ann], "foes": spearman(rb)}, dice=[], until=1)
    turned = [e["value"] for e in fight.events if e["kind"] == "change"
              and e["name"] == "f.facing"]
    assert turned == [1] and "Ann's action completes at 2 (as Turn)" in fight.log()


def test_a_seeded_two_against_one_and_its_log(rb):
    ann, bo = swordsmen(rb, ann_at=(5, 0), bo_at=(5, -1))
    cy = spearman(rb, blocking=False)
    fight = rb.fight({"heroes": [ann, bo], "foes": cy}, seed=1)
    log = fight.log()
    assert "Ann aims at Cy" in log and "Bo aims at Cy" in log and "Cy aims at Ann" in log
    # "To take up a blocking position takes Base Speed -5 tenths"
    assert "Cy's action completes at 7 (as Block)" in log
    # Ann walks into (2, 0) at 10: blocked, and back in (3, 0); at 15 she is past.
    assert "10 Ann          on entered by Ann fires at 10 tenths" in log
    assert "10              block = blocking_attack: blocked | dice: attack_roll 5" in log
    assert "10              Ann.at = (3, 0)" in log
    assert "15              block = blocking_attack: moved_past | dice: attack_roll 3" in log
    assert "12              block = blocking_attack: blocked | dice: attack_roll 19" in log
    assert "sides: heroes (Ann, Bo); foes (Cy) — won by heroes" in log
    assert fight.winner() == "heroes" and fight.result.outcome["winner"] == "heroes"
    assert rb.fight({"heroes": [ann, bo], "foes": cy}, seed=1).log() == log


def test_exact_odds_of_a_small_fight_by_the_side_that_won(rb):
    # One swordsman against the spearman, a hit point each, by the side whose fighters alone
    # stand (the encounter's `afterwards:` names it; None: capped at 60 turns).
    ann = rb.combatant(name="Ann", at=(3, 0), facing=3, walk=5, hp=1)
    odds = rb.procedures["skirmish"].odds(by="winner", heroes=[ann], foes=[spearman(rb, hp=1)])
    assert set(odds) == {"heroes", "foes", None} and sum(odds.values()) == 1
    assert odds["foes"] > 3 * odds["heroes"]  # the blocking spear strikes first
    # Blocked again and again: past 60 turns, under one in a hundred.
    assert Fraction(1, 1000) < odds[None] < Fraction(1, 100)
    # Seeded runs agree (the spearman wins about four in five).
    wins = sum(rb.fight({"heroes": [ann], "foes": spearman(rb, hp=1)}, seed=s).winner() == "foes"
               for s in range(100))
    assert abs(wins / 100 - float(odds["foes"])) < 0.12


# ---- an arrow in flight while its target walks ----------------------------------------------

def test_the_arrow_hits_a_target_still_in_the_hex_it_was_loosed_at(rb):
    # RS, A Missile Attack: "At the end of the Fire action the missile is launched at the
    # chosen opponent." Eve, 3 hexes off, walks a hex each 8 tenths; the arrow takes 6.
    dan = rb.combatant(name="Dan", at=(0, 0), anti_parry=10)
    eve = rb.combatant(name="Eve", at=(3, 0), facing=1, walk=8)
    result = rb.procedures["volley"].run(archer=dan, target=eve, dice=[15])
    events = [(e.kind, e.name, str(e.detail)) for e in result.trace if e.kind == "event"]
    assert events == [("event", "arrow", "at 6 tenths")]
    assert [(e.name, e.value.name) for e in result.trace if e.kind == "return"] == \
        [("strike", "hit"), ("shot", "done")]
    assert result.combatants["target"].hp == 1


def test_the_arrow_misses_a_target_who_has_walked_off_that_hex(rb):
    # Eve walks off (3, 0) at 4 tenths, before the arrow comes down at 6: no die is rolled.
    dan = rb.combatant(name="Dan", at=(0, 0), anti_parry=10)
    eve = rb.combatant(name="Eve", at=(3, 0), facing=1, walk=4)
    result = rb.procedures["volley"].run(archer=dan, target=eve, dice=[])
    assert [e.name for e in result.trace if e.kind == "return"] == []
    assert result.combatants["target"].hp == 2
    assert result.combatants["target"].at == Hex(6, -3)  # at 4, 8 and 12
    log = rb.fight({"archer": dan, "target": eve}, encounter="volley", seed=1,
                   names=["Dan", "Eve"]).log()
    assert "0 Dan          event arrow scheduled at 6 tenths" in log
    assert "6              event arrow happens" in log
    assert "4 Eve          Eve.at = (4, -1)" in log


def test_exact_odds_of_the_arrow(rb):
    dan = rb.combatant(name="Dan", at=(0, 0), anti_parry=10)
    slow = rb.combatant(name="Eve", at=(3, 0), facing=1, walk=8)
    fast = rb.combatant(name="Eve", at=(3, 0), facing=1, walk=4)
    # Eve's back is to Dan (facing 1, Dan behind): half her defence, 7: only a 1 fails.
    odds = rb.procedures["volley"].odds(archer=dan, target=slow)
    assert odds == {"ended": 1}
    struck = rb.procedures["volley"].path_odds(by=lambda r: r.combatants["target"].hp,
                                               archer=dan, target=slow)
    assert struck == {1: Fraction(19, 20), 2: Fraction(1, 20)}
    assert rb.procedures["volley"].path_odds(by=lambda r: r.combatants["target"].hp,
                                             archer=dan, target=fast) == {2: 1}


# ---- a rider and his horse -------------------------------------------------------------------

def mounted(rb):
    bors = rb.combatant(name="Bors", at=(0, 0), weapon_range="Medium", anti_parry=10)
    dobbin = rb.combatant_models["horse"].build(name="Dobbin", at=(0, 0), walk=3)
    jack = rb.combatant(name="Jack", at=(3, 0), facing=3, weapon_range="Long")
    return bors, dobbin, jack


def test_the_horse_covers_two_hexes_by_its_pattern(rb):
    _, dobbin, _ = mounted(rb)
    # "They take up two hexes": its own and the one behind it, turned with its facing.
    assert dobbin.hexes == (Hex(0, 0), Hex(-1, 0))
    turned = rb.combatant_models["horse"].build(name="Dobbin", at=(0, 0), facing=3)
    assert turned.hexes == (Hex(0, 0), Hex(1, 0))


def test_a_rider_and_his_horse_each_take_turns_of_their_own(rb):
    bors, dobbin, jack = mounted(rb)
    # At 0 Bors waits (Jack out of reach), Dobbin walks on, carrying him; Jack, Dobbin's front
    # end in his reach, rolls for horse or rider (2: the rider) and misses (1). At 3 Dobbin
    # walks again; at 5 Bors strikes (3: a miss); at 6 Jack is ahead of Dobbin, who kicks:
    # 10 + 6 >= 14.
    fight = rb.fight([bors, dobbin, jack], encounter="charge", dice=[2, 1, 3, 10], until=6,
                     names=["Bors", "Dobbin", "Jack"])
    log = fight.log()
    assert "0 Bors         Bors's action completes at 5 (as Wait)" in log
    assert "0 Dobbin       Dobbin's action completes at 3 (as Walk)" in log
    assert "0 Dobbin       Bors.at = (1, 0)" in log
    assert "0 Jack         strike = blow: done | dice: attack_roll 1 | hit no" in log
    assert "3 Dobbin       Dobbin.at = (2, 0)" in log
    assert "5 Bors         strike = blow: done | dice: attack_roll 3 | hit no" in log
    assert "6 Dobbin       kick = 10" in log and "6 Dobbin       Jack.hp = 1" in log
    assert "6 Dobbin       Dobbin's action completes at 16 (as Kick)" in log
    rolls = [(e["who"].name, e["name"]) for e in fight.events if e["kind"] == "roll"]
    assert rolls == [("Jack", "whom"), ("Dobbin", "kick")]  # the blows' dice are their calls'


@pytest.mark.parametrize("whom, hit", [(3, "rider"), (4, "horse")])
def test_an_attack_at_the_horse_s_back_end_hits_the_rider_on_1_to_3(rb, whom, hit):
    # "Rider at end attacked is hit on 1–6; Rider at other end is hit at a 1–3". Jack, in
    # (0, -1) facing 5, reaches the back end of Dobbin (1, 0) - (0, 0), not the front, where
    # Bors sits; the horse's two hexes are its pattern turned with its facing.
    bors, dobbin, _ = mounted(rb)
    jack = rb.combatant(name="Jack", at=(0, -1), facing=5, weapon_range="Long")
    fight = rb.fight([bors, dobbin, jack], encounter="charge", dice=[whom, 12], until=1)
    knight, steed, _ = fight.fighters
    assert (knight.hp, steed.hp) == ((1, 2) if hit == "rider" else (2, 1))


def test_exact_odds_of_the_charge(rb):
    # Knight, horse and footman of one hit point each, the horse a hex from the footman: who is
    # left, exactly (a fight capped at 40 turns is the rest).
    bors, dobbin, jack = (rb.combatant(name="Bors", at=(1, 0), weapon_range="Medium",
                                       anti_parry=10, hp=1),
                          rb.combatant_models["horse"].build(name="Dobbin", at=(1, 0), hp=1),
                          rb.combatant(name="Jack", at=(3, 0), facing=3, weapon_range="Long",
                                       hp=1))
    odds = rb.procedures["charge"].odds(knight=bors, steed=dobbin, footman=jack)
    assert set(odds) == {"ended", "capped"} and sum(odds.values()) == 1
    assert odds["capped"] < Fraction(1, 10 ** 20)


def test_the_exact_odds_of_a_longer_charge_are_refused_offering_samples(rb):
    # Two hit points each and the ride in: past the command's work; the refusal says how to
    # estimate them instead (it named the work limit only).
    bors, dobbin, jack = mounted(rb)
    with pytest.raises(rulecraft.RulecraftError) as refused:
        rb.procedures["charge"].odds(knight=bors, steed=dobbin, footman=jack,
                                     limits=rulecraft.Limits(work=200_000))
    assert "limit work" in str(refused.value)
    assert "rulecraft odds … --samples 100000 --seed 1" in str(refused.value)


# ---- from the command line -------------------------------------------------------------------

GRID = "tests/rules/grid/"


def test_rulecraft_fight_two_against_one_on_the_grid_from_fighter_files():
    # Issue 15: "`rulecraft fight` takes several fighter files per side and `--runs` reports
    # each side's win rate".
    runner = CliRunner()
    args = ["fight", RULES, GRID + "ann.toml", GRID + "bo.toml", "vs", GRID + "cy.toml",
            "--seed", "1"]
    once = runner.invoke(cli, args)
    assert once.exit_code == 0, once.output
    assert "on entered by ann fires" in once.output and "blocking_attack: blocked" in once.output
    assert "cy aims at ann" in once.output
    assert "sides: heroes (ann, bo); foes (cy) — won by" in once.output
    assert runner.invoke(cli, args).output == once.output  # seeded: the same fight
    many = runner.invoke(cli, [*args, "--runs", "30"])
    assert many.exit_code == 0, many.output
    assert "side heroes (ann, bo) wins:" in many.output and "side foes (cy) wins:" in many.output
    data = json.loads(runner.invoke(cli, [*args, "--runs", "30", "--json"]).output)
    rates = [data["sides"]["heroes"]["rate"], data["sides"]["foes"]["rate"], data["draws"]["rate"]]
    assert sum(rates) == pytest.approx(1) and rates[0] > rates[1]


def test_the_mean_length_of_fights_whose_outcome_is_the_rules_own():
    # The skirmish ends in `outcome won with winner = …` (afterwards:), which says no time:
    # the mean length was 0 (only the capped fights counted).
    data = json.loads(CliRunner().invoke(cli, [
        "fight", RULES, GRID + "ann.toml", GRID + "bo.toml", "vs", GRID + "cy.toml", "--seed",
        "1", "--runs", "10", "--json"]).output)
    assert data["outcomes"].get("won", 0) >= 8
    assert 20 < data["mean_time"] < 100 and data["mean_passes"] > 5


def test_the_sheet_says_the_trigger_and_the_patterns_in_words(tmp_path):
    done = CliRunner().invoke(cli, ["sheet", RULES, "--format", "md"])
    assert done.exit_code == 0, done.output
    sheet = done.output
    assert "- **1** Whenever Mover enters a hex, at once (out of turn):" in sheet
    assert "| Forward | 2 ahead; ahead + front left; ahead + front right |" in sheet
    assert "| Left | 2 front left; ahead + front left; front left + back left |" in sheet
    assert "Blocks = [Blocked hexes](#blocked-hexes)\\[G Position\\] from G At facing G " \
        "Facing" in sheet
    assert "Event Arrow: after 2 × distance(Archer’s At, Target’s At)" in sheet
    assert "If P is a Horse:" in sheet and "sides: Knight and Steed against Footman" in sheet
    assert "| own hex; behind |" in sheet
    html = tmp_path / "grid.html"
    assert CliRunner().invoke(cli, ["sheet", RULES, "-o", str(html)]).exit_code == 0
    assert "Whenever Mover enters a hex, at once (out of turn):" in html.read_text()


@pytest.mark.parametrize("old, new, line, col, words", [
    ("blocked[g.position] from", "blocked[g.facing] from", 90, 28,
     "a key of pattern blocked is a stance, not a facing (0 to 5)"),
    ("          if kick + p.kick", "          if kick + p.anti_parry", 193, 21,
     "unknown field of a horse: 'anti_parry'"),
    ("if target.at == aimed_at:", "if target.at == 3:", 154, 12,
     "comparing a hex with a whole number is never true"),
])
def test_mistakes_in_the_grid_rules_are_caught_at_their_line(old, new, line, col, words):
    text = Path(RULES).read_text(encoding="utf-8")
    assert old in text
    with pytest.raises(rulecraft.RulecraftError) as caught:
        rulecraft.compile(text.replace(old, new, 1), "grid.rules")
    assert f"grid.rules:{line}:{col}: {words}" in str(caught.value)


def test_the_trace_shows_the_rule_firing_and_the_blocked_hexes_turned(rb):
    ann = rb.combatant(name="Ann", at=(3, 0), facing=3)
    result = rb.procedures["skirmish"].run(heroes=[ann], foes=[spearman(rb)], dice=[10],
                                           time_limit=4)
    told = result.explain()
    assert "grid_skirmish.rules:88:3: trigger on entered = Ann (fires at 0 tenths)" in told
    assert "grid_skirmish.rules:90:7: let blocks = (2, 0), (2, -1), (1, 1)" in told
    assert [(e.name, e.value.name) for e in result.trace if e.kind == "return"] == \
        [("block", "hit"), ("block", "blocked")]
