"""Issue 21, items 3-6: every run is bounded as a whole — one budget of work per command that
loops, calls, aggregates and reference cells draw from; a trace and the lists a run grows that
stay bounded; numbers whose digits are bounded however they are computed.

Each attack is run as a user would (the `rulecraft` command in a child process, capped so a
regression fails instead of taking the machine): the refusal names its limit, exits 1, and the
child's peak memory stays under 200 MB. Seconds are reported by benchmarks/bench_refusals.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import rulecraft
from rulecraft.runtime.work import Work, budget, current

from resources import rulecraft as command

MB = 200  # peak memory a refusal may take


def written(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def refused(result: object, limit: str) -> None:
    assert result.returncode == 1, result.output  # type: ignore[attr-defined]
    assert f"limit {limit}" in result.output, result.output  # type: ignore[attr-defined]
    assert "Traceback" not in result.output  # type: ignore[attr-defined]
    assert result.peak_mb < MB, result.peak_mb  # type: ignore[attr-defined]


# ---- 3. "A run's memory is unbounded." --------------------------------------------------------

GROWING_LETS = """rulebook t "T"

procedure p(n: 1..100):
  let xs = []
  for each i in 1..5000:
    let xs = xs + [i]
  let total = 0
  repeat until total < 0, at most 100000 times:
    let ys = xs + []
    let total = total + 1
  at the cap:
    outcome capped with total = total
  outcome done with total = total
"""


def test_a_loop_whose_lets_keep_big_lists_is_refused_within_memory(tmp_path: Path) -> None:
    """"The trace keeps every value each `let` makes (a 9-line loop: 4 GB in 17 s, exit 3)":
    every list a step makes is work, and the trace keeps only its newest entries."""
    refused(command(["run", written(tmp_path, "lets.rules", GROWING_LETS), "p", "n=1",
                     "--trace"]), "work")


def test_a_long_trace_keeps_its_newest_entries_and_says_how_many_it_dropped() -> None:
    rb = rulecraft.compile(GROWING_LETS.replace("100000 times", "300 times")
                           .replace("5000", "20"), "lets.rules")
    limits = rulecraft.Limits(trace_entries=500)
    result = rb.procedures["p"].run(n=1, limits=limits)
    first = result.trace[0]
    assert first.kind == "dropped" and first.value == result.dropped[0] > 0
    assert "not kept: limit trace_entries" in str(first)
    assert result.trace[-1].kind == "outcome" and result.outcome.name == "capped"
    assert result["total"] == 300  # the run itself is whole
    kept = sum(1 + (len(e.value) if isinstance(e.value, tuple) else 0)
               for e in result.trace[1:])
    assert kept <= 500 + 64 * 25  # weighed: at most the limit and the entries since


def test_a_trace_cut_inside_a_call_keeps_the_depths_of_what_it_kept() -> None:
    rb = rulecraft.compile(CALLED_LOOP, "called.rules")
    result = rb.procedures["p"].run(n=1, limits=rulecraft.Limits(trace_entries=100))
    assert result.dropped[0] > 0 and result.dropped[1] == 1  # cut while inside q
    inner = [e for e in result.trace if e.kind == "let" and e.name == "k"]
    assert inner and all(e.depth == 1 for e in inner)
    assert result.trace[-1].depth == 0


CALLED_LOOP = """rulebook t "T"

procedure q(m: 1..9):
  let k = 0
  repeat until k > 200, at most 300 times:
    let k = k + m
  outcome ok with k = k

procedure p(n: 1..9):
  call r = q(n)
  outcome done with k = r.k
"""

LIST_STATE = """rulebook t "T"

combatant c:
  strength: 1..20
  state marks: list integer = []

procedure p(who: c):
  repeat until false, at most 100000 times:
    add 1 to who.marks
  at the cap:
    outcome full with n = len(who.marks)
  outcome done with n = 0
"""


def test_a_list_state_grown_by_add_keeps_to_list_items(tmp_path: Path) -> None:
    """"a list state grown with `add` ignores `list_items` (12,001 items, quadratic memory,
    4 GB in 20 s)"."""
    path = written(tmp_path, "marks.rules", LIST_STATE)
    result = command(["run", path, "p", "who.strength=3", "--limit", "list_items=2000"])
    refused(result, "list_items")
    assert "marks.rules:9:5" in result.output
    refused(command(["run", path, "p", "who.strength=3"]), "work")  # each add copies it


