"""Files that pass `check` must not crash a later command, and run options must not share a
namespace with the rule's own names (the second hardening round, items 11 and 12).

Item 11: "Exit 3 (a crash) from files that pass `check`: `turn now:` (AttributeError at run
time); nested `step` blocks are not counted as nesting (200–400 levels crash `sheet`, `fmt`,
`odds`, `show`); a 400-deep chain of procedure calls crashes `odds` (RecursionError) though
`run` handles it." Each case is a rule file, checked and then played by the command that
crashed, in a child process as a user runs it: exit 1 with a clear message, never 3.

Item 12: "A rule can take over run options: an encounter parameter or choice named
`time_limit` swallows `--until N`. Run options and rule names must not share a namespace."
"""

from __future__ import annotations

import json

import pytest

import rulecraft
from resources import rulecraft as command

LIMIT = rulecraft.DEFAULT_LIMITS.nesting_depth


def clean_refusal(result, *words: str) -> None:
    """Exit 1 with a rule error (file:line and a caret), no traceback, no internal error."""
    assert result.returncode == 1, result.output
    assert "internal error" not in result.output and "Traceback" not in result.output
    for word in words:
        assert word in result.output, result.output


# ---- 11 (a): `turn now:` ------------------------------------------------------------------------

TURN_NOW = """rulebook duel "Duel"
combatant fighter:
  name: name
  speed: 1..20
  state stamina: 0..30 = 10 clamped
encounter duel "A duel to the end" (a: fighter, b: fighter):
  clock tenths "tenths of a second"
  act a at 0
  act b at 0
  turn now:
    let foe = if now == a then b else a
    roll hit = d6
    set foe.stamina = foe.stamina - hit
    act now after now.speed
  ends when a.stamina == 0 or b.stamina == 0
  at most 100 turns
"""


def test_a_turn_named_now_is_refused_at_its_line_not_a_crash_at_run_time(tmp_path):
    """"`turn now:` (AttributeError at run time)": `now` is the encounter's time (the docs:
    "`now` is the time, in the clock's unit"), so the party whose turn it is needs another
    name; said when the file is checked, at the `turn` line."""
    rules = tmp_path / "duel.rules"
    rules.write_text(TURN_NOW, encoding="utf-8")
    checked = command(["check", str(rules)])
    clean_refusal(checked, "duel.rules:10:", "now is the encounter's time", "turn f:")
    played = command(["run", str(rules), "duel", "a.name=Ann", "a.speed=10", "b.name=Bob",
                      "b.speed=12", "--seed", "1"])
    clean_refusal(played, "duel.rules:10:")


def test_a_turn_named_like_a_party_already_there_is_refused_too():
    # `turn a:` would rebind the parameter `a` to whoever's turn it is: as `for each`, the
    # turn's party needs a name of its own.
    text = TURN_NOW.replace("turn now:", "turn a:").replace("now == a", "a == b") \
        .replace("act now after now.speed", "act a after a.speed")
    with pytest.raises(rulecraft.RuleTypeError, match="a is already a name here") as caught:
        rulecraft.compile(text, "duel.rules")
    assert caught.value.line == 10


def test_an_encounter_parameter_named_now_is_refused_too():
    # It would be the encounter's time from the first step on, the value given lost.
    text = TURN_NOW.replace("(a: fighter, b: fighter)", "(a: fighter, b: fighter, now: 1..5)")
    with pytest.raises(rulecraft.RulecraftError) as caught:
        rulecraft.compile(text, "duel.rules")
    messages = [(e.line, e.message) for e in getattr(caught.value, "errors", [caught.value])]
    assert (6, "now is the encounter's time: a parameter needs a name of its own") in messages


def test_a_turn_with_a_name_of_its_own_still_plays():
    text = TURN_NOW.replace("turn now:", "turn f:").replace("now == a", "f == a") \
        .replace("act now after now.speed", "act f after f.speed")
    rb = rulecraft.compile(text, "duel.rules")
    a, b = rb.combatant(name="Ann", speed=10), rb.combatant(name="Bob", speed=12)
    assert rb.procedures["duel"].run(a=a, b=b, seed=1).outcome == "ended"


