"""Lists of fighters from the command line: an encounter such as Ringing Steel's `skirmish`
(`heroes: list fighter, foes: list fighter`) takes `heroes=@a.toml+@b.toml` in `run`, `odds`,
`sweep` and `compare`, as `fight` takes `a.toml b.toml vs c.toml` (issue 19's closing note:
"`sweep`/`compare` cannot give list-of-fighter parameters (skirmish, mounted) from the command
line")."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

E = "examples/ringing_steel"
SWORDSMAN, SPEARMAN, CHAMPION = (f"@{E}/{n}.toml" for n in ("swordsman", "spearman", "champion"))


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_a_list_of_fighters_is_their_files_joined_by_plus():
    done = invoke("run", "ringing_steel", "skirmish", f"heroes={SWORDSMAN}+{SPEARMAN}",
                  f"foes={CHAMPION}", "--seed", "3", "--json")
    assert done.exit_code == 0, done.output
    # The same fight from Python, its fighters made from the same files, in the same order.
    rb = rulecraft.load("ringing_steel")
    a, b, c = (rb.combatant(**tomllib.loads(Path(path[1:]).read_text(encoding="utf-8")))
               for path in (SWORDSMAN, SPEARMAN, CHAMPION))
    by_python = rb.procedures["skirmish"].run(heroes=[a, b], foes=[c], seed=3)
    said = json.loads(done.output)["outcome"]
    assert said["name"] == by_python.outcome.name
    assert said["values"]["time"] == by_python.outcome["time"]
    # Given again, a list takes more fighters: heroes=@a heroes=@b is heroes=@a+@b.
    again = invoke("run", "ringing_steel", "skirmish", f"heroes={SWORDSMAN}",
                   f"heroes={SPEARMAN}", f"foes={CHAMPION}", "--seed", "3", "--json")
    assert again.output == done.output


def test_a_list_takes_one_fighter_too_and_names_which_file_is_wrong(tmp_path):
    done = invoke("run", "ringing_steel", "skirmish", f"heroes={SWORDSMAN}", f"foes={CHAMPION}",
                  "--seed", "3")
    assert done.exit_code == 0, done.output
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "Bad"\nstrength = "lots"\n', encoding="utf-8")
    done = invoke("run", "ringing_steel", "skirmish", f"heroes={SWORDSMAN}+@{bad}",
                  f"foes={CHAMPION}")
    assert done.exit_code == 1
    assert "heroes 2" in done.output and "strength" in done.output, done.output
    done = invoke("run", "ringing_steel", "skirmish", f"heroes={SWORDSMAN}+{E}/spearman.toml",
                  f"foes={CHAMPION}")
    assert done.exit_code == 1
    assert "each starting with @" in done.output, done.output


def test_a_sweep_varies_a_side_of_several_fighters():
    done = invoke("sweep", "ringing_steel", "skirmish", f"foes={CHAMPION}",
                  "--vary", f"heroes={SWORDSMAN},{SWORDSMAN}+{SPEARMAN}",
                  "--max-runs", "40", "--seed", "5", "--json", "--workers", "1")
    assert done.exit_code == 0, done.output
    grid = json.loads(done.output)
    assert grid["vary"] == {"heroes": ["swordsman", "swordsman+spearman"]}, grid["vary"]


def test_a_field_of_one_of_them_is_given_by_its_place():
    base = ("run", "ringing_steel", "skirmish", f"heroes={SWORDSMAN}+{SPEARMAN}",
            f"foes={CHAMPION}", "--seed", "3", "--json")
    done = invoke(*base, "heroes.2.dexterity=18")
    assert done.exit_code == 0, done.output
    assert json.loads(done.output) != json.loads(invoke(*base).output)
    wrong = invoke(*base, "heroes.3.dexterity=18")
    assert wrong.exit_code == 1
    assert "heroes.N.field=value, N counting from 1 (1 to 2)" in wrong.output, wrong.output
    wrong = invoke(*base, "heroes.dexterity=18")
    assert wrong.exit_code == 1 and "heroes is a list of fighters" in wrong.output
    bad = invoke(*base, "heroes.2.dexterity=40")
    assert bad.exit_code == 1
    assert "heroes 2.dexterity must be a whole number from" in bad.output, bad.output