def test_a_list_state_within_list_items_grows_as_written() -> None:
    rb = rulecraft.compile(LIST_STATE.replace("100000", "50"), "marks.rules")
    result = rb.procedures["p"].run(who=rb.combatant(strength=3))
    assert result.outcome.name == "full" and result.outcome["n"] == 50


MAP_STATE = """rulebook t "T"

combatant c:
  strength: 1..20
  state seen: map integer -> integer

procedure p(who: c):
  for each i in 1..10000:
    set who.seen[i] = 1
  outcome done with n = len(who.seen)
"""


def test_a_map_state_keeps_to_list_items_and_each_copy_is_work() -> None:
    rb = rulecraft.compile(MAP_STATE, "seen.rules")
    with pytest.raises(rulecraft.RangeError, match="more than 100 entries.*list_items"):
        rb.procedures["p"].run(who=rb.combatant(strength=3),
                               limits=rulecraft.Limits(list_items=100))
    with pytest.raises(rulecraft.RangeError, match="limit work"):  # each change copies it
        rb.procedures["p"].run(who=rb.combatant(strength=3))


# ---- 4. "Calls are not counted." -----------------------------------------------------------

def doubling_calls(levels: int) -> str:
    lines = ['rulebook t "T"', "", "procedure p0(k: 1..9):", "  outcome ok with k = k", ""]
    for i in range(1, levels + 1):
        lines += [f"procedure p{i}(k: 1..9):", f"  call a = p{i - 1}(k)",
                  f"  call b = p{i - 1}(k)", "  outcome ok with k = k", ""]
    return "\n".join(lines)


def test_procedures_calling_each_other_twice_over_are_refused(tmp_path: Path) -> None:
    """"121 lines whose procedures call each other twice over reach 2^30 calls (4 GB in
    59 s). Count procedure calls against a run budget, as formula calls already are.\""""
    refused(command(["run", written(tmp_path, "calls.rules", doubling_calls(30)), "p30",
                     "k=3"]), "work")


def test_a_call_costs_the_steps_of_its_procedure() -> None:
    rb = rulecraft.compile(doubling_calls(3), "calls.rules")
    with budget(rulecraft.DEFAULT_LIMITS) as work:
        rb.procedures["p3"].run(k=1)
    # 14 calls: the 8 of p0 (one step: 3 x (1 + 5)), the 6 of p1, p2 (three: 3 x (3 + 5))
    assert work.spent == 8 * 18 + 6 * 24
    assert "cost=24" in rb.python_source


# ---- 5. "Budgets multiply." ------------------------------------------------------------------

NESTED = """rulebook t "T"

formula heavy(n: 1..1000000) = sum(i for i in 1..n)

procedure p(n: 1..1000000):
  let total = 0
  repeat until total < 0, at most 100000 times:
    let total = total + heavy(n)
  at the cap:
    outcome capped with total = total
  outcome done with total = total
"""


def test_aggregates_inside_a_loop_share_the_commands_budget(tmp_path: Path) -> None:
    """"Per-evaluation and per-run limits multiply into ~16 hours of CPU for `run` and for
    `odds` at default limits": one budget of work per command."""
    path = written(tmp_path, "nested.rules", NESTED)
    refused(command(["run", path, "p", "n=1000000"]), "work")
    refused(command(["odds", path, "p", "n=1000000"]), "work")


def test_the_budget_is_set_with_limit(tmp_path: Path) -> None:
    path = written(tmp_path, "nested.rules", NESTED.replace("100000 times", "10 times"))
    refused(command(["run", path, "p", "n=100000", "--limit", "work=500000"]), "work")
    raised = command(["run", path, "p", "n=100000", "--limit", "work=2000000"])
    assert raised.returncode == 0 and "capped" in raised.stdout, raised.output


GRID = """rulebook t "T"

reference grid "A big grid":
  for each a in 1..100
  rows b in 1..100
  columns c in 1..100
  cell a + b + c
"""


