"""Issue 19, summaries right for every clock: "With a round clock, `--runs` today reports each
fighter 'standing at the end: 0.0%' while its outcomes say the hero won 94 % ... Every summary
figure of --runs for a round clock, a count clock and the tenths clock equals what the single
fights it summarises say (a test)."

A study's fight i is the single fight seeded (seed × 1,000,003 + i); each figure is worked out
here from those single fights, by what each fight says of itself (who stands, its outcome's time
and passes, each fighter's state), not by the study's own tally."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

import rulecraft
from rulecraft.fight import study

RULES = Path(__file__).parent / "rules" / "three_clocks.rules"
EXAMPLES = Path(__file__).parent.parent / "examples" / "ringing_steel"
RUNS, SEED = 24, 11


def _cases():
    clocks = rulecraft.load(str(RULES))
    hero = clocks.combatant_models["fighter"].build(skill=3)
    foe = clocks.combatant_models["fighter"].build(skill=1, speed=3)
    steel = rulecraft.load("ringing_steel")
    swordsman = rulecraft.read_fighter(steel, str(EXAMPLES / "swordsman.toml"))
    spearman = rulecraft.read_fighter(steel, str(EXAMPLES / "spearman.toml"))
    return {"rounds": (clocks, [hero, foe], "rounds", None),
            "counts": (clocks, [hero, foe], "counts", None),
            "tenths": (steel, [swordsman, spearman], "duel", "competent")}


CASES = _cases()


@pytest.mark.parametrize("clock", list(CASES))
def test_every_figure_of_many_fights_is_what_the_single_fights_say(clock):
    rb, fighters, encounter, policy = CASES[clock]
    names = ["hero", "foe"]
    summary = study(rb, fighters, RUNS, seed=SEED, names=names, encounter=encounter,
                    policy=policy, workers=1)
    standing: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    time = passes = Fraction(0)
    for i in range(RUNS):
        one = rb.fight(fighters, seed=SEED * 1_000_003 + i, names=names, encounter=encounter,
                       policy=policy)
        ended = one.result.outcome
        outcomes[ended.name] += 1
        standing.update(one.name(f) for f in one.standing())
        time += Fraction(ended["time"])
        passes += ended.get("rounds", ended.get("turns"))
    assert summary.outcomes == dict(outcomes)
    assert summary.standing == {name: standing[name] for name in names}
    assert sum(summary.standing.values()) > 0  # somebody stood at the end of some fight
    assert summary.mean_time == pytest.approx(float(time / RUNS))
    assert summary.mean_passes == pytest.approx(float(passes / RUNS))
    assert summary.mean_passes > 0
    # The mean length in the clock's own unit ("mean length: 60.9 tenths"), as the log's times.
    assert summary.clock == clock and f"{summary.mean_time:.1f} {clock}," in summary.report()
    assert summary.as_json()["clock"] == clock
    # The passes by what the outcomes count ("time" and "rounds", or "time" and "turns").
    counted = "rounds" if clock == "rounds" else "turns"
    assert summary.counted == counted == summary.as_json()["counted"]
    assert f"{summary.mean_passes:.1f} {counted}\n" in summary.report()


def test_a_choice_a_policy_answers_is_logged_as_the_policy_s():
    """"a choice answered by a policy is logged as '(by fighter, default)'"."""
    rb, fighters, encounter, _ = CASES["tenths"]
    with_policy = rb.fight(fighters, seed=7, names=["hero", "foe"], policy="competent").log()
    without = rb.fight(fighters, seed=7, names=["hero", "foe"]).log()
    assert "closing = Wait (by fighter, policy competent)" in with_policy
    assert "(by fighter, default)" not in with_policy.split("closing = ", 1)[1].split("\n")[0]
    assert "closing = Attack (by fighter, default)" in without


def test_a_figure_changed_inside_a_called_procedure_shows_under_the_fighter_s_name():
    """"a fighter's state changed inside a called procedure is never shown in the log": the
    exchange (a procedure the encounter calls) takes the foe's stamina; the log says whose, by
    the fighter's name, not the procedure's label for him ("foe.stamina")."""
    rb, fighters, _, _ = CASES["counts"]
    log = rb.fight(fighters, seed=2, names=["a", "b"], encounter="counts").log()
    assert "     4 a            bout = exchange: hero_wins | dice: a 8, b 9\n" \
           "     4 a            b.stamina = 4\n" in log
    assert "foe.stamina" not in log


def test_a_round_clock_s_log_counts_its_rounds():
    """"single-fight logs show time 0 on every line and an ending '(rounds)' without a
    number"."""
    rb, fighters, _, _ = CASES["rounds"]
    fight = rb.fight(fighters, seed=1, names=["a", "b"], encounter="rounds")
    log = fight.log()
    rounds = fight.result.outcome["rounds"]
    assert rounds > 1
    assert f"ended: ended time {rounds}, rounds {rounds} (rounds)" in log
    assert f"\n{rounds:>6}" in log and "\n     1" in log


def test_an_ending_of_the_rules_own_says_how_long_the_fight_took():
    """Issue 19: "single-fight logs show ... an ending '(rounds)' without a number". An outcome
    from `afterwards:` carries no time of its own: the log gives the clock's."""
    rb = rulecraft.load(str(Path(__file__).parent.parent / "docs" / "examples" /
                            "simple_duel.rules"))
    ann = rb.combatant(name="Ann", skill=1, stamina=6)
    bob = rb.combatant(name="Bob", skill=0, stamina=6)
    fight = rb.fight([ann, bob], seed=1)
    rounds = sum(e["kind"] == "turn" or bool(e.get("round")) for e in fight.events)
    assert rounds > 0 and fight.length() == (rounds, rounds)
    ending = [line for line in fight.log().splitlines() if line.startswith("ended:")]
    assert ending == [f"ended: {fight.result.outcome.name} (at {rounds} rounds)"]


def test_two_fighters_of_a_kind_are_summed_up_with_the_same_figures():
    # In these 24 fights only the spearman ("foe") takes a Disable; the swordsman still shows
    # "injuries: Disable 0.00", so the two lines read side by side. Every item's mean is the
    # single fights' own.
    rb, fighters, encounter, policy = CASES["tenths"]
    summary = study(rb, fighters, RUNS, seed=SEED, names=["hero", "foe"], encounter=encounter,
                    policy=policy, workers=1)
    hero, foe = summary.states["hero"], summary.states["foe"]
    assert list(hero) == list(foe)
    for name, state in summary.states.items():
        disabled = 0
        for i in range(RUNS):
            one = rb.fight(fighters, seed=SEED * 1_000_003 + i, names=["hero", "foe"],
                           encounter=encounter, policy=policy)
            final = {one.name(f): f for f in one.fighters}[name]
            disabled += sum(items.count("Disable") for items in final.injuries.values())
        assert state["injuries: Disable"] == pytest.approx(disabled / RUNS)
    assert hero["injuries: Disable"] == 0 < foe["injuries: Disable"]
