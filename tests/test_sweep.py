"""The seeded sampler behind ``@pytest.mark.sweep`` (tests/sweep.py), without pytester."""

from __future__ import annotations

import itertools

import pytest

from tests.sweep import DEFAULT_SEED, parse_sweep, pick_cases

METHODS = ["sum", "mnz", "max", "min", "anz", "gmnz", "wsum", "med"]
NORMS = ["min-max", "max", "sum", "zmuv", "rank", "borda", None]
SEEDS = [0, 1, 2]
GRID = [{"method": m, "norm": n, "seed": s} for m, n, s in itertools.product(METHODS, NORMS, SEEDS)]


def test_parse_sweep() -> None:
    assert parse_sweep(None) == DEFAULT_SEED == 0
    assert parse_sweep("") == 0
    assert parse_sweep(" 7 ") == 7
    assert parse_sweep("ALL") is None
    with pytest.raises(ValueError, match="RANKMETRICS_SWEEP must be 'all' or an integer"):
        parse_sweep("some")


def test_all_keeps_every_case() -> None:
    assert pick_cases(GRID, by="method", keep=1, seed=None) == list(range(len(GRID)))


@pytest.mark.parametrize("keep", [1, 2, 3])
@pytest.mark.parametrize("seed", [0, 1, 5])
def test_every_value_of_by_keeps_keep_cases(seed: int, keep: int) -> None:
    kept = pick_cases(GRID, by="method", keep=keep, seed=seed)
    assert kept == sorted(set(kept))
    for method in METHODS:
        assert sum(GRID[i]["method"] == method for i in kept) == keep


def test_by_several_parameters_keeps_keep_of_each_combination() -> None:
    kept = [GRID[i] for i in pick_cases(GRID, by=("method", "norm"), keep=1, seed=0)]
    assert sorted((c["method"], str(c["norm"])) for c in kept) == sorted(
        (m, str(n)) for m, n in itertools.product(METHODS, NORMS)
    )
    assert {case["seed"] for case in kept} == set(SEEDS)


def test_a_value_with_fewer_cases_keeps_them_all() -> None:
    cases = [{"method": "a", "norm": n} for n in NORMS] + [{"method": "b", "norm": "max"}]
    kept = pick_cases(cases, by="method", keep=3, seed=0)
    assert len(kept) == 4 and len(cases) - 1 in kept


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_other_parameters_are_covered_when_the_strata_allow(seed: int) -> None:
    # 8 methods x 1 case >= 7 norms and 3 seeds: every norm and every seed runs.
    kept = [GRID[i] for i in pick_cases(GRID, by="method", keep=1, seed=seed)]
    assert {case["norm"] for case in kept} == set(NORMS)
    assert {case["seed"] for case in kept} == set(SEEDS)
    # With 2 per method (16 cases) each norm runs at least twice: coverage rotates.
    kept = [GRID[i] for i in pick_cases(GRID, by="method", keep=2, seed=seed)]
    counts = [sum(case["norm"] == norm for case in kept) for norm in NORMS]
    assert min(counts) >= 2


def test_the_same_seed_gives_the_same_sample_and_others_differ() -> None:
    first = pick_cases(GRID, by="method", keep=2, seed=0, salt="t")
    assert first == pick_cases(GRID, by="method", keep=2, seed=0, salt="t")
    others = {tuple(pick_cases(GRID, by="method", keep=2, seed=s, salt="t")) for s in range(6)}
    assert len(others) > 1
    # The salt (the test's node id) makes tests of one seed draw different samples.
    salted = {tuple(pick_cases(GRID, by="method", keep=2, seed=0, salt=f"t{i}")) for i in range(6)}
    assert len(salted) > 1


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="by='measure' is not a parameter"):
        pick_cases(GRID, by="measure", keep=1, seed=0)
    with pytest.raises(ValueError, match="keep must be at least 1"):
        pick_cases(GRID, by="method", keep=0, seed=0)
