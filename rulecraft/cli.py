"""The `rulecraft` command: a thin click layer over the façade. Exit 0 ok, 1 rule error, 2 usage."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from rulecraft.compiler.evaluate import parse_dice_text
from rulecraft.runtime.dice import ScriptedDice, SeededDice
from rulecraft.runtime.errors import RangeError, RulecraftError
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rulecraft")
def cli() -> None:
    """rulecraft: tabletop combat rules as data. Check rule files, look up their tables,
    evaluate their formulas, roll dice and resolve procedures such as a melee attack."""


@cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
def list_(as_json: bool) -> None:
    """List the built-in rulebooks."""
    names = api.builtin_rulebooks()
    rows: list[dict[str, Any]] = []
    for name in names:
        rb = api.load(name)
        rows.append({"name": name, "title": rb.title, "tables": len(rb.tables),
                     "formulas": len(rb.formulas), "procedures": len(rb.procedures)})
    text = "\n".join(f"{r['name']:<16} {r['title']} ({_count(r['tables'], 'table')}, "
                     f"{_count(r['formulas'], 'formula')}, {_count(r['procedures'], 'procedure')})"
                     for r in rows)
    _emit(rows, as_json, text)


@cli.command()
@click.argument("files", nargs=-1, required=True)
def check(files: tuple[str, ...]) -> None:
    """Check rule files (paths or built-in names); report every error with a caret.

    Exit status 0 when all are clean, 1 when any has errors."""
    failed = False
    for name in files:
        try:
            rb = api.load(name)
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
def fmt(files: tuple[str, ...], check: bool, write: bool) -> None:
    """Print rule files in the canonical layout: tables aligned, comments kept.

    Without --write the result goes to standard output. A file with errors is left alone."""
    untidy = False
    for name in files:
        path = Path(name)
        try:
            text = path.read_text(encoding="utf-8-sig")
            formatted = api.format_rules(text, str(path))
            api.compile(formatted, str(path))  # never write a file that no longer compiles
        except (OSError, UnicodeDecodeError) as err:
            raise click.ClickException(f"cannot read {name}: {err}") from None
        except RulecraftError as err:
            _fail(err)
            return
        if check:
            if formatted != text:
                click.echo(f"{name}: not formatted", err=True)
                untidy = True
        elif write:
            if formatted != text:
                _replace(path, formatted)
                click.echo(f"{name}: formatted")
        else:
            click.echo(formatted, nl=False)
    sys.exit(1 if untidy else 0)


def _replace(path: Path, text: str) -> None:
    """Write beside the file, then rename over it: a reader never sees half a file.

    A link is followed (the file it names is rewritten) and the file keeps its permissions."""
    target = path.resolve()
    temporary = target.with_name(f".{target.name}.rulecraft-tmp")
    temporary.write_text(text, encoding="utf-8")
    shutil.copymode(target, temporary)
    temporary.replace(target)


@cli.command("eval")
@click.argument("rulebook")
@click.argument("expression")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
def eval_(rulebook: str, expression: str, as_json: bool) -> None:
    """Evaluate EXPRESSION in a rulebook: a formula call or a table lookup.

    Examples: 'skill(12, 5, "Standard")', 'wounds[5, "Head"]'."""
    try:
        value = api.evaluate(api.load(rulebook), expression)
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
def roll(dice: str, seed: int | None, explain: bool, as_json: bool) -> None:
    """Roll DICE such as d20, 3d6, 2d4+12 or 4d6kh3 (keep highest 3)."""
    try:
        parsed = parse_dice_text(dice)
        total, faces = SeededDice(seed).roll(parsed)
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
def run(rulebook: str, procedure: str, arguments: tuple[str, ...], seed: int | None,
        scripted: str | None, trace: bool, as_json: bool) -> None:
    """Run PROCEDURE of RULEBOOK. ARGUMENTS are party.field=value for combatants
    (attacker.strength=12, attacker.training.Sword=5), party=@file.json for a whole combatant,
    and name=value for choices (defence="Active Dodge")."""
    if seed is not None and scripted is not None:
        raise click.UsageError("give --seed or --dice, not both")
    try:
        rb, proc = _procedure(rulebook, procedure)
        kwargs = _arguments(rb, proc, arguments)
        dice = SeededDice(seed) if scripted is None else ScriptedDice(_dice_list(scripted))
        result = proc.run(dice=dice, **kwargs)
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
def odds(rulebook: str, procedure: str, arguments: tuple[str, ...], by: str,
         as_json: bool) -> None:
    """Exact odds of PROCEDURE's outcomes: every path of the dice, each with its probability.

    ARGUMENTS are given as for `run`; choices not given take their defaults."""
    try:
        rb, proc = _procedure(rulebook, procedure)
        table = proc.odds(by=by, **_arguments(rb, proc, arguments))
    except RulecraftError as err:
        _fail(err, as_json)
        return
    rows = sorted(table.items(), key=lambda kv: (-kv[1], str(kv[0])))
    data = [{by: jsonable(k), "probability": str(p), "percent": float(p * 100)} for k, p in rows]
    text = "\n".join(f"{display(k) or '(none)':<24} {str(p):>12}  {float(p * 100):6.2f}%"
                     for k, p in rows)
    _emit(data, as_json, text)


def _procedure(rulebook: str, procedure: str) -> tuple[Any, Any]:
    """A rulebook and one of its procedures, or a RangeError naming the procedures it has."""
    rb = api.load(rulebook)
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


def _value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _arguments(rb: Any, proc: Any, arguments: tuple[str, ...]) -> dict[str, Any]:
    parties: dict[str, dict[str, Any]] = {}
    plain: dict[str, Any] = {}
    for arg in arguments:
        if "=" not in arg:
            raise RangeError(f"arguments are name=value or party.field=value; got {arg!r}")
        name, value = arg.split("=", 1)
        if value.startswith("@"):
            try:
                sheet = json.loads(Path(value[1:]).read_text(encoding="utf-8"))
            except (OSError, ValueError) as err:
                raise RangeError(f"cannot read combatant {name} from {value[1:]}: {err}") from None
            if not isinstance(sheet, dict):
                raise RangeError(f"{value[1:]} must hold one combatant as a JSON object "
                                 '({"strength": 12, ...})')
            parties.setdefault(name, {}).update(sheet)
            continue
        path = name.split(".")
        if len(path) == 1:
            plain[name] = _value(value)
            continue
        target = parties.setdefault(path[0], {})
        for key in path[1:-1]:
            target = target.setdefault(key, {})
        target[path[-1]] = _value(value)
    for p in proc.params:
        if p.type.kind == "combatant" and p.name in parties:
            plain[p.name] = rb.combatant(**parties.pop(p.name))
    if parties:
        raise RangeError(f"procedure {proc.name} has no combatant {', '.join(parties)!s}")
    return plain


def main() -> None:
    """Console entry point: rule errors exit 1 with a caret; nothing else may show a traceback."""
    try:
        cli.main(standalone_mode=True)
    except RulecraftError as err:  # pragma: no cover - commands catch their own
        _fail(err)
    except Exception as err:  # noqa: BLE001 - last line of defence: never a raw traceback
        click.echo(f"rulecraft: internal error: {type(err).__name__}: {err}\n"
                   "This is a bug in rulecraft, not in your rule file; please report it.", err=True)
        sys.exit(3)
