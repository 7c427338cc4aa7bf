"""A rule file is untrusted input — no escape, no bomb, no crash, no lost file: the command line
and the façade's side of it. Each test quotes the sentence of the hardening issue it pins.

`fmt --write` replaces files safely and never rewrites a file with errors; combatant files and
values typed on the command line are read within `Limits`; `--limit NAME=N` sets a limit on
every command; every failure is exit 1 with a message (2 for a misused command), never a
traceback; and a seeded run prints the same bytes in every process.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft import cli as cli_module
from rulecraft.cli import cli

PROJECT = Path(__file__).resolve().parent.parent
SWORDSMAN = PROJECT / "docs" / "examples" / "swordsman.json"
SPEARMAN = PROJECT / "docs" / "examples" / "spearman.json"
PARTIES = [f"attacker=@{SWORDSMAN}", f"defender=@{SPEARMAN}"]
SCRIPT = Path(sys.executable).with_name("rulecraft")
UNTIDY = 'rulebook d "D"\nformula f(a: 1..10)    =   a\n'
TIDY = 'rulebook d "D"\n\nformula f(a: 1..10) = a\n'


def invoke(*args: str):
    """Run the click command in-process; a Python exception escaping a command fails the test."""
    result = CliRunner().invoke(cli, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def script(*args: str, env: dict[str, str] | None = None, memory: int | None = None,
           cwd: Path = PROJECT) -> subprocess.CompletedProcess[bytes]:
    """Run the installed console script; `memory` caps its address space (a regression that
    reads a device whole then fails fast instead of taking the machine with it)."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [str(SCRIPT), *args]
    if memory is not None:
        command = [sys.executable, "-c",
                   "import resource, sys; from rulecraft.cli import main; "
                   f"resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory})); "
                   "sys.argv[0] = 'rulecraft'; main()", *args]
    return subprocess.run(command, cwd=cwd, env={**base, **(env or {})}, capture_output=True,
                          timeout=120)


def assert_clean_failure(result, code: int = 1) -> None:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert result.stderr.strip()


# -- 1, 4. fmt --write replaces a file safely, or says why it cannot -------------------------------

@pytest.mark.skipif(os.name != "posix", reason="links and modes")
def test_fmt_write_never_follows_a_link_planted_at_a_temporary_path(tmp_path):
    """"`fmt --write` follows a symlink at its fixed temporary path: with
    `.d.rules.rulecraft-tmp → victim.txt` planted, formatting `d.rules` overwrites `victim.txt`,
    changes its mode and turns `d.rules` into a link to it. Use a fresh, unpredictable temporary
    file in the same folder, created exclusively"."""
    rules = tmp_path / "d.rules"
    rules.write_text(UNTIDY, encoding="utf-8")
    rules.chmod(0o644)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    victim.chmod(0o600)
    (tmp_path / ".d.rules.rulecraft-tmp").symlink_to(victim)
    result = invoke("fmt", str(rules), "--write")
    assert result.exit_code == 0, result.output
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert stat.S_IMODE(victim.stat().st_mode) == 0o600
    assert not rules.is_symlink()
    assert rules.read_text(encoding="utf-8") == TIDY
    assert stat.S_IMODE(rules.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == [".d.rules.rulecraft-tmp", "d.rules",
                                                          "victim.txt"]


def test_fmt_write_syncs_a_fresh_temporary_file_before_the_rename(tmp_path, monkeypatch):
    """"Use a fresh, unpredictable temporary file in the same folder, created exclusively;
    `fsync` before the rename"."""
    rules = tmp_path / "d.rules"
    rules.write_text(UNTIDY, encoding="utf-8")
    calls: list[tuple[str, object]] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(("fsync", fd)), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda src, dst: (calls.append(("replace", src)),
                                                         real_replace(src, dst))[1])
    names = set()
    for _ in range(2):
        rules.write_text(UNTIDY, encoding="utf-8")
        assert invoke("fmt", str(rules), "--write").exit_code == 0
        kinds = [kind for kind, _ in calls]
        assert "fsync" in kinds and kinds.index("fsync") < kinds.index("replace")
        temporary = Path(next(arg for kind, arg in calls if kind == "replace"))
        assert temporary.parent == tmp_path
        names.add(temporary.name)
        calls.clear()
    assert len(names) == 2 and ".d.rules.rulecraft-tmp" not in names
    assert rules.read_text(encoding="utf-8") == TIDY


