"""The `rulecraft` command: a thin click layer over the façade. Exit 0 ok, 1 rule error, 2 usage."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

import click

from rulecraft.compiler.evaluate import parse_dice_text
from rulecraft.runtime.dice import ScriptedDice, SeededDice
from rulecraft.runtime.errors import RangeError, RulecraftError
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.results import jsonable
from rulecraft.runtime.tables import Record
from rulecraft.runtime.values import display, to_public

from . import api


def _fail(err: RulecraftError, as_json: bool = False) -> None:
    """Report a rule error on stderr (as JSON for --json) and exit 1."""
    if as_json:
        errors = getattr(err, "errors", [err])
        click.echo(json.dumps({"errors": [
            {"kind": type(e).__name__, "message": e.message, "file": e.filename, "line": e.line,
             "column": e.column, "text": str(e)} for e in errors]}, indent=2, ensure_ascii=False),
            err=True)
    else:
        click.echo(str(err), err=True)
    sys.exit(1)


def _emit(data: Any, as_json: bool, text: str) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False) if as_json else text)


def _parse_limits(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> Limits:
    """`--limit NAME=N`, repeatable, as Limits; a bad name or number is a usage error (exit 2)."""
    changes: dict[str, int] = {}
    for text in values:
        name, _, number = text.partition("=")
        name, number = name.strip(), number.strip()
        if name not in Limits.names():
            raise click.BadParameter(f"{text!r}: there is no limit called {name!r}; the limits "
                                     f"are {', '.join(Limits.names())}")
        if not re.fullmatch(r"[0-9]{1,18}", number):
            raise click.BadParameter(f"{text!r}: give {name}=N with N a whole number of 1 or more")
        changes[name] = int(number)
    try:
        return DEFAULT_LIMITS.raised(**changes)
    except RangeError as err:
        raise click.BadParameter(err.message) from None


limit_option = click.option(
    "--limit", "limits", multiple=True, metavar="NAME=N", callback=_parse_limits,
    help="Set a safety limit for this command, e.g. --limit enumeration_paths=2000000 "
         "(repeatable). Limits: " + ", ".join(Limits.names()) + ".")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rulecraft")
def cli() -> None:
    """rulecraft: tabletop combat rules as data. Check rule files, look up their tables,
    evaluate their formulas, roll dice and resolve procedures such as a melee attack."""


@cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@limit_option
def list_(as_json: bool, limits: Limits) -> None:
    """List the built-in rulebooks."""
    names = api.builtin_rulebooks()
    rows: list[dict[str, Any]] = []
    for name in names:
        try:
            rb = api.load(name, limits)
        except RulecraftError as err:
            _fail(err, as_json)
            return
        rows.append({"name": name, "title": rb.title, "tables": len(rb.tables),
                     "formulas": len(rb.formulas), "procedures": len(rb.procedures)})
    text = "\n".join(f"{r['name']:<16} {r['title']} ({_count(r['tables'], 'table')}, "
                     f"{_count(r['formulas'], 'formula')}, {_count(r['procedures'], 'procedure')})"
                     for r in rows)
    _emit(rows, as_json, text)


@cli.command()
@click.argument("files", nargs=-1, required=True)
@limit_option
def check(files: tuple[str, ...], limits: Limits) -> None:
    """Check rule files (paths or built-in names); report every error with a caret.

    Exit status 0 when all are clean, 1 when any has errors."""
    failed = False
    for name in files:
        try:
            rb = api.load(name, limits)
        except RulecraftError as err:
            click.echo(str(err), err=True)
            failed = True
            continue
        click.echo(f"{name}: ok — {_count(len(rb.tables), 'table')}, "
                   f"{_count(len(rb.formulas), 'formula')}, "
                   f"{_count(len(rb.procedures), 'procedure')}")
    sys.exit(1 if failed else 0)


@cli.command("fmt")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--check", is_flag=True, help="Change nothing; exit 1 if a file is not formatted.")
@click.option("--write", is_flag=True, help="Rewrite the files in place.")
@limit_option
def fmt(files: tuple[str, ...], check: bool, write: bool, limits: Limits) -> None:
    """Print rule files in the canonical layout: tables aligned, comments kept.

    Without --write the result goes to standard output. A file with any error (whatever
    `rulecraft check` reports) is never rewritten: its errors are shown and the status is 1."""
    failed = False
    for name in files:
        filename = str(Path(name))
        try:
            formatted, text = _formatted(filename, limits)
        except RulecraftError as err:
            click.echo(str(err), err=True)
            failed = True
            continue
        if check:
            if formatted != text:
                click.echo(f"{name}: not formatted", err=True)
                failed = True
        elif write:
            if formatted != text:
                try:
                    _replace(Path(name), formatted)
                except OSError as err:
                    click.echo(f"cannot write {api.shown(name)}: "
                               f"{(err.strerror or str(err)).lower()}; it is left as it was",
                               err=True)
                    failed = True
                    continue
                click.echo(f"{name}: formatted")
        else:
            click.echo(formatted, nl=False)
    sys.exit(1 if failed else 0)


def _formatted(filename: str, limits: Limits) -> tuple[str, str]:
    """A rule file's text formatted, and as read; RulecraftError if it has any error at all."""
    text = api.read_rule_file(filename, limits)
    api.compile(text, filename, limits)  # what `check` does: the errors point into the file
    formatted = api.format_rules(text, filename, limits)
    try:
        api.compile(formatted, filename, limits)  # never write a file that no longer compiles
    except RulecraftError as err:
        raise RulecraftError(f"{filename}: the formatted text would not compile, so the file is "
                             "left as it is (a bug in rulecraft's formatter; please report it)\n"
                             f"{err}") from None
    return formatted, text


