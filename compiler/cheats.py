"""Back end 2, at the table: a rulebook's cheat sheet (`--layout cheat`) and game master's
screen (`--layout screen`), rendered by Jinja as HTML for print (landscape, A4 or Letter) or as
Markdown — in the same sandbox, with the same limits, as the reference sheet (sheets.py)."""

from __future__ import annotations

import os

from jinja2 import TemplateError

from rulecraft.runtime.errors import RulecraftError
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.rulebook import Rulebook

from . import cheat_view
from .sheet_files import placed
from .sheet_sandbox import SheetError


def render(rb: Rulebook, layout: str, fmt: str = "html", paper: str = "a4",
           templates: str | os.PathLike[str] | None = None,
           limits: Limits = DEFAULT_LIMITS) -> str:
    """The cheat sheet or screen of `rb` as text: `fmt` "html" or "md"; `templates` a folder
    whose `cheat.html` / `cheat.md` replace the built-in ones."""
    from .sheets import _written, environment  # one sandbox for every sheet

    try:
        cheat = cheat_view.build(rb, layout, paper, limits)
    except cheat_view.NoScreen as err:
        raise SheetError(str(err)) from None
    env = environment(fmt, templates, limits)
    try:
        template = env.get_template(f"cheat.{fmt}")
        return _written(template.generate(cheat=cheat), limits)
    except (RulecraftError, TemplateError) as err:
        raise placed(err, env.texts) from None
    except Exception as err:  # noqa: BLE001 - a user's template is code: any failure is its own
        if templates is None:
            raise
        raise placed(err, env.texts) from None


__all__ = ["render"]
