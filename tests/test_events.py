"""Events on the clock (issue 15, item 4): events owned by the encounter (`after T as NAME:`),
several pending, cancellable; a point inside an action; a second lane per fighter; actions
labelled when scheduled and read as `action(f)` / `last_action(f)`; `now` and `cancel PARTY`
in procedures called from an encounter."""

from __future__ import annotations

import pytest

import rulecraft
from rulecraft.runtime import fight_odds

# Issue 15: "Events owned by the encounter, not by a fighter's action: `after T as NAME:`
# blocks that capture values when scheduled and run when the clock gets there (a missile in
# flight ...)". Ringing Steel, missiles: the arrow flies at the hex the target stood in.
VOLLEY = """rulebook volley "A missile in flight"
combatant fighter:
  name: name = "x"
  speed: 1..20 = 10
  state pos: 0..20 = 0
  state hp: 0..10 = 2

procedure loose(archer: fighter, target: fighter, flight: 1..20):
  # "The arrow is aimed at the hex the target stands in when it is loosed."
  let aimed_at = target.pos
  after flight as arrow:
    if target.pos == aimed_at:
      roll hit = d6
      if hit >= 3:
        add -1 to target.hp
  outcome loosed

encounter volley (archer: fighter, target: fighter, flight: 1..20 = 3):
  clock tenths "tenths of a second"
  act archer at 0 as "Shoot"
  act target at 0 as "Walk"
  turn f:
    if f == archer:
      let aimed_at = target.pos
      after flight as arrow:
        if target.pos == aimed_at:
          roll hit = d6
          if hit >= 3:
            add -1 to target.hp
      act archer after 4 as "Shoot"
    else:
      add 1 to target.pos
      act target after f.speed as "Walk"
  ends when target.hp == 0 or target.pos >= 3
  at most 40 turns
"""


def volley(text=VOLLEY):
    rb = rulecraft.compile(text, "volley.rules")
    return rb, rb.combatant(name="Archer"), rb.combatant(name="Runner")


def kinds(result, *wanted):
    return [(e.kind, e.name, e.value) for e in result.trace if e.kind in wanted]


def test_a_missile_in_flight_misses_a_target_that_left_and_hits_one_that_stayed():
    rb, archer, runner = volley()
    # Arrow 1 loosed at 0 at hex 0 (the runner steps to hex 1 at 0): it arrives at 3 and
    # misses, no die rolled. Arrow 2 loosed at 4 at hex 1 arrives at 7: the runner is still
    # there; the die (5) hits.
    result = rb.procedures["volley"].run(archer=archer, target=runner, dice=[5, 5, 5])
    trace = [(e.kind, e.name, e.value) for e in result.trace
             if e.kind in ("after", "event", "roll")]
    assert trace[:5] == [("after", "arrow", 3), ("event", "arrow", 3), ("after", "arrow", 7),
                         ("event", "arrow", 7), ("roll", "hit", 5)]
    assert result.combatants["target"].hp < 2


def test_several_arrows_are_in_flight_at_once():
    rb, archer, runner = volley(VOLLEY.replace("act archer after 4", "act archer after 1"))
    result = rb.procedures["volley"].run(archer=archer, target=runner, seed=1)
    scheduled = [e.value for e in result.trace if e.kind == "after"]
    happened = [e.value for e in result.trace if e.kind == "event"]
    # at 2 tenths, arrows loosed at 0, 1 and 2 are all still to arrive
    assert scheduled[:3] == [3, 4, 5] and happened[0] == 3


def test_the_log_shows_events_scheduled_and_happening():
    rb, archer, runner = volley()
    log = rb.fight([archer, runner], dice=[5, 5, 5, 5]).log()
    assert "event arrow scheduled at 3 tenths" in log
    assert "     3              event arrow happens" in log


CANCEL = VOLLEY.replace("""      add 1 to target.pos
""", """      add 1 to target.pos
      if target.pos == 2:
        cancel arrow
""")


def test_cancel_an_event_by_its_name():
    rb, archer, runner = volley(CANCEL)
    result = rb.procedures["volley"].run(archer=archer, target=runner, dice=[5] * 10)
    cancelled = kinds(result, "cancel")
    assert cancelled and cancelled[0][:2] == ("cancel", "arrow")
    assert "event arrow cancelled (1 pending)" in rb.fight([archer, runner],
                                                              dice=[5] * 10).log()


