"""`rulecraft test`: a rulebook's worked examples, run (runtime/examples.py)."""

from __future__ import annotations

import sys
from typing import Any

import click

from rulecraft.runtime.errors import RulecraftError
from rulecraft.runtime.limits import Limits

from .cli import _load, bases_option, limit_option


@click.command("test")
@click.argument("rulebooks", nargs=-1, required=True)
@click.option("-k", "match", metavar="TEXT", help="Only the examples whose title holds TEXT.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@bases_option
@limit_option
def test(rulebooks: tuple[str, ...], match: str | None, as_json: bool, limits: Limits) -> None:
    """Run the worked examples of each RULEBOOK (a built-in name or a path).

    Each `example "…":` block plays its steps with the dice it gives; each `expect` line is a
    check. A failure shows the example's line, what was expected, what came out and the
    trace. A house rulebook runs its base's examples too (those it restates, its own way).

    Exit status 0 when every example passes, 1 when one fails or a rulebook has errors.

    \b
    Examples:
      rulecraft test ringing_steel
      rulecraft test house.rules -k "natural 20"
    """
    failed = False
    found: list[dict[str, Any]] = []
    for name in rulebooks:
        try:
            rb = _load(name, limits)
        except RulecraftError as err:
            if as_json:
                found.append({"rulebook": name, "error": str(err)})
            else:
                click.echo(str(err), err=True)
            failed = True
            continue
        examples = [e for e in rb.examples if match is None or match.lower() in e.title.lower()]
        outcomes = [e.run(limits) for e in examples]
        failed = failed or any(not o.passed for o in outcomes)
        if as_json:
            found.append({"rulebook": rb.name, "examples": [
                {"title": o.example.title, "line": o.example.span.line if o.example.span
                 else None, "passed": o.passed, "error": o.error,
                 "checks": [{"line": c.line, "expected": c.expected, "got": c.got,
                             "passed": c.passed} for c in o.checks]} for o in outcomes]})
            continue
        if not rb.examples:
            click.echo(f"{name}: no worked examples (write them as `example \"…\":` blocks; "
                       "docs/language.md, Worked examples)")
            continue
        for o in outcomes:
            if not o.passed:
                click.echo(o.report(), err=True)
        passed = sum(o.passed for o in outcomes)
        picked = f" (of {len(rb.examples)}, matching {match!r})" if match else ""
        click.echo(f"{name}: {len(outcomes)} example{'s' * (len(outcomes) != 1)}{picked}, "
                   f"{passed} passed" + (f", {len(outcomes) - passed} failed"
                                         if passed < len(outcomes) else ""))
    if as_json:
        import json

        click.echo(json.dumps(found, indent=2, ensure_ascii=False))
    sys.exit(1 if failed else 0)


@click.command("new")
@click.argument("name")
@click.option("--extends", "base", metavar="RULEBOOK", help="Start house rules over RULEBOOK (a "
              "built-in name or a path) instead of a rulebook of your own.")
@limit_option
def new(name: str, base: str | None, limits: Limits) -> None:
    """Write a starter rule file NAME.rules to change into your own.

    Without --extends: a whole small rulebook with one of each kind of rule — an enum, a table,
    a formula, a fighter, a procedure, an encounter, a policy and worked examples — each with a
    comment saying what it is. With --extends: house rules over that rulebook — the `extends`
    line, one of its formulas written again to change, and a worked example of it. Either
    checks and tests clean as written. NAME.rules is never written over.

    \b
    Examples:
      rulecraft new my_game
      rulecraft new our_steel --extends ringing_steel
    """
    from . import starter
    from .output import write_new

    path = name if name.endswith(".rules") else f"{name}.rules"
    try:
        starter.refuse_existing(path)
        if base is None:
            text = starter.fresh(path)
        else:
            rb = _load(base, limits)
            written_as = base
            if base.endswith(".rules"):  # a path, as the new file's folder finds it
                import os

                folder = os.path.dirname(os.path.abspath(path))
                written_as = os.path.relpath(os.path.abspath(base), folder)
            text = starter.house(path, rb, written_as)
        write_new(path, text, [], limits)
    except RulecraftError as err:
        click.echo(str(err), err=True)
        sys.exit(1)
    except OSError as err:
        click.echo(f"cannot write {path}: {(err.strerror or str(err)).lower()}", err=True)
        sys.exit(1)
    click.echo(f"wrote {path}: `rulecraft check {path}`, `rulecraft test {path}`, then change it "
               "to your rules (docs/language.md)")
