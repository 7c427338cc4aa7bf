"""Fighter files, many fights and `diff` against untrusted input (issue 21, items 7, 9, 10): a
TOML file is measured before tomllib reads it, `fight --runs` obeys `--limit` in every worker,
its workers die with it and keep none of the caller's pipes, and `diff` does bounded work.
Each test quotes the sentence of the issue it pins.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import tomllib
import tracemalloc
from pathlib import Path

import pytest
from resources import rulecraft

import rulecraft as rc
from rulecraft.runtime.errors import RulecraftError
from rulecraft.runtime.limits import Limits

PROJECT = Path(__file__).resolve().parent.parent
SWORDSMAN = str(PROJECT / "examples" / "ringing_steel" / "swordsman.toml")
SPEARMAN = str(PROJECT / "examples" / "ringing_steel" / "spearman.toml")
SWORDSMAN_JSON = str(PROJECT / "docs" / "examples" / "swordsman.json")
SPEARMAN_JSON = str(PROJECT / "docs" / "examples" / "spearman.json")

# A duel of little fighters: quick to play many times; DICE is what a blow rolls.
DUEL = """rulebook duel "Duel"
combatant fighter:
  name: name
  speed: 1..20
  state stamina: 0..30 = 10 clamped
encounter duel "A duel to the end" (a: fighter, b: fighter):
  clock tenths "tenths of a second"
  act a at 0
  act b at 0
  turn f:
    let foe = if f == a then b else a
    roll hit = DICE
    set foe.stamina = foe.stamina - (if hit > HALF then 6 else 3)
    act f after f.speed
  ends when a.stamina == 0 or b.stamina == 0
  at most 100 turns
"""


def duel_files(folder: Path, dice: str = "d6", half: int = 3) -> list[str]:
    """The duel's rule file and two fighter files, written in `folder`."""
    (folder / "duel.rules").write_text(DUEL.replace("DICE", dice).replace("HALF", str(half)),
                                       encoding="utf-8")
    (folder / "ann.toml").write_text('name = "Ann"\nspeed = 10\n', encoding="utf-8")
    (folder / "bob.toml").write_text('name = "Bob"\nspeed = 12\n', encoding="utf-8")
    return [str(folder / "duel.rules"), str(folder / "ann.toml"), str(folder / "bob.toml")]


def assert_refused(result, *words: str) -> None:
    """Exit 1, a message naming each of `words`, no traceback, and little memory taken."""
    assert result.returncode == 1, (result.returncode, result.output[-2000:])
    assert "Traceback" not in result.output and "internal error" not in result.output
    for word in words:
        assert word in result.stderr, (word, result.stderr[-2000:])
    assert result.peak_mb < 200, result.peak_mb


# ---- 7. TOML fighter files have the bounds of JSON input -------------------------------------

def test_a_fighter_file_of_nested_brackets_is_refused_not_a_crash(tmp_path):
    """"TOML fighter files have no depth guard (10 KB of nested brackets → exit 3 ...): the same
    bounds as JSON input."""
    nested = tmp_path / "nested.toml"
    nested.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    result = rulecraft(["fight", "ringing_steel", str(nested), SPEARMAN])
    assert_refused(result, "nested.toml", "nested more than 20 deep", "input_depth")


@pytest.mark.parametrize("text", [
    "a." * 134_000 + "b = 1\n",                        # one key of 134,001 parts
    "[" + "a." * 134_000 + "b]\n",                      # one table header as deep
    "x = {" + "a." * 134_000 + "b = 1}\n",              # inside an inline table
], ids=["dotted key", "table header", "inline table"])
def test_a_fighter_file_of_dotted_keys_is_refused_before_tomllib_reads_it(tmp_path, text):
    """"269 KB of dotted keys → 4 GB: the same bounds as JSON input" — tomllib's memory grows
    with the square of a dotted key's length, so the depth is measured before it reads."""
    dotted = tmp_path / "dotted.toml"
    dotted.write_text(text, encoding="utf-8")
    result = rulecraft(["fight", "ringing_steel", str(dotted), SPEARMAN])
    assert_refused(result, "dotted.toml", "nested more than 20 deep", "input_depth")


def test_a_fighter_file_of_many_tables_is_refused(tmp_path):
    """"... or many tables → 4 GB": every table, array and dotted key a file opens costs tomllib
    memory; a megabyte of headers 19 deep took 437 MB, within the depth limit."""
    tables = tmp_path / "tables.toml"
    tables.write_text("".join(f"[{i:x}" + ".a" * 18 + "]\n" for i in range(22_000)),
                      encoding="utf-8")
    result = rulecraft(["fight", "ringing_steel", str(tables), SPEARMAN])
    assert_refused(result, "tables.toml", "more than 50000 tables")


