"""The `rulecraft` command: a thin click layer over the façade.

Exit 0 ok, 1 an error in a rule file or in what was asked, 2 a misused command, 3 a bug."""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

import click

from rulecraft.runtime.dice import ScriptedDice, SeededDice
from rulecraft.runtime.errors import RangeError, RulecraftError
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.work import budget
from rulecraft.runtime.tables import Record
from rulecraft.runtime.values import display, to_public

from .lazy import lazy

# Imported by the commands that use them, when first used: `roll` and `list` never load the
# compiler, `--help` nothing at all.
api = lazy("rulecraft.api")
show_ = lazy("rulecraft.show")
parse_dice_text = lazy("rulecraft.runtime.rolls", "dice")
dice_list = lazy("rulecraft.arguments", "dice_list")
procedure_arguments = lazy("rulecraft.arguments", "procedure_arguments")
value_of = lazy("rulecraft.arguments", "value_of")
in_order = lazy("rulecraft.odds_order", "in_order")
entry_text = lazy("rulecraft.show_text", "entry_text")
jsonable = lazy("rulecraft.runtime.results", "jsonable")
overview_text = lazy("rulecraft.show_text", "overview_text")


def _fail(err: RulecraftError, as_json: bool = False) -> None:
    """Report a rule error on stderr (as JSON for --json) and exit 1."""
    if as_json:
        from .output import json_text

        errors = getattr(err, "errors", [err])
        click.echo(json_text({"errors": [
            {"kind": type(e).__name__, "message": e.message, "file": e.filename, "line": e.line,
             "column": e.column, "text": str(e)} for e in errors]}), err=True)
    else:
        click.echo(str(err), err=True)
    sys.exit(1)


def _emit(data: Any, as_json: bool, text: str) -> None:
    if as_json:
        from .output import json_text  # for --json alone: a command's start is its imports

        text = json_text(data)
    click.echo(text)


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
        limits = DEFAULT_LIMITS.raised(**changes)
    except RangeError as err:
        raise click.BadParameter(err.message) from None
    # One budget of work for the whole command (runtime/work.py), closed when it ends.
    ctx.with_resource(budget(limits))
    return limits


limit_option = click.option(
    "--limit", "limits", multiple=True, metavar="NAME=N", callback=_parse_limits,
    help="Set a safety limit for this command, e.g. --limit enumeration_paths=2000000 "
         "(repeatable). Limits: " + ", ".join(Limits.names()) + ".")


def _keep_bases(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> None:
    """Keep `--bases DIR` for `_bases()`: the commands' own signatures stay as they were."""
    ctx.meta["rulecraft.bases"] = values


bases_option = click.option(
    "--bases", multiple=True, metavar="DIR", expose_value=False, callback=_keep_bases,
    type=click.Path(exists=True, file_okay=False),
    help="A folder the bases of a house file (extends \"PATH\") may also be read from "
         "(repeatable); without it, only the house file's own folder.")


def _bases() -> tuple[str, ...]:
    """The folders given with --bases to this command (the house file's own is always one)."""
    return click.get_current_context().meta.get("rulecraft.bases", ())


def _load(rulebook: str, limits: Limits) -> Any:
    """A rulebook by name or path, its bases read from where this command allows."""
    return api.load(rulebook, limits, _bases())


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
    from .listing import builtin_rulebooks, summary  # read, not compiled

    rows: list[dict[str, Any]] = []
    for name in builtin_rulebooks():
        try:
            rows.append(summary(name, limits))
        except RulecraftError as err:
            _fail(err, as_json)
            return
    text = "\n".join(f"{r['name']:<16} {r['title']} ({_count(r['tables'], 'table')}, "
                     f"{_count(r['formulas'], 'formula')}, {_count(r['procedures'], 'procedure')})"
                     for r in rows)
    _emit(rows, as_json, text)


@cli.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--rulebook", "rulebook", metavar="RULEBOOK", help="Check fighter files (.toml) "
              "against this rulebook's combatant models.")
