"""What rulecraft writes — sheet files, text on a terminal, user templates, error messages —
when a rule file, a fighter file or a template is hostile. Each test quotes the item of the
second hardening issue (issue 21) it pins.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

from resources import rulecraft as measured

BIG = "1" + "0" * 58  # 10^58, as a rule writes it (there is no exponent notation)


def invoke(*args: str):
    """Run the click command in-process; a Python exception escaping a command fails the test."""
    result = CliRunner().invoke(cli, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def assert_refused(result, *words: str) -> None:
    """Exit 1 with a message holding `words`, no traceback and no Python repr."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert "<class" not in result.output
    for word in words:
        assert word in result.output, result.output


# -- 17. a Python repr in a user message ----------------------------------------------------------

@pytest.mark.parametrize(("expression", "words"), [
    # "A Python repr reaches a user message (`round(1e58/3, 5)` →
    # "[<class 'decimal.InvalidOperation'>]")."
    (f"round({BIG}/3, 5)", ("too large to round to 5 decimal places", "58 digits")),
    (f"floor({BIG}/3, 2)", ("too large to round to 2 decimal places",)),
    (f"ceil({BIG}/3, 30)", ("30 decimal places",)),
    (f"truncate({BIG}.5 * 3, 1)", ("too large to round to 1 decimal place",)),
    ("round(2.5, 100)", ("100 decimal places", "28")),
])
def test_rounding_a_number_too_large_says_so_in_words(expression, words):
    result = invoke("eval", "ringing_steel", expression)
    assert_refused(result, "<expression>:1:1:", *words)
    assert "decimal" not in result.output.replace("decimal places", "").replace(
        "decimal place", "")


@pytest.mark.parametrize(("expression", "value"), [
    (f"round({BIG}/3)", "3333333333333333333333333333" + "0" * 30),
    (f"floor({BIG}/3)", "3333333333333333333333333333" + "0" * 30),
    (f"round({BIG}.5)", "1" + "0" * 57 + "1"),
    (f"ceil({BIG}.25)", "1" + "0" * 57 + "1"),
])
def test_rounding_a_large_number_to_a_whole_number_has_an_answer(expression, value):
    """A whole number keeps every digit (rulecraft's integers are exact): rounding to one never
    runs out of digits."""
    result = invoke("eval", "ringing_steel", expression)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == value


def test_the_logarithm_of_a_number_past_a_double_has_an_answer_or_says_why():
    """ln of a number a double cannot hold (10^464, 10^-464) is worked out, not "Infinity"."""
    huge = "*".join([f"{BIG}.5"] * 8)
    result = invoke("eval", "ringing_steel", f"round(ln({huge}), 2)")
    assert result.exit_code == 0, result.output
    assert float(result.output) == pytest.approx(1068.3995, abs=0.01)
    result = invoke("eval", "ringing_steel", f"round(ln(1/({huge})), 2)")
    assert result.exit_code == 0, result.output
    assert float(result.output) == pytest.approx(-1068.3995, abs=0.01)


def test_no_python_text_reaches_a_calculation_message():
    """"Search for other places where str(exception) of a Python exception reaches a message":
    Decimal's signals and Python's own wording become the rules' words."""
    from decimal import InvalidOperation, Overflow

    from rulecraft.runtime.errors import calculation_message

    for err in (InvalidOperation([InvalidOperation]), Overflow([Overflow]),
                ValueError("math domain error"), OverflowError("int too large to convert")):
        message = calculation_message(err)
        assert "<class" not in message and "decimal" not in message
        assert "math domain" not in message and "int too large" not in message
        assert message.startswith("a ")


# -- 8. sheet -o writes to the path given ---------------------------------------------------------

SMALL = 'rulebook mine "Mine"\n\nformula f(a: 1..3) = a\n'
OTHER = 65534  # nobody


def sheet_of_small(tmp_path: Path) -> tuple[Path, str]:
    """A small rule file, and the sheet the command writes for it."""
    rules = tmp_path / "mine.rules"
    rules.write_text(SMALL, encoding="utf-8")
    return rules, rulecraft.sheet(str(rules))


