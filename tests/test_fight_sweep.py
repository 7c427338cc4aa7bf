"""Sweeps of whole fights (issue 19, "Sweeps of whole fights"): "`rulecraft sweep` and `compare`
over fights, not only procedures (weapon × weapon, armour × armour, a house rule against its
base), each cell exact where the chain is small enough and sampled with a 95 % interval
otherwise, stopping each cell when its interval is narrower than `--precision`; a progress bar;
`--json`; a text and an HTML heat map of the grid."

The fights here are small rulebooks of a few lines, and few of them: what is tested is where
the figures come from (the chain, or seeded fights counted in order), never how fast."""

from __future__ import annotations

import pytest

import rulecraft
from rulecraft.fight_sweep import BATCH, Point, sweep_grid
from rulecraft.sweep_cells import fight_seed
from rulecraft.runtime.errors import RangeError
from rulecraft.runtime.fights import fight

# Two fighters trade blows of a d6 until one is out of stamina: the loser is stopped, so the
# winner is the side still standing.
STAND = """rulebook stand "Stand"
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
    if foe.stamina == 0:
      stop foe
    act f after f.speed
  ends when a.stamina == 0 or b.stamina == 0
  at most 100 turns
"""

# The same, saying who won in its outcome: the chain can then give it exactly.
WON = STAND.replace("      stop foe\n",
                    "      stop foe\n      outcome won with (winner = f.name)\n")


def grid(text: str, staminas=(3, 4), speeds=(10, 12), **options):
    rb = rulecraft.compile(text, "stand.rules")
    axes = (("a.stamina", tuple(staminas)), ("b.speed", tuple(speeds)))
    points = {(s, v): Point(rb, {"a": rb.combatant(name="Ann", speed=10, stamina=s),
                                 "b": rb.combatant(name="Bob", speed=v, stamina=4)})
              for s in staminas for v in speeds}
    return rb, sweep_grid("duel", axes, points, **options)


def test_a_cell_is_exact_where_the_chain_gives_its_odds():
    rb, found = grid(WON, seed=1)
    cell = found.cells[(3, 10)]
    assert cell.exact is not None and cell.runs == 0
    args = dict(a=rb.combatant(name="Ann", speed=10, stamina=3),
                b=rb.combatant(name="Bob", speed=10, stamina=4))
    assert cell.exact == rb.procedures["duel"].odds(by="winner", **args)
    assert sum(cell.exact.values()) == 1
    assert "=" in found.text() and "4 cells exact, 0 sampled" in found.text()


def test_a_cell_the_chain_refuses_is_sampled_until_its_interval_is_narrower_than_asked():
    # "sampled with a 95 % interval otherwise, stopping each cell when its interval is narrower
    # than --precision": a chain refused by a tiny state limit, cells sampled batch by batch.
    rb, found = grid(WON, seed=3, precision=0.25, limits=rulecraft.Limits(odds_states=2))
    for cell in found.cells.values():
        assert cell.exact is None and "limit" in cell.why_sampled
        assert cell.runs % BATCH == 0 and cell.runs >= BATCH
        assert all(e.high - e.low < 0.25 for e in cell.estimates.values())
    # a narrower precision plays more fights, up to --max-runs
    _, finer = grid(WON, seed=3, precision=0.05, max_runs=300, exact=False)
    assert {c.runs for c in finer.cells.values()} == {300}


def test_who_stands_is_counted_from_the_fights_seeded_by_cell_and_number():
    rb, found = grid(STAND, staminas=(3,), speeds=(10,), seed=7, precision=0.5, max_runs=BATCH,
                     exact=False)
    cell = found.cells[(3, 10)]
    assert cell.exact is None and cell.runs == BATCH
    ann, bob = rb.combatant(name="Ann", speed=10, stamina=3), rb.combatant(name="Bob", speed=10,
                                                                            stamina=4)
    wins = sum(fight(rb, [ann, bob], seed=fight_seed(7, 0, i)).winner() == "a"
               for i in range(BATCH))
    assert cell.estimates["a"].count == wins
    assert found.show == "a" and found.chance((3, 10)).count == wins


def test_the_same_seed_gives_the_same_grid_on_one_process_or_two():
    options = dict(seed=11, precision=0.2, max_runs=400, exact=False)
    _, alone = grid(STAND, **options)
    _, spread = grid(STAND, workers=2, **options)
    assert alone.cells == spread.cells and alone.as_json() == spread.as_json()


def test_the_html_heat_map_is_one_page_that_names_every_cell():
    _, found = grid(WON, seed=1)
    page = found.html()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page and "http" not in page
    assert page.count("<td ") == 4 and "a.stamina" in page


def test_a_bad_precision_or_encounter_says_what_to_give():
    with pytest.raises(RangeError, match="between 0 and 1"):
        grid(STAND, precision=2)
    rb = rulecraft.compile(STAND, "stand.rules")
    with pytest.raises(RangeError, match="no encounter 'brawl'.*duel"):
        sweep_grid("brawl", (), {(): Point(rb, {})})


def test_from_python_a_grid_of_fights_varies_fighters_fields_and_the_rulebook():
    rb = rulecraft.compile(WON, "stand.rules")
    harder = rulecraft.compile(WON.replace("roll hit = d6", "roll hit = d8"), "harder.rules")
    ann, bob = rb.combatant(name="Ann", speed=10, stamina=3), rb.combatant(name="Bob", speed=10,
                                                                            stamina=4)
    found = rulecraft.sweep_fights(rb, "duel", {"rulebook": [rb, harder], "b.speed": [10, 14]},
                                   a=ann, b=bob)
    assert found.axes == (("rulebook", ("stand", "stand 2")), ("b.speed", (10, 14)))
    faster = harder.combatant(name="Bob", speed=14, stamina=4)
    expected = harder.procedures["duel"].odds(by="winner", a=harder.combatant(
        name="Ann", speed=10, stamina=3), b=faster)
    assert list(found.cells.values())[-1].exact == expected


def test_a_house_rule_against_its_base_moves_each_sides_chance_by_exactly_the_change():
    rb = rulecraft.compile(WON, "stand.rules")
    harder = rulecraft.compile(WON.replace("roll hit = d6", "roll hit = d8"), "harder.rules")
    ann, bob = rb.combatant(name="Ann", speed=10, stamina=3), rb.combatant(name="Bob", speed=10,
                                                                            stamina=4)
    found = rulecraft.compare_fights(rb, harder, "duel", a=ann, b=bob)
    before = rb.procedures["duel"].odds(by="winner", a=ann, b=bob)
    rows = {group: (b, o) for group, b, o in found.rows}
    assert rows["Ann"][0] == before["Ann"]
    assert found.change(*rows["Ann"]) == rows["Ann"][1] - before["Ann"]
    assert "duel: stand → stand 2" in found.text()
