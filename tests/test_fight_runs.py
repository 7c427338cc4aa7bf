"""Issue 19, fights per second: "`fight --runs` and `Rulebook.fight(runs=…)` play untraced
fights and keep only what the summary needs (who stands, length, final figures); the event log is
built only for a single fight or `--log`." A fight played without a trace says what a traced one
says of who stands, how long it took and each fighter's state, on every clock."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulecraft
from rulecraft.fight import study
from rulecraft.runtime.fights import fight

RULES = Path(__file__).parent / "rules" / "three_clocks.rules"
EXAMPLES = Path(__file__).parent.parent / "examples" / "ringing_steel"


def _cases():
    clocks = rulecraft.load(str(RULES))
    hero = clocks.combatant_models["fighter"].build(skill=3)
    foe = clocks.combatant_models["fighter"].build(skill=1, speed=3)
    steel = rulecraft.load("ringing_steel")
    swordsman = rulecraft.read_fighter(steel, str(EXAMPLES / "swordsman.toml"))
    spearman = rulecraft.read_fighter(steel, str(EXAMPLES / "spearman.toml"))
    return {"rounds": (clocks, [hero, foe], {"encounter": "rounds"}),
            "counts": (clocks, [hero, foe], {"encounter": "counts"}),
            "tenths": (steel, [swordsman, spearman], {"policy": "competent"}),
            "to the death": (steel, [swordsman, spearman], {"until": "dead"})}


CASES = _cases()


def _said(one):
    """What a summary reads of one fight: its outcome, who stands, its length, the fighters."""
    return (one.result.outcome, one.played(), [one.name(f) for f in one.standing()],
            one.length(), [f.as_dict() for f in one.fighters])


@pytest.mark.parametrize("clock", list(CASES))
def test_an_untraced_fight_says_what_the_traced_one_says(clock):
    rb, fighters, options = CASES[clock]
    for seed in range(12):
        traced = fight(rb, fighters, seed=seed, names=["a", "b"], **options)
        untraced = fight(rb, fighters, seed=seed, names=["a", "b"], traced=False, **options)
        assert _said(untraced) == _said(traced), seed
        assert traced.events and not untraced.events
        assert len(untraced.result.trace) == 0  # nothing was kept


def test_rulebook_fight_with_runs_is_the_study():
    rb, fighters, options = CASES["tenths"]
    many = rb.fight(fighters, runs=30, seed=5, names=["a", "b"], workers=1, **options)
    assert many == study(rb, fighters, 30, seed=5, names=["a", "b"], workers=1, **options)
    assert many.runs == 30 and sum(many.standing.values()) > 0


def test_fighters_given_from_python_without_names_are_called_as_a_single_fight_calls_them():
    """Many fights of fighters with no `name` figure (Ringing Steel's) are summed under the
    parameters they were given to, as one fight's log calls them, not under their figures."""
    import rulecraft

    rb = rulecraft.load("ringing_steel")
    a = rulecraft.read_fighter(rb, "examples/ringing_steel/swordsman.toml")
    b = rulecraft.read_fighter(rb, "examples/ringing_steel/spearman.toml")
    summary = rb.fight([a, b], runs=3, seed=1)
    assert list(summary.standing) == ["first", "second"]
    one = rb.fight([a, b], seed=1)
    assert {one.name(f) for f in one.fighters} == {"first", "second"}
    sided = rb.fight([[a], [b, a]], runs=2, seed=1, encounter="skirmish")
    assert list(sided.standing) == ["fighter 1", "fighter 2", "fighter 3"]
