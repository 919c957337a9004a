"""Fusion against ranx itself: every method x normalisation, the same scores and order."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from polars_rankmetrics.fusion import fuse
from tests.fusion_data import assert_same_fusion, random_runs, ranx_frame, transitive_runs

ranx = pytest.importorskip("ranx")

# ranx's numba code warns about its own casts while it compiles: alone in a fresh
# environment (nothing compiled by an earlier test), this file failed on that warning.
pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")

NORMS = ["min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", None]
SCORE_METHODS = ["min", "max", "med", "sum", "anz", "mnz", "gmnz", "wsum", "wmnz", "mixed"]
RANK_METHODS = ["isr", "log_isr", "logn_isr", "rrf", "rbc", "bordafuse", "w_bordafuse"]
WEIGHTS = [0.1, 0.2, 0.3, 0.4]
PARAMS: dict[str, dict[str, Any]] = {
    "gmnz": {"gamma": 0.5},
    "rbc": {"phi": 0.8},
    "rrf": {"k": 60},
    "logn_isr": {"sigma": 0.01},
}


@pytest.fixture(scope="module")
def nested_runs() -> list[dict[str, dict[str, float]]]:
    return random_runs(7)


@pytest.fixture(scope="module")
def ranx_runs(nested_runs: list[dict[str, dict[str, float]]]) -> list[Any]:
    return [ranx.Run(run, name=f"s{i}") for i, run in enumerate(nested_runs)]


def _ranx_fuse(ranx_runs: list[Any], method: str, norm: str | None) -> pl.DataFrame:
    params = dict(PARAMS.get(method, {}))
    if method in ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet"):
        params["weights"] = WEIGHTS
    return ranx_frame(ranx.fuse(ranx_runs, norm=norm, method=method, params=params))


def _ours(nested_runs: list[Any], method: str, norm: str | None) -> pl.DataFrame:
    weighted = method in ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet")
    result = fuse(
        nested_runs,
        method=method,  # type: ignore[arg-type]
        norm=norm,
        weights=WEIGHTS if weighted else None,
        **PARAMS.get(method, {}),
    )
    assert isinstance(result, pl.DataFrame)
    return result


# Every method runs; the seeded sample takes 2 norms of each (every norm runs): the
# sweep marker (tests/sweep.py; RANKMETRICS_SWEEP=all runs every pair).
@pytest.mark.sweep(by="method", keep=2)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("method", SCORE_METHODS)
def test_score_methods_match_ranx(
    nested_runs: list[Any], ranx_runs: list[Any], method: str, norm: str | None
) -> None:
    assert_same_fusion(_ours(nested_runs, method, norm), _ranx_fuse(ranx_runs, method, norm))


# After `borda` normalisation ranx ranks a run's unretrieved candidates in its
# set order (Python's hash order): rank-based methods are compared without it.
@pytest.mark.sweep(by="method", keep=2)
@pytest.mark.parametrize("norm", [n for n in NORMS if n != "borda"])
@pytest.mark.parametrize("method", RANK_METHODS)
def test_rank_methods_match_ranx(
    nested_runs: list[Any], ranx_runs: list[Any], method: str, norm: str | None
) -> None:
    assert_same_fusion(_ours(nested_runs, method, norm), _ranx_fuse(ranx_runs, method, norm))


@pytest.fixture(scope="module")
def transitive() -> tuple[list[Any], list[Any]]:
    nested = transitive_runs(11)
    return nested, [ranx.Run(run, name=f"s{i}") for i, run in enumerate(nested)]


# Condorcet depends on the order of ranx's sort wherever the majority relation is
# not a total order; these runs have a total order (see transitive_runs). Both methods
# run; the seeded sample takes 2 norms of each (every norm runs; RANKMETRICS_SWEEP=all: 8).
@pytest.mark.sweep(by="method", keep=2)
@pytest.mark.parametrize("norm", ["min-max", "min-max-inverted", "zmuv", None])
@pytest.mark.parametrize(
    ("method", "weights"), [("condorcet", None), ("w_condorcet", [0.2, 0.35, 0.45])]
)
def test_condorcet_matches_ranx(
    transitive: tuple[list[Any], list[Any]],
    method: str,
    weights: list[float] | None,
    norm: str | None,
) -> None:
    nested, ranx_runs = transitive
    params = {} if weights is None else {"weights": weights}
    theirs = ranx_frame(ranx.fuse(ranx_runs, norm=norm, method=method, params=params))
    ours = fuse(nested, method=method, norm=norm, weights=weights)  # type: ignore[arg-type]
    assert isinstance(ours, pl.DataFrame)
    assert_same_fusion(ours, theirs)