def test_a_reference_grid_of_trivial_cells_is_refused_before_it_is_worked_out(
        tmp_path: Path) -> None:
    """"a `reference` grid of trivial cells takes 72 s, 2.3 GB and writes a 203 MB sheet\""""
    result = command(["sheet", written(tmp_path, "grid.rules", GRID), "-o",
                      str(tmp_path / "grid.html")])
    refused(result, "work")
    assert not (tmp_path / "grid.html").exists()


def test_every_reference_and_template_of_a_sheet_draws_from_one_budget() -> None:
    small = GRID.replace("1..100\n  rows", "1..4\n  rows").replace("in 1..100\n  col",
                                                                     "in 1..40\n  col")
    text = small + "\n" + small.split("\n", 2)[2].replace("grid", "grid2")
    rb = rulecraft.compile(text, "grids.rules")
    limits = rulecraft.Limits(work=4 * 40 * 100 * 50 + 1000)  # one grid's cells and axes
    with budget(limits):  # as `rulecraft.sheet` opens one
        rb.references["grid"].grids(limits)
        with pytest.raises(rulecraft.RulecraftError, match="limit work"):
            rb.references["grid2"].grids(limits)
    with pytest.raises(rulecraft.RulecraftError, match="limit work"):  # printing is work too
        rulecraft.sheet(rb, limits=rulecraft.Limits(work=2 * 4 * 40 * 100 * 50 + 1000))


def test_odds_walking_many_paths_draw_from_one_budget() -> None:
    rb = rulecraft.compile(NESTED.replace("at most 100000", "at most 3"), "nested.rules")
    low = rulecraft.Limits(work=200)
    with pytest.raises(rulecraft.RangeError, match="limit work"):
        rb.procedures["p"].path_odds(n=100, limits=low)
    assert rb.procedures["p"].path_odds(n=100) == {"capped": 1}
    with pytest.raises(rulecraft.RangeError, match="limit work"):
        rb.procedures["p"].odds(n=100, limits=low)


def test_a_budget_opened_by_a_command_is_shared_and_a_run_alone_has_its_own() -> None:
    limits = rulecraft.Limits(work=1000)
    with budget(limits) as outer:
        with budget(rulecraft.DEFAULT_LIMITS) as inner:
            assert inner is outer
        with budget(limits, own=True) as own:
            assert own is not outer
        assert current(limits) is outer
    fresh = current(limits)
    assert isinstance(fresh, Work) and fresh.left == 1000


# ---- 6. "Numbers have no size limit." --------------------------------------------------------

SQUARING = """rulebook t "T"

procedure p(x: 2..9):
  let y = x
  repeat until y < 0, at most 40 times:
    let y = y * y
  outcome done with y = y
"""


def test_squaring_in_a_loop_is_refused_by_the_digits_of_the_product(tmp_path: Path) -> None:
    """"Squaring in a loop: 28 s at 25 passes, over 120 s at 28. Bound the digits of every
    computed integer (as `number_digits` bounds written ones).\""""
    result = command(["run", written(tmp_path, "square.rules", SQUARING), "p", "x=3"])
    refused(result, "number_digits")
    assert "square.rules:6:13" in result.output


@pytest.mark.parametrize("step", ["let y = y + y", "let y = y - (0 - y)", "let y = 2 * y"])
def test_every_way_of_growing_a_whole_number_is_bounded(step: str) -> None:
    rb = rulecraft.compile(SQUARING.replace("let y = y * y", step)
                           .replace("at most 40", "at most 1000"), "grow.rules")
    with pytest.raises(rulecraft.RangeError, match="more than 60 digits.*number_digits"):
        rb.procedures["p"].run(x=3)


def test_formulas_squaring_one_another_are_bounded() -> None:
    lines = ['rulebook t "T"', "", "formula f0(x: integer) = x * x"]
    lines += [f"formula f{i}(x: integer) = f{i - 1}(x * x)" for i in range(1, 30)]
    rb = rulecraft.compile("\n".join(lines) + "\n", "squares.rules")
    with pytest.raises(rulecraft.RangeError, match="number_digits"):
        rb.formulas["f29"](x=3)
    assert rb.formulas["f2"](x=3) == 3 ** 8


