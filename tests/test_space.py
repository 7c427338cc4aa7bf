"""Space as data (issue 15, item 1): hexes, facings, patterns turned by the engine, bodies of
several hexes, terrain, units of distance — compiled, run seeded, scripted and in exact odds."""

from __future__ import annotations

import json
import os
from fractions import Fraction

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.runtime.errors import RulecraftError
from rulecraft.runtime.space import Hex, approach, facing_to, line, mirror, within

HERE = os.path.dirname(__file__)
DUEL = os.path.join(HERE, "rules", "hex_duel.rules")


@pytest.fixture(scope="module")
def duel():
    return rulecraft.load(DUEL)


def compiled(body: str):
    return rulecraft.compile('rulebook s "S"\n' + body, "s.rules")


def failure(body: str) -> RulecraftError:
    with pytest.raises(RulecraftError) as err:
        compiled(body)
    return err.value


# ---- the hex value ------------------------------------------------------------------------------

@pytest.mark.parametrize("expression, value", [
    ("hex(2, -1) + hex(1, 1)", Hex(3, 0)), ("hex(2, -1) - hex(2, -1)", Hex(0, 0)),
    ("hex(2, -1) == hex(2, -1)", True), ("hex(2, -1) != hex(2, -1)", False),
    ("hex(2, -1).q", 2), ("hex(2, -1).r", -1), ("hex(2, -1).s", -1),
    ("hex(1, 0) in [hex(0, 0), hex(1, 0)]", True),
    ("hex(5, 0) in hexes_within(hex(0, 0), 4)", False),
    ("distance(hex(0, 0), hex(2, -1))", 2), ("hex_distance(hex(0, 0), hex(-3, 3))", 3),
    ("hex_distance(0, 0, 2, -1)", 2), ("hex_in_front(0, 0, 3, -2, 0)", True),
    ("step(hex(0, 0), 0)", Hex(1, 0)), ("step(hex(0, 0), ahead, 3)", Hex(3, 0)),
    ("step(hex(0, 0), turn(0, front_right))", Hex(0, 1)), ("turn(5, 2)", 1), ("turn(0, -1)", 5),
    ("mirror(hex(0, 1), 0)", Hex(1, -1)), ("facing_to(hex(0, 0), hex(-2, 0))", 3),
    ("approach(hex(0, 0), hex(2, -1))", 1), ("approach(hex(0, 0), hex(3, -1))", 0),
    ("len(hexes_within(hex(0, 0), 2))", 19), ("line(hex(0, 0), hex(3, 0))",
                                               (Hex(0, 0), Hex(1, 0), Hex(2, 0), Hex(3, 0))),
    ("in_front(hex(0, 0), 0, hex(0, -1))", False), ("in_front(hex(0, 0), 0, hex(1, -1))", True),
])
def test_hex_expressions(expression, value):
    # Issue 15: "A `hex` value (axial or cube coordinates: `+`, `-`, `==`, `in`), the six
    # directions and twelve approaches (sides and vertices) readable from rules, built-ins in the
    # style of `hex_distance`/`hex_in_front`: step, turn, mirror, line, facing_to, … hexes
    # within N."
    rb = compiled("formula f(x: 0..1) = 1\n")
    assert rulecraft.evaluate(rb, expression) == value


def test_hex_is_a_value_exact_odds_can_merge():
    assert Hex(1, 2) == Hex(1, 2) and hash(Hex(1, 2)) == hash(Hex(1, 2))
    assert sorted([Hex(1, 0), Hex(0, 5)]) == [Hex(0, 5), Hex(1, 0)]
    assert str(Hex(2, -1)) == "(2, -1)" and repr(Hex(2, -1)) == "hex(2, -1)"


def test_geometry_against_brute_force():
    # Every ring of hexes_within is at its distance; a line moves one hex a step; mirror twice
    # is the hex itself; the twelve approaches: sides even, vertices odd, all twelve met.
    centre = Hex(0, 0)
    near = within(centre, 3)
    assert len(set(near)) == 37
    seen = set()
    for h in near:
        path = line(centre, h)
        assert path[0] == centre and path[-1] == h
        assert all(a.q - b.q in (-1, 0, 1) and a.r - b.r in (-1, 0, 1) and a != b
                   for a, b in zip(path, path[1:]))
        assert mirror(mirror(h, 2), 2) == h
        if h != centre:
            seen.add(approach(centre, h))
            assert facing_to(centre, h) == approach(centre, h) // 2
    assert seen == set(range(12))


