"""Ringing Steel part IV, Mounted Combat: the `mounted` encounter (a rider and his horse against
men on foot on the hex grid) from the shipped fighter files, and `run`/`odds` reading a horse's
file."""

from __future__ import annotations

import pytest

import rulecraft
from rulecraft.runtime.space import Hex


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("ringing_steel")


# ---- the encounter ------------------------------------------------------------------------------

FILES = ["examples/ringing_steel/lancer.toml", "examples/ringing_steel/warhorse.toml",
         "examples/ringing_steel/pikeman.toml", "examples/ringing_steel/axeman.toml"]


def test_a_mounted_fighter_against_two_on_foot_from_shipped_files(rb):
    lancer, horse, pike, axe = (rulecraft.read_fighter(rb, f) for f in FILES)
    assert horse.hexes == (Hex(0, 0), Hex(-1, 0))      # "They take up two hexes"
    fight = rb.fight({"rider and steed": [lancer, horse], "footmen": [pike, axe]},
                     encounter="mounted", seed=3, policy="competent")
    procs = {e["procedure"] for e in fight.events if e["kind"] == "call"}
    assert {"control_horse", "horse_responds", "blow_at_horseman"} <= procs
    assert fight.winner() in ("rider and steed", "footmen")
    log = fight.log()
    assert "event response happens" in log


def test_the_cli_plays_the_mounted_encounter():
    from click.testing import CliRunner
    from rulecraft.cli import cli
    result = CliRunner().invoke(cli, ["fight", "ringing_steel", "--encounter", "mounted", FILES[0],
                                      FILES[1], "vs", FILES[2], FILES[3], "--seed", "1",
                                      "--policy", "competent"])
    assert result.exit_code == 0, result.output
    assert "sides: rider and steed (lancer, warhorse); footmen (pikeman, axeman)" in result.output


def test_run_and_odds_take_a_horse_file_and_refuse_it_for_a_fighter():
    # `model = "horse"` in a fighter file, as `rulecraft fight` reads it, for `run` and `odds`.
    from click.testing import CliRunner
    from rulecraft.cli import cli
    run = CliRunner().invoke(cli, ["run", "ringing_steel", "horse_wounded",
                                   f"horse=@{FILES[1]}", f"rider=@{FILES[0]}", "wound=Wound",
                                   "--dice", "3,3,3,2"])
    assert run.exit_code == 0, run.output
    assert "steady" in run.output                  # 9 <= Will Power 7 + skill 5.4
    odds = CliRunner().invoke(cli, ["odds", "ringing_steel", "horse_wounded",
                                    f"horse=@{FILES[1]}", f"rider=@{FILES[0]}", "wound=Wound"])
    assert odds.exit_code == 0 and "shied" in odds.output
    wrong = CliRunner().invoke(cli, ["run", "ringing_steel", "horse_wounded",
                                     f"horse=@{FILES[1]}", f"rider=@{FILES[1]}", "wound=Wound"])
    assert wrong.exit_code != 0
    assert f"rider: {FILES[1]} is a horse, and rider must be a fighter" in wrong.output



def test_in_the_encounter_a_trained_horse_attacks_its_riders_target_in_its_way(rb):
    lancer, horse, pike, axe = (rulecraft.read_fighter(rb, f) for f in FILES)
    fight = rb.fight({"rider and steed": [lancer, horse], "footmen": [pike, axe]},
                     encounter="mounted", seed=1, policy="competent", until=80)
    kicks = [e for e in fight.events if e["kind"] == "call" and e["procedure"] == "horse_attack"]
    assert kicks, "the warhorse (Training 6) never attacked"
    lances = [e for e in fight.events if e["kind"] == "call" and e["procedure"] == "lance_attack"]
    assert lances and lances[0]["value"] == "struck"


def test_missiles_and_a_mounted_fighter_in_one_encounter():
    """Issue 18: "one with missiles and a mounted fighter": an archer among the footmen shoots
    at the lancer while he is more than a hex off, at the end of his load, aim and fire."""
    from pathlib import Path

    import rulecraft

    rb = rulecraft.load("ringing_steel")
    folder = Path(__file__).parent.parent / "examples" / "ringing_steel"
    lancer, horse, archer, pikeman = (
        rulecraft.read_fighter(rb, str(folder / f"{name}.toml"))
        for name in ("lancer", "warhorse", "archer", "pikeman"))
    fight = rb.fight({"rider and steed": [lancer, horse], "footmen": [archer, pikeman]},
                     encounter="mounted", seed=2, policy="competent",
                     names=["lancer", "warhorse", "archer", "pikeman"])
    volleys = [e for e in fight.events if e["kind"] == "call" and e["name"] == "volley"]
    assert volleys and all(e["who"] is not None for e in volleys)
    assert {e["procedure"] for e in volleys} == {"missile_shot"}
    shots = fight.fighters[2].missiles_fired
    assert shots == len(volleys) and 0 < shots <= archer.missiles_carried
    assert "lancer" in fight.log() and "volley = missile_shot: hit" in fight.log()
