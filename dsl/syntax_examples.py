"""Syntax of worked examples: a rule's own regression tests, written beside it in the rule file
(`example "…" with dice 3, 4:` … `expect …`)."""

from __future__ import annotations

from typing import Any

import attrs

from rulecraft.runtime.errors import Span


@attrs.frozen
class MapLit:  # map_: `{"Sword": 5, "Shield": 4}` — a fighter's training, written in an example
    pairs: tuple[tuple[Any, Any], ...]
    span: Span


@attrs.frozen
class ExpectStep:  # expect_step: `expect blow.htk == 8` — what the book says comes out
    test: Any
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class ExampleDecl:  # example_decl
    title: str
    dice: tuple[int, ...]  # the dice as they fall, in the order the steps roll them
    steps: tuple[Any, ...]
    span: Span
    comments: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """Examples are told apart by their titles (a house file replaces one by its title)."""
        return f"example {self.title!r}"


__all__ = ["ExampleDecl", "ExpectStep", "MapLit"]
