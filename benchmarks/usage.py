"""What every benchmark script does with its options: `--help` (or `-h`) prints the script's
docstring, its usage, and exits 0; an option it does not know prints the same and exits 2,
rather than running minutes of benchmark with the option ignored."""

from __future__ import annotations

import sys


def checked(doc: str | None, known: set[str], argv: list[str] | None = None) -> list[str]:
    """The arguments, once every option among them is one the script knows (values after an
    option, such as `--runs 200`'s, are not options); else the usage is printed and the
    script exits."""
    args = list(sys.argv[1:] if argv is None else argv)
    asked = [a for a in args if a.startswith("-") and not a.lstrip("-").isdigit()]
    if any(a in ("-h", "--help") for a in asked):
        print(doc)
        sys.exit(0)
    unknown = [a for a in asked if a not in known]
    if unknown:
        print(f"unknown option {unknown[0]}; the options are {', '.join(sorted(known))}\n",
              file=sys.stderr)
        print(doc, file=sys.stderr)
        sys.exit(2)
    return args
