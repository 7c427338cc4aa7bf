"""Exact odds of whole fights as an absorbing Markov chain (issue 19): an encounter with `no cap`
whose loop reads neither the time nor the pass count is solved over its states, repeats summed
exactly, and a share that can never end reported as such (runtime/fight_chain.py)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import rulecraft
from rulecraft.runtime import fight_odds
from rulecraft.runtime.errors import RangeError
from rulecraft.runtime.fight_chain import NEVER_ENDS, absorbed, components

# Issue 19's simple duel: "both roll 2d6 + skill, the higher takes 2 stamina" — the docs' own
# example file (README, `rulecraft odds docs/examples/simple_duel.rules duel …`).
SIMPLE = (Path(__file__).resolve().parent.parent / "docs" / "examples" /
          "simple_duel.rules").read_text(encoding="utf-8")


@pytest.fixture
def tally(monkeypatch):
    counted: dict[str, int] = {}
    monkeypatch.setattr(fight_odds, "TALLY", counted)
    return counted


def simple(stamina: int, skill: int = 1, text: str = SIMPLE):
    rb = rulecraft.compile(text, "simple.rules")
    return rb.procedures["duel"], dict(a=rb.combatant(name="A", skill=skill, stamina=stamina),
                                       b=rb.combatant(name="B", skill=0, stamina=stamina))


def by_hand(stamina: int, skill: int) -> Fraction:
    """The chance that A wins, as a plain dynamic programme: a round with a tie leaves the
    state as it was, so each state's chance is its decisive rounds' over 1 − P(tie)."""
    two = {t: 6 - abs(t - 7) for t in range(2, 13)}
    win = sum(Fraction(x * y, 1296) for ra, x in two.items() for rb, y in two.items()
              if ra + skill > rb)
    lose = sum(Fraction(x * y, 1296) for ra, x in two.items() for rb, y in two.items()
               if rb > ra + skill)
    odds: dict[tuple[int, int], Fraction] = {}
    for a in range(0, stamina + 1, 2):
        for b in range(0, stamina + 1, 2):
            if b == 0:
                odds[a, b] = Fraction(a > 0)
            elif a == 0:
                odds[a, b] = Fraction(0)
            else:
                odds[a, b] = (win * odds[a, b - 2] + lose * odds[a - 2, b]) / (win + lose)
    return odds[stamina, stamina]


def test_no_cap_reads_like_the_book_and_formats_back():
    # Issue 19: "add a form that reads like the book (suggestion: `no cap` in place of `at
    # most N turns`)".
    from rulecraft.dsl.formatter import format_file
    from rulecraft.dsl.parser import parse
    formatted = format_file(parse(SIMPLE, "simple.rules"))
    assert "\n  no cap\n" in formatted
    assert format_file(parse(formatted, "simple.rules")) == formatted
    procedure, _ = simple(6)
    assert procedure.timeless


@pytest.mark.parametrize("stamina", [2, 6, 10])
def test_the_chain_sums_the_ties_exactly(stamina, tally):
    # "solve the chain exactly, so states that can repeat forever (ties, stand-offs) are summed
    # as the geometric series they are and no round cap enters the answer"
    procedure, args = simple(stamina)
    odds = procedure.odds(**args)
    assert odds == {"a_wins": by_hand(stamina, 1), "b_wins": 1 - by_hand(stamina, 1)}
    # States keyed without the round: (stamina / 2 + 1) squared at most, each played once.
    assert tally["states"] <= (stamina // 2 + 1) ** 2 and tally["expanded"] == tally["states"] + 1


def test_a_capped_encounter_keeps_its_cap_as_a_rule():
    # "a capped encounter still gives the capped answer (the cap IS a rule there)"
    procedure, args = simple(4, text=SIMPLE.replace("no cap", "at most 2 rounds"))
    assert procedure.timeless and procedure.cap == 2  # each state's pass worked out once
    odds = procedure.odds(**args)
    assert odds == procedure.path_odds(**args)
    # A fight cut short after two rounds is A's unless A has fallen (`afterwards`).
    assert odds["a_wins"] > by_hand(4, 1) and sum(odds.values()) == 1


STANCES = """rulebook stances "Stances"
combatant fighter:
  name: name
  state stance: 0..1 = 0
encounter bout "A stand-off" (a: fighter):
  clock rounds
  each round:
    roll r = d6
    if a.stance == 0 and r == 6:
      outcome hit
    if a.stance == 1 and r >= 5:
      outcome struck
    set a.stance = 1 - a.stance
  ends when false
  no cap
"""


def test_a_stand_off_of_two_states_is_solved_as_a_linear_system():
    # x0 = 1/6 hit + 5/6 x1, x1 = 1/3 struck + 2/3 x0: x0 = 3/8 hit + 5/8 struck.
    rb = rulecraft.compile(STANCES, "stances.rules")
    assert rb.procedures["bout"].odds(a=rb.combatant(name="A")) == {
        "hit": Fraction(3, 8), "struck": Fraction(5, 8)}


NEVER = """rulebook never "Never"
combatant fighter:
  name: name
  state stamina: 0..10 = 4 clamped
encounter bout "Some fights never end" (a: fighter, b: fighter):
  clock rounds
  roll mood = d4
  each round:
    roll r = d6
    if mood > 1 and r == 6:
      set b.stamina = b.stamina - 2
  ends when b.stamina == 0
  no cap