@pytest.mark.parametrize("interruption", [KeyboardInterrupt, OSError])
def test_fmt_write_cleans_up_when_interrupted(tmp_path, monkeypatch, interruption):
    """"`fsync` before the rename; clean up when interrupted"."""
    rules = tmp_path / "d.rules"
    rules.write_text(UNTIDY, encoding="utf-8")

    def interrupted(fd: int) -> None:
        raise interruption(errno.EIO, "interrupted") if interruption is OSError \
            else interruption()

    monkeypatch.setattr(os, "fsync", interrupted)
    result = CliRunner().invoke(cli, ["fmt", str(rules), "--write"])
    assert result.exit_code == 1
    assert rules.read_text(encoding="utf-8") == UNTIDY
    assert [p.name for p in tmp_path.iterdir()] == ["d.rules"]


def test_fmt_write_in_a_read_only_folder_is_a_clear_error(tmp_path, monkeypatch):
    """"`fmt --write` in a read-only folder (`PermissionError`)" → a clear error, exit 1, the
    file untouched."""
    folder = tmp_path / "locked"
    folder.mkdir()
    rules = folder / "d.rules"
    rules.write_text(UNTIDY, encoding="utf-8")
    folder.chmod(0o555)
    try:
        if os.name != "posix" or os.geteuid() == 0:  # the superuser writes anywhere: pretend
            def refused(*args: object, **kwargs: object) -> None:
                raise PermissionError(errno.EACCES, "Permission denied", str(folder))
            monkeypatch.setattr(tempfile, "mkstemp", refused)
        result = invoke("fmt", str(rules), "--write")
    finally:
        folder.chmod(0o755)
    assert_clean_failure(result)
    assert f"cannot write {rules}: permission denied" in result.stderr
    assert rules.read_text(encoding="utf-8") == UNTIDY
    assert [p.name for p in folder.iterdir()] == ["d.rules"]


# -- 2, 3. fmt never rewrites a file with errors, and reports them where they are ------------------

UNCLOSED = 'rulebook d "D"\n\ntable t "T" by k:\n  | K | V |\n  | 1 | 2 |\n  | 3 | 4\n'


@pytest.mark.parametrize("mode", [["--write"], ["--check"], []])
def test_fmt_never_rewrites_a_file_that_check_rejects(tmp_path, mode):
    """"`fmt --write` rewrites a file that `check` rejects (a table row missing its closing `|`
    is written back as a cell `3     4`, changing its meaning). A file with any error is never
    rewritten"."""
    rules = tmp_path / "d.rules"
    rules.write_text(UNCLOSED, encoding="utf-8")
    checked = invoke("check", str(rules))
    assert checked.exit_code == 1
    result = invoke("fmt", str(rules), *mode)
    assert_clean_failure(result)
    assert result.stderr == checked.stderr  # exactly what `check` reports
    assert f"{rules}:6:" in result.stderr
    assert result.stdout == ""
    assert rules.read_text(encoding="utf-8") == UNCLOSED


def test_fmt_reports_errors_at_positions_in_the_file(tmp_path):
    """"`fmt` reports errors at positions in its formatted text, not the file's"."""
    text = 'rulebook d "D"\nformula f(a: 1..10)    =   a + b\n'
    rules = tmp_path / "d.rules"
    rules.write_text(text, encoding="utf-8")
    result = invoke("fmt", str(rules), "--write")
    assert_clean_failure(result)
    column = text.splitlines()[1].index("b") + 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"{rules}:2:{column}: unknown name 'b'"), result.stderr
    assert lines[1] == "    " + text.splitlines()[1]
    assert lines[2] == "    " + " " * (column - 1) + "^"
    assert rules.read_text(encoding="utf-8") == text


def test_fmt_carries_on_with_the_other_files(tmp_path):
    broken, tidy = tmp_path / "broken.rules", tmp_path / "tidy.rules"
    broken.write_text(UNCLOSED, encoding="utf-8")
    tidy.write_text(UNTIDY, encoding="utf-8")
    result = invoke("fmt", str(broken), str(tidy), "--write")
    assert result.exit_code == 1
    assert tidy.read_text(encoding="utf-8") == TIDY
    assert broken.read_text(encoding="utf-8") == UNCLOSED


# -- 5. combatant files are read within limits -----------------------------------------------------

def run_with(attacker: str, *more: str):
    return invoke("run", "ringing_steel", "melee_attack", f"attacker=@{attacker}", PARTIES[1],
                  "--seed", "1", *more)


