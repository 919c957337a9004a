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


def _assert_same(ours: dict[int, float], theirs: Any) -> None:
    """Equal per user and in the mean; a missing value (null, NaN, no row) matches a missing one."""
    expected = {int(user): float(value) for user, value in theirs.items() if not math.isnan(value)}
    got = {user: value for user, value in ours.items() if not math.isnan(value)}
    assert set(got) == set(expected), sorted(set(got) ^ set(expected))
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
    for k in (1, 3, 5, 10, 40):
        cases += [
            (f"precision@{k}", m.Precision(k=k), recsys.precision_at_k(k)),
            (
                f"r_precision@{k}",
                m.Precision(k=k, r_precision=True),
                recsys.precision_at_k(k, r_precision=True),
            ),
            (f"recall@{k}", m.Recall(k=k), recsys.recall_at_k(k)),
            (f"f1@{k}", m.F1Beta(k=k, beta=2.0), recsys.f1_beta_at_k(k, beta=2.0)),
            (f"hit_rate@{k}", m.HitRate(k=k), recsys.hit_rate_at_k(k)),
            (f"map@{k}", m.MAP(k=k), recsys.map_at_k(k)),
            (f"map_k@{k}", m.MAP(k=k, divide_by_k=True), recsys.map_at_k(k, divide_by_k=True)),
            (f"ndcg@{k}", m.NDCG(k=k), recsys.ndcg_at_k(k)),
            (
                f"ndcg_e@{k}",
                m.NDCG(k=k, log_base=3, divide_by_achievable=True),
                recsys.ndcg_at_k(k, log_base=3, divide_by_achievable=True),
            ),
            (f"mrr@{k}", m.MRR(k=k), recsys.mrr_at_k(k)),
            (f"pauc@{k}", m.PartialAUC(k=k), recsys.partial_auc_at_k(k)),
            (f"pap@{k}", m.PAP(k=k), recsys.pap_at_k(k)),
            (
                f"pauc_x@{k}",
                m.PartialAUC(k=k, insufficient_handling="exclude"),
                recsys.partial_auc_at_k(k, insufficient="exclude"),
            ),
            (
                f"pap_x@{k}",
                m.PAP(k=k, insufficient_handling="exclude"),
                recsys.pap_at_k(k, insufficient="exclude"),
            ),
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


def _train(seed: int) -> pl.DataFrame:
    """Training rows with repeats (ARP and Serendipity count rows, MIUF counts users)."""
    rng = np.random.default_rng(seed + 2000)
    items = rng.zipf(1.6, 300) % 25  # skewed popularity; items 25..29 are never seen
    return pl.DataFrame({"user": rng.integers(0, 50, 300), "item": items})


def _per_user_frame(result: pl.DataFrame, column: str) -> dict[int, float]:
    return {
        user: (math.nan if value is None else value)
        for user, value in zip(result["user"], result[column], strict=True)
    }


@pytest.mark.parametrize("seed", SEEDS)
def test_beyond_accuracy_per_user_and_mean(seed: int) -> None:
    m = rectools_metrics
    reco, test, train = random_reco(seed), random_interactions(seed), _train(seed)
    frame = recsys.prepare(reco, interactions=test, train=train)
    pd_reco, pd_test, pd_train = to_rectools(reco), to_rectools(test), to_rectools(train)
    n_items = 30
    for k in (1, 3, 10):
        cases: list[tuple[str, Any, pl.Expr]] = [
            (
                "miuf",
                _quiet(m.MeanInvUserFreq(k=k).calc_per_user, pd_reco, pd_train),
                recsys.mean_inv_user_freq(k),
            ),
            (
                "arp",
                _quiet(m.AvgRecPopularity(k=k).calc_per_user, pd_reco, pd_train),
                recsys.avg_rec_popularity(k),
            ),
            (
                "arp_n",
                _quiet(m.AvgRecPopularity(k=k, normalize=True).calc_per_user, pd_reco, pd_train),
                recsys.avg_rec_popularity(k, normalize=True),
            ),
            (
                "serendipity",
                _quiet(
                    m.Serendipity(k=k).calc_per_user,
                    pd_reco,
                    pd_test,
                    pd_train,
                    list(range(n_items)),
                ),
                recsys.serendipity(k, n_items=n_items),
            ),
            (
                "covered",
                _quiet(m.CoveredUsers(k=k).calc_per_user, pd_reco, pd_test),
                recsys.covered_users(k),
            ),
            (
                "sufficient",
                _quiet(m.SufficientReco(k=k).calc_per_user, pd_reco),
                recsys.sufficient_reco(k),
            ),
            (
                "sufficient_deep",
                _quiet(m.SufficientReco(k=k, deep=True).calc_per_user, pd_reco),
                recsys.sufficient_reco(k, deep=True),
            ),
        ]
        for name, theirs, expr in cases:
            try:
                _assert_same(_per_user(frame, expr), theirs)
            except AssertionError as error:
                raise AssertionError(f"{name}@{k}: {error}") from None


@pytest.mark.parametrize("deep", [False, True])
def test_unrepeated_reco(deep: bool) -> None:
    reco = random_reco(3)
    repeated = pl.concat(
        [reco, reco.filter(pl.col("user") % 3 == 0).with_columns(pl.col("rank") + 1)]
    )
    frame = recsys.prepare(repeated, check_repeats=False)
    for k in (1, 2, 5):
        theirs = _quiet(
            rectools_metrics.UnrepeatedReco(k=k, deep=deep).calc_per_user, to_rectools(repeated)
        )
        _assert_same(_per_user(frame, recsys.unrepeated_reco(k, deep=deep)), theirs)


def test_catalog_coverage_and_intersection() -> None:
    m = rectools_metrics
    reco, other = random_reco(4), random_reco(5)
    for k in (1, 3, 10):
        assert recsys.catalog_coverage(reco, k) == _quiet(
            m.CatalogCoverage(k=k).calc, to_rectools(reco), list(range(30))
        )
        assert recsys.catalog_coverage(reco, k, catalog=40, normalize=True) == pytest.approx(
            _quiet(m.CatalogCoverage(k=k, normalize=True).calc, to_rectools(reco), list(range(40)))
        )
        for ref_k in (None, 2, 7):
            ours = recsys.intersection(reco, other, k=k, ref_k=ref_k)
            theirs = _quiet(
                m.Intersection(k=k, ref_k=ref_k).calc_per_user,
                to_rectools(reco),
                to_rectools(other),
            )
            _assert_same(_per_user_frame(ours, "intersection"), theirs)


@pytest.mark.parametrize("seed", SEEDS)
def test_intra_list_diversity_hamming(seed: int) -> None:
    import pandas as pd

    rng = np.random.default_rng(seed)
    values = rng.integers(0, 2, size=(27, 6)).astype(float)  # items 27..29 have no features
    values[3, 2] = np.nan  # an absent feature value: NaN distances, as in RecTools
    features = pl.DataFrame({"item": range(27), **{f"f{j}": values[:, j] for j in range(6)}})
    calculator = rectools_metrics.PairwiseHammingDistanceCalculator(
        pd.DataFrame(values, index=pd.Index(range(27)))
    )
    reco = random_reco(seed)
    for k in (1, 3, 10):
        theirs = _quiet(
            rectools_metrics.IntraListDiversity(k=k, distance_calculator=calculator).calc_per_user,
            to_rectools(reco),
        )
        ours = recsys.intra_list_diversity(reco, features, k=k)
        _assert_same(_per_user_frame(ours, "ild"), theirs)


def test_evaluate_matches_calc_metrics() -> None:
    m = rectools_metrics
    reco, test, train = random_reco(7), random_interactions(7), _train(7)
    other = random_reco(8)
    catalog = list(range(30))
    theirs_metrics = {
        "Precision@5": m.Precision(k=5),
        "Recall@5": m.Recall(k=5),
        "MAP@5": m.MAP(k=5),
        "MAP@5(divide_by_k=true)": m.MAP(k=5, divide_by_k=True),
        "NDCG@5": m.NDCG(k=5),
        "MRR@5": m.MRR(k=5),
        "HitRate@3": m.HitRate(k=3),
        "PartialAUC@4": m.PartialAUC(k=4),
        "PAP@4": m.PAP(k=4),
        "MeanInvUserFreq@5": m.MeanInvUserFreq(k=5),
        "AvgRecPopularity@5(normalize=true)": m.AvgRecPopularity(k=5, normalize=True),
        "Serendipity@5": m.Serendipity(k=5),
        "CatalogCoverage@5": m.CatalogCoverage(k=5),
        "CoveredUsers@5": m.CoveredUsers(k=5),
        "SufficientReco@5(deep=true)": m.SufficientReco(k=5, deep=True),
        "UnrepeatedReco@5": m.UnrepeatedReco(k=5),
        "Intersection@5": m.Intersection(k=5),
    }
    theirs = _quiet(
        m.calc_metrics,
        theirs_metrics,
        to_rectools(reco),
        to_rectools(test),
        to_rectools(train),
        catalog,
        {"other": to_rectools(other)},
    )
    theirs["Intersection@5"] = theirs.pop("Intersection@5_other")
    names = [
        name if name != "Intersection@5" else "Intersection@5(ref=other)" for name in theirs_metrics
    ]
    result = recsys.evaluate(
        {"main": reco, "other": other},
        metrics=names,
        interactions=test,
        train=train,
        catalog=len(catalog),
    )
    row = result.summary.filter(pl.col("model") == "main").row(0, named=True)
    for name, label in zip(theirs_metrics, names, strict=True):
        assert row[label] == pytest.approx(theirs[name], abs=1e-9), name
