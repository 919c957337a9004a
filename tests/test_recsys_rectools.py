"""Parity with RecTools 0.19: every metric per user and in the mean, on random data with ties."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest

from polars_rankmetrics import recsys
from tests.recsys_data import random_interactions, random_reco, to_rectools

rectools_metrics = pytest.importorskip("rectools.metrics")

SEEDS = [0, 1, 2]


def _per_user(frame: pl.LazyFrame, expr: pl.Expr) -> dict[int, float]:
    result = frame.group_by("user").agg(expr.alias("value")).collect()
    return {
        user: (math.nan if value is None else value)
        for user, value in zip(result["user"], result["value"], strict=True)
    }


def _assert_same(ours: dict[int, float], theirs: Any, *, drop_null: bool = True) -> None:
    expected = {int(user): float(value) for user, value in theirs.items()}
    got = {user: value for user, value in ours.items() if not (drop_null and math.isnan(value))}
    assert set(got) == set(expected), (sorted(set(got) ^ set(expected)))
    for user, value in expected.items():
        assert got[user] == pytest.approx(value, abs=1e-9, nan_ok=True), user
    mean_ours = np.nanmean(list(got.values())) if got else math.nan
    mean_theirs = np.nanmean(list(expected.values())) if expected else math.nan
    assert mean_ours == pytest.approx(mean_theirs, abs=1e-9, nan_ok=True)


def _quiet(call: Any, *args: Any) -> Any:
    """A peer call, its pandas deprecation warnings silenced (pytest makes them errors)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args)


def _accuracy_cases() -> list[tuple[str, Any, pl.Expr]]:
    m = rectools_metrics
    cases: list[tuple[str, Any, pl.Expr]] = []
    for k in (1, 3, 5, 10):
        cases += [
            (f"precision@{k}", m.Precision(k=k), recsys.precision_at_k(k)),
            (f"r_precision@{k}", m.Precision(k=k, r_precision=True),
             recsys.precision_at_k(k, r_precision=True)),
            (f"recall@{k}", m.Recall(k=k), recsys.recall_at_k(k)),
            (f"f1@{k}", m.F1Beta(k=k, beta=2.0), recsys.f1_beta_at_k(k, beta=2.0)),
            (f"hit_rate@{k}", m.HitRate(k=k), recsys.hit_rate_at_k(k)),
            (f"map@{k}", m.MAP(k=k), recsys.map_at_k(k)),
            (f"map_k@{k}", m.MAP(k=k, divide_by_k=True), recsys.map_at_k(k, divide_by_k=True)),
            (f"ndcg@{k}", m.NDCG(k=k), recsys.ndcg_at_k(k)),
            (f"ndcg_e@{k}", m.NDCG(k=k, log_base=3, divide_by_achievable=True),
             recsys.ndcg_at_k(k, log_base=3, divide_by_achievable=True)),
            (f"mrr@{k}", m.MRR(k=k), recsys.mrr_at_k(k)),
            (f"pauc@{k}", m.PartialAUC(k=k), recsys.partial_auc_at_k(k)),
            (f"pap@{k}", m.PAP(k=k), recsys.pap_at_k(k)),
            (f"pauc_x@{k}", m.PartialAUC(k=k, insufficient_handling="exclude"),
             recsys.partial_auc_at_k(k, insufficient="exclude")),
            (f"pap_x@{k}", m.PAP(k=k, insufficient_handling="exclude"),
             recsys.pap_at_k(k, insufficient="exclude")),
        ]
    return cases


@pytest.mark.parametrize("seed", SEEDS)
def test_accuracy_per_user_and_mean(seed: int) -> None:
    reco, test = random_reco(seed), random_interactions(seed)
    frame = recsys.prepare(reco, interactions=test)
    pd_reco, pd_test = to_rectools(reco), to_rectools(test)
    for name, metric, expr in _accuracy_cases():
        theirs = _quiet(metric.calc_per_user, pd_reco, pd_test)
        try:
            _assert_same(_per_user(frame, expr), theirs)
        except AssertionError as error:
            raise AssertionError(f"{name}: {error}") from None