# ---- 11 (b): nested `step` blocks count as nesting ----------------------------------------------

def nested(levels: int, head: str) -> str:
    """A procedure whose `let` sits inside `levels` nested blocks opened by `head`."""
    lines = ['rulebook deep "Deep"', "procedure p(x: 1..6):"]
    lines += ["  " * (i + 1) + head.format(i=i) for i in range(levels)]
    lines += ["  " * (levels + 1) + "let y = x", "  outcome done"]
    return "\n".join(lines) + "\n"


def test_deeply_nested_step_blocks_are_refused_at_the_step_that_goes_too_deep(tmp_path):
    """"nested `step` blocks are not counted as nesting (200–400 levels crash `sheet`, `fmt`,
    `odds`, `show`)": each `step` block is a level of `nesting_depth`, as an `if` is."""
    rules = tmp_path / "deep.rules"
    rules.write_text(nested(400, "step s{i}:"), encoding="utf-8")
    line = 2 + LIMIT + 1  # the rulebook line, the procedure line, then the steps
    for args in (["check"], ["sheet"], ["fmt"], ["show"], ["odds"]):
        tail = ["p", "x=3"] if args[0] == "odds" else []
        result = command([*args, str(rules), *tail])
        clean_refusal(result, f"deep.rules:{line}:", "this step is nested too deeply",
                      f"{LIMIT} of them the `step` blocks around it", "--limit nesting_depth=N")
    with pytest.raises(rulecraft.RuleSyntaxError) as caught:
        rulecraft.compile(nested(200, "step s{i}:"), "deep.rules")
    assert caught.value.line == line


def test_step_blocks_within_the_limit_still_play():
    rb = rulecraft.compile(nested(LIMIT - 3, "step s{i}:"), "deep.rules")
    assert rb.procedures["p"].run(x=3).outcome == "done"
    assert rb.procedures["p"].odds(x=3) == {"done": 1}


@pytest.mark.parametrize(("head", "kind"), [("for each i{i} in 1..1:", "for each"),
                                            ("repeat until x > 0, at most 2 times:", "repeat")])
def test_every_block_a_step_opens_counts_as_a_level(head, kind):
    # `for each` and `repeat` blocks nest as `step` and `if` blocks do; the test of the
    # 49th (two levels: `x > 0`, then `x`) is where it first goes too deep.
    with pytest.raises(rulecraft.RuleSyntaxError) as caught:
        rulecraft.compile(nested(LIMIT + 5, head), "deep.rules")
    assert caught.value.message.startswith(
        f"this expression is nested too deeply: more than {LIMIT} levels, {LIMIT - 1} of them "
        f"the `{kind}` blocks around it")
    assert caught.value.line == 2 + LIMIT - 1


def test_blocks_of_several_kinds_are_named_together():
    text = nested(LIMIT + 5, "step s{i}:").replace("step s3:", "if x > 0:") \
        .replace("step s4:", "for each i in 1..2:")
    with pytest.raises(rulecraft.RuleSyntaxError) as caught:
        rulecraft.compile(text, "deep.rules")
    assert f"{LIMIT} of them the `step`, `if` and `for each` blocks around it" in \
        caught.value.message


def test_ifs_alone_are_still_named_as_ifs():
    text = nested(LIMIT + 5, "if x > {i}:").replace("  outcome done\n", "  outcome done\n")
    with pytest.raises(rulecraft.RuleSyntaxError) as caught:
        rulecraft.compile(text, "deep.rules")
    assert "of them the `if`s around it" in caught.value.message


# ---- 11 (c): a deep chain of procedure calls ------------------------------------------------------

def chain(length: int) -> str:
    """p1 calls p2 calls p3 … calls p<length>, which rolls."""
    lines = ['rulebook chain "Chain"', f"procedure p{length}(x: 1..6):", "  roll r = d2",
             "  outcome done with v = x + r"]
    for i in range(length - 1, 0, -1):
        lines += [f"procedure p{i}(x: 1..6):", f"  call c = p{i + 1}(x)",
                  "  outcome done with v = c.v"]
    return "\n".join(lines) + "\n"