@pytest.mark.parametrize("party", ["dotted.toml", "deep.json"])
def test_a_combatant_file_given_to_run_is_bounded_the_same_way(tmp_path, party):
    """"Also `@file.json` inputs — check they are already bounded and share the check": a
    combatant file given to `run`, JSON or TOML, is refused by the same check."""
    (tmp_path / "dotted.toml").write_text("a." * 134_000 + "b = 1\n", encoding="utf-8")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    result = rulecraft(["run", "ringing_steel", "melee_attack", f"attacker=@{tmp_path / party}",
                        f"defender=@{SPEARMAN_JSON}"])
    assert_refused(result, party, "nested more than 20 deep", "input_depth")


def test_read_fighter_refuses_a_deep_file_with_a_rule_error(tmp_path):
    """"clear message naming the file, the limit, exit 1": from Python, a RulecraftError."""
    rb = rc.load("ringing_steel")
    nested = tmp_path / "nested.toml"
    nested.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(RulecraftError, match="nested.toml.*input_depth"):
        rc.read_fighter(rb, str(nested))
    with pytest.raises(RulecraftError, match="input_depth=N"):
        rc.read_fighter(rb, SWORDSMAN, limits=Limits(input_depth=1))
    assert rc.read_fighter(rb, SWORDSMAN, limits=Limits(input_depth=2))["strength"] == 12


@pytest.mark.parametrize("text", [
    "a = 1", "a.b = 1", "a.b = [1]", "[a]\nb = 1", "[[a]]\n[[a]]", "[a.b]\nc.d = [[1], [[2]]]",
    "x = {y.z = {w = [1, {v = 2}]}}", "[[a.b]]\nc = 1", 'a."b.c".d = 1', "a = [\n [1], # [[[\n]",
    'a = """ [[[ a.b.c """\nb = \'[{\'', "a = 1.5e3\nb = 1979-05-27T07:32:00.999Z",
    "[a]\n[a.b.c]\n[d]\ne.f.g = 1", "[[a]]\n[[a.b]]\n[a.b.c]",
])
def test_the_depth_measured_before_reading_is_the_depth_read(tmp_path, text):
    """"checked BEFORE tomllib parses ... and again on the parsed value": the check before
    reading refuses nothing the check after would let through, and together they refuse exactly
    what is nested too deep (a table under an array of tables is deeper than its header reads:
    the check after catches it)."""
    from rulecraft.arguments import read_values

    path = tmp_path / "f.toml"
    path.write_text(text + "\n", encoding="utf-8")

    def depth(value: object) -> int:
        children = value.values() if isinstance(value, dict) else value \
            if isinstance(value, list) else None
        return 0 if children is None else 1 + max((depth(c) for c in children), default=0)

    deepest = depth(tomllib.loads(text + "\n"))
    assert read_values(str(path), Limits(input_depth=deepest), toml=True) == tomllib.loads(
        text + "\n")
    if deepest > 1:
        with pytest.raises(ValueError, match=f"nested more than {deepest - 1} deep"):
            read_values(str(path), Limits(input_depth=deepest - 1), toml=True)


# ---- 9. fight --runs: limits, workers, memory, signals ---------------------------------------

FIGHT = ["fight", "ringing_steel", SWORDSMAN, SPEARMAN]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_fight_runs_obeys_a_lowered_limit(workers):
    """"`fight --runs` ignores `--limit` (lowered ...)": the limits reach every fight, in the
    workers too."""
    result = rulecraft([*FIGHT, "--runs", "600", "--workers", workers, "--seed", "1",
                        "--limit", "loop_passes=2"])
    assert_refused(result, "loop_passes")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_fight_runs_obeys_a_raised_limit(tmp_path, workers):
    """"`fight --runs` ignores `--limit` (... and raised)": a blow of 1001 dice needs
    dice_per_roll raised, in every worker."""
    files = duel_files(tmp_path, dice="1001d6", half=3503)
    raised = ["fight", *files, "--runs", "300", "--workers", workers, "--seed", "1", "--json"]
    result = rulecraft([*raised, "--limit", "dice_per_roll=1001"])
    assert result.returncode == 0, result.output[-2000:]
    assert json.loads(result.stdout)["runs"] == 300
    assert_refused(rulecraft(raised), "1001d6 rolls 1001 dice; the limit is 1000 per roll")


