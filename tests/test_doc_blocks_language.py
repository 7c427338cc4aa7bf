"""Issue 20: "Every code block in the docs is checked by a test" — docs/language.md's blocks, the
most of any page, checked as tests/test_doc_blocks.py checks the rest (apart, so that the two
halves go to two workers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_doc_blocks import BLOCKS, LANGUAGE, Block, check_block, repo_copy  # noqa: F401

OWN = [b for b in BLOCKS if b.page == LANGUAGE]


def test_the_language_reference_has_blocks_to_check():
    assert len(OWN) > 40


@pytest.mark.parametrize("block", OWN, ids=[b.where for b in OWN])
def test_every_block_of_the_language_reference_is_checked(block: Block, repo_copy: Path) -> None:
    check_block(block, repo_copy)
