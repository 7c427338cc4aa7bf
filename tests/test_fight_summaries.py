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