"""


def test_a_share_that_can_never_end_is_reported():
    # "a share that can never end reported as an explicit "never ends" group"
    rb = rulecraft.compile(NEVER, "never.rules")
    odds = rb.procedures["bout"].odds(a=rb.combatant(name="A"), b=rb.combatant(name="B"))
    assert odds == {"ended": Fraction(3, 4), NEVER_ENDS: Fraction(1, 4)}
    assert NEVER_ENDS == "never ends" and odds.states == 7  # B's 4 or 2 by moods 2-4; mood 1


def test_a_run_that_never_ends_is_refused_by_its_work():
    # "seeded/scripted RUNS of an uncapped encounter are bounded by the work budget"
    rb = rulecraft.compile(NEVER, "never.rules")
    with pytest.raises(RangeError) as info:
        rb.procedures["bout"].run(a=rb.combatant(name="A"), b=rb.combatant(name="B"),
                                  dice=[1] * 2000, limits=rulecraft.Limits(loop_passes=500))
    assert "this encounter has `no cap` and had not ended after 500 passes (it may never end)" \
        in info.value.message


def test_components_come_after_those_they_lead_to():
    # 0 -> 1 <-> 2 -> 3: {3} first, then {1, 2}, then {0}.
    assert [sorted(c) for c in components([[1], [2], [1, 3], []])] == [[3], [1, 2], [0]]
    half = Fraction(1, 2)
    rows = [({0: half}, {"x": half})]  # a self-loop: the geometric series
    assert absorbed(rows) == [{"x": Fraction(1)}]


def test_a_chain_too_large_is_refused_with_an_estimate_of_its_states(tally, tmp_path):
    # "refusals ESTIMATE the states needed before spending the work": 15 × 15 states at
    # stamina 30 (each side's 30, 28 … 2), foretold from random fights after an eighth of
    # the limit, not counted to the limit.
    from rulecraft.runtime.exact import TooLarge
    procedure, args = simple(30)
    with pytest.raises(TooLarge) as info:
        procedure.odds(limits=rulecraft.Limits(odds_states=100), **args)
    assert "about 225 distinct states (estimated from 16 random fights; the limit is 100)" \
        in str(info.value) and "--samples" in str(info.value)
    assert tally["states"] < 30


def test_the_odds_command_prints_a_fight_as_decimals_and_the_states_visited(tmp_path):
    # "`rulecraft odds RB ENCOUNTER a=@… b=@…` prints DECIMALS by default for a fight,
    # `--exact` for fractions, and says how many states were visited (also in `--json`)"
    import json

    from click.testing import CliRunner

    from rulecraft.cli import cli
    rules = tmp_path / "simple.rules"
    rules.write_text(SIMPLE)
    (tmp_path / "a.toml").write_text('name = "A"\nskill = 1\nstamina = 6\n')
    (tmp_path / "b.toml").write_text('name = "B"\nskill = 0\nstamina = 6\n')
    call = ["odds", str(rules), "duel", f"a=@{tmp_path / 'a.toml'}", f"b=@{tmp_path / 'b.toml'}"]
    p = by_hand(6, 1)
    shown = CliRunner().invoke(cli, call)
    assert shown.exit_code == 0, shown.output
    assert shown.output.splitlines() == [  # outcomes in the order written
        f"b_wins                       {float(1 - p):.6f}  {float((1 - p) * 100):6.2f}%",
        f"a_wins                       {float(p):.6f}  {float(p * 100):6.2f}%",
        "exact odds, 9 states of the fight visited (--exact prints fractions)"]
    exact = CliRunner().invoke(cli, call + ["--exact"]).output
    assert f" {p} " in exact and exact.endswith("9 states of the fight visited\n")
    data = json.loads(CliRunner().invoke(cli, call + ["--json"]).output)
    assert data["states_visited"] == 9 and data["exact"] is True
    assert [(r["outcome"], r["probability"]) for r in data["odds"]] == [
        ("b_wins", str(1 - p)), ("a_wins", str(p))]


def test_a_turn_clock_keyed_from_now_gives_the_capped_fight_s_odds():
    # A duel on a clock of tenths (test_encounters.DUEL, who won): with `no cap` its states are
    # keyed with the next turns counted from now; no fight lasts 100 turns, so the odds are
    # those of the same fight `at most 100 turns`, worked out pass by pass with the time.
    from test_exact_fights import WON, duel
    procedure, args = duel(WON.replace("at most 100 turns", "no cap"), 6)
    assert procedure.timeless and procedure.cap is None
    capped, capped_args = duel(WON, 6)
    odds = procedure.odds(by="winner", **args)
    assert odds == capped.odds(by="winner", **capped_args) and odds.states < 103


def test_a_condition_for_a_round_is_keyed_from_now():
    # test_exact_fights.DAZED: "give b "Dazed" for 1" lasts through the next round; with
    # `no cap` its state is the condition's time left, not the round it ends in.
    from test_exact_fights import DAZED
    rb = rulecraft.compile(DAZED.replace("at most 4 rounds", "no cap"), "daze.rules")
    odds = rb.procedures["brawl"].odds(a=rb.combatant(name="A"), b=rb.combatant(name="B"))
    # Each round: dazed from the last round, B loses 1 (2 hp: two such rounds end it).
    # A state is B's hp and whether B is dazed: it ends, surely.
    assert odds == {"ended": 1} and odds.states <= 4


def test_odds_by_the_length_of_a_fight_with_no_cap_are_refused_saying_why():
    # Asked by rounds, every state keeps its round, and a tie can repeat for ever.
    from rulecraft.runtime.exact import TooLarge
    procedure, args = simple(4)
    with pytest.raises(TooLarge) as info:
        procedure.odds(by="rounds", limits=rulecraft.Limits(odds_states=200), **args)
    message = str(info.value)
    assert "this encounter has `no cap` and the odds are asked by rounds" in message
    assert "--samples 100000" in message
