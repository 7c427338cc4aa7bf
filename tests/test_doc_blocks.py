"""Issue 20: "Every code block in the docs is checked by a test (it compiles, or it runs and
prints what the docs say)".

Every fenced block of README.md and docs/*.md is found and checked; a block this module cannot
check is a failure naming its file:line. How a block is checked is said by an HTML comment on
the line before it, `<!-- check: HOW -->` (or, for ```python, ```sh and a block that is a whole
rulebook, by the block itself):

- `rulebook` — a whole rule file (its first line `rulebook …`), compiled as written;
- `in RB` — a fragment of the built-in rulebook RB, compiled in a house file that extends it (a
  declaration of a name RB has replaces RB's; `in RB, renamed` gives it a name of its own);
- `alone` — a fragment compiled in a rulebook of its own (`alone, over FILE`: after FILE's
  declarations, the plain models of tests/doc_inputs/models.rules);
- `…, given NAME: TYPE, …` — the fragment's steps (lines that declare nothing) are compiled as a
  procedure taking those names; `expressions in RB, given …` makes each line a step `let`;
- `excerpt of RB` (or `excerpt of PATH`) — lines quoted from rulebooks/RB.rules: each line's
  rule text (its comments may be the docs') is found there, in order (a `...` line stands for
  lines left out, a `…` for words), so the quotation compiles because RB does;
- `run` (```sh) — each command is run from a copy of the repository's docs/, examples/ and
  rulebooks/, exits 0, and the block after it marked `output` holds lines it printed; `[--…]`
  marks an optional part of a command, which is left out; `run, A = B` first copies file B to A;
  `run, at most N runs (WHY)` plays fewer fights where a command asks for more (heavy ones);
- `run after setup` — a line of `&&`-joined steps whose `rulecraft` commands are run (the
  steps setting up a virtualenv are CI's, .ci/run);
- `file NAME` (or `file NAME, then `COMMAND``) — the block is written to NAME (a rule file is
  compiled), for later blocks of its page; COMMAND then exits 0;
- `output` — lines printed by the commands of the last block run;
- `output of `COMMAND`` (or `… in DIR`) — lines printed (an error's, often) by COMMAND, run
  after the page's earlier `file` blocks are written (in a copy of tests/doc_inputs/DIR if
  given);
- `session` (or `session in DIR`) — `$ COMMAND` lines, each followed by what it prints;
- `python` — runs;
- `replayed by tests/test_X.py` — played by that test; `<!-- check every block: HOW -->`
  marks every block of its page (docs/tutorial.md is replayed by tests/test_tutorial.py);
- `skip: REASON` — not checked, and why (installing, another program's configuration).

Rule fragments of one rulebook are compiled together, in one house file, and each apart only
when that fails, so the module stays quick."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.dsl.words import DECLARATIONS

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
OPENING = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
MARKER = re.compile(r"^<!-- check: (.*?) -->$")
PAGE_MARKER = re.compile(r"^<!-- check every block: (.*?) -->$", re.M)
DECLARATION = re.compile(r"^(%s)\b ?([^\W\d]\w*)?" % "|".join(DECLARATIONS), re.M)


@attrs.frozen
class Block:
    """A fenced block of a page: where it opens, its language tag, its text and its marker."""

    page: Path
    line: int
    tag: str
    text: str
    marker: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> Iterator[Block]:
    """The page's fenced blocks, as CommonMark reads them (a backtick fence's tag has no
    backtick, so ```` ```rulecraft ```` in a sentence is not one)."""
    lines = page.read_text(encoding="utf-8").split("\n")
    number = 0
    while number < len(lines):
        opened = OPENING.match(lines[number])
        number += 1
        if not opened or ("`" in opened.group(2) and "`" in opened.group(3)):
            continue
        fence, start = opened.group(2), number
        closing = re.compile(r"^ {0,3}%s{%d,}\s*$" % (re.escape(fence[0]), len(fence)))
        while number < len(lines) and not closing.match(lines[number]):
            number += 1
        before = lines[start - 2] if start >= 2 else ""
        marker = MARKER.match(before)
        yield Block(page, start, opened.group(3).strip(), "\n".join(lines[start:number]) + "\n",
                    marker.group(1) if marker else "")
        number += 1


BLOCKS = [block for page in PAGES for block in blocks_of(page)]


def how(block: Block) -> str:
    """How the block is checked: its marker, or what its tag or first line say."""
    if block.marker:
        return block.marker
    whole = PAGE_MARKER.search(block.page.read_text(encoding="utf-8"))
    if whole:
        return whole.group(1)
    if block.tag == "python":
        return "python"
    if block.tag == "sh":
        return "run"
    if re.match(r"(#.*\n|\s*\n)*rulebook ", block.text):
        return "rulebook"
    if block.text.startswith("$ "):
        return "session"
    return ""


# ---- rule text --------------------------------------------------------------------------------


def compile_error(text: str, name: str = "doc.rules") -> str:
    """The compiler's errors for `text`, or "" when it compiles."""
    try:
        rulecraft.compile(text, name)
    except rulecraft.RulecraftError as error:
        return str(error)
    return ""


REPLACEABLE = ("enum", "table", "formula", "combatant", "procedure", "reference", "pattern",
               "unit")


def fragment(block: Block, known: set[str]) -> str:
    """A fragment as a rulebook's text: its declarations (one of a name `known` replacing it,
    or renamed where a house file cannot replace that kind or the marker says `renamed`), and
    its steps in a procedure taking what the marker's `given` says (the names the steps read,
    with their types); `expressions` makes each line a step `let`."""
    kind = how(block)
    given = re.search(r", given (.*)$", kind)
    text = textwrap.dedent(block.text).strip("\n")
    if kind.startswith("expressions"):
        text = "\n".join(f"let value_{n} = {line}" for n, line in enumerate(text.split("\n")))
    declarations, steps, comments = [], [], []
    for chunk in re.split(r"\n(?=\S)", text):
        if chunk.startswith("#"):
            comments.append(chunk)
            continue
        declared = DECLARATION.match(chunk)
        if declared and declared.group(2) in known:
            chunk = ("replace " + chunk if declared.group(1) in REPLACEABLE
                     and "renamed" not in kind else
                     f"{declared.group(0)}_doc_{block.line}" + chunk[declared.end():])
        (declarations if declared else steps).append("\n".join([*comments, chunk]))
        comments = []
    text = "\n".join(declarations) + "\n"
    if steps:
        body = textwrap.indent("\n".join(steps) + "\noutcome checked", "  ")
        text += f"\nprocedure doc_steps_{block.line}({given.group(1) if given else ''}):\n{body}\n"
    return text


def in_rulebook(base: str, fragments: list[Block]) -> str:
    """A house file over `base` holding the fragments."""
    known = {name for _, name in DECLARATION.findall(_rule_text(base))}
    body = "\n".join(fragment(block, known) for block in fragments)
    return f'rulebook doc_check "Doc check"\nextends {base}\n\n{body}'


@cache
def _rule_text(name: str) -> str:
    return (ROOT / "rulebooks" / f"{name}.rules").read_text(encoding="utf-8")


@cache
def fragments_compiled(base: str) -> dict[str, str]:
    """Every `in BASE` fragment's errors by where it is: compiled together, each apart only
    when together fails."""
    mine = [b for b in BLOCKS if re.match(rf"(expressions )?in {base}\b", how(b))]
    together = compile_error(in_rulebook(base, mine))
    if not together:
        return {b.where: "" for b in mine}
    return {b.where: compile_error(in_rulebook(base, [b])) for b in mine}


def check_rules(block: Block, kind: str) -> None:
    if kind == "rulebook":
        error = compile_error(block.text, Path(block.page).stem + ".rules")
    elif kind.split(",")[0] == "alone":
        over = re.search(r", over (\S+)", kind)
        models = (ROOT / over.group(1)).read_text(encoding="utf-8") + "\n" if over else ""
        error = compile_error('rulebook doc_check "Doc check"\n\n' + models +
                              fragment(block, set()))
    elif re.match(r"(expressions )?in ", kind):
        base = kind.split(",")[0].split()[-1]
        error = fragments_compiled(base)[block.where]
    else:
        assert kind.startswith("excerpt of "), f"{block.where}: no such check: {kind}"
        source = kind.split()[2]
        text = ((ROOT / source).read_text(encoding="utf-8") if "/" in source else
                _rule_text(source))
        error = missing_from(without_comments(block.text), text)
    assert not error, f"{block.where}: {error}"


def without_comments(text: str) -> str:
    """Rule text without its comments (an excerpt's may be the docs' own)."""
    lines = (re.sub(r'\s+#[^"]*$', '', line) for line in text.split("\n"))
    return "\n".join(line for line in lines if not line.lstrip().startswith("#"))


def missing_from(quoted: str, text: str) -> str:
    """The first quoted line not found in `text` after the one before it, or "". A line `...`
    stands for lines left out, a `…` in a line for words left out."""
    at, text = 0, re.sub(r"[ \t]+", " ", text)
    for line in re.sub(r"[ \t]+", " ", quoted).strip().split("\n"):
        for piece in (p.strip() for p in line.split("…")):
            if piece in ("...", ""):
                continue
            found = text.find(piece, at)
            if found < 0:
                return f"not found (after what went before): {piece!r}"
            at = found + len(piece)
    return ""


# ---- commands ---------------------------------------------------------------------------------


def commands_of(text: str) -> list[list[str]]:
    """A shell block's commands: continued lines joined, comments and `[…]` parts left out."""
    joined = re.sub(r"\\\n", " ", text)
    commands = []
    for line in joined.split("\n"):
        line = re.sub(r"(?<=\s)\[--[^\]]*\]", "", line)
        words = shlex.split(line, comments=True)
        if words:
            commands.append(words)
    return commands


def run(words: list[str]) -> tuple[int, str]:
    """Exit status and what `words` printed, run in the current folder."""
    if words[0] == "rulecraft":
        result = CliRunner().invoke(cli, words[1:])
        return result.exit_code, result.output
    assert words[0] == "pygmentize", f"not a rulecraft command: {shlex.join(words)}"
    pygmentize = Path(sys.executable).parent / "pygmentize"
    done = subprocess.run([str(pygmentize), *words[1:]], capture_output=True, text=True,
                          timeout=60)
    return done.returncode, done.stdout + done.stderr


@pytest.fixture
def repo_copy(tmp_path, monkeypatch) -> Path:
    """A folder holding copies of the rule, fighter and example files the docs name."""
    for folder in ("docs/examples", "examples", "rulebooks"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def shown_after(block: Block) -> Block | None:
    """The block after `block` on its page, when marked as its output."""
    later = [b for b in BLOCKS if b.page == block.page and b.line > block.line]
    return later[0] if later and how(later[0]) == "output" else None


def check_shown(block: Block, said: str, shown: str) -> None:
    """Every line shown was printed, in order (`...` and `…` as in an excerpt)."""
    missing = missing_from(shown, said)
    assert not missing, f"{block.where}: {missing}, in what was printed:\n{said}"


def check_run(block: Block, kind: str) -> None:
    for copy in re.findall(r"([^\s,]+) = ([^\s,]+)", kind):
        shutil.copy(copy[1], copy[0])
    fewer = re.search(r"at most (\d+) runs", kind)
    said = ""
    for words in commands_of(block.text):
        if fewer and "--runs" in words:
            at = words.index("--runs") + 1
            words[at] = str(min(int(words[at]), int(fewer.group(1))))
        status, output = run(words)
        assert status == 0, f"{block.where}: {shlex.join(words)} exited {status}:\n{output}"
        assert "Traceback" not in output, f"{block.where}: {output}"
        said += output
    shown = shown_after(block)
    if shown is not None:
        check_shown(shown, said, shown.text)


def inputs(folder: str, tmp_path: Path) -> None:
    """Work in a copy of tests/doc_inputs/FOLDER (when named)."""
    if folder:
        shutil.copytree(ROOT / "tests" / "doc_inputs" / folder, tmp_path / "inputs")
        os.chdir(tmp_path / "inputs")


def write_files_before(block: Block) -> None:
    """The page's `file` blocks before `block`, written as named."""
    for earlier in BLOCKS:
        named = re.match(r"file (\S+?),?( then|$)", how(earlier))
        if earlier.page == block.page and earlier.line < block.line and named:
            Path(named.group(1)).parent.mkdir(parents=True, exist_ok=True)
            Path(named.group(1)).write_text(earlier.text, encoding="utf-8")


def check_file(block: Block, kind: str) -> None:
    found = re.fullmatch(r"file (\S+?)(?:, then `(.*)`)?", kind)
    assert found, f"{block.where}: write `file NAME` or `file NAME, then `COMMAND``"
    write_files_before(block)
    name = Path(found.group(1))
    name.parent.mkdir(parents=True, exist_ok=True)
    name.write_text(block.text, encoding="utf-8")
    if name.suffix == ".rules":
        error = compile_error(block.text, name.name)
        assert not error, f"{block.where}: {error}"
    for words in commands_of(found.group(2) or ""):
        status, output = run(words)
        assert status == 0, f"{block.where}: {shlex.join(words)} exited {status}:\n{output}"


def check_output_of(block: Block, kind: str, tmp_path: Path) -> None:
    found = re.fullmatch(r"output of `(.*)`(?: in (\S+))?", kind)
    assert found, f"{block.where}: write `output of `COMMAND`` or `output of `COMMAND` in DIR`"
    write_files_before(block)
    inputs(found.group(2) or "", tmp_path)
    said = "".join(run(words)[1] for words in commands_of(found.group(1)))
    check_shown(block, said, block.text)


def check_session(block: Block, kind: str, tmp_path: Path) -> None:
    inputs(kind.removeprefix("session").removeprefix(" in "), tmp_path)
    parts = re.split(r"^\$ (.*)$", block.text, flags=re.M)
    for command, shown in zip(parts[1::2], parts[2::2]):
        said = "".join(run(words)[1] for words in commands_of(command))
        check_shown(block, said, shown)


# ---- the test ---------------------------------------------------------------------------------


# docs/language.md's blocks are checked by tests/test_doc_blocks_language.py: a test file goes
# to one worker (`--dist loadfile`), and the two halves take about as long.
LANGUAGE = ROOT / "docs" / "language.md"
OTHERS = [b for b in BLOCKS if b.page != LANGUAGE]


@pytest.mark.parametrize("block", OTHERS, ids=[b.where for b in OTHERS])
def test_every_block_in_the_docs_is_checked(block: Block, repo_copy: Path) -> None:
    check_block(block, repo_copy)


def check_block(block: Block, repo_copy: Path) -> None:
    """A block checked as the comment before it says (the module's docstring)."""
    kind = how(block)
    assert kind, (f"{block.where}: a block no test checks — mark how with "
                  "`<!-- check: … -->` on the line before it (see tests/test_doc_blocks.py)")
    if kind == "python":
        exec(compile(block.text, block.where, "exec"), {})  # our own documentation
    elif kind == "run after setup":
        steps = [step for step in block.text.split("&&") if step.split()[0] == "rulecraft"]
        check_run(attrs.evolve(block, text="\n".join(steps)), "run")
    elif kind == "run" or kind.startswith("run,"):
        check_run(block, kind)
    elif kind == "output":
        pass  # checked with the block it follows
    elif kind.startswith("output of"):
        check_output_of(block, kind, repo_copy)
    elif kind.startswith("session"):
        check_session(block, kind, repo_copy)
    elif kind.startswith("file "):
        check_file(block, kind)
    elif kind.startswith("skip: "):
        assert len(kind) > len("skip: ") + 10, f"{block.where}: say why it is not checked"
    elif kind.startswith("replayed by "):
        test = ROOT / kind.split()[2]
        assert test.exists() and block.page.name in test.read_text(encoding="utf-8"), block.where
    else:
        check_rules(block, kind)


RULE_TEXT = re.compile(r"(rulebook$|alone|in |expressions in |excerpt of |file \S+\.rules)")


def test_rule_blocks_are_fenced_rulecraft_for_the_lexer():
    """"a Pygments lexer used for the docs": mkdocs colours a block fenced ```rulecraft with
    dsl/highlight.py's lexer (mkdocs.yml, codehilite)."""
    unfenced = [b.where for b in BLOCKS if RULE_TEXT.match(how(b)) and b.tag != "rulecraft"]
    assert unfenced == []


def test_an_output_block_follows_the_commands_it_shows():
    for block in BLOCKS:
        if how(block) == "output":
            before = [b for b in BLOCKS if b.page == block.page and b.line < block.line]
            assert before and how(before[-1]).startswith("run"), block.where


def test_a_fence_in_a_sentence_is_not_a_block(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("fence rule text as\n```` ```rulecraft ````.\n\n```sh\nrulecraft list\n```\n",
                    encoding="utf-8")
    assert [(b.line, b.tag, b.text) for b in blocks_of(page)] == [(4, "sh", "rulecraft list\n")]


def test_an_unmarked_block_is_a_failure_naming_its_line(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n\n```\nsome words\n```\n", encoding="utf-8")
    assert [how(b) for b in blocks_of(page)] == [""]