def test_a_400_deep_chain_of_calls_is_refused_alike_by_check_run_and_odds(tmp_path):
    """"a 400-deep chain of procedure calls crashes `odds` (RecursionError) though `run`
    handles it": procedures never call each other in a circle, so how deep their calls go is
    known when the file is read, and a chain deeper than `nesting_depth` is refused there, for
    every command alike, at the call that makes it too deep."""
    rules = tmp_path / "chain.rules"
    rules.write_text(chain(400), encoding="utf-8")
    # p350 calls p351 … p400: LIMIT procedures below it, so its call is one too many.
    deepest = 400 - LIMIT
    line = 1 + 3 + (400 - 1 - deepest) * 3 + 2  # its `call` line
    for args in (["check", str(rules)], ["run", str(rules), "p1", "x=3", "--seed", "1"],
                 ["odds", str(rules), "p1", "x=3"]):
        result = command(args)
        clean_refusal(result, f"chain.rules:{line}:", f"p{deepest} → p{deepest + 1}",
                      f"more than {LIMIT}", "--limit nesting_depth=N")
    # With the limit raised past what Python's stack takes, odds still refuse, offering to
    # sample (as `run` refuses its own way: "more deeply than Python allows").
    p1 = rulecraft.compile(chain(400), "chain.rules", rulecraft.Limits(nesting_depth=400)) \
        .procedures["p1"]
    with pytest.raises(rulecraft.CalculationError, match="more deeply than Python allows.*"
                       "--samples"):
        p1.odds(x=3)
    assert p1.sample(10, seed=1, x=3)["done"].count == 10


def test_a_chain_of_calls_within_the_limit_runs_and_has_odds():
    rb = rulecraft.compile(chain(LIMIT), "chain.rules")
    assert rb.procedures["p1"].run(x=3, dice=[2]).outcome["v"] == 5
    assert rb.procedures["p1"].odds(x=3) == {"done": 1}
    with pytest.raises(rulecraft.RulecraftError, match="limit nesting_depth"):
        rulecraft.compile(chain(LIMIT + 1), "chain.rules")


def test_the_chain_limit_is_raised_with_nesting_depth():
    rb = rulecraft.compile(chain(LIMIT + 10), "chain.rules",
                           rulecraft.Limits(nesting_depth=LIMIT + 10))
    assert rb.procedures["p1"].odds(x=3) == {"done": 1}


# ---- 12: run options and the rule's own names ----------------------------------------------------

def own(params: str = "time_limit: 1..100 = 40, policy: name = \"Fair\"",
        choices: str = "") -> rulecraft.Rulebook:
    """An encounter whose parameters (and maybe choices) are named like run options; its
    ending says what its own `time_limit` and `policy` were."""
    text = f"""rulebook own "Own names"
combatant fighter:
  name: name
  speed: 1..20
  state stamina: 0..30 = 10 clamped
encounter duel "A duel" (a: fighter, b: fighter, {params}):
  clock tenths "tenths of a second"
{choices}  act a at 0
  act b at 0
  turn f:
    let foe = if f == a then b else a
    choose stance by f from ["Guard", "Lunge"] default "Guard"
    set foe.stamina = foe.stamina - (if stance == "Lunge" then 2 else 1)
    act f after f.speed
    if now >= time_limit:
      outcome out_of_time with (limit = time_limit, said = policy)
  ends when a.stamina == 0 or b.stamina == 0
  at most 100 turns
policy bold "Lunges":
  stance = "Lunge"
"""
    return rulecraft.compile(text, "own.rules")


def fighters(rb):
    return [rb.combatant(name="Ann", speed=10), rb.combatant(name="Bob", speed=10)]