def _replace(path: Path, text: str) -> None:
    """Write a fresh file beside the file, then rename it over it: a reader never sees half a
    file, and a crash or Ctrl-C leaves the old one whole.

    The temporary file has an unpredictable name and is created exclusively, so nothing planted
    beside the file is ever followed or written. A link given as the file is followed (the file
    it names is rewritten) and that file keeps its permissions."""
    target = Path(os.path.realpath(path))
    mode = stat.S_IMODE(target.stat().st_mode)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".rulecraft-tmp",
                                     dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            # mkstemp made it 0600: give it the file's own permissions before it takes its place
            os.chmod(out.fileno() if os.chmod in os.supports_fd else temporary, mode)
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:  # KeyboardInterrupt too: never leave the temporary file behind
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable where folders sync
        folder = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


@cli.command("eval")
@click.argument("rulebook")
@click.argument("expression")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@limit_option
def eval_(rulebook: str, expression: str, as_json: bool, limits: Limits) -> None:
    """Evaluate EXPRESSION in a rulebook: a formula call or a table lookup.

    Examples: 'skill(12, 5, "Standard")', 'wounds[5, "Head"]'."""
    try:
        value = api.evaluate(api.load(rulebook, limits), expression, limits)
    except RulecraftError as err:
        _fail(err, as_json)
        return
    shown = value.as_dict() if isinstance(value, Record) else value
    _emit({"expression": expression, "value": jsonable(shown)}, as_json, display(shown))


