"""Sweeps of whole fights from the command line, here and on a Dask cluster (issue 19, "Beyond
one machine"): "`--runs` and sweeps run on an existing distributed engine (Dask's distributed
scheduler, or Ray: choose, and say why) when given a cluster address, with the same results for
the same seed as a local run; tested against a local cluster started by the test."

Done when: "A sweep of the shipped Ringing Steel fighters' weapons against each other runs
locally and on a local Dask (or Ray) cluster with identical results for the same seed." Few
fights a cell: what is tested is that the figures agree, not what they are."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from rulecraft.cli import cli

FIGHTERS = "examples/ringing_steel"
WEAPONS = ",".join(f"@{FIGHTERS}/{name}.toml" for name in ("swordsman", "spearman"))
SWEEP = ["sweep", "ringing_steel", "duel", "--policy", "competent", "--seed", "5",
         "--vary", f"first={WEAPONS}", "--vary", f"second={WEAPONS}", "--no-exact",
         "--max-runs", "12", "--json"]


def run(*args: str) -> dict:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture(scope="module")
def local() -> dict:
    return run(*SWEEP, "--workers", "1")


@pytest.fixture(scope="module")
def cluster():
    """A Dask cluster in this process, reached over TCP as a real one is."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp://", host="127.0.0.1",
                                  dashboard_address=None) as started:
        yield started.scheduler_address


def test_the_shipped_fighters_weapons_swept_against_each_other(local):
    assert local["vary"] == {"first": ["swordsman", "spearman"],
                             "second": ["swordsman", "spearman"]}
    assert [(p["first"], p["second"]) for p in local["points"]] == [
        ("swordsman", "swordsman"), ("swordsman", "spearman"),
        ("spearman", "swordsman"), ("spearman", "spearman")]
    for point in local["points"]:
        assert point["how"] == "sampled" and point["runs"] == 12
        assert sum(point["counts"].values()) == 12


def test_two_processes_give_the_same_figures(local):
    assert run(*SWEEP, "--workers", "2") == local


def test_a_local_dask_cluster_gives_the_same_figures_for_the_same_seed(local, cluster):
    assert run(*SWEEP, "--cluster", cluster) == local


def test_fight_runs_on_a_cluster_give_the_same_figures_as_here(cluster):
    # "`--runs` and sweeps run on an existing distributed engine … when given a cluster address"
    fight = ["fight", "ringing_steel", f"{FIGHTERS}/swordsman.toml", f"{FIGHTERS}/spearman.toml",
             "--runs", "6", "--seed", "2", "--policy", "competent", "--json"]
    here = run(*fight, "--workers", "1")
    assert here["runs"] == 6
    assert run(*fight, "--cluster", cluster) == here


def test_a_cluster_without_runs_is_refused():
    result = CliRunner().invoke(cli, ["fight", "ringing_steel", f"{FIGHTERS}/swordsman.toml",
                                      f"{FIGHTERS}/spearman.toml", "--cluster", "tcp://x:1"])
    assert result.exit_code == 1 and "give --runs N too" in result.output


def test_a_cluster_nobody_listens_at_is_a_clear_error(monkeypatch):
    pytest.importorskip("distributed")
    from rulecraft import cluster
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1)  # nobody will answer: wait no longer
    result = CliRunner().invoke(cli, SWEEP[:-1] + ["--cluster", "tcp://127.0.0.1:9"])
    assert result.exit_code == 1
    assert "cannot reach a Dask scheduler at tcp://127.0.0.1:9" in result.output
    assert "Traceback" not in result.output