def someone_else_owns(path: Path, monkeypatch: pytest.MonkeyPatch, link: bool = True) -> None:
    """Make `path` (a link, or the file itself) belong to another user: for real as root, else
    by having rulecraft believe it runs as another user."""
    if os.geteuid() == 0:
        os.chown(path, OTHER, OTHER, follow_symlinks=not link)
    else:
        monkeypatch.setattr(os, "geteuid", lambda: OTHER)


def left_alone(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.skipif(os.name != "posix", reason="links and owners")
def test_sheet_output_refuses_a_link_planted_by_someone_else(tmp_path, monkeypatch):
    """"`sheet -o` resolves the output path to a link's target and replaces it (a link planted
    in a shared sticky folder replaces the victim's file) ... refuse a link unless the user owns
    both ends"."""
    rules, _ = sheet_of_small(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    planted = tmp_path / "sheet.html"
    planted.symlink_to(victim)
    someone_else_owns(planted, monkeypatch)
    result = invoke("sheet", str(rules), "-o", str(planted))
    assert_refused(result, "is a link", str(planted))
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert planted.is_symlink()
    assert left_alone(tmp_path) == ["mine.rules", "sheet.html", "victim.txt"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="chown needs root")
def test_sheet_output_refuses_the_users_link_to_someone_elses_file(tmp_path):
    """"refuse a link unless the user owns both ends" — here the end is another user's file."""
    rules, _ = sheet_of_small(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    os.chown(victim, OTHER, OTHER)
    link = tmp_path / "sheet.html"
    link.symlink_to(victim)
    result = invoke("sheet", str(rules), "-o", str(link))
    assert_refused(result, "is a link", "another user")
    assert victim.read_text(encoding="utf-8") == "precious\n"


@pytest.mark.skipif(os.name != "posix", reason="links")
def test_sheet_output_through_the_users_own_link_writes_its_file(tmp_path):
    """A link the user made to a file of their own is a shortcut: the file is written, the
    link stays; a link to nothing is refused."""
    rules, sheet = sheet_of_small(tmp_path)
    mine = tmp_path / "real.html"
    mine.write_text("old\n", encoding="utf-8")
    mine.chmod(0o640)
    link = tmp_path / "sheet.html"
    link.symlink_to(mine)
    result = invoke("sheet", str(rules), "-o", str(link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and mine.read_text(encoding="utf-8") == sheet
    assert stat.S_IMODE(mine.stat().st_mode) == 0o640
    dangling = tmp_path / "nowhere.html"
    dangling.symlink_to(tmp_path / "missing" / "x.html")
    assert_refused(invoke("sheet", str(rules), "-o", str(dangling)), "is a link")
    assert left_alone(tmp_path) == ["mine.rules", "nowhere.html", "real.html", "sheet.html"]


@pytest.mark.parametrize("name", ["-", "/dev/stdout"])
def test_sheet_output_to_standard_output_is_a_stream(tmp_path, name):
    """"write to `-`/`/dev/stdout` as a stream" (before: `-` made a file named `-`, and
    /dev/stdout was resolved to the terminal or pipe and replaced)."""
    rules, sheet = sheet_of_small(tmp_path)
    run = measured(["sheet", str(rules), "-o", name], cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout == sheet
    assert left_alone(tmp_path) == ["mine.rules"]


@pytest.mark.skipif(os.name != "posix", reason="FIFOs and device nodes")
def test_sheet_output_never_replaces_what_is_not_a_regular_file(tmp_path):
    """"it also replaces FIFOs and device nodes with a regular file (`-o /dev/null` as root)
    ... never replace anything that is not a regular file" (a folder: exit 1 too, not 2)."""
    rules, _ = sheet_of_small(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert_refused(invoke("sheet", str(rules), "-o", str(fifo)), "named pipe",
                   "not a regular file")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    folder = tmp_path / "folder"
    folder.mkdir()
    assert_refused(invoke("sheet", str(rules), "-o", str(folder)), "is a folder")
    assert folder.is_dir()
    if os.geteuid() == 0:  # a device node of our own, never the system's /dev/null
        device = tmp_path / "null"
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        assert_refused(invoke("sheet", str(rules), "-o", str(device)), "device")
        assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert sorted(left_alone(tmp_path)) == sorted(
        ["mine.rules", "pipe", "folder"] + (["null"] if os.geteuid() == 0 else []))


def test_sheet_output_is_capped_by_output_bytes(tmp_path):
    """"Cap the written size with `limits.output_bytes` (refusal names the limit)": the old
    file stays whole, no temporary file is left, and standard output gets nothing."""
    rules, _ = sheet_of_small(tmp_path)
    out = tmp_path / "sheet.html"
    out.write_text("old\n", encoding="utf-8")
    result = invoke("sheet", str(rules), "-o", str(out), "--limit", "output_bytes=1000")
    assert_refused(result, "output_bytes", "--limit output_bytes=N")
    assert out.read_text(encoding="utf-8") == "old\n"
    assert left_alone(tmp_path) == ["mine.rules", "sheet.html"]
    result = invoke("sheet", str(rules), "--limit", "output_bytes=1000")
    assert_refused(result, "output_bytes")
    assert "<html" not in result.stdout


def test_sheet_never_overwrites_a_local_base_named_like_a_builtin(tmp_path, monkeypatch):
    """"never overwrite a base file the sheet was made from (a local file named like a
    built-in included)"."""
    monkeypatch.chdir(tmp_path)
    base = tmp_path / "ringing_steel.rules"
    base.write_text(SMALL, encoding="utf-8")
    house = tmp_path / "house.rules"
    house.write_text('rulebook house "House"\nextends "ringing_steel.rules"\n\n'
                     "formula g(a: 1..3) = a + 1\n", encoding="utf-8")
    for target in ("ringing_steel.rules", "./ringing_steel.rules", str(base)):
        result = invoke("sheet", "house.rules", "-o", target)
        assert_refused(result, "rule file the sheet is made from")
        assert base.read_text(encoding="utf-8") == SMALL


# -- 13. control characters reach the terminal --------------------------------------------------

# A title, a cell, a formula's text and an outcome's, each holding what a terminal obeys: clear the
# screen, set the window title, blink, DEL, and the one-character CSI (U+009B).
ESCAPES = ('rulebook esc "Esc"\n\n'
           'table t "T\x1b[2J" by k:\n  | K | V |\n  | 1 | x |\n\n'
           'formula f(a: 1..3) = "a\x1b]0;pwned\x07b\x7f\x9bc"\n\n'
           'procedure p "P" ():\n  outcome done "D" with (say = "s\x1b[5mt", n = 1)\n')
RAW = (b"\x1b", b"\x07", b"\x7f", b"\xc2\x9b")
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "ringing_steel"


def on_terminal(args: list[str], cwd: Path) -> tuple[int, bytes]:
    """`rulecraft ARGS` with its standard output and error on a terminal (a pseudo-terminal),
    and the bytes the terminal received (its line ends back to `\\n`)."""
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    child = subprocess.Popen([sys.executable, "-c", "from rulecraft.cli import main; main()",
                              *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=slave,
                             stderr=slave)
    os.close(slave)
    received = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    return child.wait(timeout=60), received.replace(b"\r\n", b"\n")


@pytest.fixture
def escapes(tmp_path: Path) -> Path:
    (tmp_path / "esc.rules").write_text(ESCAPES, encoding="utf-8")
    return tmp_path


def assert_shown_not_obeyed(received: bytes, *shown: str) -> None:
    for raw in RAW:
        assert raw not in received, received
    text = received.decode("utf-8")
    for piece in shown:
        assert piece in text, text


@pytest.mark.skipif(os.name != "posix", reason="pseudo-terminals")
@pytest.mark.parametrize(("args", "shown"), [
    (["eval", "esc.rules", "f(1)"], ["a\\x1b]0;pwned\\x07b\\x7f\\x9bc"]),
    (["show", "esc.rules", "t"], ['"T\\x1b[2J"']),
    (["run", "esc.rules", "p"], ["say: s\\x1b[5mt"]),
    (["eval", "esc.rules", 'g("\x1b[2J")'], ["unknown", '"\\x1b[2J"']),  # an error message
])
def test_control_characters_are_shown_on_a_terminal_never_obeyed(escapes, args, shown):
    """"Control characters in rule strings (terminal escape sequences) reach the terminal raw
    from `eval`, `show`, `run`, `fight`: escape them on a terminal." Newlines stay layout."""
    status, received = on_terminal(args, escapes)
    assert status == (1 if args[2].startswith("g(") else 0), received
    assert_shown_not_obeyed(received, *shown)


@pytest.mark.skipif(os.name != "posix", reason="pseudo-terminals")
def test_a_fighter_named_with_control_characters_is_shown_on_a_terminal(tmp_path):
    """The same for `fight`: a fighter's name comes from its file's name."""
    hostile = tmp_path / "a\x1b[2Jb.toml"
    hostile.write_text((EXAMPLES / "swordsman.toml").read_text(encoding="utf-8"),
                       encoding="utf-8")
    status, received = on_terminal(["fight", "ringing_steel", hostile.name,
                                     str(EXAMPLES / "spearman.toml"), "--seed", "1"], tmp_path)
    assert status == 0, received
    assert_shown_not_obeyed(received, "a\\x1b[2Jb")
    assert b"\n" in received.strip() and b"\t" not in received  # lines are still lines


@pytest.mark.skipif(os.name != "posix", reason="pseudo-terminals")
def test_json_on_a_terminal_or_not_holds_no_raw_control_character(escapes):
    """"`--json` output is JSON-escaped already (check)": it was for C0, not for DEL or the C1
    controls (U+0080–U+009F), which json.dumps leaves raw."""
    for status, received in (on_terminal(["eval", "esc.rules", "f(1)", "--json"], escapes),
                             (0, invoke_bytes(["eval", "esc.rules", "f(1)", "--json"], escapes))):
        assert status == 0
        for raw in RAW:
            assert raw not in received, received
        assert json.loads(received)["value"] == "a\x1b]0;pwned\x07b\x7f\x9bc"


def invoke_bytes(args: list[str], cwd: Path) -> bytes:
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", "from rulecraft.cli import main; main()",
                           *args], cwd=cwd, capture_output=True, check=True).stdout


def test_what_goes_to_a_file_or_pipe_is_the_rule_s_text_as_written(escapes):
    """Escaping is for a terminal: piped, `eval` prints the string the rule holds."""
    assert invoke_bytes(["eval", "esc.rules", "f(1)"], escapes) == \
        "a\x1b]0;pwned\x07b\x7f\x9bc\n".encode()


# -- 14. user templates ---------------------------------------------------------------------------

def templates(tmp_path: Path, text: str, name: str = "sheet.html") -> Path:
    """A templates folder holding `text` as `name`."""
    folder = tmp_path / "mine"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def sheet_with(folder: Path, *more: str):
    return invoke("sheet", "ringing_steel", "--templates", str(folder), *more)


@pytest.mark.parametrize(("text", "line", "words"), [
    ("x\n{% for %}\n", 2, ["Expected an expression"]),
    ("x\n\n{{ nope.x }}\n", 3, ["'nope' is undefined"]),
    ("x\n{{ ''.__class__ }}\n", 2, ["unsafe"]),
    ("x\n{{ 1/0 }}\n", 2, ["division by zero"]),
    ("x\n{{ 1 + 'a' }}\n", 2, ["unsupported operand"]),
    ("x\n{{ range(10**6) }}\n", 2, ["MAX_RANGE"]),
    ("{% macro m() %}\n{{ m() }}{% endmacro %}\n{{ m() }}\n", 2, ["call themselves"]),
    ("{% include 'sheet.html' %}\n", 1, ["call themselves"]),
])
def test_a_template_that_fails_is_named_with_its_line(tmp_path, text, line, words):
    """"turn any exception a template raises (TemplateSyntaxError, UndefinedError,
    SecurityError, ZeroDivisionError, RecursionError …) into a clear error naming the template
    file and line, exit 1" (before: ZeroDivisionError, RecursionError, OverflowError and
    TypeError were exit 3, and no error named the file)."""
    folder = templates(tmp_path, text)
    result = sheet_with(folder)
    assert_refused(result, f"{folder / 'sheet.html'}:{line}:", *words)


def test_a_failure_in_an_included_template_names_that_template(tmp_path):
    folder = templates(tmp_path, "{% include 'part.html' %}\n")
    templates(tmp_path, "one\ntwo\n{{ 1/0 }}\n", "part.html")
    assert_refused(sheet_with(folder), f"{folder / 'part.html'}:3:", "division by zero")


@pytest.mark.parametrize("name", ["../secret.txt", "/SECRET", "sub/../../secret.txt"])
def test_a_template_includes_only_files_inside_its_folder(tmp_path, name):
    """"keep `include`/`extends`/`import` inside the templates folder (no `../`, no absolute,
    no symlink out)"."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret\n", encoding="utf-8")
    folder = templates(tmp_path, "{% include '" + name.replace("/SECRET", str(secret)) + "' %}")
    result = sheet_with(folder)
    assert_refused(result, f"{folder / 'sheet.html'}:1:", "inside the templates folder")
    assert "the secret" not in result.output


@pytest.mark.skipif(os.name != "posix", reason="links and FIFOs")
def test_a_template_never_reads_through_a_link_out_or_from_a_pipe(tmp_path):
    """A link in the folder to a file outside it leaked the file into the sheet; a FIFO
    hung the command for ever."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret\n", encoding="utf-8")
    folder = templates(tmp_path, "{% include 'link.html' %}")
    (folder / "link.html").symlink_to(secret)
    result = sheet_with(folder)
    assert_refused(result, "link.html", "inside the templates folder")
    assert "the secret" not in result.output
    os.mkfifo(folder / "pipe.html")
    templates(tmp_path, "{% include 'pipe.html' %}")
    assert_refused(sheet_with(folder), "pipe.html", "not a regular file")
    (folder / "inside.html").write_text("fine", encoding="utf-8")
    (folder / "alias.html").symlink_to(folder / "inside.html")  # a link inside is fine
    templates(tmp_path, "{% include 'alias.html' %}")
    result = sheet_with(folder)
    assert result.exit_code == 0 and result.output == "fine"


def test_the_builtin_templates_are_still_there_to_extend(tmp_path):
    """"the built-in `builtin/…` names still work"."""
    folder = templates(tmp_path, '{% extends "builtin/sheet.md" %}{% block tables %}'
                                 "no tables here{% endblock %}", "sheet.md")
    result = sheet_with(folder, "--format", "md")
    assert result.exit_code == 0, result.output
    assert "# Ringing Steel" in result.output and "no tables here" in result.output
    folder = templates(tmp_path, '{% import "builtin/_macros.html" as m %}{% include '
                                 '"sheet.css" %}')
    assert sheet_with(folder).exit_code == 0


SMALL_RULES = Path(__file__).resolve().parent.parent / "docs" / "examples" / "simple_duel.rules"
NESTED_LOOPS = ("{% for i in range(100000) %}\n{% for j in range(100000) %}{% endfor %}"
                "{% endfor %}\n")
DOUBLING = ('{% set ns = namespace(s="x") %}\n{% for i in range(64) %}'
            "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}\n")
DOUBLING_LISTS = ("{% set ns = namespace(l=[1]) %}\n{% for i in range(64) %}"
                  "{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l }}\n")


@pytest.mark.parametrize(("text", "limit"), [
    # "bound the time (a template loop of range(10**9) — Jinja's sandbox has a range cap but
    # nested loops are not capped"
    (NESTED_LOOPS, "work"),
    ("{% for i in range(100000) %}{% for j in range(100000) %}{{ j }}{% endfor %}"
     "{% endfor %}", "work"),
    ("{% for i in range(100000) %}{{ 'x' * 100000 }}{% endfor %}", "output_bytes"),
    # "bound output size": made inside the template, before any of it is written
    ("{% set x %}{% for i in range(100000) %}{% for j in range(100000) %}"
     "{{ j }}{% endfor %}{% endfor %}{% endset %}", "work"),
    (DOUBLING, "work"),
    (DOUBLING_LISTS, "work"),
    ("{{ 'x' * 10**10 }}", "work"),
    ("{{ 7 ** (10 ** 9) }}", "work"),
    ("{{ ''.replace('', 'x' * 100000) * 0 }}{{ ('y' * 10000).replace('', 'x' * 10000) }}",
     "work"),
    ("{% set l = [1] %}{% for i in range(64) %}{% do l.extend(l) %}{% endfor %}", "work"),
    ("{{ 'x'|center(10**10) }}", "work"),
    ("{{ 'x'.ljust(10**10) }}", "work"),
    ("{{ '%10000000000d'|format(1) }}", "work"),
    # the same bounds by other roads: comparing, hashing, indenting, slicing, scanning,
    # including, squaring and dividing long numbers, recursion, sums of lists
    ("{% set ns = namespace(a=[1], b=[1]) %}{% for i in range(64) %}{% set ns.a = [ns.a, ns.a] %}"
     "{% set ns.b = [ns.b, ns.b] %}{% endfor %}{{ ns.a == ns.b }}", "work"),
    ("{% set ns = namespace(t=(1,)) %}{% for i in range(64) %}{% set ns.t = (ns.t, ns.t) %}"
     "{% endfor %}{{ {ns.t: 1} }}", "work"),
    ("{{ ('\n' * 1000000)|indent(10000) }}", "work"),
    ("{{ range(10)|slice(10000000)|list }}", "work"),
    ("{% set s = 'x' * 10000000 %}{% for i in range(100000) %}{% if 'y' in s %}{% endif %}"
     "{% endfor %}", "work"),
    ("{% set big = [1] * 2000000 %}{% for i in range(100000) %}{{ big.count(1) }}{% endfor %}",
     "work"),
    ("{% for i in range(100000) %}{% include 'sheet.css' %}{% endfor %}", "output_bytes"),
    ("{% set ns = namespace(n=7) %}{% for i in range(64) %}{% set ns.n = ns.n * ns.n %}"
     "{% endfor %}", "work"),
    ("{% set n = 10 ** 400000 %}{% for i in range(100000) %}{% set x = n // 7 %}{% endfor %}",
     "work"),
    ("{% macro m(n) %}{% if n %}{{ m(n-1) }}{{ m(n-1) }}{% endif %}{% endmacro %}{{ m(40) }}",
     "work"),
    # Python's own depth stops this one first, as clearly
    ("{% for i in range(100000) recursive %}{{ loop(range(100000)) }}{% endfor %}", "depth"),
    ("{{ ([[1] * 1000] * 1000)|sum(start=[]) }}", "work"),
])
def test_a_template_is_bounded_in_work_and_output(tmp_path, text, limit):
    """Each refused within the limit it names, in a capped child process; before, each ran for
    minutes or hours, or until memory ran out."""
    folder = templates(tmp_path, text)
    more = ["--limit", "work=1000000000"] if limit == "output_bytes" else []  # printing is work
    # A small rule file: the attack is the template's, whatever the rulebook (loading Ringing
    # Steel in each of these children was half a minute of the suite).
    run = measured(["sheet", str(SMALL_RULES), "--templates", str(folder), *more])
    assert run.returncode == 1, run.output[-2000:]
    said = "more deeply than Python allows" if limit == "depth" else f"limit {limit}"
    assert said in run.stderr, run.stderr
    assert "sheet.html:" in run.stderr or limit == "output_bytes"  # the whole sheet's size
    assert "Traceback" not in run.output
    assert run.peak_mb < 200, run.peak_mb
    assert run.stdout == ""
    print(f"{run.seconds:.2f} s, {run.peak_mb:.0f} MB: {text[:60]!r}")  # for the report