# ---- patterns -----------------------------------------------------------------------------------

def test_pattern_turns_with_facing_and_mirrors(duel):
    # "In range hexes are show below for weapons held in the right hand ... Left handed weapons
    # take the mirror image."
    reach = duel.patterns["reach"]
    assert reach.hexes("Short", "Right") == (Hex(1, 0), Hex(0, 1))
    assert reach.hexes("Short", "Left") == (Hex(1, 0), Hex(1, -1))
    f = duel.combatant(weapon_range="Short", at=[2, -1], facing=3)
    assert f.in_reach == (Hex(1, -1), Hex(2, -2))  # turned half round: ahead is (-1, 0)
    assert rulecraft.evaluate(duel, 'reach["Long", "Right"] from hex(0, 0) facing 1') == \
        (Hex(1, -1), Hex(2, -2), Hex(2, -1))


def test_pattern_in_show_and_sheet(duel):
    runner = CliRunner()
    shown = runner.invoke(cli, ["show", DUEL])
    assert shown.exit_code == 0, shown.output
    assert "Short / Right: ahead; front right" in shown.output
    assert "Long / Left: ahead; 2 ahead; ahead + front left" in shown.output
    assert 'metres "m": 1 per hex' in shown.output
    entry = runner.invoke(cli, ["show", DUEL, "reach"])
    assert "Short / Right: (1, 0), (0, 1)" in entry.output
    # The diagram drawn: the fighter facing to the right, ahead and front right marked.
    assert "  Short / Right:\n     · ·\n    · ▶ ●\n     · ●\n" in entry.output
    sheet = runner.invoke(cli, ["sheet", DUEL, "--format", "md"])
    assert sheet.exit_code == 0, sheet.output
    assert "| Short | Left | ahead; front left |" in sheet.output
    assert "from Defender’s AT" not in sheet.output  # in_front is a call here, read as one
    fmt = runner.invoke(cli, ["fmt", DUEL])
    assert "pattern reach \"In-range hexes\" by range: reach_class, hand: hand:" in fmt.output
    assert "let in_reach" not in fmt.output and \
        "derived in_reach = reach[weapon_range, hand] from at facing facing" in fmt.output


@pytest.mark.parametrize("row, message, column", [
    ("| Short | Right | ahead, sideways |", "'sideways' is not a hex of a pattern", 21),
    ("| Shrt  | Right | ahead |", "unknown reach_class 'Shrt'", 5),
    ("| Short | Left  | mirror of Long, Right |", "no row Long / Right to mirror", 21),
    ("| Short | ahead |", "this row has 2 cells; the pattern has 3 columns", 3),
])
def test_pattern_errors_at_the_cell(row, message, column):
    err = failure("enum reach_class: Short, Long\nenum hand: Right, Left\n"
                  "pattern reach by range: reach_class, hand: hand:\n"
                  "  | Range | Hand | Hexes |\n  " + row + "\n")
    assert message in str(err)
    assert (err.line, err.column) == (6, column)


# ---- compile errors -----------------------------------------------------------------------------

@pytest.mark.parametrize("step, message, column", [
    ("let x = f.at + 1", "a hex is added to a hex, not to a whole number", 11),
    ("let x = f.at * hex(1, 0)", "hexes are added and subtracted", 11),
    ("let x = f.at.x", "unknown field of a hex: 'x'", 11),
    ("let x = hex(1, \"a\")", "a hex's coordinate is a whole number, not a name", 18),
    ("let x = step(f.facing, 1)", "step's first argument: a hex", 16),
    ("let x = f.at in reach from f.at facing 0", "pattern reach is looked up by its keys", 19),
    ("let x = reach[\"Short\"]", "pattern reach is looked up by 2 key(s)", 11),
    ("let x = reach[\"Short\", \"Rite\"]", "unknown hand 'Rite'", 26),
    ("let x = distance(f.at)", "distance takes (hex, hex)", 11),
    ("let x = f.at in hexes_within(f.at, \"two\")", "hexes_within's moves is a whole number",
     38),
    ("let x = step(f.at, behnid)", "did you mean 'behind'?", 22),
])
def test_space_compile_errors(step, message, column):
    err = failure("enum reach_class: Short, Long\nenum hand: Right, Left\n"
                  "pattern reach by range: reach_class, hand: hand:\n"
                  "  | Range | Hand | Hexes |\n  | Short | Right | ahead |\n"
                  "combatant fighter:\n  state at: hex = hex(0, 0)\n  state facing: facing = 0\n"
                  "procedure p(f: fighter):\n  " + step + "\n  outcome done\n")
    assert message in str(err), str(err)
    assert (err.line, err.column) == (11, column)