def test_numbers_of_up_to_the_limit_are_worked_out_exactly() -> None:
    rb = rulecraft.compile(SQUARING.replace("until y < 0", "until y > 1000000000000000000000000000000"),
                           "square.rules")
    assert rb.procedures["p"].run(x=3)["y"] == 3 ** 64


def test_each_fight_of_a_study_has_a_budget_of_its_own() -> None:
    """`fight --runs N`: N is the user's to choose, so each fight gets the budget of one."""
    from rulecraft.fight import read_fighter, study

    rb = rulecraft.load("ringing_steel")
    examples = Path(__file__).resolve().parent.parent / "examples" / "ringing_steel"
    pair = [read_fighter(rb, str(examples / f"{name}.toml")) for name in ("swordsman", "spearman")]
    one = rulecraft.Limits(work=50_000)  # a duel takes 2,000-10,000 without a policy
    with budget(one):  # as the command opens one: the fights still have their own
        assert study(rb, pair, 40, seed=1, workers=1, limits=one).runs == 40
    with pytest.raises(rulecraft.RangeError, match="limit work"):
        study(rb, pair, 2, seed=1, workers=1, limits=rulecraft.Limits(work=500))


def test_the_untrusted_files_page_lists_every_limit_with_its_default() -> None:
    """docs/untrusted.md: "every limit and its default" — read from `Limits`, so a limit added
    or changed without the page fails here."""
    import re

    page = (Path(__file__).resolve().parent.parent / "docs" / "untrusted.md").read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| ([\d,]+) \|", page, re.M))
    assert {name: int(rows[name].replace(",", "")) if name in rows else None
            for name in rulecraft.Limits.names()} == attrs_defaults()


def attrs_defaults() -> dict[str, int]:
    import attrs

    return {a.name: a.default for a in attrs.fields(rulecraft.Limits)}


@pytest.mark.parametrize(("dice", "limit"), [("1001d6", "dice_per_roll"),
                                             ("1d20000", "sides_per_die")])
def test_a_roll_past_its_limits_names_the_limit(dice: str, limit: str) -> None:
    with pytest.raises(rulecraft.RulecraftError, match=f"limit {limit}; raise it"):
        rulecraft.roll(dice)


def test_a_large_rule_file_compiles_in_a_fraction_of_the_memory(tmp_path: Path) -> None:
    """A rule file's Python is compiled in pieces: Python's compiler holds about a hundred
    times a module's text, so 120 KB of formulas took 280 MB compiled whole (a 990 KB file
    over 1 GB); in pieces, under 200 MB however large the file."""
    lines = ['rulebook big "Big"', ""]
    lines += [f"formula f{i}(x: 1..9) = x + {i}" for i in range(3600)]
    path = written(tmp_path, "big.rules", "\n".join(lines) + "\n")
    result = command(["check", path], env={"RULECRAFT_CACHE": "off"})
    assert result.returncode == 0, result.output
    assert result.peak_mb < 150, result.peak_mb
    rb = rulecraft.load(path)
    assert rb.formulas["f3599"](x=2) == 3601 and rb.formulas["f0"](x=2) == 2
    assert rb.python_source.count("\ndef ") >= 3600  # one module still, shown whole


def rolling_calls(levels: int) -> str:
    lines = ['rulebook t "T"', "", "procedure p0():", "  roll r = d2", "  outcome done with v = r",
             ""]
    for i in range(1, levels + 1):
        lines += [f"procedure p{i}():", f"  call a = p{i - 1}()", f"  call b = p{i - 1}()",
                  "  outcome done with v = a.v + b.v", ""]
    return "\n".join(lines)


def test_odds_of_calls_twice_over_whose_values_go_unread_are_bounded(tmp_path: Path) -> None:
    """Found by the fuzzer of whole fights: odds by outcome play one path of each call whose
    value nothing reads, and calls nested twice over made that 2^depth paths, uncounted."""
    refused(command(["odds", written(tmp_path, "calls.rules", rolling_calls(30)), "p30"]),
            "work")
    rb = rulecraft.compile(rolling_calls(4), "calls.rules")
    assert rb.procedures["p4"].odds() == {"done": 1}
