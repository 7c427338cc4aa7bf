"""A blow between two fighters with a choice named (`melee.run(attacker=a, defender=b,
defence="Parry")`, bench_core's "seeded vs Parry" row) is played by the quick path that checks
the arguments as it makes the run's handles, as a blow with no choice named already was; and a
choice given as one of its options is taken as it is (issue 19, per-step costs). The run must
be the one the general path plays, and a wrong name still says what is wrong."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import rulecraft

SHEETS = Path(__file__).resolve().parent.parent / "examples" / "ringing_steel"
RB = rulecraft.load("ringing_steel")
A, B = (RB.combatant(**tomllib.loads((SHEETS / f"{n}.toml").read_text(encoding="utf-8")))
        for n in ("swordsman", "spearman"))
MELEE = RB.procedures["melee_attack"]


def played(result: rulecraft.Result) -> tuple[object, ...]:
    return (result.outcome.name, {k: result.outcome[k] for k in result.outcome},
            [(e.kind, e.name, e.value, e.detail) for e in result.trace])


@pytest.mark.parametrize("defence", ["Parry", "Active Dodge", "parry"])
def test_a_choice_named_beside_the_fighters_plays_as_the_general_path(defence: str) -> None:
    for seed in range(12):
        quick = MELEE.run(attacker=A, defender=B, seed=seed, defence=defence)
        general = MELEE.run(attacker=A, defender=B, seed=seed, choices={"defence": defence})
        assert played(quick) == played(general), seed
        chosen = next(e for e in quick.trace if e.kind == "choose" and e.name == "defence")
        assert chosen.value == defence.title() and chosen.detail == "by defender, given"


def test_the_fighters_given_are_never_changed() -> None:
    before = (A.as_dict(), B.as_dict())
    for seed in range(20):
        MELEE.run(attacker=A, defender=B, seed=seed, defence="Parry")
    assert (A.as_dict(), B.as_dict()) == before


def test_a_wrong_choice_or_name_still_says_what_is_wrong() -> None:
    with pytest.raises(rulecraft.RangeError, match="cannot choose 'Block' for defence"):
        MELEE.run(attacker=A, defender=B, seed=1, defence="Block")
    with pytest.raises(rulecraft.RangeError, match="no parameter or choice 'defense'"):
        MELEE.run(attacker=A, defender=B, seed=1, defense="Parry")


def test_standing_constraints_written_out_are_made_once() -> None:
    """`while "On the ground", defence may not be ["Parry", "Active Dodge"]`: the constraints on
    a choice, written out in the rules, are one module constant, not rebuilt at every blow."""
    from rulecraft.show import python_text

    code = python_text(RB, "melee_attack")
    assert "standing=(v_defender, STANDING_DEFENCE)" in code
    constraints = MELEE.fn.__globals__["STANDING_DEFENCE"]
    assert ("On the ground", ("Parry", "Active Dodge"), "not") in [c[:3] for c in constraints]