def test_facing_is_checked_and_goes_round():
    # Issue 15: "facing as a fighter's state (0–5, checked)".
    err = failure("combatant fighter:\n  state facing: facing = 6\n")
    assert "the default is outside its type" in str(err) and "from 0 to 5" in str(err)
    rb = compiled("combatant fighter:\n  state facing: facing = 5\n"
                  "procedure left(f: fighter):\n  set f.facing = f.facing + 1\n  outcome done\n"
                  "procedure bad(f: fighter):\n  set f.facing = 6\n  outcome done\n")
    f = rb.combatant()
    assert rb.procedures["left"].run(f=f).combatants["f"].facing == 0
    with pytest.raises(RulecraftError, match="f.facing would become 6, outside its range 0..5"):
        rb.procedures["bad"].run(f=f)
    with pytest.raises(RulecraftError, match="facing must be a whole number from 0 to 5"):
        rb.combatant(facing=9)


def test_record_cells_holding_coordinates_need_no_floor():
    # Issue 15, item 8: "record cells holding coordinates need `floor()` before hex built-ins".
    rb = compiled("table spots by spot:\n  | Spot | Q   | R    |\n"
                  "  | Gate | 2.0 | -1   |\n  | Well | 0.5 | 1    |\n"
                  "formula gate(x: 0..1) = hex(spots[\"Gate\"].q, spots[\"Gate\"].r)\n"
                  "formula far(x: 0..1) = "
                  "hex_distance(0, 0, spots[\"Gate\"].q, spots[\"Gate\"].r)\n"
                  "formula well(x: 0..1) = hex(spots[\"Well\"].q, spots[\"Well\"].r)\n")
    assert rb.formulas["gate"](0) == Hex(2, -1)
    assert rb.formulas["far"](0) == 2
    with pytest.raises(RulecraftError, match="a hex's q must be a whole number, not 0.5"):
        rb.formulas["well"](0)


# ---- the duel on the grid: seeded, scripted, exact, logged -------------------------------------

def test_duel_seeded_log_prints_hexes(duel):
    a = duel.combatant(weapon_range="Short")
    b = duel.combatant(weapon_range="Long", hand="Left", at=[3, 0], facing=3)
    fight = duel.fight([a, b], seed=3)
    log = fight.log()
    # "To move into a front hex takes a time given by the appropriate move rate."
    assert "a.at = (1, 0)" in log
    assert "a: at (" in log and "facing" in log


def test_duel_scripted_dice(duel):
    # b (Long reach: "2 ahead" is in range) strikes first as a steps to (1, 0) and is parried
    # (a 1); a walks on to (2, 0), and from there each strikes the other in turn (sixes).
    a = duel.combatant(weapon_range="Short", at=[0, 0])
    b = duel.combatant(weapon_range="Long", hand="Left", at=[3, 0], facing=3)
    result = duel.procedures["duel"].run(a=a, b=b, dice=[1, 6, 6, 6, 6, 6])
    assert result.outcome.name == "ended" and result.outcome["time"] == 30
    assert (result.combatants["a"].stamina, result.combatants["b"].stamina) == (0, 1)
    assert result.combatants["a"].at == Hex(2, 0)
    moves = [e.value for e in result.trace if e.kind == "change" and e.name == "f.at"]
    assert moves == [Hex(1, 0), Hex(2, 0)]
    blows = [e.name for e in result.trace if e.kind == "outcome" and e.depth == 1]
    assert blows == ["parried", "hit", "hit", "hit", "hit", "hit"]
    assert "f.at = (1, 0)" in result.explain()


def test_duel_exact_odds_merge_positions(duel):
    # The fight's states hold each party's hex and facing: equal positions merge, so a duel of
    # walking, turning and blows is worked out exactly, pass by pass.
    a = duel.combatant(weapon_range="Short", walk=6)
    b = duel.combatant(weapon_range="Short", at=[2, 0], facing=3)
    odds = duel.procedures["duel"].odds(a=a, b=b)
    assert set(odds) <= {"ended", "capped"} and sum(odds.values()) == 1
    assert odds["ended"] > Fraction(99, 100)
    blow = duel.procedures["blow"].odds(attacker=a, defender=b)
    assert blow == {"hit": Fraction(1, 2), "parried": Fraction(1, 2)}  # from b's front
    behind = duel.combatant(weapon_range="Short", at=[3, 0])
    assert duel.procedures["blow"].odds(attacker=behind, defender=b) == {"hit": 1}


