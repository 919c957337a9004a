"""optimize_fusion against ranx.optimize_fusion: the same grid, scores and winner."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import polars as pl
import pytest

from polars_rankmetrics.evaluation.evaluate import evaluate
from polars_rankmetrics.fusion.optimize import grid, optimize_fusion
from tests.fusion_data import overlapping_runs, random_qrels, ranx_frame

ranx = pytest.importorskip("ranx")

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    runs = overlapping_runs(21)
    qrels = random_qrels(22, list(runs[0]), pool=30)
    return {
        "runs": runs,
        "qrels": qrels,
        "ranx_runs": [ranx.Run(r, name=f"s{i}") for i, r in enumerate(runs)],
        "ranx_qrels": ranx.Qrels(qrels),
    }


def _numbers(config: str) -> list[float]:
    """ranx's report keys, e.g. "(np.float64(0.1), np.float64(0.9))" or "0.05", as numbers."""
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", config.replace("np.float64", ""))]


CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("wsum", "ndcg@10", {}),
    ("wsum", "map", {"step": 0.25}),
    ("wmnz", "ndcg", {}),
    ("mixed", "precision@5", {"step": 0.2}),
    ("rrf", "ndcg@10", {}),
    # a small phi makes deep ranks count less than the last digits of the score
    ("rbc", "map@10", {"step": 0.1, "min_phi": 0.5, "max_phi": 0.9}),
    ("gmnz", "ndcg@5", {"step": 0.1}),
    ("logn_isr", "mrr", {"step": 0.2}),
]
# ProbFuse and SlideFuse give equal scores to many documents, which ranx orders
# by its unstable sort: their trials are checked by scoring ranx's own fused runs
# with this library's evaluation (ties by document id, descending), their scores
# rounded as fuse() rounds them.
TIED = [("probfuse", "ndcg@10", {"max_n_segments": 6}), ("slidefuse", "map", {"max_w": 6})]


@pytest.mark.parametrize(("method", "metric", "options"), CASES)
def test_optimize_fusion_matches_ranx(
    data: dict[str, Any], method: str, metric: str, options: dict[str, Any]
) -> None:
    theirs, report = ranx.optimize_fusion(
        data["ranx_qrels"],
        data["ranx_runs"],
        norm="min-max",
        method=method,
        metric=metric,
        return_optimization_report=True,
        show_progress=False,
        **options,
    )
    ours, table = optimize_fusion(
        data["qrels"],
        data["runs"],
        method=method,  # type: ignore[arg-type]
        metric=metric,
        return_optimization_report=True,
        **options,
    )
    name = next(iter(ours))
    # The same grid, in the same order, with the same scores.
    configs = [_numbers(config) for config in report.configs]
    values = table[name].to_list()
    assert [v if isinstance(v, list) else [float(v)] for v in values] == configs
    np.testing.assert_allclose(table["score"].to_numpy(), report.results, rtol=1e-9)
    if name == "weights":
        assert ours["weights"] == [float(w) for w in theirs["weights"]]
    elif name == "n_segments":  # ranx returns the trained probabilities, not n_segments
        best = table.filter(table["score"] == table["score"].max())[name][-1]
        assert ours[name] == best
    elif name == "w":
        assert ours["w"] == theirs["w"]
    else:
        assert ours[name] == theirs[name]


def test_weight_grid_is_ranx_grid() -> None:
    from ranx.fusion_optimization.optimize_weights import get_possible_weights, get_trial_configs

    for step, n_runs in [(0.1, 3), (0.05, 2), (0.2, 4), (0.3, 3)]:
        theirs = get_trial_configs(get_possible_weights(step), n_runs)
        if not theirs:  # ranx then fails on its first best trial: refused up front here
            with pytest.raises(ValueError, match=f"`step`={step} gives no {n_runs} weights"):
                grid("wsum", n_runs, step=step)
            continue
        assert grid("wsum", n_runs, step=step)[1] == [tuple(map(float, t)) for t in theirs]


@pytest.mark.parametrize(("method", "metric", "options"), TIED)
def test_optimize_trained_scores_ranx_fused_runs(
    data: dict[str, Any], method: str, metric: str, options: dict[str, Any]
) -> None:
    from ranx.fusion import probfuse_train, slidefuse_train
    from ranx.normalization import norm_switch

    ours, table = optimize_fusion(
        data["qrels"],
        data["runs"],
        method=method,  # type: ignore[arg-type]
        metric=metric,
        return_optimization_report=True,
        **options,
    )
    qrels = data["ranx_qrels"]
    runs = [norm_switch("min-max")(run) for run in data["ranx_runs"]]
    name = "n_segments" if method == "probfuse" else "w"
    expected = []
    for value in table[name].to_list():
        if method == "probfuse":
            params = {"probs": probfuse_train(qrels, runs, value)}
        else:
            params = {"probs": slidefuse_train(qrels, runs), "w": value}
        fused = ranx_frame(ranx.fuse(runs, norm=None, method=method, params=params))
        fused = fused.with_columns(pl.col("score").round_sig_figs(12))  # as fuse() rounds
        expected.append(evaluate(data["qrels"], fused, metric, complete=True).aggregate.item())
    np.testing.assert_allclose(table["score"].to_numpy(), expected, rtol=1e-9)
    best = max(range(len(expected)), key=lambda i: (expected[i], i))
    assert ours[name] == table[name][best]
