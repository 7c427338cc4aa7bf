"""Issue 20: "`rulecraft new NAME [--extends RULEBOOK]`: a starter file with the structure and
comments a newcomer needs (a fighter model, a table, a formula, a procedure, an encounter, a
policy, an example), which checks and tests clean from the start"."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli


def _in(folder, *args):
    here = os.getcwd()
    os.chdir(folder)
    try:
        return CliRunner().invoke(cli, list(args))
    finally:
        os.chdir(here)


def test_a_new_rulebook_has_every_kind_of_rule_and_checks_tests_and_fights_clean(tmp_path):
    made = _in(tmp_path, "new", "my_game")
    assert made.exit_code == 0 and made.output.startswith("wrote my_game.rules")
    path = tmp_path / "my_game.rules"
    text = path.read_text(encoding="utf-8")
    for word in ("rulebook my_game", "enum ", "table ", "formula ", "combatant fighter",
                 "procedure ", "encounter ", "policy ", "example "):
        assert word in text
    rb = rulecraft.load(str(path))
    assert rb.examples and all(e.run().passed for e in rb.examples)
    assert _in(tmp_path, "fmt", "--check", "my_game.rules").exit_code == 0
    assert _in(tmp_path, "test", "my_game.rules").exit_code == 0
    (tmp_path / "a.toml").write_text('strength = 14\ndexterity = 12\narmour = "Leather"\n'
                                     'skill = 2\n', encoding="utf-8")
    (tmp_path / "b.toml").write_text('strength = 12\ndexterity = 13\narmour = "Chain"\n'
                                     'skill = 1\n', encoding="utf-8")
    fought = _in(tmp_path, "fight", "my_game.rules", "a.toml", "b.toml", "--runs", "50",
                 "--policy", "careful", "--seed", "1")
    assert fought.exit_code == 0
    rates = [line for line in fought.output.splitlines() if "standing at the end" in line]
    assert len(rates) == 2 and not all("100.0%" in r for r in rates)  # somebody loses


@pytest.mark.parametrize("base", rulecraft.builtin_rulebooks())
def test_house_rules_over_each_built_in_rulebook_check_and_test_clean(tmp_path, base):
    made = _in(tmp_path, "new", "ours", "--extends", base)
    assert made.exit_code == 0, made.output
    text = (tmp_path / "ours.rules").read_text(encoding="utf-8")
    assert f"extends {base}\n" in text and "replace formula " in text and "example " in text
    assert _in(tmp_path, "test", "ours.rules").exit_code == 0
    assert _in(tmp_path, "fmt", "--check", "ours.rules").exit_code == 0


def test_house_rules_over_a_file_name_it_from_the_new_file_s_folder(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "base.rules").write_text(
        'rulebook base "Base"\n\nformula bonus(x: 1..20) "Bonus" = max(0, x - 5)\n', "utf-8")
    made = _in(tmp_path, "new", "house", "--extends", "rules/base.rules")
    assert made.exit_code == 0
    text = (tmp_path / "house.rules").read_text(encoding="utf-8")
    assert 'extends "rules/base.rules"' in text and "expect bonus(1) == 0" in text
    assert _in(tmp_path, "test", "house.rules").exit_code == 0


def test_new_never_writes_over_a_file_and_refuses_a_missing_base(tmp_path):
    (tmp_path / "mine.rules").write_text("# mine\n", encoding="utf-8")
    again = _in(tmp_path, "new", "mine")
    assert again.exit_code == 1 and "already exists" in again.output
    assert (tmp_path / "mine.rules").read_text(encoding="utf-8") == "# mine\n"
    missing = _in(tmp_path, "new", "other", "--extends", "no_such_book")
    assert missing.exit_code == 1 and not (tmp_path / "other.rules").exists()
    assert "Traceback" not in missing.output
