"""Issue 20, errors that say what to write (met by a new user)."""

from __future__ import annotations

import pytest

import rulecraft
from rulecraft.runtime.errors import RulecraftError


def _error(text: str, filename: str = "mine.rules") -> RulecraftError:
    with pytest.raises(RulecraftError) as caught:
        rulecraft.compile(text, filename)
    return caught.value


def test_repeat_until_without_a_cap_says_at_most_is_missing():
    """"`repeat until X:` without a cap says that `at most N times` is missing (not "expected
    ','")"."""
    err = _error('rulebook e "E"\n\nprocedure p "P" ():\n  let n = 0\n  repeat until n > 3:\n'
                 '    set n = n + 1\n  outcome done "Done"\n')
    assert (err.line, err.column) == (5, 21)
    assert err.message == ("`repeat until …` needs a cap on how often it repeats: write "
                           "`repeat until n > 3, at most N times:`")


@pytest.mark.parametrize("after, unit", [("\nformula f(x: 1..3) \"F\" = x\n", "rounds"), ("", "rounds")])
def test_an_encounter_without_at_most_is_reported_at_the_encounter(after, unit):
    """"an encounter without `at most` is reported at the encounter with what to add, not at
    the next declaration"."""
    err = _error('rulebook e "E"\n\ncombatant fighter "F":\n  state hp: integer = 3\n\n'
                 'encounter bout "Bout" (a: fighter, b: fighter):\n  clock rounds "rounds"\n'
                 '  each round:\n    set a.hp = a.hp - 1\n  ends when a.hp <= 0\n' + after)
    assert (err.line, err.column) == (6, 1)
    # Issue 19: "update the error message to offer both" (a cap, or `no cap`).
    assert err.message == (f"encounter bout needs a cap on its length: add a line `at most N "
                           f"{unit}` after its `ends when` line, or `no cap` for a fight that "
                           "goes on until it ends")


def test_a_turn_clock_encounter_is_told_turns():
    err = _error('rulebook e "E"\n\ncombatant fighter "F":\n  state hp: integer = 3\n\n'
                 'encounter bout "Bout" (a: fighter, b: fighter):\n  clock tenths "tenths"\n'
                 '  act a after 1\n  turn f:\n    set f.hp = f.hp - 1\n    act f after 1\n'
                 '  ends when a.hp <= 0\n')
    assert err.line == 6 and "add a line `at most N turns`" in err.message


def test_removing_a_table_the_base_still_uses_is_one_error_at_the_remove_line(tmp_path):
    """"a house file removing a table that base rules still use is reported once, at the house
    file's `remove` line, naming the rules that use it (not a dozen errors inside the base with
    a wrong 'did you mean')"."""
    house = tmp_path / "house.rules"
    house.write_text('rulebook h "H"\nextends ringing_steel\n\nremove table hit_location_column\n',
                     encoding="utf-8")
    with pytest.raises(RulecraftError) as caught:
        rulecraft.load(str(house))
    err = caught.value
    assert not hasattr(err, "errors") or len(err.errors) == 1
    assert (err.filename, err.line, err.column) == (str(house), 4, 1)
    assert err.message.startswith("table hit_location_column cannot be removed: rules of the "
                                  "rulebook still use it — procedure melee_attack "
                                  "(ringing_steel.rules line")
    assert "did you mean" not in str(err)


def test_a_removed_formula_is_used_by_its_calls_and_an_unused_rule_goes_quietly(tmp_path):
    house = tmp_path / "house.rules"
    house.write_text('rulebook h "H"\nextends ringing_steel\n\nremove formula fatigue_limit\n',
                     encoding="utf-8")
    with pytest.raises(RulecraftError, match=r"formula fatigue_limit cannot be removed: .*"
                       r"combatant fighter \(ringing_steel.rules line \d+\)"):
        rulecraft.load(str(house))
    house.write_text('rulebook h "H"\nextends ringing_steel\n\nremove reference hit_chances\n',
                     encoding="utf-8")
    assert "hit_chances" not in rulecraft.load(str(house)).references


def test_a_work_refusal_says_the_work_done_and_what_the_loop_needs():
    """"a refusal for exceeding a work limit says how much work it did and, where the engine
    can, an estimate of what is needed"."""
    rb = rulecraft.compile('rulebook w "W"\n\nprocedure p "P" ():\n  let n = 0\n'
                           '  repeat until n > 1000000, at most 100000 times:\n'
                           '    let n = n + 1\n  outcome done "D" with (total = n)\n', "w.rules")
    with pytest.raises(RulecraftError) as caught:
        rb.procedures["p"].run(limits=rulecraft.Limits(work=30000))
    message = caught.value.message
    assert "this would take more than 30,000 steps of work in all" in message
    assert ": 30,006 by this step, with the loop here at pass 5,001 of 100,000: all of it needs " \
           "about 600,000 (limit work;" in message
    assert (caught.value.line, caught.value.column) == (5, 3)
