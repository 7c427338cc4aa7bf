"""Issue 9, fast start and dice from Python: the disk cache (runtime/cache.py, dsl/cached.py),
a CLI that loads only what a command needs, and `rulecraft.roll` / `rulecraft.dice`."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction

import pytest

import rulecraft
from rulecraft.compiler.evaluate import parse_dice_text
from rulecraft import api
from rulecraft.runtime import cache
from rulecraft.runtime.rolls import read_dice

BASE = '''rulebook base "Base"
formula bonus(x: 1..10) "Bonus" = x + 1
'''
HOUSE = '''rulebook house "House"
extends "base.rules"
replace formula bonus(x: 1..10) "Bonus" = x + 2
'''


@pytest.fixture
def own_cache(tmp_path_factory, monkeypatch):
    folder = tmp_path_factory.mktemp("cache") / "cache"  # not beside the rule files (refused)
    monkeypatch.setenv("RULECRAFT_CACHE", str(folder))
    api._cache.clear()  # the in-process cache would hide the disk's
    yield folder
    api._cache.clear()


def entries(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("tree-"))


def test_a_loaded_file_is_kept_and_read_back(own_cache, tmp_path):
    path = tmp_path / "base.rules"
    path.write_text(BASE, encoding="utf-8")
    assert rulecraft.load(path).formulas["bonus"](x=3) == 4
    assert len(entries(own_cache)) == 1
    api._cache.clear()
    assert rulecraft.load(path).formulas["bonus"](x=3) == 4  # from the kept tree
    assert len(entries(own_cache)) == 1
    assert os.stat(own_cache).st_mode & 0o777 == 0o700


def test_text_compiled_from_python_is_not_kept(own_cache):
    rulecraft.compile(BASE, "base.rules")
    assert not own_cache.exists() or entries(own_cache) == []


def test_an_edited_file_or_base_is_read_anew(own_cache, tmp_path):
    """"the on-disk cache is rebuilt when a file or its base changes"."""
    base, house = tmp_path / "base.rules", tmp_path / "house.rules"
    base.write_text(BASE, encoding="utf-8")
    house.write_text(HOUSE, encoding="utf-8")
    assert rulecraft.load(house).formulas["bonus"](x=3) == 5
    house.write_text(HOUSE.replace("x + 2", "x + 3"), encoding="utf-8")
    assert rulecraft.load(house).formulas["bonus"](x=3) == 6
    base.write_text(BASE.replace('"Bonus"', '"Bonus!"') + "formula extra() = 7\n",
                    encoding="utf-8")
    book = rulecraft.load(house)
    assert book.formulas["extra"]() == 7 and book.formulas["bonus"](x=3) == 6
    assert len(entries(own_cache)) == 4  # each text read once: two houses, two bases


def test_a_corrupt_entry_is_ignored_and_made_again(own_cache, tmp_path):
    """"a corrupt cache entry is ignored"."""
    path = tmp_path / "base.rules"
    path.write_text(BASE, encoding="utf-8")
    rulecraft.load(path)
    (entry,) = entries(own_cache)
    whole = (own_cache / entry).read_bytes()
    for garbage in (b"", b"\x80\x04not a pickle", (own_cache / entry).read_bytes()[:100]):
        (own_cache / entry).write_bytes(garbage)
        api._cache.clear()
        assert rulecraft.load(path).formulas["bonus"](x=1) == 2
    assert (own_cache / entry).read_bytes() == whole  # made again, whole


def test_an_entry_made_from_other_text_is_not_used(own_cache, tmp_path):
    """An entry is checked against what it was made from, not only found by its name."""
    a, b = tmp_path / "a.rules", tmp_path / "b.rules"
    a.write_text(BASE, encoding="utf-8")
    b.write_text(BASE.replace("x + 1", "x + 5"), encoding="utf-8")
    rulecraft.load(a)
    rulecraft.load(b)
    first, second = entries(own_cache)
    (own_cache / first).write_bytes((own_cache / second).read_bytes())
    (own_cache / second).write_bytes((own_cache / first).read_bytes())
    api._cache.clear()
    assert rulecraft.load(a).formulas["bonus"](x=1) == 2
    assert rulecraft.load(b).formulas["bonus"](x=1) == 6


def test_processes_racing_for_one_entry_all_read_it(own_cache, tmp_path):
    """"safe when two processes race": written whole under a temporary name, then renamed."""
    path = tmp_path / "base.rules"
    path.write_text(BASE, encoding="utf-8")
    code = (f"import rulecraft; print(rulecraft.load({str(path)!r})"
            ".formulas['bonus'](x=2))")
    env = {**os.environ, "RULECRAFT_CACHE": str(own_cache)}
    running = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for _ in range(4)]
    for process in running:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0 and out.strip() == "3", err
    assert len(entries(own_cache)) == 1
    assert not [p for p in own_cache.iterdir() if p.name.startswith(".tmp-")]


def test_a_folder_others_can_write_is_not_used(own_cache, tmp_path):
    own_cache.mkdir(mode=0o700)
    os.chmod(own_cache, 0o777)
    assert cache.folder() is None
    path = tmp_path / "base.rules"
    path.write_text(BASE, encoding="utf-8")
    assert rulecraft.load(path).formulas["bonus"](x=1) == 2
    assert entries(own_cache) == []


def test_the_cache_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("RULECRAFT_CACHE", "off")
    assert cache.folder() is None


def test_the_key_names_every_text_and_the_limits():
    key = cache.cache_key("tree", ["house", "base"], rulecraft.Limits())
    assert key != cache.cache_key("tree", ["house", "base2"], rulecraft.Limits())
    assert key != cache.cache_key("tree", ["house", "base"], rulecraft.Limits(table_rows=9))
    assert key != cache.cache_key("tree", ["houseb", "ase"], rulecraft.Limits())
    assert key == cache.cache_key("tree", ["house", "base"], rulecraft.Limits())


def run_cli(*arguments: str, code: str = "") -> subprocess.CompletedProcess[str]:
    program = ("import sys\nfrom rulecraft.cli import cli\n"
               "try:\n    cli.main(sys.argv[1:], standalone_mode=False)\n"
               "except SystemExit:\n    pass\n" + code)
    return subprocess.run([sys.executable, "-c", program, *arguments], capture_output=True,
                          text=True, timeout=120)


def test_roll_and_list_never_load_the_compiler():
    """"the CLI imports only what a command needs; `list` does not compile every rulebook"."""
    shown = "print('compiler' if 'rulecraft.compiler.build' in sys.modules else 'none')"
    rolled = run_cli("roll", "4d6kh3", "--seed", "3", code=shown)
    assert rolled.returncode == 0 and rolled.stdout.split()[-1] == "none", rolled.stderr
    listed = run_cli("list", "--json", code=shown)
    assert listed.returncode == 0 and listed.stdout.split()[-1] == "none", listed.stderr
    rows = json.loads(listed.stdout[:listed.stdout.rindex("]") + 1])
    for row in rows:
        book = rulecraft.load(row["name"])
        assert (row["title"], row["tables"], row["formulas"], row["procedures"]) == \
            (book.title, len(book.tables), len(book.formulas), len(book.procedures))


# ---- dice from Python ---------------------------------------------------------------------

def brute_force(*dice: tuple[int, int], keep: int | None = None, plus: int = 0):
    faces = [range(1, sides + 1) for count, sides in dice for _ in range(count)]
    totals: Counter[int] = Counter()
    for rolled in itertools.product(*faces):
        kept = sorted(rolled)[-keep:] if keep else rolled
        totals[sum(kept) + plus] += 1
    ways = sum(totals.values())
    return {t: Fraction(n, ways) for t, n in totals.items()}


def test_dice_distributions_agree_with_figures_worked_out_apart():
    """"dice distributions agree with figures computed independently (3d6, 4d6 keep highest
    3, d20+5 ≥ 15, d100 ≤ skill)"."""
    assert rulecraft.dice("3d6").odds() == brute_force((3, 6))
    assert rulecraft.dice("3d6").odds()[10] == Fraction(27, 216)
    assert rulecraft.dice("4d6kh3").odds() == brute_force((4, 6), keep=3)
    assert rulecraft.dice("4d6kh3").odds()[18] == Fraction(21, 1296)
    assert rulecraft.dice("1d20+5").chance_at_least(15) == Fraction(11, 20)
    assert rulecraft.dice("d20 + 5").chance_at_least(15) == Fraction(11, 20)
    for skill in (1, 45, 99, 100):
        assert rulecraft.dice("d%").chance_at_most(skill) == Fraction(skill, 100)
        assert rulecraft.dice("d100").chance_at_most(skill) == Fraction(skill, 100)
    assert sum(rulecraft.dice("2d8+2+d4").odds().values()) == 1
    assert rulecraft.dice("3d6").mean() == Fraction(21, 2)