@bases_option
@limit_option
def check(files: tuple[str, ...], rulebook: str | None, limits: Limits) -> None:
    """Check rule files (paths or built-in names) and fighter files; report every error.

    A rule file's errors come with a caret under the rule; a fighter file (.toml) is checked
    against --rulebook's combatant model (or the one its `model = "…"` names), each error with
    the file, the line and the field.

    Exit status 0 when all are clean, 1 when any has errors.

    \b
    Examples:
      rulecraft check rules/mine.rules
      rulecraft check examples/ringing_steel/swordsman.toml --rulebook ringing_steel"""
    failed = False
    book = None
    for name in files:
        try:
            if name.endswith(".toml"):
                if rulebook is None:
                    raise RangeError(f"{name} is a fighter file: say which rulebook it is for, "
                                     "with --rulebook RULEBOOK")
                book = book or _load(rulebook, limits)
                from rulecraft.fight import read_fighter

                fighter = read_fighter(book, name, limits=limits)
                click.echo(f"{name}: ok — a {fighter.model.name} of {book.name}")
                continue
            rb = _load(name, limits)
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
@bases_option
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
    # what `check` does: the errors point into the file
    api.compile(text, filename, limits, _bases())
    formatted = api.format_rules(text, filename, limits)
    try:
        # never write a file that no longer compiles
        api.compile(formatted, filename, limits, _bases())
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
    import tempfile

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
@bases_option
@limit_option
def eval_(rulebook: str, expression: str, as_json: bool, limits: Limits) -> None:
    """Evaluate EXPRESSION in a rulebook: a formula call or a table lookup.

    Examples: 'skill(12, 5, "Standard")', 'wounds[5, "Head"]'."""
    try:
        # compiled once, kept on disk
        value = api.evaluate_file(rulebook, expression, limits, _bases())
    except RulecraftError as err:
        _fail(err, as_json)
        return
    shown = value.as_dict() if isinstance(value, Record) else value
    data = {"expression": expression, "value": jsonable(shown)} if as_json else {}
    _emit(data, as_json, display(shown))


@cli.command()
@click.argument("rulebook")
@click.argument("name", required=False)
@click.option("--python", "as_python", is_flag=True,
              help="Print the Python the rulebook compiles to (with NAME: only that rule's).")