def test_fighter_files_take_hexes(tmp_path):
    # Fighter files write a hex as a pair: `at = [2, -1]`.
    rules = tmp_path / "hex_duel.rules"
    with open(DUEL) as f:
        rules.write_text(f.read())
    (tmp_path / "a.toml").write_text('weapon_range = "Short"\n')
    (tmp_path / "b.toml").write_text('weapon_range = "Short"\nat = [2, 0]\nfacing = 3\n')
    (tmp_path / "bad.toml").write_text('weapon_range = "Short"\nat = [2, 0.5]\n')
    runner = CliRunner()
    out = runner.invoke(cli, ["fight", str(rules), str(tmp_path / "a.toml"),
                              str(tmp_path / "b.toml"), "--seed", "2", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    moved = next(e for e in data["events"] if e["name"] == "f.at")
    assert (moved["who"], moved["value"]) == ("a", [1, 0])  # a hex in JSON: as a file writes it
    assert data["fighters"][1]["at"] == [2, 0]
    runs = runner.invoke(cli, ["fight", str(rules), str(tmp_path / "a.toml"),
                               str(tmp_path / "b.toml"), "--runs", "20"])
    assert runs.exit_code == 0 and "a, mean per fight: facing" in runs.output
    bad = runner.invoke(cli, ["fight", str(rules), str(tmp_path / "a.toml"),
                              str(tmp_path / "bad.toml")])
    assert bad.exit_code == 1 and "at must be a hex" in bad.output


# ---- bodies of several hexes, parties on the grid, terrain, units -------------------------------

BODIES = """enum ground: Open, Wall, Mud
unit feet "ft": 5 per hex
# "They take up two hexes and when stationary may keep either end fixed when turning."
pattern horse_body "A horse's two hexes":
  | Hexes          |
  | own hex, behind |
combatant fighter:
  state at: hex = hex(0, 0)
  state facing: facing = 0
combatant horse:
  state at: hex = hex(0, 0)
  state facing: facing = 0
  derived hexes = horse_body from at facing facing
procedure look(rider: fighter, mount: horse, seen: hex, terrain: map hex -> ground):
  let who = party_at(seen)
  let horse_there = occupies(mount, seen)
  let near = len(parties_within(rider.at, 1))
  let walls = count(h in terrain and terrain[h] == "Wall" for h in line(rider.at, seen))
  let reach_ft = distance(rider.at, seen) in feet
  outcome seen with (horse_there = horse_there, near = near, walls = walls, feet = reach_ft)
"""


def test_bodies_parties_terrain_units():
    rb = compiled(BODIES)
    rider = rb.combatant(at=[0, 0])
    mount = rb.combatant_models["horse"].build(at=[2, 0], facing=3)
    terrain = {(1, 0): "Wall", "2, 0": "Mud"}
    result = rb.procedures["look"].run(rider=rider, mount=mount, seen=Hex(3, 0), terrain=terrain)
    # The horse at (2, 0) facing 3 stands in (2, 0) and the hex behind it, (3, 0).
    assert result.values["horse_there"] is True
    assert result.values["near"] == 1  # the rider alone: the horse's nearer end is 2 away
    assert result.values["walls"] == 1
    assert result.outcome["feet"] == 15  # "distances in a declared unit": 3 hexes of 5 ft
    assert "let who = horse" in result.explain()
    odds = rb.procedures["look"].odds(rider=rider, mount=mount, seen=Hex(3, 0), terrain=terrain)
    assert odds == {"seen": 1}


def test_pattern_words_read_back():
    # What show and sheets print of a pattern's hex is what a pattern's cell takes.
    from rulecraft.compiler.patterns import hex_words
    from rulecraft.runtime.space import words

    for h in within(Hex(0, 0), 3):
        assert hex_words(words(h)) == h
    assert words(Hex(1, 1)) == "ahead + front right"


def test_units_checked_and_on_sheets(tmp_path):
    err = failure('unit feet "ft": 5 per hex\nformula f(x: 0..3) = x not in feet\n')
    assert "feet is a unit: `d in feet` reads a distance in it" in str(err)
    assert (err.line, err.column) == (3, 22)
    rb = compiled(BODIES)
    assert rulecraft.evaluate(rb, "2 in feet") == 10
    # BT's movement in feet per count, on a grid of 5-foot hexes: "… ft" read as hexes.
    assert rulecraft.evaluate(rb, "in_hexes(30, feet)") == 6
    assert rulecraft.evaluate(rb, "floor(in_hexes(12, feet))") == 2
    with pytest.raises(RulecraftError, match="takes a unit declared with `unit` \\(feet\\)"):
        rulecraft.evaluate(rb, "in_hexes(3, metres)")
    path = os.path.join(HERE, "rules", "hex_duel.rules")
    assert rulecraft.load(path).units["metres"].per_hex == 1
    (tmp_path / "bodies.rules").write_text('rulebook s "S"\n' + BODIES)
    sheet = CliRunner().invoke(cli, ["sheet", str(tmp_path / "bodies.rules"), "--format", "md"])
    assert sheet.exit_code == 0, sheet.output
    assert "Reach Ft = (distance(Rider’s At, Seen) in ft)." in sheet.output
    assert "| Hexes | = [A horse's two hexes](#a-horses-two-hexes) from At facing Facing |" in \
        sheet.output


def test_house_rules_replace_and_remove_a_pattern(tmp_path):
    with open(DUEL) as f:
        (tmp_path / "hex_duel.rules").write_text(f.read())
    (tmp_path / "wide.rules").write_text(
        'rulebook wide "Wider front"\nextends "hex_duel.rules"\n'
        'replace pattern front_hexes "Front hexes, wider":\n  | Hexes |\n'
        '  | ahead, front left, front right, 2 ahead |\n')
    (tmp_path / "none.rules").write_text(
        'rulebook none "No pattern"\nextends "hex_duel.rules"\nremove pattern nope\n')
    wide = rulecraft.load(str(tmp_path / "wide.rules"))
    assert wide.patterns["front_hexes"].hexes() == (Hex(1, 0), Hex(1, -1), Hex(0, 1), Hex(2, 0))
    said = CliRunner().invoke(cli, ["diff", str(tmp_path / "hex_duel.rules"),
                                    str(tmp_path / "wide.rules")])
    assert said.output.splitlines() == [
        "pattern front_hexes: changed",
        "  hexes: was ahead; front left; front right; now ahead; front left; front right; "
        "2 ahead"]
    with pytest.raises(RulecraftError, match="has no pattern 'nope'"):
        rulecraft.load(str(tmp_path / "none.rules"))


def test_eval_of_a_kept_rulebook(tmp_path):
    # `rulecraft eval` reads a rule file compiled by an earlier process: its patterns too.
    with open(DUEL) as f:
        (tmp_path / "hex_duel.rules").write_text(f.read())
    runner = CliRunner()
    expression = 'reach["Short", "Right"] from hex(0, 0) facing 1'
    for _ in range(2):
        out = runner.invoke(cli, ["eval", str(tmp_path / "hex_duel.rules"), expression])
        assert out.exit_code == 0, out.output
        assert out.output.strip() == "(1, -1), (1, 0)"


def test_party_at_among_a_list_of_parties():
    rb = compiled("combatant fighter:\n  name: name\n  state at: hex = hex(0, 0)\n"
                  "procedure who(party: list fighter, spot: hex):\n"
                  "  let found = party_at(spot)\n"
                  "  let near = [c.name for c in parties_within(spot, 1)]\n"
                  "  if found == none:\n    outcome nobody with near = near\n"
                  "  outcome somebody with (name = found.name, near = near)\n")
    party = [rb.combatant(name="Ann", at=[0, 0]), rb.combatant(name="Bo", at=[1, 0]),
             rb.combatant(name="Cy", at=[4, 0])]
    result = rb.procedures["who"].run(party=party, spot=Hex(1, 0))
    assert result.outcome.name == "somebody" and result.outcome["name"] == "Bo"
    assert result.outcome["near"] == ("Ann", "Bo")
    assert rb.procedures["who"].run(party=party, spot=(2, 2)).outcome.name == "nobody"


def test_a_hex_keeps_its_digits_and_is_given_on_the_command_line(tmp_path):
    # A hex doubled in a loop is bounded as a number is (docs/untrusted.md: number_digits).
    rules = tmp_path / "grow.rules"
    rules.write_text('rulebook g "G"\nprocedure grow(start: hex):\n  let h = start\n'
                     '  repeat until h.q < 0, at most 1000 times:\n    let h = h + h\n'
                     '  outcome done with h = h\n'
                     'procedure place(start: hex):\n  outcome done with h = start\n')
    runner = CliRunner()
    grown = runner.invoke(cli, ["run", str(rules), "grow", "start=2,-1"])
    assert grown.exit_code == 1 and "would have more than 60 digits" in grown.output
    assert "grow.rules:5:13" in grown.output
    placed = runner.invoke(cli, ["run", str(rules), "place", "start=[2, -1]"])
    assert placed.exit_code == 0 and "(2, -1)" in placed.output
    wrong = runner.invoke(cli, ["run", str(rules), "place", "start=north"])
    assert wrong.exit_code == 1 and "start must be a hex" in wrong.output


DODGE = """enum side: Left, Right
# "When a defender dodges, he moves one hex to the back ... The direction moved is determined
#  by rolling a d6 and using the table below. The defender chooses which side is used to bias
#  the direction obtained (column) and rolls for the result (row)."
pattern dodge "Dodge directions" by bias: side, roll: 1..6:
  | Bias  | Roll | Hexes      |
  | Left  | 1    | back left  |
  | Left  | 2    | back left  |
  | Left  | 3    | behind     |
  | Left  | 4    | behind     |
  | Left  | 5    | back right |
  | Left  | 6    | own hex    |
  | Right | 1    | mirror of Left, 1 |
  | Right | 2    | mirror of Left, 2 |
  | Right | 3    | mirror of Left, 3 |
  | Right | 4    | mirror of Left, 4 |
  | Right | 5    | mirror of Left, 5 |
  | Right | 6    | mirror of Left, 6 |
combatant fighter:
  state at: hex = hex(0, 0)
  state facing: facing = 0
procedure dodge_move "Dodge" (defender: fighter, attacker: fighter, bias: side = "Left"):
  # "An active defence cannot be made if the attacker is behind the defender"
  if facing_to(defender.at, attacker.at) - defender.facing in [back_left, behind, back_right]:
    outcome from_behind
  roll r = d6
  for each h in dodge[bias, r] from defender.at facing defender.facing:
    set defender.at = h
  outcome dodged with to = defender.at
"""


def test_dodge_diagram_by_a_die_and_attacks_from_behind():
    rb = compiled(DODGE)
    assert rb.patterns["dodge"].hexes("Right", 1) == (Hex(-1, 1),)  # back right, mirrored
    d = rb.combatant(at=[0, 0], facing=1)
    front = rb.combatant(at=[1, -1])
    run = rb.procedures["dodge_move"].run
    assert run(defender=d, attacker=front, dice=[3]).outcome["to"] == Hex(-1, 1)  # behind
    assert run(defender=d, attacker=rb.combatant(at=[-1, 1])).outcome.name == "from_behind"
    odds = rb.procedures["dodge_move"].odds(defender=d, attacker=front, by="to")
    assert odds == {Hex(-1, 0): Fraction(1, 3), Hex(-1, 1): Fraction(1, 3),
                    Hex(0, 1): Fraction(1, 6), Hex(0, 0): Fraction(1, 6)}
    err = failure(DODGE.replace("| Left  | 5    | back right |", "| Left  | five | back right |"))
    assert "'five' is not a whole number" in str(err) and (err.line, err.column) == (12, 13)


def test_a_hex_chosen_by_default_policy_script_and_in_exact_odds():
    # "To move into a front hex takes a time given by the appropriate move rate": where to move
    # is a party's choice among the hexes around it.
    rb = compiled("combatant fighter:\n  state at: hex = hex(0, 0)\n  state facing: facing = 1\n"
                  "policy forward \"Forward\":\n  to = step(f.at, f.facing)\n"
                  "procedure walk(f: fighter):\n"
                  "  choose to by f from hexes_within(f.at, 1) default f.at\n"
                  "  set f.at = to\n  outcome moved with at = f.at\n")
    f, walk = rb.combatant(), rb.procedures["walk"]
    assert walk.run(f=f).outcome["at"] == Hex(0, 0)
    assert walk.run(f=f, policy="forward").outcome["at"] == Hex(1, -1)
    assert walk.run(f=f, to=(0, 1)).outcome["at"] == Hex(0, 1)  # a pair, as from JSON
    assert walk.run(f=f, to="-1, 0").outcome["at"] == Hex(-1, 0)  # as from the command line
    with pytest.raises(RulecraftError, match=r"f cannot choose '\(5, 5\)' for to"):
        walk.run(f=f, to=Hex(5, 5))
    assert walk.odds(f=f, to=Hex(0, 1), by="at") == {Hex(0, 1): 1}
    assert rulecraft.evaluate(rb, "hexes_within(hex(0, 0), 1)") == (
        Hex(0, 0), Hex(1, 0), Hex(1, -1), Hex(0, -1), Hex(-1, 0), Hex(-1, 1), Hex(0, 1))


SHOVE = """combatant fighter:
  name: name
  state at: hex = hex(0, 0)
  state hp: 0..5 = 2
procedure shove(a: fighter, b: fighter):
  roll r = d6
  let to = step(b.at, 0, r)
  if party_at(to) == none:
    set b.at = to
    outcome moved
  outcome blocked
encounter push(a: fighter, b: fighter):
  clock rounds "rounds"
  each round:
    roll r = d3
    if party_at(step(b.at, ahead, r)) == a:
      add -1 to b.hp
    else:
      set b.at = step(b.at, behind)
  ends when b.hp == 0
  at most 4 rounds
"""


def _push_by_hand() -> Fraction:
    """The push encounter's chance to end, worked out over its states (distance, hp)."""
    states = {(2, 2): Fraction(1)}
    ended = Fraction(0)
    for _ in range(4):
        after: dict[tuple[int, int], Fraction] = {}
        for (dist, hp), p in states.items():
            hit = Fraction(1, 3) if dist <= 3 else Fraction(0)
            if hit:
                if hp == 1:
                    ended += p * hit
                else:
                    after[(dist, hp - 1)] = after.get((dist, hp - 1), 0) + p * hit
            after[(dist + 1, hp)] = after.get((dist + 1, hp), 0) + p * (1 - hit)
        states = after
    return ended


def test_parties_on_the_grid_in_exact_odds():
    # Who stands in a hex is read from the run's parties: a plain procedure's odds walk its
    # paths (the parties are not a value its states hold), an encounter's go by its states.
    rb = compiled(SHOVE)
    a, b = rb.combatant(name="A", at=[3, 0]), rb.combatant(name="B", at=[0, 0])
    assert rb.procedures["shove"].odds(a=a, b=b) == {"moved": Fraction(5, 6),
                                                     "blocked": Fraction(1, 6)}
    assert rb.procedures["shove"].run(a=a, b=b, dice=[3]).outcome.name == "blocked"
    a = rb.combatant(name="A", at=[2, 0])
    odds = rb.procedures["push"].odds(a=a, b=b)
    assert odds["ended"] == _push_by_hand() == Fraction(7, 27)


def test_a_body_in_exact_odds_against_every_path():
    # A body of two hexes turned by a rolled facing: the exact odds by states equal the count
    # over every path of the dice.
    rb = compiled("combatant fighter:\n  state at: hex = hex(0, 0)\n  state facing: facing = 0\n"
                  "  derived hexes = [at, step(at, facing)]\n"
                  "procedure p(a: fighter, b: fighter):\n  roll r = d6\n"
                  "  set b.at = hex(r, 0)\n  roll s = d6\n  set a.facing = s - 1\n"
                  "  if occupies(a, b.at):\n    outcome touching\n  outcome apart\n")
    a, b = rb.combatant(at=[2, 0]), rb.combatant(at=[0, 0])
    by_paths: dict[str, Fraction] = {}
    for r in range(1, 7):
        for s in range(1, 7):
            name = rb.procedures["p"].run(a=a, b=b, dice=[r, s]).outcome.name
            by_paths[name] = by_paths.get(name, Fraction(0)) + Fraction(1, 36)
    assert rb.procedures["p"].odds(a=a, b=b) == by_paths == {"touching": Fraction(2, 9),
                                                             "apart": Fraction(7, 9)}


@pytest.mark.parametrize("text, line", [
    (None, "  derived in_reach = reach[weapon_range, hand] from at facing facing"),
    (DODGE, "  for each h in dodge[bias, r] from defender.at facing defender.facing:"),
    (BODIES, 'unit feet "ft": 5 per hex'),
    (SHOVE, "    if party_at(step(b.at, ahead, r)) == a:"),
    ('replace pattern front_hexes "Wider":\n  | Hexes |\n  | ahead, 2 ahead |\n'
     'remove unit metres\n', "remove unit metres"),
])
def test_space_formats_and_reads_back(text, line):
    # parse → format → parse: the printed text is a fixed point, and reads as the same rules
    # (format_rules checks that it does).
    if text is None:
        with open(DUEL) as f:
            source = f.read()
    else:
        source = 'rulebook s "S"\n' + text
    once = rulecraft.format_rules(source)
    assert rulecraft.format_rules(once) == once
    assert line in once.splitlines()


def test_terrain_handed_to_a_fight(duel):
    # "It is not possible to move into an obstacle hex": terrain as a map from hex to ground,
    # a parameter of the encounter given with the fight (keys as pairs, or "q, r" as TOML has).
    with open(DUEL) as f:
        source = f.read()
    source = source.replace('encounter duel "A duel on the grid" (a: fighter, b: fighter):',
                            'encounter duel "A duel on the grid" (a: fighter, b: fighter, '
                            'terrain: map hex -> ground):')
    source = source.replace("    else if facing_to(f.at, foe.at) != f.facing:",
                            "    else if terrain[step(f.at, f.facing)] == \"Wall\":\n"
                            "      act f after 5\n"
                            "    else if facing_to(f.at, foe.at) != f.facing:")
    rb = rulecraft.compile(source, "walled.rules")
    a = rb.combatant(weapon_range="Short")
    b = rb.combatant(weapon_range="Short", at=[2, 0], facing=3)
    ground = {(x, 0): "Open" for x in range(-3, 4)}
    walled = rb.fight([a, b], seed=1, settings={"terrain": {**ground, "1, 0": "Wall"}}, until=30)
    assert walled.result.combatants["a"].at == Hex(0, 0)  # the wall stands between them
    assert "a.at" not in walled.log()
    open_ground = rb.fight([a, b], seed=1, settings={"terrain": ground}, until=30)
    assert "a.at = (1, 0)" in open_ground.log()
    with pytest.raises(RulecraftError, match="terrain key must be a hex"):
        rb.fight([a, b], seed=1, settings={"terrain": {"north": "Wall"}})


def test_sums_of_hexes_and_facings_in_exact_odds():
    # Exact odds add rolls as they are rolled (compiler/sums.py): hexes and facings summed
    # from rolls keep their own arithmetic (a facing goes round), as every path says.
    rb = compiled("combatant fighter:\n  state at: hex = hex(0, 0)\n  state facing: facing = 4\n"
                  "procedure p(b: fighter):\n  roll r = d3\n  roll t = d3\n"
                  "  let g = b.facing + r + t\n  let to = b.at + hex(r, 0) + hex(0, t)\n"
                  "  outcome done with (g = g, to = to)\n")
    b, p = rb.combatant(), rb.procedures["p"]
    for by in ("g", "to"):
        paths: dict[object, Fraction] = {}
        for r in range(1, 4):
            for t in range(1, 4):
                value = p.run(b=b, dice=[r, t]).outcome[by]
                paths[value] = paths.get(value, Fraction(0)) + Fraction(1, 9)
        assert p.odds(b=b, by=by) == paths
    assert p.odds(b=b, by="g")[0] == Fraction(1, 9)  # 4 + 1 + 1 is 6: facing 0


def test_front_and_back_hexes_take_their_times(duel):
    # "To move into a front hex takes a time given by the appropriate move rate. To move into a
    # back hex takes twice this time."
    a = duel.combatant(weapon_range="Short", walk=6)
    b = duel.combatant(weapon_range="Short", at=[4, 0], facing=3)
    run = duel.procedures["duel"].run
    # The choice `to` is scripted for both fighters, in turn order: a, b, a, …
    front = run(a=a, b=b, dice=[6] * 20, to=[(1, 0), (3, 0), (2, -1)], time_limit=11)
    back = run(a=a, b=b, dice=[6] * 20, to=[(-1, 0), (3, 0), (2, 0)], time_limit=11)
    times = [[(e.value, e.depth) for e in r.trace if e.kind == "let" and e.name == "move_time"]
             for r in (front, back)]
    assert [t for t, _ in times[0]] == [6, 6, 6]  # a ahead, b ahead, a front left
    assert [t for t, _ in times[1]] == [12, 6, 6]  # a behind: a back hex, twice the time
    assert front.combatants["a"].at == Hex(2, -1) and back.combatants["a"].at == Hex(-1, 0)
