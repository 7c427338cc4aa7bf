"""What rulecraft writes — sheet files, text on a terminal, user templates, error messages —
when a rule file, a fighter file or a template is hostile. Each test quotes the item of the
second hardening issue (issue 21) it pins.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

from resources import rulecraft as measured

BIG = "1" + "0" * 58  # 10^58, as a rule writes it (there is no exponent notation)


def invoke(*args: str):
    """Run the click command in-process; a Python exception escaping a command fails the test."""
    result = CliRunner().invoke(cli, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def assert_refused(result, *words: str) -> None:
    """Exit 1 with a message holding `words`, no traceback and no Python repr."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert "<class" not in result.output
    for word in words:
        assert word in result.output, result.output


# -- 17. a Python repr in a user message ----------------------------------------------------------

@pytest.mark.parametrize(("expression", "words"), [
    # "A Python repr reaches a user message (`round(1e58/3, 5)` →
    # "[<class 'decimal.InvalidOperation'>]")."
    (f"round({BIG}/3, 5)", ("too large to round to 5 decimal places", "58 digits")),
    (f"floor({BIG}/3, 2)", ("too large to round to 2 decimal places",)),
    (f"ceil({BIG}/3, 30)", ("30 decimal places",)),
    (f"truncate({BIG}.5 * 3, 1)", ("too large to round to 1 decimal place",)),
    ("round(2.5, 100)", ("100 decimal places", "28")),
])
def test_rounding_a_number_too_large_says_so_in_words(expression, words):
    result = invoke("eval", "ringing_steel", expression)
    assert_refused(result, "<expression>:1:1:", *words)
    assert "decimal" not in result.output.replace("decimal places", "").replace(
        "decimal place", "")


@pytest.mark.parametrize(("expression", "value"), [
    (f"round({BIG}/3)", "3333333333333333333333333333" + "0" * 30),
    (f"floor({BIG}/3)", "3333333333333333333333333333" + "0" * 30),
    (f"round({BIG}.5)", "1" + "0" * 57 + "1"),
    (f"ceil({BIG}.25)", "1" + "0" * 57 + "1"),
])
def test_rounding_a_large_number_to_a_whole_number_has_an_answer(expression, value):
    """A whole number keeps every digit (rulecraft's integers are exact): rounding to one never
    runs out of digits."""
    result = invoke("eval", "ringing_steel", expression)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == value


def test_the_logarithm_of_a_number_past_a_double_has_an_answer_or_says_why():
    """ln of a number a double cannot hold (10^464, 10^-464) is worked out, not "Infinity"."""
    huge = "*".join([f"{BIG}.5"] * 8)
    result = invoke("eval", "ringing_steel", f"round(ln({huge}), 2)")
    assert result.exit_code == 0, result.output
    assert float(result.output) == pytest.approx(1068.3995, abs=0.01)
    result = invoke("eval", "ringing_steel", f"round(ln(1/({huge})), 2)")
    assert result.exit_code == 0, result.output
    assert float(result.output) == pytest.approx(-1068.3995, abs=0.01)


def test_no_python_text_reaches_a_calculation_message():
    """"Search for other places where str(exception) of a Python exception reaches a message":
    Decimal's signals and Python's own wording become the rules' words."""
    from decimal import InvalidOperation, Overflow

    from rulecraft.runtime.errors import calculation_message

    for err in (InvalidOperation([InvalidOperation]), Overflow([Overflow]),
                ValueError("math domain error"), OverflowError("int too large to convert")):
        message = calculation_message(err)
        assert "<class" not in message and "decimal" not in message
        assert "math domain" not in message and "int too large" not in message
        assert message.startswith("a ")
