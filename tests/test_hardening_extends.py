"""`extends` reads bases, not files (issue 21, items 1 and 2): a base is a built-in rulebook or
a rule file inside the house file's folder, unless the user names more folders (`--bases DIR`,
`bases=`); an error about a base never quotes a file that is not a rule file, and never tells
which files exist outside; cycles are found by the file, not by its spelling; a chain of bases
is bounded in depth (`extends_depth`) and in size (`extends_bytes`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

from resources import rulecraft as run_rulecraft

SECRET = "s3cr3t-pa55word-do-not-print"
OUTSIDE = "outside the folders bases are read from"  # the refusal of a base outside them


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def house(folder: Path, base: str, name: str = "house.rules") -> Path:
    """A house file in `folder` that extends `base` (written as a quoted path)."""
    return write(folder / name, f'rulebook house "House"\nextends "{base}"\n'
                 "formula mine(x: 1..9) = x\n")


def invoke(*args: str):
    """The command in this process; a Python exception escaping it fails the test."""
    result = CliRunner().invoke(cli, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def refusal(path: Path) -> str:
    """What `check` says of a house file, which must fail with exit 1 (never a traceback)."""
    result = invoke("check", str(path))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    return result.output


# ---- item 1: no file read through `extends` -------------------------------------------------

def test_proc_self_environ_is_not_read_nor_printed(tmp_path):
    # Issue 21, item 1: "`extends "/proc/self/environ"` prints the whole environment in the
    # parse error (`--json` too)".
    path = house(tmp_path, "/proc/self/environ")
    for args in (["check", str(path)], ["eval", str(path), "mine(1)", "--json"],
                 ["show", str(path), "--json"]):
        done = run_rulecraft(args, env={"RULECRAFT_TEST_SECRET": SECRET})
        assert done.returncode == 1, done.output
        assert SECRET not in done.output and "RULECRAFT_TEST_SECRET" not in done.output
        assert OUTSIDE in done.output
        assert done.peak_mb < 200
    data = json.loads(done.stderr)
    assert data["errors"][0]["line"] == 2 and OUTSIDE in data["errors"][0]["message"]


@pytest.mark.parametrize("base", ["/etc/passwd", "../../../../../../../../etc/passwd"])
def test_etc_passwd_is_not_read(tmp_path, base):
    # "`/etc/shadow`, a project's `.env` or `/proc/self/cmdline` leak their first line"
    said = refusal(house(tmp_path, base))
    assert "root:" not in said and OUTSIDE in said
    assert f"'{base}'" in said  # the base as the house file wrote it, at its line
    assert "house.rules:2:" in said


def test_an_absolute_path_to_a_rule_file_outside_is_refused(tmp_path):
    # "A base is a built-in name or a path inside the house file's folder — no absolute paths"
    outside = write(tmp_path / "elsewhere" / "core.rules",
                    f'rulebook core "Core"\n# {SECRET}\nformula f(x: 1..9) = x\n')
    said = refusal(house(tmp_path / "home", str(outside)))
    assert OUTSIDE in said and SECRET not in said


def test_dot_dot_out_of_the_folder_is_refused(tmp_path):
    # "no `..`"
    write(tmp_path / "x.rules", f'rulebook x "X"\n# {SECRET}\nformula f(x: 1..9) = x\n')
    said = refusal(house(tmp_path / "home", "../x.rules"))
    assert OUTSIDE in said and SECRET not in said
    # `..` that stays inside the folder is only a spelling
    write(tmp_path / "home" / "core.rules", 'rulebook core "Core"\nformula f(x: 1..9) = x\n')
    (tmp_path / "home" / "sub").mkdir()
    inside = house(tmp_path / "home", "sub/../core.rules", "inside.rules")
    assert rulecraft.load(inside).formulas["f"](x=3) == 3


def test_a_link_out_of_the_folder_is_refused(tmp_path):
    # "no links out of it": a linked file, and a linked folder on the way
    real = write(tmp_path / "elsewhere" / "core.rules",
                 f'rulebook core "Core"\n# {SECRET}\nformula f(x: 1..9) = x\n')
    home = tmp_path / "home"
    home.mkdir()
    (home / "core.rules").symlink_to(real)
    (home / "shared").symlink_to(real.parent, target_is_directory=True)
    for base in ("core.rules", "shared/core.rules"):
        said = refusal(house(home, base))
        assert OUTSIDE in said and SECRET not in said
    # a link that stays inside the folder is followed
    (home / "real.rules").write_text('rulebook core "Core"\nformula f(x: 1..9) = x\n',
                                     encoding="utf-8")
    (home / "alias.rules").symlink_to(home / "real.rules")
    assert rulecraft.load(house(home, "alias.rules", "ok.rules")).formulas["f"](x=2) == 2


def test_a_file_that_is_not_a_rule_file_is_not_parsed_nor_quoted(tmp_path):
    # "an error inside a base named by path never quotes text that is not a rule file's ("the
    # base is not a rule file: …"), and a file that does not start like a rule file is not
    # parsed at all"
    write(tmp_path / ".env", f"API_KEY={SECRET}\nrulebook x\n")
    write(tmp_path / "notes.txt", f"\n# a comment\n{SECRET} rulebook\n")
    for name in (".env", "notes.txt"):
        path = house(tmp_path, name)
        said = refusal(path)
        assert f"the base is not a rule file: {name}" in said and SECRET not in said
        for args in (["eval", str(path), "mine(1)", "--json"], ["show", str(path), "--json"]):
            result = invoke(*args)
            assert result.exit_code == 1 and SECRET not in result.output
            assert "the base is not a rule file" in result.output
    # binary, and text that is not UTF-8 before any rule text
    (tmp_path / "blob.rules").write_bytes(b"\x89PNG\r\n\x1a\n" + SECRET.encode() + b"\xff\xfe")
    said = refusal(house(tmp_path, "blob.rules"))
    assert "the base is not a rule file: blob.rules" in said and SECRET not in said


def test_a_rule_file_may_open_with_a_byte_order_mark_blank_lines_and_comments(tmp_path):
    # "after optional BOM, blank lines and `#` comments the first thing must be the `rulebook`
    # header"
    (tmp_path / "core.rules").write_bytes(
        b"\xef\xbb\xbf\n  \r\n# the core rules\n   # indented too\n\n"
        b'rulebook core "Core"\nformula f(x: 1..9) = x\n')
    assert rulecraft.load(house(tmp_path, "core.rules")).formulas["f"](x=4) == 4
    # an error inside a rule file is still shown at its line, with its text
    write(tmp_path / "bad.rules", 'rulebook bad "Bad"\nformula f(x: 1..9) = x +\n')
    said = refusal(house(tmp_path, "bad.rules", "h2.rules"))
    assert "bad.rules:2:" in said and "formula f(x: 1..9) = x +" in said


def test_whether_a_file_outside_exists_is_not_told(tmp_path):
    # "the different errors reveal which files exist": a path outside gives the same message
    # whether or not it exists
    write(tmp_path / "real.rules", 'rulebook real "Real"\nformula f(x: 1..9) = x\n')
    (tmp_path / "dir").mkdir()
    home = tmp_path / "home"
    said = {}
    for name in ("real.rules", "missing.rules", "dir", "real.rules/x"):
        text = refusal(house(home, f"../{name}")).replace(name, "NAME")
        said[name] = text
    assert len(set(said.values())) == 1, said
    absolute = {name: refusal(house(home, name)).replace(name, "NAME")
                for name in ("/etc/passwd", "/etc/no-such-file-here", "/etc", "/dev/zero")}
    assert len(set(absolute.values())) == 1, absolute


def test_what_cannot_be_read_inside_the_folder_says_why_without_contents(tmp_path):
    # "Not-a-regular-file, unreadable, too large (source_bytes) — clear messages, no contents."
    os.mkfifo(tmp_path / "pipe.rules")
    (tmp_path / "folder.rules").mkdir()
    big = write(tmp_path / "big.rules", 'rulebook big "Big"\n# ' + SECRET * 50 + "\n")
    cases = {"pipe.rules": "not a regular file", "folder.rules": "folder",
             "missing.rules": "no such file"}
    for name, why in cases.items():
        said = refusal(house(tmp_path, name))
        assert f"cannot read the base '{name}'" in said and why in said
    result = invoke("check", str(house(tmp_path, "big.rules")), "--limit", "source_bytes=200")
    assert result.exit_code == 1 and "source_bytes" in result.output
    assert SECRET not in result.output
    if os.geteuid() != 0:  # root reads whatever it likes
        big.chmod(0)
        said = refusal(house(tmp_path, "big.rules"))
        assert "permission denied" in said and SECRET not in said


def test_text_compiled_without_a_file_reads_bases_from_the_working_folder(tmp_path,
                                                                          monkeypatch):
    # "Text compiled without a file (working folder) — same rule relative to the working
    # folder."
    write(tmp_path / "x.rules", 'rulebook x "X"\nformula f(x: 1..9) = x\n')
    write(tmp_path / "work" / "core.rules", 'rulebook core "Core"\nformula f(x: 1..9) = x\n')
    monkeypatch.chdir(tmp_path / "work")
    assert rulecraft.compile('rulebook h "H"\nextends "core.rules"\n').formulas["f"](x=1) == 1
    with pytest.raises(rulecraft.RulecraftError, match=OUTSIDE):
        rulecraft.compile('rulebook h "H"\nextends "../x.rules"\n')


# ---- widening, by the user only ------------------------------------------------------------

def test_bases_widens_the_folders_from_the_command_line_and_from_python(tmp_path):
    # "unless the user passes an explicit option on the command line (never from a rule file)"
    shared = write(tmp_path / "shared" / "core.rules",
                   'rulebook core "Core"\nformula f(x: 1..9) = x * 10\n')
    path = house(tmp_path / "home", "../shared/core.rules")
    assert OUTSIDE in refusal(path)
    result = invoke("check", str(path), "--bases", str(shared.parent))
    assert result.exit_code == 0, result.output
    result = invoke("eval", str(path), "f(2)", "--bases", str(shared.parent))
    assert result.output.strip() == "20"
    absolute = house(tmp_path / "home", str(shared), "abs.rules")
    assert rulecraft.load(absolute, bases=[shared.parent]).formulas["f"](x=3) == 30
    assert rulecraft.load(path, bases=(str(shared.parent),)).formulas["f"](x=1) == 10
    # what was allowed once is not remembered: the same file without the option is refused
    # (the compiled rulebook in memory and the one kept on disk alike)
    with pytest.raises(rulecraft.RulecraftError, match=OUTSIDE):
        rulecraft.load(path)
    result = invoke("eval", str(path), "f(2)")
    assert result.exit_code == 1 and OUTSIDE in result.output
    with pytest.raises(rulecraft.RuleTypeError, match="bases"):
        rulecraft.load(path, bases=str(shared.parent))  # a folder is one of a list


def test_bases_reaches_the_workers_of_many_fights(tmp_path):
    write(tmp_path / "shared" / "core.rules", 'rulebook core "Core"\nextends ringing_steel\n')
    path = house(tmp_path / "home", "../shared/core.rules")
    project = Path(__file__).resolve().parent.parent
    fighters = [str(project / "examples" / "ringing_steel" / f"{n}.toml")
                for n in ("swordsman", "spearman")]
    result = invoke("fight", str(path), *fighters, "--runs", "2", "--seed", "1", "--workers", "1",
                    "--bases", str(tmp_path / "shared"))
    assert result.exit_code == 0, result.output


def test_built_in_bases_still_work_and_a_local_namesake_is_no_circle(tmp_path, monkeypatch):
    path = write(tmp_path / "ringing_steel.rules",
                 'rulebook mine "Mine"\nextends ringing_steel\nformula zz(x: 1..9) = x\n')
    monkeypatch.chdir(tmp_path)
    result = invoke("check", "ringing_steel.rules")
    assert result.exit_code == 0, result.output
    assert rulecraft.load(path).base.filename == "ringing_steel.rules"
    assert rulecraft.load("rq3_house").base.filename == "rq3_core.rules"


# ---- item 2: cycles by file, chains bounded -------------------------------------------------

@pytest.mark.parametrize("spelling", ["./b.rules", "sub/../b.rules", ".//b.rules", "link.rules"])
def test_self_extension_by_another_spelling_is_a_circle_at_once(tmp_path, spelling):
    # Issue 21, item 2: "`extends "./b.rules"` inside `b.rules` is not seen as a cycle (names
    # compared as strings): a 34-byte file recurses ~970 levels … and says "nested too deeply""
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.rules").symlink_to(tmp_path / "b.rules")
    (tmp_path / "b.rules").write_text(f'rulebook b "B"\nextends "{spelling}"', encoding="utf-8")
    done = run_rulecraft(["check", "b.rules"], cwd=tmp_path)
    assert done.returncode == 1, done.output
    assert "extend each other in a circle" in done.output and "nested" not in done.output
    assert done.peak_mb < 200


def test_a_chain_of_400_files_is_refused_at_its_depth_limit(tmp_path):
    # "A chain of 400 small files takes 42 s (quadratic). Compare resolved files; bound the
    # depth of `extends` chains (a limit in runtime/limits.py) and their total size."
    for i in range(400):
        then = f'extends "f{i + 1}.rules"\n' if i < 399 else ""
        write(tmp_path / f"f{i}.rules", f'rulebook f{i} "F"\n{then}formula g{i}(x: 1..9) = x\n')
    done = run_rulecraft(["check", "f0.rules"], cwd=tmp_path)
    assert done.returncode == 1, done.output
    assert "limit extends_depth" in done.output and "--limit extends_depth=N" in done.output
    assert done.peak_mb < 200


def test_the_depth_limit_counts_bases_under_the_house_file(tmp_path):
    for i in range(5):
        then = f'extends "f{i + 1}.rules"\n' if i < 4 else ""
        write(tmp_path / f"f{i}.rules", f'rulebook f{i} "F"\n{then}formula g{i}(x: 1..9) = x\n')
    top = tmp_path / "f0.rules"
    assert rulecraft.load(top, rulecraft.Limits(extends_depth=4)).formulas["g4"](x=1) == 1
    with pytest.raises(rulecraft.RulecraftError, match="limit extends_depth") as err:
        rulecraft.load(top, rulecraft.Limits(extends_depth=3))
    assert err.value.filename.endswith("f3.rules") and err.value.line == 2


def test_the_bytes_of_a_whole_chain_are_bounded(tmp_path):
    filler = "# " + "x" * 400 + "\n"
    for i in range(3):
        then = f'extends "f{i + 1}.rules"\n' if i < 2 else ""
        write(tmp_path / f"f{i}.rules",
              f'rulebook f{i} "F"\n{then}{filler}formula g{i}(x: 1..9) = x\n')
    top = tmp_path / "f0.rules"
    assert rulecraft.load(top, rulecraft.Limits(extends_bytes=2000)).formulas["g2"](x=1) == 1
    with pytest.raises(rulecraft.RulecraftError, match="limit extends_bytes"):
        rulecraft.load(top, rulecraft.Limits(extends_bytes=1000))
    result = invoke("check", str(top), "--limit", "extends_bytes=1000")
    assert result.exit_code == 1 and "--limit extends_bytes=N" in result.output