@pytest.mark.parametrize("content, words", [
    ('{"strength": 1e400}', ["1e400", "too large"]),
    ('{"strength": NaN}', ["NaN", "not a number"]),
    ('{"strength": Infinity}', ["Infinity", "not a number"]),
    ('{"strength": -Infinity}', ["-Infinity", "not a number"]),
    ('{"strength": 1' + "0" * 100 + "}", ["number_digits"]),
    ("[" * 100_000 + "]" * 100_000, ["input_depth"]),
    ('{"training": ' + '{"a": ' * 30 + "1" + "}" * 31, ["input_depth"]),
    (b"\xff\xfe{}", ["not UTF-8"]),
    ("{", ["Expecting"]),
])
def test_a_bad_combatant_file_is_a_clear_error(tmp_path, content, words):
    """"`attacker=@/dev/zero` (MemoryError after 7.6 GB)" and "deeply nested JSON in `@file`";
    JSON `{"strength": 1e400}`, `NaN` or `Infinity` must give a clear error."""
    sheet = tmp_path / "sheet.json"
    if isinstance(content, bytes):
        sheet.write_bytes(content)
    else:
        sheet.write_text(content, encoding="utf-8")
    result = run_with(str(sheet))
    assert_clean_failure(result)
    assert f"cannot read combatant attacker from {sheet}: " in result.stderr
    for word in words:
        assert word in result.stderr


def test_a_combatant_file_over_input_bytes_is_refused(tmp_path):
    """"`attacker=@/dev/zero` (MemoryError after 7.6 GB)": at most `input_bytes` are read."""
    result = run_with(str(SWORDSMAN), "--limit", "input_bytes=50")
    assert_clean_failure(result)
    assert "larger than 50 bytes" in result.stderr and "input_bytes" in result.stderr
    assert run_with(str(SWORDSMAN), "--limit", "input_bytes=5000").exit_code == 0


@pytest.mark.parametrize("name", ["missing.json", "folder"])
def test_a_missing_or_odd_combatant_file_names_the_party_and_file(tmp_path, name):
    (tmp_path / "folder").mkdir()
    result = run_with(str(tmp_path / name))
    assert_clean_failure(result)
    assert f"cannot read combatant attacker from {tmp_path / name}: " in result.stderr


@pytest.mark.skipif(os.name != "posix", reason="devices, FIFOs and address-space limits")
@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_a_device_or_fifo_is_refused_before_reading(tmp_path, special):
    """"`attacker=@/dev/zero` (MemoryError after 7.6 GB)": a non-regular file is refused, and a
    FIFO with no writer does not hang the command."""
    if special == "fifo":
        special = str(tmp_path / "fifo")
        os.mkfifo(special)
    done = script("run", "ringing_steel", "melee_attack", f"attacker=@{special}", PARTIES[1],
                  memory=2 << 30)
    assert done.returncode == 1, done.stderr
    assert f"cannot read combatant attacker from {special}: it is not a regular file" in \
        done.stderr.decode()


# -- 6. values typed on the command line -----------------------------------------------------------

@pytest.mark.parametrize("value", ["-inf", "inf", "nan", "Infinity", "1_0"])
def test_text_that_is_not_a_finite_number_stays_text(value):
    """"`modifier=-inf`, `=1e400`": text that is not a finite number stays text (the rule's type
    check then reports it)."""
    result = invoke("run", "ringing_steel", "saving_throw", PARTIES[0].replace("attacker",
                    "combatant"), f"modifier={value}", "--seed", "1")
    assert_clean_failure(result)
    assert f"got the text '{value}'" in result.stderr or \
        f"got '{value}', which is not a number a rule can use" in result.stderr


@pytest.mark.parametrize("argument", ["modifier=1e400", "modifier=-1e400",
                                      "combatant.strength=1e999"])
def test_a_number_too_large_is_a_clear_error(argument):
    """"`modifier=-inf`, `=1e400`": a number literal too large is a clear error."""
    result = invoke("run", "ringing_steel", "saving_throw", f"combatant=@{SWORDSMAN}", argument,
                    "--seed", "1")
    assert_clean_failure(result)
    assert f"{argument}: the number is too large" in result.stderr


def test_a_number_with_too_many_digits_names_the_limit():
    result = invoke("run", "ringing_steel", "saving_throw", f"combatant=@{SWORDSMAN}",
                    "modifier=" + "9" * 100, "--seed", "1")
    assert_clean_failure(result)
    assert "number_digits" in result.stderr


BOOLEAN = ('rulebook b "B"\n\nprocedure p "P" (above: bool):\n  roll r = d6\n  if above:\n'
           "    outcome high with r = r\n  else:\n    outcome low with r = r\n")


