"""`rulecraft lsp`: the language server an editor starts (rulecraft/lsp.py)."""

from __future__ import annotations

import sys

import click


@click.command("lsp")
def lsp() -> None:
    """Run the language server on standard input and output, for an editor.

    Your editor starts it (docs/editors.md says how): it shows rulecraft's errors as you type,
    a rule's title and comment on hover, goes to a definition (in a base too), completes names
    and lists a file's outline. Needs `pip install 'rulecraft[editors]'`."""
    try:
        from .lsp import serve
    except ImportError as err:
        click.echo(f"the language server needs pygls: pip install 'rulecraft[editors]' ({err})",
                   err=True)
        sys.exit(1)
    serve()
