"""`rulecraft lsp` (the language server an editor starts, rulecraft/lsp.py) and `rulecraft
watch` (check, test and show a rule file each time it is saved, rulecraft/watch.py)."""

from __future__ import annotations

import os
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


@click.command("watch")
@click.argument("rulebook", type=click.Path(exists=True, dir_okay=False))
@click.argument("fighters", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--serve", is_flag=True, help="Show the sheet in your browser on a local port, "
              "reloaded on each change, with the errors on the page.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="The port for --serve (0: any free port).")
@click.option("--interval", type=click.FloatRange(0.05, 60), default=0.5, show_default=True,
              help="Seconds between looks at the files.")
@click.option("--once", is_flag=True, help="Check, test and render once, then stop (exit 1 "
              "on any problem).")
def watch(rulebook: str, fighters: tuple[str, ...], serve: bool, port: int, interval: float,
          once: bool) -> None:
    """Check RULEBOOK, play its worked examples and make its sheet each time it is saved.

    A base it extends and the FIGHTERS files given with it (a fight of them is played, seed 1)
    are watched too. Errors are printed as they appear; a file saved half-written is one more
    error to show, and the watch goes on. With --serve the sheet is shown at
    http://127.0.0.1:PORT/ and reloads on each change. Stop with Ctrl-C.

    \b
    Examples:
      rulecraft watch my_game.rules
      rulecraft watch house.rules a.toml b.toml --serve"""
    import threading

    from .cli import _bases
    from . import watch as watching

    if once:
        _, _, errors, summary = watching.once(rulebook, fighters, bases=_bases())
        click.echo(summary + (f"\n{errors}" if errors else ""))
        sys.exit(1 if errors else 0)
    state = watching.State()
    stop = threading.Event()
    httpd = None
    if serve:
        try:
            httpd = watching.server(state, os.path.basename(rulebook), port)
        except OSError as err:
            click.echo(f"cannot serve on port {port}: {(err.strerror or str(err)).lower()} "
                       "(try --port 0 for any free port)", err=True)
            sys.exit(1)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        click.echo(f"serving the sheet at http://127.0.0.1:{httpd.server_address[1]}/ "
                   "(Ctrl-C stops)")
    try:
        watching.watch(rulebook, fighters, lambda text: click.echo(text), state, interval,
                       bases=_bases(), stop=stop)
    except KeyboardInterrupt:
        click.echo("stopped")
    finally:
        if httpd is not None:
            httpd.shutdown()
