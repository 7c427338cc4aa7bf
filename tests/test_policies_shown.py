"""Issue 20, policies are first-class: "`show` and `sheet` list policies and what each
answers"."""

from __future__ import annotations

import json

from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli


def test_show_lists_each_policy_and_what_it_answers():
    out = CliRunner().invoke(cli, ["show", "ringing_steel"]).output
    assert 'policy competent "A competent fighter" (--policy competent) answers:' in out
    assert '  closing = if fighter.base_speed <= foe.base_speed then "Attack" else "Wait"' in out
    data = json.loads(CliRunner().invoke(cli, ["show", "ringing_steel", "--json"]).output)
    policy = next(p for p in data["policies"] if p["name"] == "competent")
    assert policy["name"] == "competent" and policy["title"] == "A competent fighter"
    assert {"defence", "dodge_bias", "closing", "close_in", "target"} <= {
        a["choice"] for a in policy["answers"]}  # part I's, among later parts' own
    assert rulecraft.load("ringing_steel").policies["competent"].answers[1].text == '"Back"'


def test_a_rulebook_without_policies_shows_none():
    assert "policies" not in json.loads(
        CliRunner().invoke(cli, ["show", "rq3_core", "--json"]).output)


def test_the_sheet_prints_each_policy_in_words():
    md = CliRunner().invoke(cli, ["sheet", "ringing_steel", "--format", "md"]).output
    assert "- [Policies](#policies)" in md
    assert "## Policies\n\n### A competent fighter\n\nChosen with `--policy competent`" in md
    assert '| Closing | if Fighter Base Speed ≤ Foe Base Speed then “Attack”; otherwise ' \
           '“Wait” |' in md
    html = CliRunner().invoke(cli, ["sheet", "ringing_steel"]).output
    assert '<section class="part part-policies" id="policies">' in html
    assert '<article class="policy" id="policy-competent">' in html


def test_show_names_a_policy_in_full():
    out = CliRunner().invoke(cli, ["show", "ringing_steel", "competent"]).output
    assert out.startswith('policy competent "A competent fighter" (ringing_steel.rules:')
    assert "  chosen with --policy competent; it answers:" in out
    assert '    dodge_bias = "Back"' in out and "as written:" in out


def test_show_s_hint_names_a_rulebook_as_it_was_given():
    """"`show`'s hints work for a rulebook given as a path": the hint names the path to give
    again, not the rulebook's inner name (which `show` cannot find)."""
    given = CliRunner().invoke(cli, ["show", "docs/examples/rs_house.rules", "nosuch"])
    assert given.exit_code == 1
    assert "(`rulecraft show docs/examples/rs_house.rules` lists what it has)" in given.output
    built_in = CliRunner().invoke(cli, ["show", "ringing_steel", "nosuch"])
    assert "(`rulecraft show ringing_steel` lists what it has)" in built_in.output
