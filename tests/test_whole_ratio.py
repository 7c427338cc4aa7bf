"""`round(a / 4)` of whole numbers is worked out in whole numbers (issue 19: a Ringing Steel blow
asks for its "Damage Factor ... divided by 4, rounded" every time). The answers must be the ones
the division's Decimal quotient, rounded, gives: 0.5 rounds away from zero ("Round 0.5 up"),
round_half_down toward it, round_half_even to the even one, and truncate drops the fraction.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulecraft
from rulecraft.runtime import values
from rulecraft.runtime.values import ratio

MODES = ("floor", "ceil", "round", "round_half_down", "round_half_even", "truncate")
ROUNDED = {"floor": values.floor, "ceil": values.ceil, "round": values.round_half_up,
           "round_half_down": values.round_half_down,
           "round_half_even": values.round_half_even, "truncate": values.truncate}


@settings(max_examples=300, deadline=None)
@given(a=st.integers(-10**16, 10**16) | st.integers(-40, 40),
       b=(st.integers(-10**7, 10**7) | st.integers(-9, 9)).filter(bool),
       mode=st.sampled_from(MODES))
def test_whole_numbers_round_as_their_decimal_quotient_does(a: int, b: int, mode: str) -> None:
    assert ratio(a, b, mode) == ROUNDED[mode](values.div(a, b))
    assert type(ratio(a, b, mode)) is int


@pytest.mark.parametrize("a, b, mode, expected", [
    (10, 4, "round", 3), (-10, 4, "round", -3),  # 2.5 and -2.5: away from zero
    (10, 4, "round_half_down", 2), (-10, 4, "round_half_down", -2),
    (10, 4, "round_half_even", 2), (14, 4, "round_half_even", 4),
    (-7, 2, "floor", -4), (-7, 2, "ceil", -3), (-7, 2, "truncate", -3), (7, -2, "truncate", -3),
    (9, 4, "round", 2), (11, 4, "round", 3), (12, 4, "round", 3),
])
def test_the_halves_and_the_signs(a: int, b: int, mode: str, expected: int) -> None:
    assert ratio(a, b, mode) == expected


def test_a_division_by_zero_is_refused_as_before() -> None:
    rb = rulecraft.compile('rulebook r "R"\nformula f(a: integer, b: integer) = round(a / b)\n',
                           "r.rules")
    assert "_ratio(" in rb.python_source
    assert rb.formulas["f"](a=10, b=4) == 3
    with pytest.raises(rulecraft.RulecraftError, match="division by zero|divide"):
        rb.formulas["f"](a=1, b=0)


def test_a_number_that_may_have_a_fraction_keeps_the_decimal_path() -> None:
    rb = rulecraft.compile('rulebook r "R"\nformula f(a: number) = round(a / 4)\n', "r.rules")
    assert "_ratio(" not in rb.python_source
    assert rb.formulas["f"](a=10.5) == 3  # 2.625