def test_fight_workers_are_capped_at_the_cores_and_it_says_so():
    """"`--workers` has no cap (48 workers on 2 cores: 1.6 GB)": capped at the cores, saying so
    when lowered."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    result = rulecraft([*FIGHT, "--runs", "3", "--workers", "48", "--seed", "1", "--json"])
    assert result.returncode == 0, result.output[-2000:]
    assert json.loads(result.stdout)["runs"] == 3
    assert f"--workers 48 lowered to {cores}" in result.stderr


def test_many_fights_keep_summaries_not_every_fight(tmp_path):
    """"every fight's tally is kept to the end (~1.4 KB a fight) ... summaries are accumulated,
    not stored": what a study holds does not grow with the fights it has played."""
    import gc

    from rulecraft.fight import CHUNK, study

    rb = rc.load(duel_files(tmp_path)[0])
    fighters = [rb.combatant(name="Ann", speed=10), rb.combatant(name="Bob", speed=12)]
    study(rb, fighters, 10, seed=1, workers=1)  # compiled and cached before measuring
    held: list[int] = []

    def measure(fights: int) -> None:  # after each chunk of fights
        gc.collect()
        held.append(tracemalloc.get_traced_memory()[0])

    tracemalloc.start()
    try:
        study(rb, fighters, 8 * CHUNK, seed=1, workers=1, progress=measure)
    finally:
        tracemalloc.stop()
    assert len(held) == 8 and held[-1] - held[0] < 50_000, held  # was ~150 KB more a chunk


def test_many_fights_give_the_same_figures_whatever_the_workers_and_chunks(tmp_path):
    """"results must stay the same for a seed whatever the number of workers": with fights in
    several chunks, summed as they come back."""
    from rulecraft.fight import study

    rb = rc.load(duel_files(tmp_path)[0])
    fighters = [rb.combatant(name="Ann", speed=10), rb.combatant(name="Bob", speed=13)]
    one = study(rb, fighters, 1001, seed=3, workers=1)
    two = study(rb, fighters, 1001, seed=3, workers=2)
    assert one == two and one.runs == 1001 and sum(one.outcomes.values()) == 1001


