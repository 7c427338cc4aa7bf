"""Issue 20: "`rulecraft check FIGHTER.toml --rulebook RB` checks a fighter file on its own (a
type, a missing or an unknown field: an error with file, line and field)"."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from rulecraft.cli import cli

EXAMPLES = Path(__file__).parent.parent / "examples" / "ringing_steel"


def _check(*args: str):
    return CliRunner().invoke(cli, ["check", *args])


def test_a_shipped_fighter_checks_clean():
    result = _check(str(EXAMPLES / "swordsman.toml"), "--rulebook", "ringing_steel")
    assert result.exit_code == 0
    assert result.output.endswith("swordsman.toml: ok — a fighter of ringing_steel\n")


def test_each_wrong_field_is_reported_at_its_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('# a fighter with mistakes\nstrenght = 12\ndexterity = "twelve"\n'
                   'constitution = 11\nwillpower = 10\nweapon = "Sword"\n'
                   'armour = "Standard"\n\n[training]\nSword = 5\n', encoding="utf-8")
    result = _check(str(bad), "--rulebook", "ringing_steel")
    assert result.exit_code == 1
    assert f"{bad}:2: a fighter has no characteristic or state called 'strenght'; did you " \
           "mean 'strength'?" in result.output
    assert f"{bad}:3: dexterity must be a whole number from 1 to 20; got the text 'twelve'" \
        in result.output
    assert f"{bad}: a fighter needs strength (a whole number from 1 to 20)" in result.output
    assert "Traceback" not in result.output


def test_a_fighter_file_needs_its_rulebook_and_must_be_toml(tmp_path):
    alone = _check(str(EXAMPLES / "swordsman.toml"))
    assert alone.exit_code == 1
    assert "is a fighter file: say which rulebook it is for, with --rulebook RULEBOOK" in \
        alone.output
    broken = tmp_path / "broken.toml"
    broken.write_text("strength = [1\n", encoding="utf-8")
    result = _check(str(broken), "--rulebook", "ringing_steel")
    assert result.exit_code == 1 and "cannot read the fighter" in result.output
    both = _check("ringing_steel", str(EXAMPLES / "spearman.toml"), "--rulebook", "ringing_steel")
    assert both.exit_code == 0 and "ringing_steel: ok — " in both.output
