"""Every metric against the slow reference in tests/reference.py, on generated queries.

The data has everything that makes ranking evaluation go wrong: tied scores (kept
in input order), null and NaN scores (judged, not retrieved), infinite scores,
unjudged rows, graded and negative labels, and queries with no relevant row.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankmetrics as rm
from tests import reference as ref

scores = st.one_of(
    st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),  # small set: many ties
    st.floats(-100, 100, allow_nan=False),
    st.sampled_from([math.inf, -math.inf]),
    st.none(),
    st.just(math.nan),
)
labels = st.one_of(st.none(), st.sampled_from([-1, 0, 0, 0, 1, 2, 3]))
query_rows = st.lists(st.tuples(scores, labels), min_size=1, max_size=25)
queries = st.lists(query_rows, min_size=1, max_size=6)


def frame(data: list[list[ref.Row]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query": [q for q, rows in enumerate(data) for _ in rows],
            "score": [score for rows in data for score, _ in rows],
            "relevance": [label for rows in data for _, label in rows],
        },
        schema={"query": pl.Int64, "score": pl.Float64, "relevance": pl.Int64},
    )


# name -> (expression, reference on one query's rows)
CASES: dict[str, tuple[pl.Expr, Callable[[list[ref.Row]], Any]]] = {
    "P@3": (rm.precision_at_k("relevance", 3, by="score"), lambda r: ref.precision_at_k(r, 3)),
    "P@3_t1": (
        rm.precision_at_k("relevance", 3, by="score", threshold=1),
        lambda r: ref.precision_at_k(r, 3, threshold=1),
    ),
    "R@5": (rm.recall_at_k("relevance", 5, by="score"), lambda r: ref.recall_at_k(r, 5)),
    "F1@4": (rm.f_beta_at_k("relevance", 4, by="score"), lambda r: ref.f_beta_at_k(r, 4, 1.0)),
    "F0.5@2": (
        rm.f_beta_at_k("relevance", 2, beta=0.5, by="score"),
        lambda r: ref.f_beta_at_k(r, 2, 0.5),
    ),
    "hit@2": (rm.hit_rate_at_k("relevance", 2, by="score"), lambda r: ref.hit_rate_at_k(r, 2)),
    "AP": (rm.average_precision("relevance", by="score"), ref.average_precision),
    "AP_t2": (
        rm.average_precision("relevance", by="score", threshold=2),
        lambda r: ref.average_precision(r, threshold=2),
    ),
    "AP@4": (rm.ap_at_k("relevance", 4, by="score"), lambda r: ref.ap_at_k(r, 4)),
    "AP@4_r": (
        rm.ap_at_k("relevance", 4, by="score", denominator="r"),
        lambda r: ref.ap_at_k(r, 4, "r"),
    ),
    "AP@4_hits": (
        rm.ap_at_k("relevance", 4, by="score", denominator="hits"),
        lambda r: ref.ap_at_k(r, 4, "hits"),
    ),
    "RR": (rm.reciprocal_rank("relevance", by="score"), ref.reciprocal_rank),
    "RR@3": (rm.reciprocal_rank("relevance", k=3, by="score"), lambda r: ref.reciprocal_rank(r, 3)),
    "Rprec": (rm.r_precision("relevance", by="score"), ref.r_precision),
    "DCG@5": (rm.dcg_at_k("relevance", 5, by="score"), lambda r: ref.dcg_at_k(r, 5)),
    "DCG@5_exp": (
        rm.dcg_at_k("relevance", 5, by="score", gain="exponential"),
        lambda r: ref.dcg_at_k(r, 5, "exponential"),
    ),
    "nDCG@5": (rm.ndcg_at_k("relevance", 5, by="score"), lambda r: ref.ndcg_at_k(r, 5)),
    "nDCG@3_exp": (
        rm.ndcg_at_k("relevance", 3, by="score", gain="exponential"),
        lambda r: ref.ndcg_at_k(r, 3, "exponential"),
    ),
    "11pt": (
        rm.interpolated_precision("relevance", by="score"),
        lambda r: ref.interpolated_precision(r, [i / 10 for i in range(11)]),
    ),
    "iprec_custom": (
        rm.interpolated_precision("relevance", [0.25, 0.5, 0.75], by="score"),
        lambda r: ref.interpolated_precision(r, [0.25, 0.5, 0.75]),
    ),
    "pr_curve": (rm.pr_curve("relevance", by="score"), ref.pr_points),
}


def assert_close(actual: Any, expected: Any, where: str) -> None:
    if expected is None:
        assert actual is None, where
    elif isinstance(expected, list):
        assert actual is not None and len(actual) == len(expected), where
        for a, e in zip(actual, expected, strict=True):
            assert_close(a, e, where)
    elif isinstance(expected, dict):
        assert actual.keys() == expected.keys(), where
        for key in expected:
            assert_close(actual[key], expected[key], f"{where}.{key}")
    else:
        assert actual == pytest.approx(expected, rel=1e-12, abs=1e-12), where


@settings(max_examples=60, deadline=None)
@given(queries)
def test_every_metric_matches_the_reference(data: list[list[ref.Row]]) -> None:
    per_query = (
        frame(data)
        .group_by("query")
        .agg(expression.alias(name) for name, (expression, _) in CASES.items())
        .sort("query")
    )
    for row in per_query.iter_rows(named=True):
        rows = data[row["query"]]
        for name, (_, reference) in CASES.items():
            assert_close(row[name], reference(rows), f"{name} of query {rows}")


@settings(max_examples=30, deadline=None)
@given(query_rows)
def test_metrics_struct_matches_single_functions(rows: list[ref.Row]) -> None:
    df = frame([rows])
    together = df.select(
        rm.metrics(
            "relevance", ["AP", "P@3", "R@5", "nDCG@5", "RR", "Rprec", "Success@2"], by="score"
        )
    ).unnest("relevance")
    apart = df.select(
        rm.average_precision("relevance", by="score").alias("AP"),
        rm.precision_at_k("relevance", 3, by="score").alias("P@3"),
        rm.recall_at_k("relevance", 5, by="score").alias("R@5"),
        rm.ndcg_at_k("relevance", 5, by="score").alias("nDCG@5"),
        rm.reciprocal_rank("relevance", by="score").alias("RR"),
        rm.r_precision("relevance", by="score").alias("Rprec"),
        rm.hit_rate_at_k("relevance", 2, by="score").alias("Success@2"),
    )
    assert together.to_dicts() == apart.to_dicts()


def test_no_relevant_zero_option() -> None:
    df = pl.DataFrame({"score": [0.3, 0.2, None], "relevance": [0, None, 0]})
    undefined = [
        rm.average_precision,
        rm.r_precision,
        lambda r, **kw: rm.recall_at_k(r, 2, **kw),
        lambda r, **kw: rm.f_beta_at_k(r, 2, **kw),
        lambda r, **kw: rm.ap_at_k(r, 2, **kw),
        lambda r, **kw: rm.reciprocal_rank(r, **kw),
        lambda r, **kw: rm.ndcg_at_k(r, 2, **kw),
        lambda r, **kw: rm.interpolated_ap(r, **kw),
    ]
    for metric in undefined:
        assert df.select(metric("relevance", by="score")).item() is None
        assert df.select(metric("relevance", by="score", no_relevant="zero")).item() == 0.0
    # P@k and hit rate are defined: 0.
    assert df.select(rm.precision_at_k("relevance", 2, by="score")).item() == 0.0
    assert df.select(rm.hit_rate_at_k("relevance", 2, by="score")).item() == 0.0
    assert df.select(rm.interpolated_precision("relevance", by="score")).item() is None
    zeros = df.select(rm.interpolated_precision("relevance", by="score", no_relevant="zero"))
    assert zeros.item().to_list() == [0.0] * 11
