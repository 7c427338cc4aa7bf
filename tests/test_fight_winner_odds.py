"""Exact odds of who wins a whole fight, where the encounter's outcomes do not say it: "the
side alone standing", as a played fight counts it (issue 19's closing note: "`--by winner`
cells are always sampled … Fix: group `FightOdds.ended` by the side alone standing")."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.runtime.fights import fight
from test_fight_sweep import STAND, WON, grid


def duel(text: str):
    rb = rulecraft.compile(text, "stand.rules")
    return rb, dict(a=rb.combatant(name="Ann", speed=10, stamina=3),
                    b=rb.combatant(name="Bob", speed=12, stamina=4))


def test_who_stands_at_the_end_is_worked_out_exactly():
    rb, args = duel(STAND)
    odds = rb.procedures["duel"].odds(by="winner", **args)
    assert set(odds) <= {"a", "b", None} and sum(odds.values()) == 1
    # The same fight whose outcome names the winner (by name) gives the same chances.
    won_rb, won_args = duel(WON)
    named = won_rb.procedures["duel"].odds(by="winner", **won_args)
    assert odds["a"] == named["Ann"] and odds["b"] == named["Bob"]
    assert isinstance(odds["a"], Fraction) and 0 < odds["a"] < 1


def test_the_exact_share_is_what_many_seeded_fights_come_near():
    rb, args = duel(STAND)
    exact = rb.procedures["duel"].odds(by="winner", **args)
    played = [fight(rb, [args["a"], args["b"]], seed=s).winner() for s in range(400)]
    share = played.count("a") / len(played)
    assert abs(share - float(exact["a"])) < 0.08  # 400 fights: ~3.5 standard errors


def test_a_sweep_by_winner_is_exact_where_the_chain_allows():
    _, found = grid(STAND, seed=1)
    assert all(cell.exact is not None and cell.runs == 0 for cell in found.cells.values())
    assert "4 cells exact, 0 sampled" in found.text()


def test_odds_by_winner_from_the_command_line(tmp_path):
    rules = tmp_path / "stand.rules"
    rules.write_text(STAND, encoding="utf-8")
    given = ["odds", str(rules), "duel", "a.name=Ann", "a.speed=10", "a.stamina=3",
             "b.name=Bob", "b.speed=12", "b.stamina=4", "--by", "winner"]
    sampled = CliRunner().invoke(cli, [*given, "--samples", "200", "--seed", "1"])
    assert sampled.exit_code == 0 and "estimated from 200 seeded runs" in sampled.output, \
        sampled.output
    done = CliRunner().invoke(cli, [*given, "--exact"])
    assert done.exit_code == 0, done.output
    rb, args = duel(STAND)
    odds = rb.procedures["duel"].odds(by="winner", **args)
    assert str(odds["a"]) in done.output and str(odds["b"]) in done.output


# Two against one on a `sides:` line, no cap: each round a d6 fells a, b or c, or nobody.
TWO_ON_ONE = """rulebook brawl "Brawl"
combatant fighter:
  name: name
  state hp: 0..1 = 1 clamped
encounter brawl "Two against one" (a: fighter, b: fighter, c: fighter):
  clock rounds
  sides: a and b against c
  each round:
    roll r = d6
    if r == 1:
      set a.hp = 0
      stop a
    if r == 2:
      set b.hp = 0
      stop b
    if r >= 5:
      set c.hp = 0
      stop c
  ends when c.hp == 0 or (a.hp == 0 and b.hp == 0)
  no cap
  afterwards:
    outcome over
"""


def test_a_side_of_several_stands_while_any_of_its_fighters_does():
    rb = rulecraft.compile(TWO_ON_ONE, "brawl.rules")
    a, b, c = (rb.combatant(name=n) for n in ("A", "B", "C"))
    odds = rb.procedures["brawl"].odds(by="winner", a=a, b=b, c=c)
    # c falls first (2 faces of the 4 that fell anyone): 1/2; else one of a and b fell, and
    # c falls before the other (2 faces of 3): 1/2 × 2/3
    assert odds == {"a and b": Fraction(5, 6), "c": Fraction(1, 6)}


def test_sampled_odds_by_winner_count_the_side_left_standing():
    # The exact odds' refusal advises `--samples`: by winner, the samples count who stands as
    # the exact odds and a played fight do.
    rb, args = duel(STAND)
    exact = rb.procedures["duel"].odds(by="winner", **args)
    sampled = rb.procedures["duel"].sample(400, by="winner", seed=5, **args)
    assert set(sampled) <= {"a", "b", None} and sum(e.count for e in sampled.values()) == 400
    assert abs(float(sampled["a"]) - float(exact["a"])) < 0.08


def test_odds_by_winner_of_an_encounter_that_stops_nobody_say_why_none(tmp_path) -> None:
    """The simple duel (docs/examples/simple_duel.rules) ends with outcomes `a_wins` and
    `b_wins` and stops nobody: by winner, every ending is "(none)", and the table says why and
    what to ask instead, exact or sampled."""
    duel = str(Path(__file__).resolve().parent.parent / "docs" / "examples" / "simple_duel.rules")
    given = ["a.name=A", "a.skill=2", "b.name=B", "b.skill=1", "--by", "winner"]
    for extra in ([], ["--samples", "50", "--seed", "1"]):
        result = CliRunner().invoke(cli, ["odds", duel, "duel", *given, *extra])
        assert result.exit_code == 0, result.output
        assert "no fighter is stopped in any ending" in result.output
        assert "--by outcome" in result.output
