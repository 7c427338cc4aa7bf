"""Issue 19, "Fights per second": the engine's own per-step cost down toward the hand loop's,
"keeping every seeded result identical". Work done once at compile time, not at each step, and
cheaper runtime paths that give the very answers the slower ones gave."""

from __future__ import annotations

import decimal
import sys
from decimal import Decimal
from pathlib import Path

import pytest

import rulecraft
from rulecraft.runtime import values
from rulecraft.runtime.errors import RulecraftError


def _quantized(x: Decimal, mode: str) -> int:
    """The answer of the general path, `_quantize` to a whole number."""
    return values._quantize(x, 0, mode, "round")


@pytest.mark.parametrize("text", ["0", "-0", "0.5", "-0.5", "1.5", "-1.5", "2.5", "12.75",
                                  "-12.25", "7.0", "1E+3", "123456789012345678901234567890.5",
                                  "-9.999999999999999999999999999"])
def test_rounding_to_a_whole_number_is_the_general_paths_answer(text: str) -> None:
    x = Decimal(text)
    for fn, mode in [(values.floor, decimal.ROUND_FLOOR), (values.ceil, decimal.ROUND_CEILING),
                     (values.round_half_up, decimal.ROUND_HALF_UP),
                     (values.round_half_down, decimal.ROUND_HALF_DOWN)]:
        got = fn(x)
        assert type(got) is int and got == _quantized(x, mode), (fn.__name__, text)


def test_rounding_what_cannot_be_rounded_is_still_refused() -> None:
    with pytest.raises(values.NoAnswer):
        values.floor(Decimal("1E+1200"))
    with pytest.raises((values.NoAnswer, decimal.InvalidOperation, ValueError, OverflowError)):
        values.floor(Decimal("Infinity"))


@pytest.fixture(scope="module")
def python() -> str:
    return rulecraft.load("ringing_steel").python_source


def test_a_literal_argument_is_checked_when_compiling(python: str) -> None:
    """`melee_attack(…, false, …)`: the callee takes `false` as it is, so no `_check` of it
    runs on every blow; a name's value is still checked (inline first)."""
    duel = python[python.index("def p_duel("):]
    call = next(line for line in duel.splitlines() if "'melee_attack', p_melee_attack" in line)
    assert "_check(PARAM_diving_L" not in call and "_check(PARAM_blow_bonus_L" not in call
    assert "type(v_attack_bonus) is int" in call and "_check(PARAM_attack_bonus_L" in call
    assert "type(v_simultaneous) is bool" in call


RANGED = '''rulebook ranged "Ranged"
combatant fighter:
  skill: 0..10
procedure aim "Aim" (f: fighter, bonus: 0..3):
  outcome aimed with (bonus = bonus)
procedure twice "Twice" (f: fighter):
  call a = aim(f, 7)
  outcome done
'''


def test_a_literal_out_of_range_is_refused_as_before() -> None:
    """A literal the callee refuses is left to its run-time check (the same error, the same
    place) — the compiler's own range check may already refuse it; either way it is refused."""
    try:
        rb = rulecraft.compile(RANGED)
    except RulecraftError:
        return  # refused when compiling: as strict as before
    with pytest.raises(RulecraftError, match="bonus"):
        rb.procedures["twice"].run(f=rb.combatant(skill=3), seed=1)


def test_a_fights_log_is_its_trace_as_the_log_shows_it() -> None:
    """"events built only when read": the log, made from the run's steps (no trace entry made
    for it), shows the encounter's own steps as the full trace has them, in order (a branch
    taken and a call's return aside), and from called procedures only their effects on the
    fight (delays, changes, conditions): read against `Result.trace`, entry by entry."""
    from rulecraft.runtime.fights import _SHOWN_FROM_CALLED

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_fights import SPEARMAN, SWORDSMAN

    rb = rulecraft.load("ringing_steel")
    a, b = rb.combatant(**SWORDSMAN), rb.combatant(**SPEARMAN)
    for seed, policy in [(1, "competent"), (2, "competent"), (3, None), (4, None)]:
        fight = rb.fight([a, b], seed=seed, policy=policy) if policy else \
            rb.fight([a, b], seed=seed)
        shown = [(e["kind"], e["name"], e["line"]) for e in fight.events]
        own = [(e.kind, e.name, e.line) for e in fight.result.trace
               if e.depth == 0 and e.kind not in ("branch", "return")]
        rest, found = [], 0
        for event in shown:
            if found < len(own) and event == own[found]:
                found += 1
            else:
                rest.append(event)
        assert found == len(own), (seed, own[found])
        assert rest and {kind for kind, _, _ in rest} <= _SHOWN_FROM_CALLED, seed
        assert any(e["kind"] == "call" and e["dice"] for e in fight.events)