LABELS = """rulebook labels "Labels"
combatant fighter:
  name: name = "x"
  state pos: 0..20 = 0
  state seen: name = "nothing"
  state done: name = "nothing"

encounter walk_and_fight (a: fighter, b: fighter):
  clock tenths "tenths"
  act a at 0 as "Attack"
  act a at 3 as "Walk" on lane move
  act b at 1 as "Look"
  turn f:
    if f == b:
      set b.seen = if action(a) == none then "none" else action(a)
      if action(a, "move") == "Walk":
        set b.done = "walking"
      cancel a
    else:
      set a.done = if last_action(a) == none then "none" else last_action(a)
      add 1 to a.pos
  ends when now > 10
  at most 10 turns
"""


def test_actions_are_labelled_and_a_second_lane_runs_beside_the_first():
    rb = rulecraft.compile(LABELS, "labels.rules")
    a, b = rb.combatant(name="A"), rb.combatant(name="B")
    result = rb.procedures["walk_and_fight"].run(a=a, b=b)
    a, b = result.combatants["a"], result.combatants["b"]
    # A's attack completes at 0 (last_action "Attack"); B looks at 1: A has nothing under way
    # on its main lane, but walks on its lane; `cancel a` takes the walk away.
    assert b.seen == "none" and b.done == "walking"
    assert a.done == "Attack" and a.pos == 1
    assert ("cancel", "b", a) not in kinds(result, "cancel")
    assert [e.detail for e in result.trace if e.kind == "cancel"] == ["Walk on lane move"]


def test_a_lane_s_action_completing_is_a_turn_of_its_party():
    text = LABELS.replace("      cancel a\n", "")
    rb = rulecraft.compile(text, "labels.rules")
    result = rb.procedures["walk_and_fight"].run(a=rb.combatant(name="A"),
                                                 b=rb.combatant(name="B"))
    turns = [e.detail for e in result.trace if e.kind == "turn"]
    assert "at 3 tenths (Walk on lane move completes)" in turns
    assert result.combatants["a"].done == "Walk" and result.combatants["a"].pos == 2


# "a point inside an action (BT's half-way point of an attack)": an event scheduled as part of
# an action, cancelled with it.
HALF = """rulebook half "Half-way"
combatant fighter:
  name: name = "x"
  state marks: 0..20 = 0

encounter swing (a: fighter, b: fighter):
  clock counts "counts"
  act a at 0 as "Ready"
  act b at 5 as "Interrupt"
  turn f:
    if f == a and last_action(a) == "Ready":
      act a after 8 as "Attack"
      after 4 as half_way for a:
        add 1 to a.marks
    else if f == b:
      cancel a
  ends when now > 20
  at most 5 turns
"""


def test_an_event_inside_an_action_is_cancelled_with_it():
    rb = rulecraft.compile(HALF, "half.rules")
    proc = rb.procedures["swing"]
    ran = proc.run(a=rb.combatant(name="A"), b=rb.combatant(name="B"))
    assert ran.combatants["a"].marks == 1  # half-way at 4, before b's interruption at 5
    late = rulecraft.compile(HALF.replace("act b at 5", "act b at 3"), "half.rules")
    ran = late.procedures["swing"].run(a=late.combatant(name="A"), b=late.combatant(name="B"))
    assert ran.combatants["a"].marks == 0
    assert [e.detail for e in ran.trace if e.kind == "cancel"] == ["Attack, half_way"]


def test_events_and_cancel_in_a_procedure_played_alone_are_recorded_not_applied():
    rb, archer, runner = volley(VOLLEY + """
procedure give_up(f: fighter):
  cancel f
  let when = now
  outcome done
""")
    ran = rb.procedures["loose"].run(archer=archer, target=runner, flight=3)
    assert [(e.kind, str(e.detail)) for e in ran.trace if e.kind == "after"] == [
        ("after", "no clock: not applied")]
    ran = rb.procedures["give_up"].run(f=archer)
    assert [(e.kind, str(e.detail)) for e in ran.trace if e.kind == "cancel"] == [
        ("cancel", "no clock: not applied")]
    assert ran.values["when"] == 0


def loosed(text: str) -> str:
    """The volley with its arrow loosed by a called procedure (`loose`) instead of in the turn."""
    return text.replace("""      let aimed_at = target.pos
      after flight as arrow:
        if target.pos == aimed_at:
          roll hit = d6
          if hit >= 3:
            add -1 to target.hp
""", """      call shot = loose(archer, target, flight)
""")


def test_a_called_procedure_schedules_an_event_on_the_encounter_s_clock():
    text = loosed(VOLLEY)
    rb, archer, runner = volley(text)
    direct = rb.procedures["volley"].run(archer=archer, target=runner, dice=[5, 5, 5])
    assert [e.value for e in direct.trace if e.kind == "event"][:2] == [3, 7]


