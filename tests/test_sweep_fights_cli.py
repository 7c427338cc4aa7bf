"""`rulecraft sweep` and `rulecraft compare` with an encounter as the target (issue 19, "Sweeps
of whole fights"): "each cell exact where the chain is small enough and sampled with a 95 %
interval otherwise …; a progress bar; `--json`; a text and an HTML heat map of the grid."

A rule file of a few lines written for each test, few fights: the command line's reading of
--vary, its output and its errors are what is tested."""

from __future__ import annotations

import json

from click.testing import CliRunner

from rulecraft.cli import cli

from test_fight_sweep import STAND, WON

FIGHTER = 'name = "{name}"\nspeed = {speed}\nstamina = {stamina}\n'


def files(tmp_path, text=WON):
    (tmp_path / "stand.rules").write_text(text)
    (tmp_path / "harder.rules").write_text(text.replace("roll hit = d6", "roll hit = d8"))
    for name, speed, stamina in (("ann", 10, 3), ("bob", 10, 4), ("cy", 14, 4)):
        (tmp_path / f"{name}.toml").write_text(FIGHTER.format(name=name.title(), speed=speed,
                                                              stamina=stamina))
    return tmp_path


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_a_grid_of_fighters_prints_as_a_heat_map_exact_cells_marked(tmp_path):
    d = files(tmp_path)
    result = invoke("sweep", d / "stand.rules", "duel", "--vary", f"a=@{d}/ann.toml,@{d}/bob.toml",
                    "--vary", f"b=@{d}/bob.toml,@{d}/cy.toml", "--show", "Ann", "--workers", 1)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "duel: how often Ann wins"
    assert lines[2] == "a ↓  b →"
    assert lines[3].split() == ["bob", "cy"]
    assert lines[4].startswith("ann ") and lines[4].count("% =") == 2
    assert lines[-1] == "4 cells exact, 0 sampled"


def test_json_and_html_from_one_sweep_of_a_fields_values(tmp_path):
    d = files(tmp_path, STAND)
    page = d / "map.html"
    result = invoke("sweep", d / "stand.rules", "duel", f"a=@{d}/ann.toml", f"b=@{d}/bob.toml",
                    "--vary", "b.speed=8..12..4", "--max-runs", 100, "--seed", 4, "--json",
                    "--html", page, "--workers", 1, "--no-exact")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["by"] == "winner" and data["show"] == "a" and data["seed"] == 4
    assert [p["b.speed"] for p in data["points"]] == [8, 12]
    for point in data["points"]:
        assert point["how"] == "sampled" and point["runs"] == 100
        assert point["low"] <= point["percent"] <= point["high"]
        assert "--no-exact" in point["why_sampled"]
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.count("<td ") == 2
    # Without --no-exact, the same cells are worked out exactly (who stands at the end).
    exact = invoke("sweep", d / "stand.rules", "duel", f"a=@{d}/ann.toml", f"b=@{d}/bob.toml",
                   "--vary", "b.speed=8..12..4", "--seed", 4, "--json", "--workers", 1)
    assert [p["how"] for p in json.loads(exact.output)["points"]] == ["exact", "exact"]


def test_a_house_rule_against_its_base_over_whole_fights(tmp_path):
    d = files(tmp_path)
    result = invoke("compare", d / "stand.rules", d / "harder.rules", "duel", f"a=@{d}/ann.toml",
                    f"b=@{d}/bob.toml")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "duel: stand → harder"
    assert lines[1].split() == ["winner", "base", "other", "change"]
    assert {line.split()[0] for line in lines[2:]} == {"Ann", "Bob"}


def test_mistakes_are_told_plainly(tmp_path):
    d = files(tmp_path)
    cases = [
        (["sweep", d / "stand.rules", "duel", "--vary", f"a=@{d}/nobody*.toml"],
         "no file matches"),
        (["sweep", d / "stand.rules", "duel", "--vary", f"a=@{d}/ann.toml,@{d}/ann.toml",
          f"b=@{d}/bob.toml"], "listed twice"),
        (["sweep", d / "stand.rules", "duel", "--vary", f"a=@{d}/ann.toml"],
         "needs a fighter for b"),
        (["sweep", d / "stand.rules", "duel", "--vary", f"a=@{d}/ann.toml", f"b=@{d}/bob.toml",
          "--precision", "5"], "between 0 and 1"),
        (["sweep", "ringing_steel", "skill", "training=5", "--vary", "dexterity=6..8",
          "--precision", "0.1"], "--precision goes with a sweep of whole fights"),
    ]
    for args, message in cases:
        result = invoke(*args)
        assert result.exit_code == 1, (args, result.output)
        assert message in result.output and "Traceback" not in result.output