@cli.command()
@click.argument("dice")
@click.option("--seed", type=int, default=None, help="Seed for reproducible rolls.")
@click.option("--explain", is_flag=True, help="Show every die.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@limit_option
def roll(dice: str, seed: int | None, explain: bool, as_json: bool, limits: Limits) -> None:
    """Roll DICE such as d20, 3d6, 2d4+12 or 4d6kh3 (keep highest 3)."""
    try:
        parsed = parse_dice_text(dice, limits)
        total, faces = SeededDice(seed, limits).roll(parsed)
    except RulecraftError as err:
        _fail(err, as_json)
        return
    text = str(to_public(total))
    if explain:
        text = f"{parsed}: {', '.join(map(str, faces)) or 'no dice'} → {text}"
    _emit({"dice": str(parsed), "total": to_public(total), "faces": list(faces)}, as_json, text)


@cli.command()
@click.argument("rulebook")
@click.argument("procedure")
@click.argument("arguments", nargs=-1)
@click.option("--seed", type=int, default=None, help="Seed for reproducible dice.")
@click.option("--dice", "scripted", default=None, help="Scripted dice, one per die: 17,4")
@click.option("--trace", is_flag=True, help="Show every roll, value, choice and branch.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@limit_option
def run(rulebook: str, procedure: str, arguments: tuple[str, ...], seed: int | None,
        scripted: str | None, trace: bool, as_json: bool, limits: Limits) -> None:
    """Run PROCEDURE of RULEBOOK. ARGUMENTS are party.field=value for combatants
    (attacker.strength=12, attacker.training.Sword=5), party=@file.json for a whole combatant,
    and name=value for choices (defence="Active Dodge"). A value is a number, true or false,
    or text; quotes that reach rulecraft keep it text ('name="12"' in a shell)."""
    if seed is not None and scripted is not None:
        raise click.UsageError("give --seed or --dice, not both")
    try:
        rb, proc = _procedure(rulebook, procedure, limits)
        kwargs, choices = _arguments(rb, proc, arguments, limits)
        dice = (SeededDice(seed, limits) if scripted is None
                else ScriptedDice(_dice_list(scripted), limits))
        result = proc.run(dice=dice, choices=choices, limits=limits, **kwargs)
    except RulecraftError as err:
        _fail(err, as_json)
        return
    if isinstance(dice, ScriptedDice) and dice.unused:
        click.echo(f"note: {len(dice.unused)} scripted dice were not needed: "
                   f"{', '.join(map(str, dice.unused))}", err=True)
    if as_json:
        data = result.as_json()
        if not trace:
            data.pop("trace")
        _emit(data, True, "")
        return
    lines = [f"{result.outcome.name}"]
    lines += [f"  {k}: {display(v) if v is not None else '-'}"
              for k, v in ((k, result.outcome[k]) for k in result.outcome)]
    if trace:
        lines += ["trace:"] + [f"  {entry}" for entry in result.trace]
    click.echo("\n".join(lines))


@cli.command()
@click.argument("rulebook")
@click.argument("procedure")
@click.argument("arguments", nargs=-1)
@click.option("--by", "by", default="outcome", show_default=True,
              help="Group by the outcome's name or by one of its values (e.g. wound).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@limit_option
def odds(rulebook: str, procedure: str, arguments: tuple[str, ...], by: str,
         as_json: bool, limits: Limits) -> None:
    """Exact odds of PROCEDURE's outcomes: every path of the dice, each with its probability.

    ARGUMENTS are given as for `run`; choices not given take their defaults."""
    try:
        rb, proc = _procedure(rulebook, procedure, limits)
        kwargs, choices = _arguments(rb, proc, arguments, limits)
        table = proc.odds(by=by, choices=choices, limits=limits, **kwargs)
    except RulecraftError as err:
        _fail(err, as_json)
        return
    rows = sorted(table.items(), key=lambda kv: (-kv[1], str(kv[0])))
    data = [{by: jsonable(k), "probability": str(p), "percent": float(p * 100)} for k, p in rows]
    text = "\n".join(f"{display(k) or '(none)':<24} {str(p):>12}  {float(p * 100):6.2f}%"
                     for k, p in rows)
    _emit(data, as_json, text)


def _procedure(rulebook: str, procedure: str, limits: Limits) -> tuple[Any, Any]:
    """A rulebook and one of its procedures, or a RangeError naming the procedures it has."""
    rb = api.load(rulebook, limits)
    proc = rb.procedures.get(procedure)
    if proc is None:
        raise RangeError(f"rulebook {rulebook} has no procedure {procedure!r} "
                         f"(it has: {', '.join(rb.procedures)})")
    return rb, proc


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _dice_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise RangeError(f"--dice takes whole numbers separated by commas, like 17,4; got {text!r}")


# A number as a person types one: digits, a point, an exponent. `inf`, `nan` and `1_000` are
# not numbers here (float() would take them); they stay text for the rule's type check.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# `run`'s and `odds`' own keywords: a name=value using one goes in as a choice (and is refused
# there unless the procedure has such a choice), never as a clashing keyword argument.
_RESERVED = frozenset({"dice", "seed", "choices", "by", "limits"})


def _value(name: str, text: str, limits: Limits) -> Any:
    """A value typed on the command line: a finite number, true or false, or else text."""
    word = text.strip()
    if word.lower() in ("true", "false"):
        return word.lower() == "true"
    if _NUMBER.fullmatch(word):
        mantissa = re.split("[eE]", word)[0]
        if sum(c.isdigit() for c in mantissa) > limits.number_digits:
            raise RangeError(f"{name}={text}: a number of more than {limits.number_digits} "
                             f"digits {Limits.hint('number_digits')}")
        if re.fullmatch(r"[+-]?[0-9]+", word):
            return int(word)
        number = float(word)
        if not math.isfinite(number):
            raise RangeError(f"{name}={text}: the number is too large to be a value")
        return number
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _sheet(party: str, filename: str, limits: Limits) -> dict[str, Any]:
    """One combatant from a JSON file: a bounded read of a regular file, finite numbers only."""
    def refused(reason: str) -> RangeError:
        return RangeError(f"cannot read combatant {party} from {api.shown(filename)}: {reason}")

    def whole(literal: str) -> int:
        if len(literal.lstrip("-")) > limits.number_digits:
            raise ValueError(f"a number of more than {limits.number_digits} digits "
                             f"{Limits.hint('number_digits')}")
        return int(literal)

    def finite(literal: str) -> float:
        number = float(literal)
        if not math.isfinite(number):
            raise ValueError(f"{literal} is too large a number")
        return number

    def constant(word: str) -> None:
        raise ValueError(f"{word} is not a number; give a finite number")

    too_deep = (f"its values are nested more than {limits.input_depth} deep "
                f"{Limits.hint('input_depth')}")
    try:
        text = api.read_bounded(filename, limits.input_bytes, "input_bytes").decode("utf-8-sig")
        sheet = json.loads(text, parse_int=whole, parse_float=finite, parse_constant=constant)
    except UnicodeDecodeError:
        raise refused("it is not UTF-8 text") from None
    except RecursionError:  # nested past what Python's own stack takes
        raise refused(too_deep) from None
    except ValueError as err:
        raise refused(str(err)) from None
    if _depth(sheet, limits.input_depth) > limits.input_depth:
        raise refused(too_deep)
    if not isinstance(sheet, dict):
        raise RangeError(f"{api.shown(filename)} must hold one combatant as a JSON object "
                         '({"strength": 12, ...})')
    return sheet


def _depth(value: Any, enough: int) -> int:
    """How deeply lists and objects nest in a JSON value (without recursion), up to enough + 1."""
    deepest, stack = 0, [(value, 1)]
    while stack and deepest <= enough:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1)
                         for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _arguments(rb: Any, proc: Any, arguments: tuple[str, ...],
               limits: Limits) -> tuple[dict[str, Any], dict[str, Any]]:
    """Keyword arguments (combatants, parameters) and choices for `run` and `odds`."""
    parties: dict[str, dict[str, Any]] = {}
    plain: dict[str, Any] = {}
    for arg in arguments:
        if "=" not in arg:
            raise RangeError(f"arguments are name=value or party.field=value; got {arg!r}")
        name, value = arg.split("=", 1)
        if value.startswith("@"):
            parties.setdefault(name, {}).update(_sheet(name, value[1:], limits))
            continue
        path = name.split(".")
        if len(path) == 1:
            plain[name] = _value(name, value, limits)
            continue
        if len(path) > limits.input_depth:
            raise RangeError(f"{name}: fields nested more than {limits.input_depth} deep "
                             f"{Limits.hint('input_depth')}")
        target = parties.setdefault(path[0], {})
        for depth, key in enumerate(path[1:-1], start=2):
            target = target.setdefault(key, {})
            if not isinstance(target, dict):
                raise RangeError(f"{name}={value}: {'.'.join(path[:depth])} is a value, "
                                 "not a set of fields")
        target[path[-1]] = _value(name, value, limits)
    for p in proc.params:
        if p.type.kind == "combatant" and p.name in parties:
            plain[p.name] = rb.combatant(**parties.pop(p.name))
    if parties:
        raise RangeError(f"procedure {proc.name} has no combatant {', '.join(parties)!s}")
    choices = {k: plain.pop(k) for k in list(plain)
               if k in proc.choice_names or k in _RESERVED}
    return plain, choices


def main() -> None:
    """Console entry point: rule errors exit 1 with a caret; nothing else may show a traceback."""
    failure = ""
    try:
        cli.main(standalone_mode=True)
    except RulecraftError as err:  # pragma: no cover - commands catch their own
        _fail(err)
    except MemoryError:
        failure = "MemoryError: out of memory"  # told once the frames that held it are gone
    except Exception as err:  # noqa: BLE001 - last line of defence: never a raw traceback
        failure = f"{type(err).__name__}: {err}"[:2000]  # RecursionError too
    if failure:
        click.echo(f"rulecraft: internal error: {failure}\n"
                   "This is a bug in rulecraft, not in your rule file; please report it.",
                   err=True)
        sys.exit(3)
