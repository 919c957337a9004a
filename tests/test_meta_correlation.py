"""Rank correlations against scipy; tau_AP and sMARE against slow references of their papers."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import polars as pl
import pytest

from polars_rankmetrics.meta_evaluation.correlation import (
    kendall_tau,
    pearson,
    smare,
    spearman,
    tau_ap,
)
from polars_rankmetrics.meta_evaluation.systems import qpp_evaluation, ranking_agreement

stats = pytest.importorskip("scipy.stats")


def _tied_scores(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    # Few distinct values, so both sides have ties.
    return rng.integers(0, 6, n) / 5.0, rng.integers(0, 4, n) / 3.0


@pytest.mark.parametrize("seed", range(8))
def test_kendall_spearman_pearson_equal_scipy_with_ties(seed: int) -> None:
    x, y = _tied_scores(seed, 40 + 7 * seed)
    assert kendall_tau(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert pearson(x, y) == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)


def test_tau_a_counts_pairs_by_hand() -> None:
    x, y = _tied_scores(11, 25)
    concordant = discordant = 0
    for i, j in itertools.combinations(range(x.size), 2):
        product = np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
        concordant += product > 0
        discordant += product < 0
    expected = (concordant - discordant) / (x.size * (x.size - 1) / 2)
    assert kendall_tau(x, y, variant="a") == pytest.approx(expected, abs=1e-12)


def _slow_tau_ap(reference: np.ndarray, estimate: np.ndarray) -> float:
    """Yilmaz, Aslam and Robertson (2008), Eq. 3, with explicit rank lists."""
    by_estimate = sorted(range(len(estimate)), key=lambda item: -estimate[item])
    by_reference = sorted(range(len(reference)), key=lambda item: -reference[item])
    rank_in_reference = {item: rank for rank, item in enumerate(by_reference)}
    n = len(estimate)
    total = 0.0
    for i in range(1, n):
        item = by_estimate[i]
        correct = sum(
            1 for above in by_estimate[:i] if rank_in_reference[above] < rank_in_reference[item]
        )
        total += correct / i
    return 2.0 / (n - 1) * total - 1.0


@pytest.mark.parametrize("seed", range(10))
def test_tau_ap_equals_the_papers_formula(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    reference = rng.permutation(n).astype(float)
    estimate = reference + rng.normal(0, n / 4, n)
    assert tau_ap(reference, estimate) == pytest.approx(
        _slow_tau_ap(reference, estimate), abs=1e-12
    )
    symmetric = (_slow_tau_ap(reference, estimate) + _slow_tau_ap(estimate, reference)) / 2
    assert tau_ap(reference, estimate, symmetric=True) == pytest.approx(symmetric, abs=1e-12)


def test_tau_ap_is_one_and_minus_one_at_the_extremes() -> None:
    scores = np.arange(10.0)
    assert tau_ap(scores, scores) == pytest.approx(1.0)
    assert tau_ap(scores, -scores) == pytest.approx(-1.0)


def _slow_smare(predicted: np.ndarray, actual: np.ndarray) -> float:
    def ranks(values: np.ndarray) -> list[float]:
        # Average rank by counting: 1 + smaller values + half of the other equal ones.
        return [
            1 + sum(v < value for v in values) + (sum(v == value for v in values) - 1) / 2
            for value in values
        ]

    n = len(predicted)
    return sum(abs(a - b) / n for a, b in zip(ranks(predicted), ranks(actual), strict=True)) / n


@pytest.mark.parametrize("seed", range(5))
def test_smare_equals_its_definition(seed: int) -> None:
    predicted, actual = _tied_scores(seed + 20, 30)
    assert smare(predicted, actual) == pytest.approx(_slow_smare(predicted, actual), abs=1e-12)


def test_qpp_evaluation_equals_scipy() -> None:
    rng = np.random.default_rng(3)
    actual = rng.random(50)
    frame = pl.DataFrame({"predictor": actual + rng.normal(0, 0.3, 50), "ap": actual})
    row = qpp_evaluation(frame, "predictor", "ap").row(0, named=True)
    x, y = frame["predictor"].to_numpy(), frame["ap"].to_numpy()
    assert row["n_queries"] == 50
    assert row["pearson"] == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    assert row["spearman"] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert row["kendall"] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert row["smare"] == pytest.approx(_slow_smare(x, y), abs=1e-12)


def test_ranking_agreement_equals_the_single_functions() -> None:
    a, b = np.array([0.3, 0.25, 0.5, 0.1]), np.array([0.2, 0.3, 0.4, 0.0])
    result = ranking_agreement(a, b)
    assert result["tau_b"] == pytest.approx(stats.kendalltau(a, b).statistic)
    assert result["tau_ap_a"] == pytest.approx(_slow_tau_ap(a, b))
    assert result["tau_ap_b"] == pytest.approx(_slow_tau_ap(b, a))
    with pytest.raises(ValueError, match="tied scores"):  # as tau_ap says it
        ranking_agreement([0.3, 0.3, 0.1], [0.1, 0.2, 0.3])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: kendall_tau([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]), "`x` is constant"),
        (lambda: spearman([1.0, 2.0], [3.0, 3.0]), "`y` is constant"),
        (lambda: pearson([1.0], [2.0]), "at least two items"),
        (lambda: kendall_tau([1.0, 2.0], [1.0, 2.0, 3.0]), "equal length"),
        (lambda: kendall_tau([1.0, np.nan], [1.0, 2.0]), "holds NaN"),
        (lambda: kendall_tau([1.0, 2.0], [1.0, 2.0], variant="c"), "`variant` must be"),  # type: ignore[arg-type]
        (lambda: tau_ap([1.0, 1.0, 2.0], [1.0, 2.0, 3.0]), "tied scores"),
        (lambda: ranking_agreement([0.5], [0.4]), "at least two systems"),
        (
            lambda: qpp_evaluation(pl.DataFrame({"p": [1.0, 1.0], "m": [0.1, 0.2]}), "p", "m"),
            "column 'p' is constant",
        ),
        (lambda: qpp_evaluation(pl.DataFrame({"p": [1.0, 2.0]}), "p", "ap"), "no column 'ap'"),
    ],
)
def test_bad_inputs(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_scipy_gives_nan_where_we_refuse() -> None:
    # The documented difference: scipy warns and returns NaN on a constant input.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(stats.spearmanr([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]).statistic)