def test_a_fights_log_cut_short_ends_as_the_whole_fights_log_ends() -> None:
    """"the trace keeps its newest entries ... and says how many it dropped" (issue 21), and a
    fight's log is read from the steps kept: it opens with that note, and from its first turn
    on (when the time and whose turn it is are known again) it is the whole fight's log's
    end, event for event (the party a label names before the cut is not known)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_fights import SPEARMAN, SWORDSMAN

    rb = rulecraft.load("ringing_steel")
    a, b = rb.combatant(**SWORDSMAN), rb.combatant(**SPEARMAN)
    depths = set()
    for seed in (0, 1):  # cut inside a blow, and between two
        whole = rb.fight([a, b], seed=seed, policy="competent").events
        cut = rb.fight([a, b], seed=seed, policy="competent",
                       limits=rulecraft.Limits(trace_entries=400))
        note, *events = cut.events
        assert note["kind"] == "dropped" and note["value"] == cut.result.dropped[0] > 0
        depths.add(cut.result.dropped[1])
        tail = events[next(i for i, e in enumerate(events) if e["kind"] == "turn"):]
        assert [{k: v for k, v in e.items() if k != "party"} for e in tail] == \
            [{k: v for k, v in e.items() if k != "party"} for e in whole[-len(tail):]]
    assert depths == {0, 1}


def test_a_calls_dice_are_named_by_the_dice_rolled() -> None:
    """"a fight's log: each call with its dice and outcome" (issue 19's summaries, `fight
    --json`): the dice of `roll attack_roll = d20` are `d20`, not the first letter of the
    trace's "d20: 5" (found this session: every die read `d`)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_fights import SPEARMAN, SWORDSMAN

    rb = rulecraft.load("ringing_steel")
    a, b = rb.combatant(**SWORDSMAN), rb.combatant(**SPEARMAN)
    fight = rb.fight([a, b], seed=1)
    blow = next(e for e in fight.events if e["kind"] == "call" and e["procedure"] == "melee_attack")
    rolled = {d["name"]: d["dice"] for d in blow["dice"]}
    assert rolled["attack_roll"] == "d20"  # "roll attack_roll = d20"
    assert rolled.get("location_roll", "d10") == "d10"  # "roll location_roll = d10"
    fight.result.trace  # read whole: the log is made from trace entries, and says the same
    from rulecraft.runtime.fights import _events

    again = next(e for e in _events(fight.result) if e["kind"] == "call")
    assert {d["name"]: d["dice"] for d in again["dice"]} == rolled


def test_a_value_known_only_at_run_time_is_tested_inline_first(python: str) -> None:
    """A name whose type is known only when the rule runs (`any`) passes an inline test when
    it is a whole number; only any other value goes to `_cast`, which says what was wanted."""
    assert "(v_skill if type(v_skill) is int else _cast(v_skill, 'num', SPAN_" in python


def test_a_studys_state_figures_are_the_same_by_the_quick_path() -> None:
    """A fighter's state as a study averages it: numbers as they are, each injury counted;
    the quick path for numbers and words gives what the general one gave."""
    from rulecraft.fight import _state_figures

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_fights import SPEARMAN, SWORDSMAN

    rb = rulecraft.load("ringing_steel")
    seen = []
    fighters = [f for seed in range(4) for f in rb.fight(
        [rb.combatant(**SWORDSMAN), rb.combatant(**SPEARMAN)], seed=seed,
        policy="competent").fighters]
    for fighter in fighters:
        general = []
        for f in fighter.model.fields:
            if f.role != "state":
                continue
            value = fighter[f.name]
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                general.append((f.name, value))
            if isinstance(value, dict):
                general += [(f"{f.name}: {i}", 1) for v in value.values() for i in v]
            elif isinstance(value, (list, tuple)):
                general += [(f"{f.name}: {i}", 1) for i in value]
        assert _state_figures(fighter) == general
        seen += general
    assert any(name.startswith("injuries: ") for name, _ in seen)


def test_a_run_pauses_the_cycle_collector_and_hands_it_back() -> None:
    """A run (`procedure.run`, as the duel benchmark's first row plays it) keeps the cycle
    collector off the objects there before it, as a fight does; after it the collector is as
    it was, and a program that froze objects itself keeps them frozen."""
    import gc

    from rulecraft.runtime import collector

    seen: list[int] = []
    real = collector.gc.freeze

    def freeze() -> None:
        seen.append(1)
        real()

    rb = rulecraft.load("ringing_steel")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_fights import SPEARMAN, SWORDSMAN

    a, b = rb.combatant(**SWORDSMAN), rb.combatant(**SPEARMAN)
    collector.gc.freeze = freeze  # type: ignore[assignment]
    try:
        first = rb.procedures["duel"].run(first=a, second=b, seed=3)
    finally:
        collector.gc.freeze = real  # type: ignore[assignment]
    assert seen == [1] and gc.isenabled() and gc.get_freeze_count() == 0
    gc.freeze()
    try:
        again = rb.procedures["duel"].run(first=a, second=b, seed=3)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert again.outcome == first.outcome and len(again.trace) == len(first.trace)


def test_a_value_as_json_is_the_same_by_the_quick_path() -> None:
    """`fight --json` writes every value of a fight's log (`jsonable`): plain text, numbers,
    lists and maps go by a quick path, with the answers of the general one — a number as
    `to_public` gives it (whole, or refused past the digits a result may have), an outcome
    and a hex inside a list or map written as on their own."""
    from rulecraft.runtime.encounters import About
    from rulecraft.runtime.errors import NoAnswer
    from rulecraft.runtime.results import Outcome, jsonable
    from rulecraft.runtime.space import Hex

    made = jsonable({"a": (Decimal("1.5"), Decimal("2")), 3: [True, None, "x", 0.25],
                     "o": [Outcome("hit", {"d": Decimal("2")})], "at": {"h": Hex(2, -1)}})
    assert made == {"a": [1.5, 2], "3": [True, None, "x", 0.25],
                    "o": [{"name": "hit", "values": {"d": 2}}], "at": {"h": [2, -1]}}
    assert type(made["a"][1]) is int
    assert jsonable([About("now at 14", None)]) == ["now at 14"]  # a detail naming its party
    for too_long in (10 ** 1001, [10 ** 1001], {"k": (10 ** 1001,)}):
        with pytest.raises(NoAnswer):
            jsonable(too_long)
