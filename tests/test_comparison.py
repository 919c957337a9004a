"""compare(): structure, references per system, query sets, corrections, validation."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy import stats

import polars_rankmetrics as rm

SYSTEMS = ("bm25", "dense", "hybrid", "same")


def _per_query(n_queries: int = 30, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    base_ap = rng.uniform(0.05, 0.6, n_queries)
    base_p = rng.uniform(0.0, 0.8, n_queries)
    shifts = {"bm25": 0.0, "dense": 0.05, "hybrid": 0.12, "same": 0.0}
    frames = []
    for name, shift in shifts.items():
        noise = 0.0 if name in ("bm25", "same") else rng.normal(0, 0.08, n_queries)
        frames.append(
            pl.DataFrame(
                {
                    "system": name,
                    "query": [f"q{i:03d}" for i in range(n_queries)],
                    "ap": np.clip(base_ap + shift + noise, 0, 1),
                    "P@10": np.clip(base_p + shift / 2 + noise, 0, 1),
                    "n_docs": np.full(n_queries, 100, dtype=np.int64),
                }
            )
        )
    return pl.concat(frames)


def _values(frame: pl.DataFrame, system: str, metric: str) -> np.ndarray[Any, Any]:
    return frame.filter(pl.col("system") == system).sort("query")[metric].to_numpy()


def test_columns_order_and_baseline_row() -> None:
    per_query = _per_query()
    result = rm.compare(per_query, baseline="dense", metrics=["ap", "P@10"])
    assert result.columns[:9] == [
        "metric", "system", "mean", "ci_low", "ci_high", "delta",
        "p_value", "p_value_adjusted", "significant",
    ]  # fmt: skip
    assert result.select("metric", "system").rows() == [
        (metric, system)
        for metric in ("ap", "P@10")
        for system in ("dense", "bm25", "hybrid", "same")
    ]
    baseline_rows = result.filter(pl.col("is_baseline"))
    assert baseline_rows["system"].to_list() == ["dense", "dense"]
    assert baseline_rows["delta"].to_list() == [0.0, 0.0]
    for column in ("p_value", "p_value_adjusted", "significant"):
        assert baseline_rows[column].null_count() == 2
        assert result.filter(~pl.col("is_baseline"))[column].null_count() == 0


def test_means_deltas_and_t_test_equal_numpy_and_scipy() -> None:
    per_query = _per_query()
    result = rm.compare(per_query, baseline="bm25", metrics=["ap", "P@10"], correction=None)
    for row in result.iter_rows(named=True):
        values = _values(per_query, row["system"], row["metric"])
        baseline = _values(per_query, "bm25", row["metric"])
        assert row["mean"] == pytest.approx(values.mean())
        assert row["delta"] == pytest.approx(values.mean() - baseline.mean())
        if row["system"] in ("dense", "hybrid"):
            expected = stats.ttest_rel(values, baseline).pvalue
            assert row["p_value"] == pytest.approx(expected, rel=1e-9)
            assert row["p_value_adjusted"] == row["p_value"]
            assert row["significant"] == (expected <= 0.05)
    same = result.filter(pl.col("system") == "same")
    assert same["p_value"].to_list() == [1.0, 1.0]  # identical to the baseline


def test_holm_and_bonferroni_are_applied_per_metric_across_systems() -> None:
    per_query = _per_query(n_queries=12, seed=3)
    raw = rm.compare(per_query, baseline="bm25", metrics=["ap", "P@10"], correction=None)
    for correction, factor_of in (
        ("bonferroni", lambda rank, m: m),
        ("holm", lambda rank, m: m - rank),
    ):
        corrected = rm.compare(
            per_query, baseline="bm25", metrics=["ap", "P@10"], correction=correction
        )
        for metric in ("ap", "P@10"):
            p_values = raw.filter(pl.col("metric") == metric, ~pl.col("is_baseline"))["p_value"]
            adjusted = corrected.filter(pl.col("metric") == metric, ~pl.col("is_baseline"))
            # The hand reference: scale the sorted p-values, keep them non-decreasing, cap at 1.
            order = np.argsort(p_values.to_numpy())
            expected = np.empty(len(order))
            running = 0.0
            for rank, index in enumerate(order):
                running = max(running, factor_of(rank, len(order)) * p_values[int(index)])
                expected[index] = min(1.0, running)
            assert adjusted["p_value_adjusted"].to_numpy() == pytest.approx(expected)
            assert adjusted["significant"].to_list() == [p <= 0.05 for p in expected]


def test_randomization_and_bootstrap_tests_match_their_functions() -> None:
    from polars_rankmetrics.comparisons.significance import bootstrap_test, randomization_test

    per_query = _per_query(n_queries=20)
    baseline = _values(per_query, "bm25", "ap")
    for test, function in (("randomization", randomization_test), ("bootstrap", bootstrap_test)):
        result = rm.compare(
            per_query, baseline="bm25", metrics=["ap"], test=test, n_resamples=500, seed=4
        )
        for system in ("dense", "hybrid"):
            expected = function(_values(per_query, system, "ap"), baseline, n_resamples=500, seed=4)
            row = result.filter(pl.col("system") == system)
            assert row["p_value"].item() == expected


def test_deterministic_per_seed_and_independent_of_other_systems() -> None:
    per_query = _per_query()
    kwargs: dict[str, Any] = {"baseline": "bm25", "test": "randomization", "n_resamples": 999}
    first = rm.compare(per_query, seed=5, **kwargs)
    assert_frame_equal(first, rm.compare(per_query, seed=5, **kwargs))
    assert not first.equals(rm.compare(per_query, seed=6, **kwargs))
    fewer = rm.compare(per_query.filter(pl.col("system") != "hybrid"), seed=5, **kwargs)
    both = first.filter(pl.col("system") == "dense").select("mean", "ci_low", "ci_high", "p_value")
    assert_frame_equal(
        fewer.filter(pl.col("system") == "dense").select("mean", "ci_low", "ci_high", "p_value"),
        both,
    )


def test_confidence_interval_covers_the_mean_and_follows_alpha() -> None:
    per_query = _per_query()
    narrow = rm.compare(per_query, baseline="bm25", metrics=["ap"], alpha=0.5)
    wide = rm.compare(per_query, baseline="bm25", metrics=["ap"], alpha=0.01)
    for frame in (narrow, wide):
        assert (frame["ci_low"] < frame["mean"]).all()
        assert (frame["mean"] < frame["ci_high"]).all()
    assert ((wide["ci_high"] - wide["ci_low"]) > (narrow["ci_high"] - narrow["ci_low"])).all()
    t_interval = rm.compare(per_query, baseline="bm25", metrics=["ap"], ci="t")
    values = _values(per_query, "dense", "ap")
    expected = stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    row = t_interval.filter(pl.col("system") == "dense")
    assert (row["ci_low"].item(), row["ci_high"].item()) == pytest.approx(expected)


def test_metrics_none_means_every_numeric_column() -> None:
    result = rm.compare(_per_query().with_columns(note=pl.lit("x")), baseline="bm25")
    assert result["metric"].unique(maintain_order=True).to_list() == ["ap", "P@10", "n_docs"]


def _with_gaps() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "system": ["a"] * 4 + ["b"] * 3 + ["c"] * 4,
            "query": ["q1", "q2", "q3", "q4", "q1", "q2", "q3", "q1", "q2", "q3", "q4"],
            "ap": [0.2, 0.4, 0.6, 0.8, 0.3, 0.5, 0.7, 0.2, 0.5, None, 0.9],
        }
    )


def test_missing_values_filled_with_zero_are_counted() -> None:
    result = rm.compare(_with_gaps(), baseline="a", missing="zero", test="randomization")
    assert result.select("system", "n_queries", "n_filled", "n_dropped").rows() == [
        ("a", 4, 0, 0),
        ("b", 4, 1, 0),  # no row for q4
        ("c", 4, 1, 0),  # a null value for q3
    ]
    b = result.filter(pl.col("system") == "b")
    assert b["mean"].item() == pytest.approx((0.3 + 0.5 + 0.7 + 0.0) / 4)
    expected = rm.compare(
        pl.DataFrame(
            {
                "system": ["a"] * 4 + ["b"] * 4,
                "query": ["q1", "q2", "q3", "q4"] * 2,
                "ap": [0.2, 0.4, 0.6, 0.8, 0.3, 0.5, 0.7, 0.0],
            }
        ),
        baseline="a",
        test="randomization",
    ).filter(pl.col("system") == "b")
    assert b["p_value"].item() == expected["p_value"].item()


def test_missing_queries_dropped_for_every_system_are_counted() -> None:
    result = rm.compare(_with_gaps(), baseline="a", missing="drop")
    assert result.select("system", "n_queries", "n_filled", "n_dropped").rows() == [
        ("a", 2, 0, 2),
        ("b", 2, 0, 2),
        ("c", 2, 0, 2),
    ]
    assert result.filter(pl.col("system") == "a")["mean"].item() == pytest.approx(0.3)
    assert result.filter(pl.col("system") == "c")["mean"].item() == pytest.approx(0.35)


def test_explicit_query_set_fills_unseen_queries_and_counts_ignored_rows() -> None:
    result = rm.compare(_with_gaps(), baseline="a", queries=["q1", "q2", "q5"])
    assert result.select("system", "n_queries", "n_filled", "n_ignored").rows() == [
        ("a", 3, 1, 2),
        ("b", 3, 1, 1),
        ("c", 3, 1, 2),
    ]
    assert result.filter(pl.col("system") == "a")["mean"].item() == pytest.approx(0.2)


def test_integer_query_ids_and_lazy_input() -> None:
    frame = _with_gaps().with_columns(pl.col("query").str.slice(1).cast(pl.Int64))
    eager = rm.compare(frame, baseline="a", queries=[1, 2, 3, 4])
    assert_frame_equal(eager, rm.compare(frame.lazy(), baseline="a", queries=[1, 2, 3, 4]))
    assert_frame_equal(eager, rm.compare(_with_gaps(), baseline="a"))


def test_single_query_gives_null_tests_not_errors() -> None:
    frame = pl.DataFrame({"system": ["a", "b"], "query": ["q1", "q1"], "ap": [0.2, 0.5]})
    row = rm.compare(frame, baseline="a").filter(pl.col("system") == "b")
    assert row["p_value"].item() is None
    assert row["significant"].item() is None
    assert row["delta"].item() == pytest.approx(0.3)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"baseline": "nope"}, "`baseline`"),
        ({"baseline": "a", "test": "wilcoxon"}, "`test`"),
        ({"baseline": "a", "correction": "fdr"}, "`correction`"),
        ({"baseline": "a", "missing": "keep"}, "`missing`"),
        ({"baseline": "a", "ci": "bca"}, "`ci`"),
        ({"baseline": "a", "n_resamples": 0}, "`n_resamples`"),
        ({"baseline": "a", "alpha": 1.5}, "`alpha`"),
        ({"baseline": "a", "seed": -1}, "`seed`"),
        ({"baseline": "a", "metrics": ["nope"]}, "`metrics`"),
        ({"baseline": "a", "metrics": "ap"}, "`metrics`"),
        ({"baseline": "a", "system": "run"}, "`system`"),
        ({"baseline": "a", "queries": ["q1", "q1"]}, "`queries`"),
    ],
)
def test_bad_parameters_raise_value_error(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rm.compare(_with_gaps(), **kwargs)


def test_duplicate_rows_are_an_error_naming_the_pair() -> None:
    frame = pl.concat([_with_gaps(), _with_gaps().head(1)])
    with pytest.raises(ValueError, match=r"duplicate \(system, query\) row: \('a', 'q1'\)"):
        rm.compare(frame, baseline="a")
