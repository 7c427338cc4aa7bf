"""Small rule files written inside a test, compiled under the name their errors quote
(`sample.rules:12:30: …`)."""

from __future__ import annotations

import pytest

import rulecraft
from rulecraft.runtime.errors import RulecraftError

HEAD = 'rulebook sample "Sample"\n'


def book(text: str) -> rulecraft.Rulebook:
    """`text` after a `rulebook` line, compiled as sample.rules."""
    return rulecraft.compile(HEAD + text, filename="sample.rules")


def error_of(text: str) -> str:
    """What compiling `text` reports: every error, as printed."""
    with pytest.raises(RulecraftError) as caught:
        book(text)
    return str(caught.value)
