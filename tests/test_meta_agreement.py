"""Label agreement against scikit-learn, statsmodels and krippendorff; the qrels report."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from polars_rankmetrics.meta_evaluation.agreement import (
    cohen_kappa,
    compare_qrels,
    confusion_matrix,
    fleiss_kappa,
    krippendorff_alpha,
    label_pairs,
    per_query_agreement,
)
from polars_rankmetrics.meta_evaluation.systems import (
    discriminative_power,
    swap_rate,
    system_scores,
)

metrics = pytest.importorskip("sklearn.metrics")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
krippendorff = pytest.importorskip("krippendorff")


def _labels(seed: int, n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 4, n)
    noise = rng.integers(-1, 2, n) * (rng.random(n) < 0.4)
    return human, np.clip(human + noise, 0, 3)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_equals_sklearn(seed: int, weights: str | None) -> None:
    human, model = _labels(seed)
    expected = metrics.cohen_kappa_score(human, model, weights=weights)
    assert cohen_kappa(human, model, weights=weights) == pytest.approx(expected, abs=1e-12)  # type: ignore[arg-type]


def test_cohen_kappa_uses_label_positions_as_sklearn_does() -> None:
    # Labels 0, 1, 3: the linear weight between 1 and 3 is 1 (adjacent positions), not 2.
    human, model = [0, 1, 3, 3, 1, 0, 3], [0, 3, 3, 1, 1, 1, 0]
    expected = metrics.cohen_kappa_score(human, model, weights="linear")
    assert cohen_kappa(human, model, weights="linear") == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("raters", [2, 3, 5])
def test_fleiss_kappa_equals_statsmodels(raters: int) -> None:
    rng = np.random.default_rng(raters)
    truth = rng.integers(0, 3, 80)
    ratings = np.column_stack(
        [np.where(rng.random(80) < 0.7, truth, rng.integers(0, 3, 80)) for _ in range(raters)]
    )
    table, _ = inter_rater.aggregate_raters(ratings)
    assert fleiss_kappa(ratings) == pytest.approx(inter_rater.fleiss_kappa(table), abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed", range(3))
def test_krippendorff_alpha_equals_the_package_with_missing_labels(level: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 5, 60).astype(float)
    ratings = np.column_stack(
        [np.where(rng.random(60) < 0.6, truth, rng.integers(0, 5, 60)) for _ in range(3)]
    ).astype(float)
    ratings[rng.random(ratings.shape) < 0.15] = np.nan
    expected = krippendorff.alpha(reliability_data=ratings.T, level_of_measurement=level)
    assert krippendorff_alpha(ratings, level=level) == pytest.approx(expected, abs=1e-12)  # type: ignore[arg-type]


def _qrels(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    rows = [(f"q{q}", f"d{d}") for q in range(6) for d in range(15)]
    human, model = _labels(seed, len(rows))
    schema = {"query": pl.String, "doc": pl.String}
    keys = pl.DataFrame(rows, schema=schema, orient="row")
    first = keys.with_columns(relevance=pl.Series(human))
    second = keys.with_columns(relevance=pl.Series(model)).filter(
        pl.Series(rng.random(len(rows)) < 0.9)
    )
    return first, second


def test_label_pairs_confusion_and_per_query_against_plain_python() -> None:
    first, second = _qrels(1)
    pairs = label_pairs(first, second)
    expected = first.join(second, on=["query", "doc"]).height
    assert pairs.height == expected
    confusion = confusion_matrix(pairs)
    counted: dict[tuple[int, int], int] = {}
    for a, b in zip(pairs["label_a"], pairs["label_b"], strict=True):
        counted[(a, b)] = counted.get((a, b), 0) + 1
    assert {(a, b): c for a, b, c in confusion.iter_rows()} == counted
    per_query = per_query_agreement(pairs)
    for query, n_pairs, agreement, kappa in per_query.iter_rows():
        mine = pairs.filter(pl.col("query") == query)
        a, b = mine["label_a"].to_numpy(), mine["label_b"].to_numpy()
        assert n_pairs == a.size
        assert agreement == pytest.approx((a == b).mean())
        assert kappa == pytest.approx(metrics.cohen_kappa_score(a, b), abs=1e-12)


def test_compare_qrels_report_with_runs() -> None:
    first, second = _qrels(2)
    rng = np.random.default_rng(5)
    runs = {
        f"sys{i}": pl.DataFrame(
            {
                "query": first["query"],
                "doc": first["doc"],
                "score": rng.random(first.height) + i * 0.1 * first["relevance"].to_numpy(),
            }
        )
        for i in range(5)
    }
    report = compare_qrels(first, second, runs, measure="nDCG@10")
    summary = dict(report.summary.iter_rows())
    pairs = label_pairs(first, second)
    a, b = pairs["label_a"].to_numpy(), pairs["label_b"].to_numpy()
    assert summary["cohen_kappa_quadratic"] == pytest.approx(
        metrics.cohen_kappa_score(a, b, weights="quadratic"), abs=1e-12
    )
    assert summary["only_in_a"] == first.height - pairs.height
    scores = system_scores(first, runs, "nDCG@10", other_qrels=second)
    assert report.systems.equals(scores)
    from scipy import stats

    expected_tau = stats.kendalltau(scores["score_a"], scores["score_b"]).statistic
    assert summary["systems_tau_b"] == pytest.approx(expected_tau, abs=1e-12)
    assert summary["systems_n_systems"] == 5


def test_discriminative_power_with_each_test_against_scipy() -> None:
    from scipy import stats

    rng = np.random.default_rng(7)
    n_queries, n_systems = 25, 6
    values = rng.random((n_queries, 1)) + rng.normal(0, 0.1, (n_queries, n_systems))
    values += np.linspace(0, 0.15, n_systems)
    per_query = pl.DataFrame(
        {
            "system": np.repeat([f"s{i}" for i in range(n_systems)], n_queries),
            "query": np.tile(np.arange(n_queries), n_systems),
            "value": values.T.ravel(),
        }
    )
    result = discriminative_power(per_query, alpha=0.05)
    expected = [
        stats.ttest_rel(values[:, i], values[:, j]).pvalue
        for i in range(n_systems)
        for j in range(i + 1, n_systems)
    ]
    np.testing.assert_allclose(result.pairs["p_value"], expected, atol=1e-12)
    assert result.power == pytest.approx(np.mean(np.array(expected) < 0.05))
    for test in ("randomization", "bootstrap"):
        other = discriminative_power(per_query, test=test, n_resamples=500)  # type: ignore[arg-type]
        assert 0.0 <= other.power <= 1.0
        assert other.pairs.height == n_systems * (n_systems - 1) // 2


def test_swap_rate_against_a_loop_over_trials() -> None:
    rng = np.random.default_rng(9)
    values = rng.random((20, 4))
    per_query = pl.DataFrame(
        {
            "system": np.repeat(["a", "b", "c", "d"], 20),
            "query": np.tile(np.arange(20), 4),
            "value": values.T.ravel(),
        }
    )
    rate = swap_rate(per_query, n_trials=50, subset_size=8, seed=3)
    generator = np.random.default_rng(3)
    order = generator.random((50, 20)).argsort(axis=1)
    swaps = 0
    for trial in range(50):
        first = values[order[trial, :8]].mean(axis=0)
        second = values[order[trial, 8:16]].mean(axis=0)
        for i in range(4):
            for j in range(i + 1, 4):
                swaps += (first[i] - first[j]) * (second[i] - second[j]) < 0
    assert rate == pytest.approx(swaps / (50 * 6))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: label_pairs({"q": {"a": 1}}, {"q": {"b": 1}}),
            "no \\(query, doc\\) pair in common",
        ),
        (lambda: cohen_kappa([0, 1], [0, 1], weights="cubic"), "`weights` must be"),  # type: ignore[arg-type]
        (lambda: cohen_kappa([0, 1, 2], [0, 1]), "equal lengths"),
        (lambda: fleiss_kappa([[0], [1]]), "at least two"),
        (lambda: krippendorff_alpha([[0, np.nan], [1, np.nan]]), "labelled by two raters"),
        (lambda: krippendorff_alpha([[0, 1]], level="ratio"), "`level` must be"),  # type: ignore[arg-type]
        (
            lambda: discriminative_power(
                pl.DataFrame({"system": ["a"], "query": [1], "value": [0.5]})
            ),
            "at least two systems",
        ),
        (
            lambda: discriminative_power(
                pl.DataFrame({"system": ["a", "b"], "query": [1, 1], "value": [0.5, 0.4]}),
                alpha=1.5,
            ),
            "`alpha` must be",
        ),
    ],
)
def test_bad_inputs(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_one_label_throughout_gives_nan_kappa_as_documented() -> None:
    assert np.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))
    assert np.isnan(fleiss_kappa([[1, 1], [1, 1]]))
