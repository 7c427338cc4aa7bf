"""benchmarks/bench_chain.py: icepool's reading of issue 19's simple duel gives the engine's exact
answers, capped and with no cap; and the benchmark runs (--quick). No timing is asserted."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_chain  # noqa: E402


@pytest.mark.parametrize("stamina", [4, 6])
def test_icepool_gives_the_engine_s_exact_answers(stamina):
    # "a test that the icepool baseline gives the engine's exact answers"
    pytest.importorskip("icepool")
    capped = bench_chain.engine(bench_chain.rules(True), stamina)()
    assert capped == bench_chain.icepool_duel(stamina, bench_chain.CAP)
    assert 0 < capped["capped"] < 1
    uncapped = bench_chain.engine(bench_chain.rules(False), stamina)()
    assert uncapped == bench_chain.icepool_duel(stamina, "inf")
    assert set(uncapped) == {"a_wins", "b_wins"} and sum(uncapped.values()) == 1


def test_the_benchmark_runs_quickly(monkeypatch, capsys):
    pytest.importorskip("icepool")
    monkeypatch.setattr(bench_chain, "STAMINA", (2,))
    bench_chain.main(["--quick"])  # its exit status follows the ratios: a shared machine, not asserted
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("stamina 2, at most 20 rounds") and "x" in lines[1]
    assert lines[2].startswith("stamina 2, no cap (repeat='inf')")