def test_a_parameter_named_time_limit_is_the_rule_s_and_until_still_stops_the_fight():
    """"an encounter parameter or choice named `time_limit` swallows `--until N`": the rule's
    `time_limit` keeps its own value, and `until=N` still plays the fight only so long."""
    rb = own()
    full = rb.fight(fighters(rb))
    assert full.result.outcome == "out_of_time"
    assert dict(full.result.outcome) == {"limit": 40, "said": "Fair"}
    short = rb.fight(fighters(rb), until=15)
    assert short.result.outcome == "capped" and short.result.outcome["time"] == 15
    given = rb.fight(fighters(rb), settings={"time_limit": 20}, until=35)
    assert dict(given.result.outcome) == {"limit": 20, "said": "Fair"}


def test_until_is_not_swallowed_by_a_parameter_or_choice_named_time_limit():
    # The encounter names only `time_limit`, the run's policy is left alone.
    for rb in (own("time_limit: 1..100 = 40", '  let policy = "Let"\n'),
               own("limit_at: 1..100 = 40", "  choose time_limit by a from [30, 40] default 40\n"
                   '  let policy = "Let"\n')):
        short = rb.fight(fighters(rb), until=15)
        assert short.result.outcome == "capped" and short.result.outcome["time"] == 15
        full = rb.fight(fighters(rb))
        assert dict(full.result.outcome) == {"limit": 40, "said": "Let"}


def test_a_parameter_named_policy_is_the_rule_s_and_the_run_s_policy_still_decides():
    rb = own()
    fight = rb.fight(fighters(rb), policy="bold", settings={"policy": "Mine"})
    assert dict(fight.result.outcome) == {"limit": 40, "said": "Mine"}
    assert fight.fighters[0].stamina == 10 - 2 * 4  # lunges: Bob hit Ann at 0, 10, 20, 30
    # From Python, a keyword that is the rule's own name is the rule's.
    a, b = fighters(rb)
    run = rb.procedures["duel"].run(a=a, b=b, policy="Given", time_limit=10)
    assert dict(run.outcome) == {"limit": 10, "said": "Given"}


def test_choices_named_time_limit_and_policy_are_the_rule_s():
    rb = own("limit_at: 1..100 = 40", "  choose time_limit by a from [30, 40] default 30\n"
             "  choose policy by a from [\"Fair\", \"Foul\"] default \"Foul\"\n")
    full = rb.fight(fighters(rb))
    assert dict(full.result.outcome) == {"limit": 30, "said": "Foul"}
    short = rb.fight(fighters(rb), until=15, policy="bold")
    assert short.result.outcome == "capped" and short.result.outcome["time"] == 15
    assert short.fighters[1].stamina == 10 - 2 * 2  # the policy decided: lunges at 0 and 10
    a, b = fighters(rb)
    chosen = rb.procedures["duel"].run(a=a, b=b, time_limit=[40], policy=["Fair"])
    assert dict(chosen.outcome) == {"limit": 40, "said": "Fair"}


def test_until_and_policy_from_the_command_line_with_the_rule_s_own_names(tmp_path):
    rules = tmp_path / "own.rules"
    rules.write_text(own().source, encoding="utf-8")
    for name in ("ann", "bob"):
        (tmp_path / f"{name}.toml").write_text(f'name = "{name}"\nspeed = 10\n',
                                               encoding="utf-8")
    base = ["fight", str(rules), str(tmp_path / "ann.toml"), str(tmp_path / "bob.toml"),
            "--json"]
    short = command([*base, "--until", "15", "--set", "time_limit=30", "--policy", "bold"])
    assert short.returncode == 0, short.output
    data = json.loads(short.stdout)
    assert data["outcome"]["name"] == "capped" and data["outcome"]["values"]["time"] == 15
    whole = command([*base, "--set", "time_limit=30", "--set", "policy=Set"])
    assert whole.returncode == 0, whole.output
    assert json.loads(whole.stdout)["outcome"]["values"] == {"limit": 30, "said": "Set"}


def test_a_run_option_a_rule_does_not_name_is_still_a_run_option():
    rb = own("time_limit: 1..100 = 40", '  let policy = "Let"\n')
    a, b = fighters(rb)
    with pytest.raises(rulecraft.RangeError, match="no policy called 'bolt'"):
        rb.procedures["duel"].run(a=a, b=b, policy="bolt")
    assert rb.procedures["duel"].run(a=a, b=b, policy="bold").combatants["a"].stamina < 10