def _children(pid: int) -> set[int]:
    """The processes whose parent is `pid` (and not yet reaped), from /proc."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                fields = stat[stat.rindex(")") + 2:].split()
                if int(fields[1]) == pid and fields[0] != "Z":
                    found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    """Whether a process still runs (a zombie waiting to be reaped does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


@contextlib.contextmanager
def many_fights():
    """`rulecraft fight ... --runs 100000 --workers 2` with its output piped, once its two
    workers have started; it and everything it started are killed when the test ends."""
    # Ctrl-C as a terminal's foreground command has it, whatever this suite was started from
    # (a command started in the background of a script inherits Ctrl-C ignored, and keeps it).
    child = subprocess.Popen([sys.executable, "-c", "from rulecraft.cli import main; main()",
                              *FIGHT, "--runs", "100000", "--workers", "2", "--seed", "1"],
                             cwd=PROJECT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60  # a hang guard, not a timing
        while len(workers := _children(child.pid)) < 2 and time.monotonic() < deadline:
            assert child.poll() is None, child.stderr.read().decode()  # type: ignore[union-attr]
            time.sleep(0.05)
        assert len(workers) >= 2, "the workers did not start"
        time.sleep(0.5)  # at work on their first fights
        yield child, workers
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)  # the session it was started in
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        child.wait()
        for pipe in (child.stdout, child.stderr):
            pipe.close()  # type: ignore[union-attr]


def _read_to_end(pipe, seconds: float) -> bytes | None:
    """All a pipe gives until its end, or None if it has not ended within `seconds`."""
    read: list[bytes] = []
    reader = threading.Thread(target=lambda: read.append(pipe.read()), daemon=True)
    reader.start()
    reader.join(seconds)
    return read[0] if read else None


def _gone(pids: set[int], seconds: float) -> set[int]:
    """Those of `pids` still running after `seconds` (checked as they go)."""
    deadline = time.monotonic() + seconds
    while (left := {p for p in pids if _alive(p)}) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killing_fight_runs_leaves_no_worker_holding_the_callers_pipes():
    """"SIGTERM/SIGKILL leaves its workers orphaned, holding the caller's pipes (a caller
    waited 648 s) ... Workers die with their parent"."""
    with many_fights() as (child, workers):
        child.kill()
        assert _read_to_end(child.stdout, 15) is not None, "the caller's pipe stayed open"
        assert _read_to_end(child.stderr, 15) is not None, "the caller's pipe stayed open"
        assert not _gone(workers, 15), "a worker outlived its parent"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigterm_to_fight_runs_ends_its_workers():
    """"SIGTERM/SIGKILL leaves its workers orphaned": SIGTERM too."""
    with many_fights() as (child, workers):
        child.terminate()
        assert _read_to_end(child.stdout, 15) is not None, "the caller's pipe stayed open"
        assert not _gone(workers, 15), "a worker outlived its parent"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_ends_fight_runs_with_130_and_a_short_message():
    """"SIGINT exits 130": Ctrl-C (SIGINT to the whole process group, as a terminal sends it)
    ends the fights with a short message, the workers gone, no traceback."""
    with many_fights() as (child, workers):
        os.killpg(child.pid, signal.SIGINT)
        out = _read_to_end(child.stdout, 15)
        err = _read_to_end(child.stderr, 15)
        assert out is not None and err is not None, "the caller's pipe stayed open"
        assert child.wait(15) == 130, err
        assert b"Traceback" not in err and b"interrupted" in err and len(err) < 300, err
        assert not _gone(workers, 15), "a worker outlived its parent"


# ---- 10. diff is bounded ----------------------------------------------------------------------

def _procedure(lines: list[str]) -> str:
    return ('rulebook d "D"\nprocedure p (n: 1..10):\n  outcomes:\n    done\n'
            + "".join(f"  {line}\n" for line in lines) + "  outcome done\n")


def test_diff_of_many_repeated_step_lines_is_bounded(tmp_path):
    """"`diff` of two 48 KB files with repeated step lines takes 273 s (96 KB: > 300 s): linear
    or bounded." (Under the CPU cap of tests/resources.py, an unbounded diff fails.)"""
    old, new = tmp_path / "old.rules", tmp_path / "new.rules"
    old.write_text(_procedure(["let x = n"] * 4000), encoding="utf-8")
    new.write_text(_procedure((["let x = n"] * 9 + ["let y = n"]) * 400), encoding="utf-8")
    assert old.stat().st_size > 48_000
    result = rulecraft(["diff", str(old), str(new), "--json"])
    assert result.returncode == 0, result.output[-2000:]
    assert result.peak_mb < 200, result.peak_mb
    (change,) = json.loads(result.stdout)["changes"]
    assert (change["kind"], change["name"], change["what"]) == ("procedure", "p", "changed")
    # Too many alike to match line by line: what differs is listed whole, every line of it.
    assert change["details"][0].startswith("steps that differ, listed whole")
    # (the nine steps alike at the start are set aside first)
    assert sum(d.startswith("- ") for d in change["details"]) == 3991
    assert sum(d.startswith("+ ") for d in change["details"]) == 3991


def test_diff_still_matches_a_small_change_line_by_line_in_a_long_procedure(tmp_path):
    """"make it linear or bounded": a long procedure with one step changed is still told line
    by line (what is alike at both ends is set aside first)."""
    from rulecraft.diff import diff

    lines = ["let x = n"] * 3000
    changed = lines[:1500] + ["let y = n"] + lines[1500:]
    (change,) = diff(rc.compile(_procedure(lines), "a.rules"),
                     rc.compile(_procedure(changed), "b.rules"))
    assert change.details == ("+ let y = n",)


def test_diff_spends_one_budget_over_all_its_procedures(monkeypatch):
    """"make it linear or bounded": the bound is on the whole diff, not on each procedure (many
    procedures each just within a bound of their own would multiply it)."""
    import rulecraft.diff as diff_module

    monkeypatch.setattr(diff_module, "MATCH_WORK", 25_000)  # two searches of 100 × 100 lines
    procedures = "".join(f"procedure p{i} (n: 1..10):\n  outcomes:\n    done\n  let w = {i}\n"
                         + "  let x = n\n" * 100 + f"  let z = {i}\n  outcome done\n"
                         for i in range(6))
    old = rc.compile('rulebook d "D"\n' + procedures, "a.rules")
    new = rc.compile('rulebook d "D"\n' + procedures.replace("let w =", "let v =")
                     .replace("let z =", "let y ="), "b.rules")
    changes = diff_module.diff(old, new)
    whole = [c.name for c in changes if c.details[0].startswith("steps that differ")]
    assert len(changes) == 6 and whole == ["p2", "p3", "p4", "p5"], changes


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals to itself")
def test_ctrl_c_while_workers_start_is_held_back_not_lost():
    """Workers start with Ctrl-C held back (a worker interrupted before it ignores Ctrl-C would
    print a traceback); one pressed meanwhile interrupts as soon as they have started. It was
    ignored, and the fights went on. Where Ctrl-C is ignored already (a command started in the
    background), it stays ignored."""
    from rulecraft.workers import _no_interrupts

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        reached = []
        with pytest.raises(KeyboardInterrupt):
            with _no_interrupts():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)  # the handler runs here: held back, nothing raised yet
                reached.append("end of the block")
        assert reached == ["end of the block"]
        with _no_interrupts():  # none pressed: nothing raised
            pass
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with _no_interrupts():  # ignored before: ignored still
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