@click.option("--uses", "used", metavar="NAME", help="List every place that reads NAME (a rule, "
              "a value or a combatant's figure): formulas, table cells, steps, references, "
              "policies, in the file and the bases it extends.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@bases_option
@limit_option
def show(rulebook: str, name: str | None, as_python: bool, used: str | None, as_json: bool,
         limits: Limits) -> None:
    """Show what RULEBOOK (a built-in name or a path) holds.

    Without NAME: its tables (keys, columns), formulas (parameters with their types),
    procedures (parameters, choices with their options, outcomes with their fields) and
    combatant models (characteristics, state, derived figures). With NAME (a table, formula,
    procedure, enum or combatant model, by name or printed title): that one in full, with the
    rule lines it is written on.

    \b
    Examples:
      rulecraft show ringing_steel
      rulecraft show ringing_steel wounds
      rulecraft show rules/mine.rules melee_attack --json
      rulecraft show ringing_steel --python
      rulecraft show ringing_steel --uses skill"""
    try:
        rb = _load(rulebook, limits)
        if used is not None:
            _show_uses(rb, used, as_json)
            return
        if as_python:
            code = show_.python_text(rb, name)
            _emit({"rulebook": rb.name, "file": rb.filename, "name": name, "python": code},
                  as_json, code.rstrip("\n"))
            return
        data = show_.entry(rb, name) if name is not None else show_.overview(rb)
    except RulecraftError as err:
        _fail(err, as_json)
        return
    text = "" if as_json else (entry_text(data, rb.filename) if name is not None
                               else overview_text(data))
    _emit(data, as_json, text)


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
@bases_option
@limit_option
def run(rulebook: str, procedure: str, arguments: tuple[str, ...], seed: int | None,
        scripted: str | None, trace: bool, as_json: bool, limits: Limits) -> None:
    """Run PROCEDURE of RULEBOOK. ARGUMENTS are party.field=value for combatants
    (attacker.strength=12, attacker.training.Sword=5), party=@file.json (or a .toml fighter
    file) for a whole combatant, and name=value for choices (defence="Active Dodge"). A value
    is a number, true or false, or text; quotes that reach rulecraft keep it text ('name="12"'
    in a shell).

    Every value given for a combatant is checked before the procedure runs, and every problem
    is reported at once, named by party, field and where it was given."""
    if seed is not None and scripted is not None:
        raise click.UsageError("give --seed or --dice, not both")
    try:
        rb, proc = _procedure(rulebook, procedure, limits)
        kwargs, choices = procedure_arguments(rb, proc, arguments, limits)
        dice = (SeededDice(seed, limits) if scripted is None
                else ScriptedDice(dice_list(scripted), limits))
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
@click.option("--samples", type=click.IntRange(min=1), default=None, metavar="N",
              help="Estimate the odds from N seeded runs, each with its 95% interval, instead "
                   "of working them out exactly (for procedures too large for exact odds).")
@click.option("--seed", type=int, default=None, help="Seed for --samples.")
@click.option("--exact", is_flag=True, help="A fight's odds as fractions (they are worked out "
              "exactly either way; a fight's are printed as decimals by default).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@bases_option
@limit_option
def odds(rulebook: str, procedure: str, arguments: tuple[str, ...], by: str,
         samples: int | None, seed: int | None, exact: bool, as_json: bool,
         limits: Limits) -> None:
    """Exact odds of PROCEDURE's outcomes, as fractions (or, with --samples N, estimated).

    ARGUMENTS are given as for `run`; choices not given take their defaults. The values are
    listed in their own order: outcomes as declared, numbers by size, an enum's members in
    its order (injuries by severity), other text alphabetically; paths without one last.

    An encounter's odds are those of the whole fight, printed as decimals (--exact: fractions)
    with the number of states visited; a fight with `no cap` that can go on for ever has a
    `never ends` row."""
    if seed is not None and samples is None:
        raise click.UsageError("--seed goes with --samples N")
    try:
        rb, proc = _procedure(rulebook, procedure, limits)
        kwargs, choices = procedure_arguments(rb, proc, arguments, limits)
        if samples is not None:
            estimates = proc.sample(samples, by=by, seed=seed, choices=choices, limits=limits,
                                    **kwargs)
        else:
            table = proc.odds(by=by, choices=choices, limits=limits, **kwargs)
    except RulecraftError as err:
        _fail(err, as_json)
        return
    if samples is not None:
        from .balance import sampled_rows  # only sampling needs it

        _emit(*sampled_rows(in_order(rb, proc, by, estimates), by, as_json))
        return
    rows = in_order(rb, proc, by, table)
    data: Any = [{by: jsonable(k), "probability": str(p), "percent": float(p * 100)}
                 for k, p in rows]
    if proc.clock is not None:  # a whole fight: decimals, and the states it took
        from .fight_table import fight_odds_text  # a fight's odds only

        data, text = fight_odds_text(by, rows, data, getattr(table, "states", None), exact)
    else:
        text = "\n".join(f"{display(k) or '(none)':<24} {str(p):>12}  {float(p * 100):6.2f}%"
                         for k, p in rows)
    _emit(data, as_json, text)


@cli.command("fight")
@click.argument("rulebook")
@click.argument("fighters", nargs=-1, required=True)
@click.option("--encounter", help="Which encounter of the rulebook (default: its first).")
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE",
              help="Another parameter of the encounter, such as apart=4 (repeatable).")
@click.option("--policy", help="Which of the rulebook's policies makes the fighters' choices "
              "(default: each choice's own default).")
@click.option("--seed", type=int, help="A whole number: the same seed, the same fight.")
@click.option("--until", metavar="dead|out|N", help="How far to fight: a name the encounter "
              "knows (Ringing Steel: out, the default, or dead), or a time N on its clock "
              "(the fight stops there, capped).")
@click.option("--day", type=int, help="The calendar's day the fight happens on (`today` in "
              "the rules; default 0).")
@click.option("--runs", type=click.IntRange(min=1), help="Play this many fights and report win "
              "rates (95% intervals), mean length and each fighter's state per fight.")
@click.option("--workers", type=click.IntRange(min=1), help="Processes for --runs (default and "
              "most: every core); the figures are the same whatever the number.")
@click.option("--cluster", metavar="ADDRESS", help="Play --runs on the Dask cluster whose "
              "scheduler is at ADDRESS (tcp://HOST:8786; pip install 'rulecraft[cluster]'): the "
              "same figures for the same seed as here.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@bases_option
@limit_option
def fight_(rulebook: str, fighters: tuple[str, ...], encounter: str | None,
           settings: tuple[str, ...], policy: str | None, seed: int | None, until: str | None,
           day: int | None, runs: int | None, workers: int | None, cluster: str | None,
           as_json: bool, limits: Limits) -> None:
    """Play a whole fight: an encounter of RULEBOOK with FIGHTERS (TOML files, one a
    combatant: its fields by name, `model = "horse"` for another model), one to each of its
    fighter parameters — or side by side, the sides apart by `vs` (`a.toml b.toml vs
    c.toml`: two against one). Prints one line per event (time, whose turn, what: each call
    with its dice and outcome), then who is still standing and each fighter's state and
    conditions; with --runs, each side's rate of winning."""
    from rulecraft.fight import fight, fighter_files, read_fighter, side_files

    try:
        rb = _load(rulebook, limits)
        groups, names = side_files(fighters)
        made: Any = [[read_fighter(rb, path, limits=limits) for path in fighter_files(group)]
                     for group in groups]
        made = made[0] if len(made) == 1 else made  # one group: as the parameters take them
        given = {}
        for setting in settings:
            name, sep, text = setting.partition("=")
            if not sep or not name:
                raise RangeError(f"--set takes NAME=VALUE (such as apart=4), not {setting!r}")
            given[name] = value_of(name, text, limits)
        until_value = None if until is None else value_of("--until", until, limits)
        if cluster is not None and runs is None:
            raise RangeError("--cluster plays many fights: give --runs N too")
        if runs is not None:
            from rulecraft.fight import study
            from rulecraft.workers import usable_cores

            from .output import unescaped

            if workers is not None and workers > usable_cores():
                click.echo(f"note: --workers {workers} lowered to {usable_cores()}, the cores "
                           "rulecraft may use here", err=True)
            options = dict(seed=seed, names=names, encounter=encounter, policy=policy,
                           workers=workers, settings=given, until=until_value, limits=limits,
                           day=day, cluster=cluster)
            if sys.stderr.isatty() and not as_json:  # a progress bar for a person waiting
                with click.progressbar(length=runs, label="fights",
                                       file=unescaped(sys.stderr)) as bar:
                    many = study(rb, made, runs, progress=bar.update, **options)
            else:
                many = study(rb, made, runs, **options)
            _emit(many.as_json(), as_json, many.report())
            return
        done = fight(rb, made, encounter=encounter, seed=seed, limits=limits, names=names,
                     policy=policy, settings=given, until=until_value, day=day)
    except RulecraftError as err:
        _fail(err, as_json)
        return
    except KeyboardInterrupt:  # Ctrl-C: the workers are gone already
        click.echo("rulecraft: fight interrupted", err=True)
        sys.exit(130)
    if as_json:  # one of the two, as a long fight's log and its JSON each take a while
        _emit(done.as_json(), True, "")
    else:
        click.echo(done.log())


@cli.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@bases_option
@limit_option
def diff_(old: str, new: str, as_json: bool, limits: Limits) -> None:
    """What NEW changes of OLD (built-in names or paths), in the rules' own terms: table cells
    old → new, rows and columns added or removed, formulas, procedure steps, enum members and
    combatant fields. `diff rq3_core rq3_house` lists the house rules; `diff A A` says there are
    no changes."""
    from rulecraft.diff import diff  # only this command needs it

    try:
        changes = diff(_load(old, limits), _load(new, limits))
    except RulecraftError as err:
        _fail(err, as_json)
        return
    text = "\n".join(str(c) for c in changes) if changes else f"no changes: {new} says what " \
        f"{old} says"
    _emit({"old": old, "new": new, "changes": [c.as_json() for c in changes]}, as_json, text)


@cli.command()
@click.argument("rulebook")
@click.option("--format", "fmt", type=click.Choice(["html", "md"]), default="html",
              show_default=True, help="HTML for print (self-contained), or Markdown for wikis.")
@click.option("-o", "--output", metavar="FILE", default=None,
              help="Write the sheet to FILE (written whole, or not at all; never through "
                   "another user's link); without it, or with -o -, the sheet goes to standard "
                   "output.")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True,
              help="The paper the HTML sheet is laid out for.")
@click.option("--sources/--rules-only", default=True, show_default=True,
              help="Print the book's words each rule was transcribed from beside it, or the "
                   "rules alone.")
@click.option("--layout", type=click.Choice(["reference", "cheat", "screen"]),
              default="reference", show_default=True,
              help="reference: every rule; cheat: the one or two landscape pages kept at the "
                   "table (what the rulebook's `cheat sheet:` names); screen: the game "
                   "master's panels (its `screen:`).")
@click.option("--templates", type=click.Path(exists=True, file_okay=False), default=None,
              help="A folder of your own templates: its sheet.html or sheet.md replaces "
                   "rulecraft's (see docs/sheets.md).")
@click.option("--source", is_flag=True, default=False,
              help="Append the rule file (and each base it extends) as a coloured listing "
                   "(needs Pygments: pip install 'rulecraft[editors]').")
@bases_option
@limit_option
def sheet(rulebook: str, fmt: str, output: str | None, paper: str, sources: bool,
          layout: str, templates: str | None, source: bool, limits: Limits) -> None:
    """Make a reference sheet of RULEBOOK (a built-in name or a path): every procedure as
    numbered steps, every table, every formula as math, and the quick-reference tables the
    rulebook declares, worked out by its engine.

    \b
    Examples:
      rulecraft sheet ringing_steel -o ringing_steel.html
      rulecraft sheet ringing_steel --format md --rules-only > ringing_steel.md
      rulecraft sheet house.rules --paper letter -o house.html
      rulecraft sheet ringing_steel --layout cheat -o cheat.html"""
    from .output import bounded, is_stream, write_new

    to_file = output is not None and not is_stream(output)
    try:
        rb = _load(rulebook, limits)
        text = bounded(api.sheet(rb, fmt, paper, sources, templates, limits, layout=layout,
                                 source=source), limits)
        if to_file:
            write_new(output, text, api.rule_files(rb), limits)
    except RulecraftError as err:
        _fail(err)
        return
    except OSError as err:
        click.echo(f"cannot write {api.shown(output or '')}: "
                   f"{(err.strerror or str(err)).lower()}", err=True)
        sys.exit(1)
    if not to_file:
        click.echo(text, nl=False)


def _show_uses(rb: Any, name: str, as_json: bool) -> None:
    """`show --uses NAME`: each place, as file:line, the rule, and the line."""
    from .uses import uses

    found = uses(rb, name)
    width = max((len(f"{os.path.basename(u.filename)}:{u.line}") for u in found), default=0)
    rules = max((len(u.rule) for u in found), default=0)
    lines = [f"{name} is read in {_count(len(found), 'place')}" + (":" if found else
             f" (no rule of {rb.name} reads it)")]
    lines += [f"  {os.path.basename(u.filename) + ':' + str(u.line):<{width}}  "
              f"{u.rule:<{rules}}  {u.text}" for u in found]
    _emit({"rulebook": rb.name, "name": name, "uses": [u.as_json() for u in found]},
          as_json, "\n".join(lines))


def _procedure(rulebook: str, procedure: str, limits: Limits) -> tuple[Any, Any]:
    """A rulebook and one of its procedures, or a RangeError naming the procedures it has."""
    rb = _load(rulebook, limits)
    proc = rb.procedures.get(procedure)
    if proc is None:
        raise RangeError(f"rulebook {rulebook} has no procedure {procedure!r} "
                         f"(it has: {', '.join(rb.procedures)})")
    return rb, proc


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


from .cli_balance import compare, sweep  # noqa: E402 - they use the helpers above
from .cli_editors import lsp, watch  # noqa: E402
from .cli_examples import new, test  # noqa: E402

cli.add_command(compare)
cli.add_command(sweep)
cli.add_command(lsp)
cli.add_command(watch)
cli.add_command(test)
cli.add_command(new)


def main() -> None:
    """Console entry point: rule errors exit 1 with a caret; nothing else may show a traceback."""
    # What a command loaded lives until the process ends: the interpreter's last collections
    # need not walk all of it (they took a sixth of `eval`'s time).
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    # `eval` loads a rulebook, answers and ends, making next to no garbage: collections during
    # it would walk the objects it loads, for nothing. What it loaded is frozen when it is
    # done, so that collecting again does not walk it all at once either.
    paused = sys.argv[1:2] == ["eval"] and gc.isenabled()
    if paused:
        gc.disable()
    from .output import guard_terminal

    guard_terminal()  # rule text on a terminal is shown, never obeyed
    failure = ""
    try:
        cli.main(standalone_mode=True)
    except RulecraftError as err:  # pragma: no cover - commands catch their own
        _fail(err)
    except MemoryError:
        failure = "MemoryError: out of memory"  # told once the frames that held it are gone
    except Exception as err:  # noqa: BLE001 - last line of defence: never a raw traceback
        failure = f"{type(err).__name__}: {err}"[:2000]  # RecursionError too
    finally:
        if paused:
            gc.freeze()
            gc.enable()
    if failure:
        click.echo(f"rulecraft: internal error: {failure}\n"
                   "This is a bug in rulecraft, not in your rule file; please report it.",
                   err=True)
        sys.exit(3)
