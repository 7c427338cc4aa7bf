"""A fight changes one state field at a time, and only the derived figures downstream of it are
worked out again (issue 19, "Fights per second": ~40 figures were recomputed on each of ~15
changes a fight). Whatever path of changes a fighter goes through, his figures are those a
fighter built afresh with the same given values has."""

from __future__ import annotations

import tomllib
from pathlib import Path

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

import rulecraft
from rulecraft.runtime.combatants import Figure

ROOT = Path(__file__).resolve().parent.parent
RB = rulecraft.load("ringing_steel")
MODEL = RB.combatant_model
SHEET = tomllib.loads((ROOT / "examples/ringing_steel/swordsman.toml").read_text("utf-8"))
INJURIES = ["Bruise", "L Wound", "Wound", "S Wound"]
AREAS = ["Arm", "Leg", "Chest", "Abdomen", "Head"]

changes = st.lists(st.one_of(
    st.tuples(st.just("fatigue"), st.integers(0, 40)),
    st.tuples(st.just("shield_damage"), st.integers(0, 2)),
    st.tuples(st.just("entangled"), st.sampled_from(["Nothing", "Whip", "Net"])),
    st.tuples(st.just("injuries"), st.dictionaries(
        st.sampled_from(AREAS), st.lists(st.sampled_from(INJURIES), max_size=2).map(tuple),
        max_size=2)),
    st.tuples(st.just("fire_penalty"), st.integers(0, 30)),
), min_size=1, max_size=8)


def afresh(fighter: rulecraft.Combatant) -> dict:
    """The fighter's figures worked out from its given values alone, nothing remembered."""
    values = {n: fighter._values[n] for n in MODEL.given_names}
    MODEL._cache.clear()
    return MODEL.derived(values)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(path=changes)
def test_every_path_of_changes_gives_the_figures_of_a_fighter_built_afresh(path):
    fighter = RB.combatant(**SHEET)
    for name, value in path:
        MODEL._cache.clear()  # worked out from the last state, not found remembered
        fighter = fighter.changed(name, value)
        assert fighter._values == afresh(fighter), (name, value)


def test_a_point_of_fatigue_below_the_limit_works_out_only_what_reads_it():
    # "fatigue_over = fatigue_excess(fatigue, fatigue_limit)" comes out 0 again, so the
    # penalties that read it (and everything reading those) are not worked out again.
    fighter = RB.combatant(**SHEET)
    worked: list[str] = []
    figures = MODEL.figures
    try:
        MODEL.figures = tuple(type(f)(f.name, _counted(f, worked), f.reads) for f in figures)
        MODEL._read_by, MODEL._downstream = None, {}
        MODEL._cache.clear()
        tired = fighter.changed("fatigue", 1)
    finally:
        MODEL.figures = figures
        MODEL._read_by, MODEL._downstream = None, {}
    assert tired.fatigue == 1 and tired.fatigue_over == 0
    assert set(worked) == {f.name for f in figures if "fatigue" in f.reads}
    assert "anti_parry" not in worked and "fatigue_over" in worked
    MODEL._cache.clear()
    spent = fighter.changed("fatigue", 30)  # over the limit: the penalties move
    assert spent._values == afresh(spent)
    assert spent.anti_parry < fighter.anti_parry


def _counted(figure, worked):
    def fn(v):
        worked.append(figure.name)
        return figure.fn(v)
    return fn


def test_figures_downstream_are_remembered_by_what_they_read_not_by_the_whole_state():
    # "derived wound_attack = sum(injury_effects[i].anti_parry for i in flatten(injuries))":
    # a Wound in the chest and a Wound in the arm give the same sums, so everything downstream
    # of the sums (penalties, anti-parry, parries, speed) is set as it came out for the first,
    # though the second state is new: only the sums are looked at again.
    fighter = RB.combatant(**SHEET)
    looked: list[str] = []
    figures = MODEL.figures
    try:
        MODEL.figures = tuple(Looked(f.name, f.fn, f.reads, looked) for f in figures)
        MODEL._read_by, MODEL._downstream = None, {}
        MODEL._cache.clear()
        chest = fighter.changed("injuries", {"Chest": ("Wound",)})
        assert "anti_parry" in looked and "wound_attack" in looked
        looked.clear()
        arm = fighter.changed("injuries", {"Arm": ("Wound",)})
        assert sorted(looked) == ["wound_attack", "wound_defence", "wound_time"]
    finally:
        MODEL.figures = figures
        MODEL._read_by, MODEL._downstream = None, {}
    MODEL._cache.clear()
    assert chest._values == afresh(chest) and arm._values == afresh(arm)
    assert arm.anti_parry == chest.anti_parry < fighter.anti_parry


@attrs.frozen
class Looked(Figure):
    """A figure noting each time it is looked at (worked out or found in its own memo)."""

    looked: list[str] = attrs.field(factory=list, eq=False)

    def worked_out(self, values):
        self.looked.append(self.name)
        return super().worked_out(values)
