"""The referee: a built-in party for the decisions the rules give the game master, and
`ruling "…"` for an effect a seed leaves to people (issue 15, item 3).

Seeds quoted: d20 modern (001: "For the Stealth Check figure DC 12 for someone completely
unaware, DC 18 for someone generally alert"; "This would be a DC 12 or 18 (or something
in-between) Appeal. The DC is set by mutual agreement"; "there will be Ref-decided
consequences"), RQ3 house rules (003, I3: "GM determines effects based o roll").
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.runtime.errors import RulecraftError

# d20: "This would be a DC 12 or 18 (or something in-between) Appeal. The DC is set by mutual
# agreement as to how good the 'burn' or 'Truth bomb' was." The referee sets it; a natural 20
# is left to the referee ("Ref-decided consequences"), and a stunned target is the referee's
# to describe.
APPEAL = '''rulebook d20_appeal "d20: a psychological attack"

combatant hero:
  charisma: 1..20
  state stunned: bool = false

policy harsh "A harsh referee":
  dc = 18

# "This would be a DC 12 or 18 (or something in-between) Appeal."
procedure appeal "Appeal" (speaker: hero, target: hero):
  outcomes:
    all with roll
    stunned "Stunned"
    laughed_off "Laughed off"
  choose dc by referee from 12..18 default 15
  roll roll = d20
  if roll == 1:
    outcome by referee "Ref-decided consequences"
  if roll + speaker.charisma >= dc:
    set target.stunned = true
    ruling "the referee describes how the target is stunned"
    outcome stunned
  outcome laughed_off

encounter exchange "An exchange of insults" (first: hero, second: hero):
  clock rounds "rounds"
  each round:
    call burn = appeal(first, second)
  ends when second.stunned
  at most 3 rounds
'''


@pytest.fixture(scope="module")
def rb(tmp_path_factory):
    path = tmp_path_factory.mktemp("referee") / "appeal.rules"
    path.write_text(APPEAL, encoding="utf-8")
    return rulecraft.load(str(path))


def heroes(rb, charisma=3):
    return rb.combatant(charisma=charisma), rb.combatant(charisma=10)


def test_the_referee_chooses_without_a_combatant_passed(rb):
    # "The DC is set by mutual agreement": no referee combatant is a parameter of appeal.
    assert [p.name for p in rb.procedures["appeal"].params] == ["speaker", "target"]
    speaker, target = heroes(rb)
    r = rb.procedures["appeal"].run(speaker=speaker, target=target, dice=[12])
    assert r.values["dc"] == 15                        # the default: 12 + 3 = 15 stuns
    assert r.outcome == "stunned"
    made = next(e for e in r.trace if e.kind == "choose")
    assert (made.name, made.value, made.detail) == ("dc", 15, "by referee, default")


def test_the_referee_answered_by_name_script_policy_and_a_chooser(rb):
    speaker, target = heroes(rb)
    appeal = rb.procedures["appeal"]
    # "DC 12 for someone completely unaware, DC 18 for someone generally alert"
    assert appeal.run(speaker=speaker, target=target, dc=18, dice=[12]).outcome == "laughed_off"
    assert appeal.run(speaker=speaker, target=target, dc=[12], dice=[9]).outcome == "stunned"
    assert appeal.run(speaker=speaker, target=target, policy="harsh",
                      dice=[14]).outcome == "laughed_off"
    asked = []

    def referee(options, values):
        asked.append(options)
        return max(options)

    r = appeal.run(speaker=speaker, target=target, dc=referee, dice=[15])
    assert (asked, r.values["dc"], r.outcome.name) == ([list(range(12, 19))], 18, "stunned")
    with pytest.raises(RulecraftError, match="referee cannot choose '20' for dc"):
        appeal.run(speaker=speaker, target=target, dc=20, dice=[15])


def test_a_ruling_goes_on_and_is_in_the_trace(rb):
    # "the referee describes how the target is stunned": recorded, then the outcome stands.
    speaker, target = heroes(rb)
    r = rb.procedures["appeal"].run(speaker=speaker, target=target, dice=[12])
    ruling = [e for e in r.trace if e.kind == "ruling"]
    assert [(e.name, e.value, e.line) for e in ruling] == [
        ("referee", "the referee describes how the target is stunned", 22)]
    assert "ruling: the referee's call: the referee describes how the target is stunned" \
        in r.explain()
    assert r.combatants["target"].stunned is True


def test_an_outcome_by_referee_ends_in_the_referees_call(rb):
    # "there will be Ref-decided consequences": a natural 1 ends in the referee's call.
    speaker, target = heroes(rb)
    r = rb.procedures["appeal"].run(speaker=speaker, target=target, dice=[1])
    assert r.outcome == "referee's call: Ref-decided consequences"
    assert r.outcome["roll"] is None                   # it carries nothing the rules say
    assert [e.value for e in r.trace if e.kind == "ruling"] == ["Ref-decided consequences"]


def test_exact_odds_count_the_referees_call_as_an_outcome_of_its_own(rb):
    # DC 15, charisma 3: 12-20 stun (9 in 20), 2-11 are laughed off (10), 1 is the referee's.
    speaker, target = heroes(rb)
    odds = rb.procedures["appeal"].odds(speaker=speaker, target=target)
    assert odds == {"stunned": Fraction(9, 20), "laughed_off": Fraction(10, 20),
                    "referee's call: Ref-decided consequences": Fraction(1, 20)}
    assert rb.procedures["appeal"].stepper is not None   # worked out by states
    assert rb.procedures["appeal"].path_odds(speaker=speaker, target=target) == odds
    harsh = rb.procedures["appeal"].odds(speaker=speaker, target=target, policy="harsh")
    assert harsh["stunned"] == Fraction(6, 20)          # 15-20 reach 18


def test_seeded_runs_reach_the_referees_call(rb):
    speaker, target = heroes(rb)
    made = rb.procedures["appeal"].sample(2000, seed=3, speaker=speaker, target=target)
    assert made["referee's call: Ref-decided consequences"].low < 0.05 < \
        made["referee's call: Ref-decided consequences"].high


def test_a_ruling_in_a_fight_log(rb):
    first, second = heroes(rb)
    fight = rb.fight([first, second], dice=[12])
    assert "the referee's call: the referee describes how the target is stunned" in fight.log()
    assert any(e["kind"] == "ruling" for e in fight.events)


def test_show_lists_the_rulings_and_the_referees_choices(rb):
    from rulecraft import show

    data = show.overview(rb)
    assert data["rulings"] == [
        {"procedure": "appeal", "text": "Ref-decided consequences", "ends": True, "line": 19},
        {"procedure": "appeal", "text": "the referee describes how the target is stunned",
         "ends": False, "line": 22}]
    appeal = next(p for p in data["procedures"] if p["name"] == "appeal")
    assert appeal["choices"][0]["by"] == "referee"
    text = CliRunner().invoke(cli, ["show", rb.filename])
    assert text.exit_code == 0, text.output
    assert "the referee's calls:\n  appeal, line 19: Ref-decided consequences (ends the " \
        "procedure)\n  appeal, line 22: the referee describes" in text.output


def test_a_sheet_prints_the_referees_call(rb):
    out = CliRunner().invoke(cli, ["sheet", rb.filename, "--format", "md", "--rules-only"])
    assert out.exit_code == 0, out.output
    assert "The referee chooses the DC: 12–18 (by default 15)." in out.output
    assert "The referee's call: *the referee describes how the target is stunned*." in out.output
    assert "Outcome: **the referee's call** — *Ref-decided consequences*." in out.output


def test_the_rq3_house_rules_ask_the_referee_not_the_victim():
    # F2: "1d6 damage per m remaining to be traveled if anything is hit along the way": what is
    # in the way is the referee's; the choice keeps its name, so `obstacle_at=1` still answers.
    rb = rulecraft.load("rq3_house")
    from rulecraft import show

    knock = next(p for p in show.overview(rb)["procedures"] if p["name"] == "knockback")
    assert next(c for c in knock["choices"] if c["name"] == "obstacle_at")["by"] == "referee"
    # I3: "GM determines effects based o roll."; "I normally allow a DI".
    worshipper = rb.combatant(strength=12, constitution=14, size=15, intelligence=13, power=10,
                              dexterity=11, appearance=9, weapon="Battle axe")
    di = rb.procedures["divine_intervention"]
    r = di.run(worshipper=worshipper, dice=[7])
    assert r.outcome == "answered"
    assert [e.value for e in r.trace if e.kind == "ruling"] == [
        "GM determines effects based on the roll"]
    assert di.run(worshipper=worshipper, allowed=False, dice=[]).outcome == "not_allowed"
    assert di.odds(worshipper=worshipper) == {"answered": Fraction(1, 10),
                                              "unanswered": Fraction(9, 10)}


@pytest.mark.parametrize("rule, line, column, words", [
    ('  choose dc by refere from 12..18 default 15\n', 8, 3,
     "unknown party (a combatant, or the referee) 'refere'; did you mean 'referee'?"),
    ('  ruling ""\n', 8, 3, "a ruling says what the referee decides"),
    ('  outcome by judge "no"\n', 8, 14, "unexpected 'judge'; expected \"referee\""),
])
def test_compile_errors_at_the_line(tmp_path, rule, line, column, words):
    text = ('rulebook t "T"\ncombatant hero:\n  charisma: 1..20\n\n\n\n'
            'procedure p (h: hero):\n' + rule + '  outcome done\n')
    path = tmp_path / "t.rules"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulecraftError) as caught:
        rulecraft.load(str(path))
    err = caught.value
    assert (err.line, err.column) == (line, column), str(err)
    assert words in str(err)


def test_a_standing_constraint_cannot_bind_the_referee(tmp_path):
    path = tmp_path / "t.rules"
    path.write_text('rulebook t "T"\ncombatant hero:\n  charisma: 1..20\n'
                    'while "Stunned", dc may only be 12\n'
                    'procedure p (h: hero):\n  choose dc by referee from 12..18 default 15\n'
                    '  outcome done\n', encoding="utf-8")
    with pytest.raises(RulecraftError) as caught:
        rulecraft.load(str(path))
    assert (caught.value.line, caught.value.column) == (4, 1)
    assert "dc is chosen by the referee, who is under no condition" in str(caught.value)


def test_the_referees_choice_inside_a_call_is_in_the_fight_log(rb):
    first, second = heroes(rb)
    log = rb.fight([first, second], dice=[12]).log()
    assert "dc = 15 (by referee, default)" in log


def test_rulecraft_fight_prints_the_referees_call(rb, tmp_path):
    (tmp_path / "a.toml").write_text("charisma = 3\n", encoding="utf-8")
    (tmp_path / "b.toml").write_text("charisma = 10\n", encoding="utf-8")
    out = CliRunner().invoke(cli, ["fight", rb.filename, str(tmp_path / "a.toml"),
                                   str(tmp_path / "b.toml"), "--seed", "0"])
    assert out.exit_code == 0, out.output
    assert "the referee's call: the referee describes how the target is stunned" in out.output
    assert "dc = 15 (by referee, default)" in out.output


def test_an_encounters_exact_odds_through_a_referees_choice_and_ruling(rb):
    # Each round a ruling is reached one time in two (stunned 9/20, the referee's call 1/20):
    # in three rounds, 7/8 of fights reach one.
    first, second = heroes(rb)
    exchange = rb.procedures["exchange"]
    ruled = exchange.odds(first=first, second=second,
                          by=lambda r: any(e.kind == "ruling" for e in r.trace))
    assert ruled == {True: Fraction(7, 8), False: Fraction(1, 8)}
    assert exchange.odds(first=first, second=second) == {
        "ended": 1 - Fraction(11, 20) ** 3, "capped": Fraction(11, 20) ** 3}
