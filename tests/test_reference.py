"""Every metric of the table against its slow reference (tests/reference.py), on generated queries.

The data has everything that makes ranking evaluation go wrong: tied scores (kept
in input order), null and NaN scores (judged, not retrieved), infinite scores,
unjudged rows, graded and negative labels, and queries with no relevant row.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankmetrics as rm
from tests import reference as ref
from tests.metric_table import METRICS

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
        .agg(case.expr().alias(case.id) for case in METRICS)
        .sort("query")
    )
    for row in per_query.iter_rows(named=True):
        rows = data[row["query"]]
        for case in METRICS:
            assert case.reference is not None
            assert_close(row[case.id], case.reference(rows), f"{case.id} of query {rows}")


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