@pytest.mark.parametrize("value, outcome", [("true", "high"), ("false", "low"),
                                            ("True", "high"), ("False", "low")])
def test_the_command_line_passes_a_boolean(tmp_path, value, outcome):
    """"The CLI cannot pass a boolean (`above=true` → 'must be a bool')"."""
    rules = tmp_path / "b.rules"
    rules.write_text(BOOLEAN, encoding="utf-8")
    result = invoke("run", str(rules), "p", f"above={value}", "--dice", "3")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == outcome


def test_a_quoted_true_stays_text(tmp_path):
    rules = tmp_path / "b.rules"
    rules.write_text(BOOLEAN, encoding="utf-8")
    result = invoke("run", str(rules), "p", 'above="true"', "--dice", "3")
    assert_clean_failure(result)
    assert "must be a bool" in result.stderr


@pytest.mark.parametrize("command, argument", [
    ("run", "dice=3"), ("run", "seed=3"), ("run", "choices=x"), ("odds", "by=x"),
    ("run", "limits=3"), ("run", "attacker.strength.x=3"), ("run", "attacker.training.Sword.x=1"),
])
def test_an_argument_that_collides_is_a_rule_error_not_a_crash(command, argument):
    """"Every failure must be exit 1 with a message (exit 2 for misuse), never exit 3 or a
    traceback"."""
    result = invoke(command, "ringing_steel", "melee_attack", *PARTIES, argument)
    assert_clean_failure(result)


# -- 7. the façade: load and evaluate --------------------------------------------------------------

@pytest.mark.parametrize("name, words", [
    ("a\0b.rules", ["NUL"]),
    ("x" * 5000, ["too long"]),
    ("/dev/zero", ["not a regular file"]),
    (123, ["not int"]),
    (None, ["not NoneType"]),
    (b"ringing_steel", ["not bytes"]),
])
def test_load_refuses_odd_names_with_a_clear_error(name, words):
    """"a NUL in a filename" passed to `rulecraft.load` (and long or odd paths), `load(123)`."""
    with pytest.raises(rulecraft.UnknownRulebookError) as info:
        rulecraft.load(name)
    for word in words:
        assert word in str(info.value)


def test_load_refuses_a_file_over_source_bytes_before_reading_it_all(tmp_path):
    """A rule file bigger than `limits.source_bytes` is refused before reading it all."""
    big = tmp_path / "big.rules"
    with big.open("wb") as out:
        out.truncate(200_000_000)  # sparse: no disk, and reading it whole would take 200 MB
    with pytest.raises(rulecraft.UnknownRulebookError, match="source_bytes"):
        rulecraft.load(big)
    small = tmp_path / "small.rules"
    small.write_text(UNTIDY, encoding="utf-8")
    with pytest.raises(rulecraft.UnknownRulebookError, match="larger than 10 bytes"):
        rulecraft.load(small, rulecraft.Limits(source_bytes=10))
    assert rulecraft.load(small, rulecraft.Limits(source_bytes=len(UNTIDY))).name == "d"


def test_a_rule_file_that_is_not_utf8_is_shown_where_it_stops_being_text(tmp_path):
    """"invalid UTF-8 all give a clear" error: the caret is under the first byte that is not
    UTF-8, counted in lines and characters as an editor shows them."""
    rules = tmp_path / "latin1.rules"
    rules.write_bytes(b'\xef\xbb\xbfrulebook d "D"\r\n# caf\xe9\n')
    result = invoke("check", str(rules))
    assert_clean_failure(result)
    lines = result.stderr.splitlines()
    assert lines[0] == (f"{rules}:2:6: cannot read {rules}: it is not UTF-8 text (byte 0xe9 "
                        "here); save it as UTF-8")
    assert lines[1:] == ["    # caf\ufffd", "         ^"]


@pytest.mark.parametrize("arguments, words", [
    ((123,), ["expression is text", "not int"]),
    ((None,), ["expression is text"]),
])
def test_evaluate_needs_text(arguments, words):
    """"`evaluate(rb, 123)`" → a RulecraftError saying an expression is text."""
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.evaluate(rulecraft.load("ringing_steel"), *arguments)
    for word in words:
        assert word in str(info.value)
    with pytest.raises(rulecraft.RulecraftError, match="needs a Rulebook"):
        rulecraft.evaluate("ringing_steel", "1 + 1")


# -- 8. --limit on every command -------------------------------------------------------------------

LIMITED = ["check", "fmt", "eval", "run", "odds", "roll", "list"]


