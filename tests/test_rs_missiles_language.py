"""The two language additions part III asked for: `has_entry(TABLE[keys])` (is a cell printed
there?) and the parts of a `6/40` record in a column of mixed kinds, read by position."""

from samples import book, error_of

RANGES = '''
enum missile_range: Short, Medium, Long, Extreme
table missiles "Missiles" by missile:
  | Weapon   | B.Str | Vel |
  | Knife    | 9     | 2   |
  | Handgun  | 6/40  | 9   |
table missile_ranges "Ranges" by missile, distance: integer in cells -> missile_range:
  results: across
  | Weapon  | Short | Medium | Long  | Extreme |
  | Knife   | 1–10  | 11–20  | 21–30 |         |
  | Handgun | 1–15  | 16–40  | 41–75 | >75     |
'''


def test_has_entry_says_whether_a_lookup_finds_a_printed_cell():
    # "Knife ... 1–10 11–20 21–30": no Extreme band, so nothing past 30.
    rb = book(RANGES + "formula reaches(m: missile, d: integer) = "
              "has_entry(missile_ranges[m, d])\n")
    reaches = rb.formulas["reaches"]
    assert [reaches("Knife", d) for d in (0, 1, 30, 31)] == [False, True, True, False]
    assert reaches("Handgun", 500) is True


def test_has_entry_takes_a_table_lookup_and_checks_its_keys():
    assert error_of(RANGES + "formula r(d: integer) = has_entry(d)\n") == (
        "sample.rules:13:25: has_entry asks a table lookup written out: "
        "`has_entry(missile_ranges[weapon, distance])`\n"
        "    formula r(d: integer) = has_entry(d)\n"
        "                            ^^^^^^^^^^^^")
    wrong = error_of(RANGES + "formula r(d: integer) = has_entry(missile_ranges[d])\n")
    assert "table missile_ranges is looked up by 2 key(s), not 1" in wrong


def test_a_record_of_numbers_in_a_mixed_column_is_read_by_position():
    # "Two blow strengths are given for each gun ... The first is for grape-shot, the second
    # for ball."
    rb = book(RANGES + "formula grape(m: missile) = missiles[m].b_str[0]\n"
              "formula ball(m: missile) = missiles[m].b_str[1]\n"
              "formula third(m: missile) = missiles[m].b_str[2]\n")
    assert rb.formulas["grape"]("Handgun") == 6 and rb.formulas["ball"]("Handgun") == 40
    import pytest

    from rulecraft.runtime.errors import RulecraftError
    with pytest.raises(RulecraftError, match="has no item 2: it holds 2 items"):
        rb.formulas["third"]("Handgun")