SMALL = VOLLEY.replace("state hp: 0..10 = 2", "state hp: 0..10 = 1").replace(
    "at most 40 turns", "at most 8 turns")


def test_exact_odds_of_a_fight_with_arrows_in_flight_merge_states_and_match_the_path_walk():
    rb, archer, runner = volley(SMALL)
    proc = rb.procedures["volley"]
    fight_odds.TALLY = {}
    try:
        by_states = proc.odds(archer=archer, target=runner)
        assert fight_odds.TALLY["states"] > 0  # played by states, not by paths
    finally:
        fight_odds.TALLY = None
    walked = proc.path_odds(archer=archer, target=runner)
    assert by_states == walked and sum(by_states.values()) == 1
    assert by_states["ended"] > 0


def test_exact_odds_with_events_scheduled_inside_a_call_walk_the_paths_exactly():
    text = loosed(SMALL)
    rb, archer, runner = volley(text)
    proc = rb.procedures["volley"]
    assert proc.odds(archer=archer, target=runner) == \
        rulecraft.compile(SMALL, "v.rules").procedures["volley"].odds(archer=archer,
                                                                      target=runner)


def test_a_fight_too_large_for_exact_odds_is_refused_with_samples_offered():
    rb, archer, runner = volley(VOLLEY.replace("speed: 1..20 = 10", "speed: 1..20 = 20"))
    with pytest.raises(rulecraft.RulecraftError, match="--samples"):
        rb.procedures["volley"].odds(archer=archer, target=runner,
                                     limits=rulecraft.Limits(odds_states=3))


@pytest.mark.parametrize("old, new, line, column, words", [
    ("cancel arrow", "cancel arow", 34, 9, "unknown event or party to cancel 'arow'; did you "
                                          "mean 'arrow'?"),
    ("after flight as arrow:\n        if", "after \"soon\" as arrow:\n        if", 25, 13,
     "an event comes after a number of tenths, not a name"),
    ("act target after f.speed as \"Walk\"", "act target after f.speed as 3", 35, 35,
     "an action is labelled by a name"),
    ("add -1 to target.hp\n      act", "outcome hit\n      act", 29, 13,
     "cannot end the procedure"),
])
def test_event_mistakes_are_errors_at_their_line_and_column(old, new, line, column, words):
    text = CANCEL.replace(old, new, 1)
    assert text != CANCEL
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile(text, "v.rules")
    err = info.value
    errors = getattr(err, "errors", [err])
    found = [e for e in errors if words in str(e)]
    assert found, str(err)
    assert (found[0].line, found[0].column) == (line, column), str(found[0])


def test_a_lane_is_named_in_quotes_when_read():
    text = LABELS.replace('action(a, "move")', "action(a, move)")
    with pytest.raises(rulecraft.RulecraftError, match="in quotes"):
        rulecraft.compile(text, "labels.rules")


def test_events_format_and_show_on_the_sheet_in_words():
    text = rulecraft.format_rules(CANCEL)
    assert "after flight as arrow:" in text and "cancel arrow" in text
    assert 'act target after f.speed as "Walk"' in text
    assert rulecraft.format_rules(text) == text  # formatted once, it stays so
    lanes = rulecraft.format_rules(LANES + HALF.split("\n", 4)[4])
    assert 'act a after 1 as "Walk" on lane move' in lanes and "after 4 as half_way for a:" in lanes
    rb = rulecraft.compile(CANCEL, "v.rules")
    sheet = rulecraft.sheet(rb, format="md")
    assert "Event Arrow: after Flight" in sheet and "Arrow is cancelled" in sheet
    assert "(the action: Walk)" in sheet


def test_an_event_s_steps_hold_nothing_of_the_run_that_scheduled_them():
    """A pending event is put back into other runs by exact odds: its function may read only
    what it is handed (no closure over the run that made it)."""
    from test_triggers import BLOCK, RIPOSTE

    for text in (VOLLEY, CANCEL, HALF, BLOCK, RIPOSTE):
        code = compile(rulecraft.compile(text, "t.rules").python_source, "t", "exec")
        made = [c for f in code.co_consts if hasattr(f, "co_consts")
                for c in f.co_consts if hasattr(c, "co_freevars")
                and c.co_name.startswith("_event_")]
        assert made and all(not c.co_freevars for c in made), text[:30]