@pytest.mark.parametrize("command", LIMITED)
def test_every_command_that_compiles_or_runs_takes_limit(command):
    result = invoke(command, "--help")
    assert "--limit NAME=N" in result.output
    assert "enumeration_paths" in result.output


@pytest.mark.parametrize("text, words", [
    ("frobs=3", ["no limit called 'frobs'", "source_bytes", "input_depth"]),
    ("enumeration_paths=0", ["enumeration_paths", "1 or more"]),
    ("enumeration_paths=-5", ["1 or more"]),
    ("enumeration_paths=many", ["whole number"]),
    ("enumeration_paths", ["whole number"]),
    ("enumeration_paths=" + "9" * 40, ["whole number"]),
])
@pytest.mark.parametrize("command", [["list"], ["check", "ringing_steel"], ["roll", "d6"]])
def test_a_bad_limit_is_a_usage_error_listing_the_limits(command, text, words):
    result = invoke(*command, "--limit", text)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.stderr


@pytest.mark.parametrize("arguments, words", [
    (["roll", "20d6", "--limit", "dice_per_roll=10"], ["limit is 10"]),
    (["roll", "d20", "--limit", "sides_per_die=6"], ["1 to 6 sides"]),
    (["run", "ringing_steel", "melee_attack", *PARTIES, "--seed", "1",
      "--limit", "sides_per_die=6"], ["1 to 6 sides"]),
    (["run", "ringing_steel", "melee_attack", *PARTIES, "--dice", "17,4",
      "--limit", "sides_per_die=6"], ["1 to 6 sides"]),
    # (a blow that may entangle schedules a whip's unwinding: its odds walk paths, not states)
    (["odds", "ringing_steel", "saving_throw", f"combatant=@{SWORDSMAN}", "--limit",
      "odds_states=3"], ["odds_states", "--samples"]),
    (["run", "ringing_steel", "melee_attack", *PARTIES, "--limit", "input_depth=1"],
     ["input_depth"]),
])
def test_limits_reach_the_dice_and_the_odds(arguments, words):
    result = invoke(*arguments)
    assert_clean_failure(result)
    for word in words:
        assert word in result.stderr


def test_limits_reach_reading_rule_files(tmp_path):
    rules = tmp_path / "d.rules"
    rules.write_text(UNTIDY, encoding="utf-8")
    for command in (["check"], ["fmt"]):
        result = invoke(*command, str(rules), "--limit", "source_bytes=10")
        assert_clean_failure(result)
        assert "source_bytes" in result.stderr
    assert invoke("check", str(rules), "--limit", "source_bytes=100").exit_code == 0
    result = invoke("odds", "ringing_steel", "melee_attack", *PARTIES, "--limit",
                    "enumeration_paths=1000", "--limit", "enumeration_work=10000000", "--json")
    assert result.exit_code == 0, result.output


# -- 9. determinism --------------------------------------------------------------------------------

RUN = ["run", "ringing_steel", "melee_attack", "attacker=@docs/examples/swordsman.json",
       "defender=@docs/examples/spearman.json", "--seed", "7", "--trace", "--json"]
ODDS = ["odds", "ringing_steel", "melee_attack", "attacker=@docs/examples/swordsman.json",
        "defender=@docs/examples/spearman.json", "--by", "wound", "--json"]


@pytest.mark.parametrize("arguments", [RUN, ODDS], ids=["run", "odds"])
def test_same_file_and_seed_give_the_same_bytes_across_processes(arguments):
    """"Determinism stays tested: same file and seed → same bytes across processes and hash
    seeds"."""
    outputs = []
    for hash_seed in ("0", "4242"):
        done = script(*arguments, env={"PYTHONHASHSEED": hash_seed})
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])


# -- 10. the last line of defence ------------------------------------------------------------------

@pytest.mark.parametrize("error", [MemoryError, RecursionError])
def test_main_reports_memory_and_recursion_errors_as_internal_errors(monkeypatch, capsys, error):
    """"Every failure must be exit 1 with a message (exit 2 for misuse), never exit 3 or a
    traceback"; what remains for exit 3 is a real bug, told in one line."""
    def broken(*args: object, **kwargs: object) -> None:
        raise error()

    monkeypatch.setattr(cli, "main", broken)
    with pytest.raises(SystemExit) as info:
        cli_module.main()
    assert info.value.code == 3
    err = capsys.readouterr().err
    assert err.startswith(f"rulecraft: internal error: {error.__name__}")
    assert "Traceback" not in err
