"""A parameter defaulting to none takes none passed on by a caller (BT's called shot, handed from
`damage_blow` to `hit_location`); any other parameter still refuses none."""

from __future__ import annotations

import pytest

from rulecraft.runtime.errors import RulecraftError
from samples import book

# BT: "On high/low called shot with fist, foot, or other short weapon": a blow lands where it was
# called, or where the d100 says.
CALLED = (
    'enum location: Head, Chest\n'
    'table where by roll: 1..2 -> location:\n'
    '  | Roll | Location |\n'
    '  | 1    | Head     |\n'
    '  | 2    | Chest    |\n'
    'procedure place (called: location = none):\n'
    '  if called == none:\n'
    '    roll r = d2\n'
    '    outcome placed with location = where[r]\n'
    '  outcome placed with location = called\n'
    'formula named(called: location = none) = called == none\n'
    'procedure blow (called: location = none):\n'
    '  call placed = place(called)\n'
    '  outcome done with (location = placed.location, rolled = named(called))\n'
    'procedure rolled ():\n'
    '  call placed = place()\n'
    '  outcome done with (location = placed.location, rolled = named())\n')


def test_none_passed_on_to_a_parameter_defaulting_to_none():
    rb = book(CALLED)
    blow = rb.procedures["blow"]
    assert dict(blow.run(dice=[2]).outcome) == {"location": "Chest", "rolled": True}
    assert dict(blow.run(called="Head").outcome) == {"location": "Head", "rolled": False}


def test_a_call_leaving_out_a_parameter_defaulting_to_none():
    rb = book(CALLED)
    assert dict(rb.procedures["rolled"].run(dice=[1]).outcome) == {
        "location": "Head", "rolled": True}


def test_a_parameter_without_a_none_default_still_refuses_none():
    rb = book(CALLED.replace("procedure place (called: location = none)",
                             'procedure place (called: location = "Head")'))
    with pytest.raises(RulecraftError) as caught:
        rb.procedures["blow"].run()
    assert "called must be one of Head, Chest; got none" in str(caught.value)