def test_show_lists_the_events_and_the_cli_fight_logs_them(tmp_path):
    from click.testing import CliRunner

    from rulecraft.cli import cli

    rules = tmp_path / "volley.rules"
    rules.write_text(VOLLEY, encoding="utf-8")
    shown = CliRunner().invoke(cli, ["show", str(rules)])
    assert shown.exit_code == 0 and "after flight as arrow (line 25)" in shown.output
    for name in ("archer", "runner"):
        (tmp_path / f"{name}.toml").write_text(f'name = "{name}"\n', encoding="utf-8")
    fought = CliRunner().invoke(cli, ["fight", str(rules), str(tmp_path / "archer.toml"),
                                      str(tmp_path / "runner.toml"), "--seed", "3"])
    assert fought.exit_code == 0, fought.output
    assert "event arrow scheduled at 3 tenths" in fought.output
    assert "event arrow happens" in fought.output


LANES = """rulebook lanes "Lanes"
combatant fighter:
  name: name = "x"

procedure stamp(f: fighter):
  let at = now
  outcome stamped with at = at

encounter lanes (a: fighter, b: fighter):
  clock tenths "tenths"
  act a at 0 as "Attack"
  act b at 1 as "Look"
  let walked = 0
  turn f:
    if f == b:
      roll look = d2
      if look == 1 and action(a, "move") == none:
        act a after 1 as "Walk" on lane move
      if last_action(a) == "Feint":
        let walked = walked + 10
      act b after 2 as "Look"
    else if last_action(a) == "Walk":
      let walked = walked + 1
    else:
      call stamped = stamp(a)
      roll feint = d2
      act a after stamped.at - now + 2 as (if feint == 1 then "Feint" else "Attack")
  ends when now > 7
  at most 20 turns
"""


def test_exact_odds_keep_lanes_and_labels_apart_and_match_the_path_walk():
    rb = rulecraft.compile(LANES, "lanes.rules")
    proc = rb.procedures["lanes"]
    a, b = rb.combatant(name="A"), rb.combatant(name="B")
    fight_odds.TALLY = {}
    try:
        by_states = proc.odds(by="walked", a=a, b=b)
        assert fight_odds.TALLY["states"] > 0
    finally:
        fight_odds.TALLY = None
    assert by_states == proc.path_odds(by="walked", a=a, b=b)
    assert len(by_states) > 2 and sum(by_states.values()) == 1


def test_now_in_a_called_procedure_is_the_encounter_s_time():
    rb = rulecraft.compile(LANES, "lanes.rules")
    ran = rb.procedures["lanes"].run(a=rb.combatant(name="A"), b=rb.combatant(name="B"),
                                     dice=[2] * 10)
    stamps = [e.value["at"] for e in ran.trace if e.kind == "return"]
    assert stamps[:2] == [0, 2]


def test_exact_odds_keep_arrows_aimed_differently_apart():
    # The archer aims at the runner's hex or the one ahead (a d2): two arrows in flight that
    # differ only in where they were aimed are two states.
    text = SMALL.replace("""    if f == archer:
      let aimed_at = target.pos
""", """    if f == archer:
      roll lead = d2
      let aimed_at = target.pos + lead - 1
""")
    rb, archer, runner = volley(text)
    proc = rb.procedures["volley"]
    by_states = proc.odds(archer=archer, target=runner)
    assert by_states == proc.path_odds(archer=archer, target=runner)


ROUNDS = """rulebook rounds "Rounds"
combatant fighter:
  name: name = "x"
  state hp: 0..10 = 3

encounter melee (a: fighter, b: fighter):
  clock rounds "rounds"
  let lit = false
  each round:
    if round == 1:
      # "The fuse burns for two rounds."
      after 2 as fuse:
        add -2 to b.hp
    add -0 to a.hp
  ends when b.hp < 3
  at most 5 rounds
"""


def test_an_event_on_a_clock_of_rounds_happens_at_the_start_of_its_round():
    rb = rulecraft.compile(ROUNDS, "rounds.rules")
    ran = rb.procedures["melee"].run(a=rb.combatant(name="A"), b=rb.combatant(name="B"))
    assert ran.outcome.name == "ended" and ran.outcome["rounds"] == 3
    assert [(e.kind, e.value) for e in ran.trace if e.kind in ("after", "event")] == [
        ("after", 3), ("event", 3)]


def test_a_label_read_is_a_label_written():
    text = LABELS.replace('if last_action(a) == none then "none"', 'if last_action(a) == "Atack" then "none"')
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile(text, "labels.rules")
    err = info.value
    assert "no action is labelled 'Atack'" in str(err) and "did you mean 'Attack'?" in str(err)
    assert (err.line, err.column) == (20, 41)