def test_dice_are_read_once_and_kept():
    assert rulecraft.dice("4d6kh3") is rulecraft.dice("4d6kh3")


@pytest.mark.parametrize("text", ["3d6", "d6", "2d4+12", "d20 - d6", "3d6 + 2d6 - d4",
                                  "2d1 + 3", "4d6kh3 + d4", "d10 - 2d4kl1 - 5", "d%", "3 + 1d6",
                                  "5", "-d6", "2d20kl1", "5d6dl2"])
def test_the_quick_reader_reads_as_the_rule_language_does(text):
    assert read_dice(text) == parse_dice_text(text)


@pytest.mark.parametrize("text", ["", "d", "2d", "d6 d6", "3x6", "d6 +", "4d6kh", "++d6",
                                  "d6kh3x", "1d20+5)"])
def test_what_is_not_dice_is_a_dice_error_with_a_caret(text):
    assert read_dice(text) is None
    with pytest.raises(rulecraft.DiceError):
        rulecraft.dice(text)


def test_a_seeded_roll_is_the_seeded_source_s():
    for seed in (0, 7, -7, 2**40):
        source = rulecraft.SeededDice(seed)
        expected = source.roll(rulecraft.dice("4d6kh3"))
        rolled = rulecraft.roll("4d6kh3", seed=seed)
        assert (rolled.total, rolled.faces) == expected
        assert rolled == rulecraft.roll("4d6kh3", seed=seed)
    assert int(rulecraft.roll("1d20+5", seed=1)) == rulecraft.roll("1d20+5", seed=1).total
    assert str(rulecraft.roll("2d6", seed=1)).startswith("2d6: ")


def test_an_unseeded_roll_stays_in_its_range():
    totals = {rulecraft.roll("1d20+5").total for _ in range(500)}
    assert totals <= set(range(6, 26)) and len(totals) > 10
    with pytest.raises(rulecraft.DiceError, match="limit is 10 per roll"):
        rulecraft.roll("11d6", limits=rulecraft.Limits(dice_per_roll=10))
