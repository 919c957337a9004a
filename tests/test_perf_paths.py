"""The faster paths give the values of the paths they replace, bit for bit."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
import polars_rankmetrics.parquet

MEASURES = ["P@10", "R@100", "AP", "AP@10", "nDCG@10", "RR", "Rprec", "nDCG", "P@3"]
"""Measures of the plain ranked list (no raw labels): the list that the narrow code builds."""


def frame(seed: int = 0, n: int = 4000) -> pl.DataFrame:
    """Shuffled rows with tied, null and NaN scores and null and negative labels."""
    rng = np.random.default_rng(seed)
    score = np.round(rng.random(n) * 12) / 4
    score[rng.random(n) < 0.05] = np.nan
    label = rng.integers(-1, 4, n).astype(float)
    label[rng.random(n) < 0.3] = np.nan
    return pl.DataFrame(
        {"query": rng.integers(0, 150, n), "score": score, "label": label}
    ).with_columns(pl.col("label").fill_nan(None))


@pytest.mark.parametrize(
    "dtype", [pl.Int8, pl.Int16, pl.Int32, pl.UInt8, pl.UInt16, pl.Boolean, pl.Int64]
)
@pytest.mark.parametrize("threshold", [0, 1])
def test_narrow_code_equals_float_code(dtype: pl.DataType, threshold: int) -> None:
    """An integer label sorts as a narrow integer code; a Float64 label as before."""
    df = frame()
    if dtype == pl.Boolean:
        as_type = pl.col("label") > threshold
    elif dtype in (pl.UInt8, pl.UInt16):
        as_type = pl.col("label").clip(lower_bound=0).cast(dtype)
    else:
        as_type = pl.col("label").cast(dtype)
    df = df.with_columns(as_type.alias("narrow"), as_type.cast(pl.Float64).alias("wide"))

    def measured(column: str) -> pl.DataFrame:
        expressions = [
            rm.metrics(column, MEASURES, by="score", threshold=threshold).alias("m"),
            pl.col(column).rank.ndcg_at_k(5, by="score").alias("top_ndcg"),
            pl.col(column).rank.precision_at_k(3, by="score", threshold=threshold).alias("top_p"),
            pl.col(column).rank.average_precision(by="score").alias("ap"),
        ]
        return df.group_by("query").agg(expressions).unnest("m").sort("query")

    assert_frame_equal(measured("narrow"), measured("wide"), check_exact=True)


@pytest.mark.parametrize("partitions", [1, 3])
def test_query_sort_changes_no_value(partitions: int, monkeypatch: pytest.MonkeyPatch) -> None:
    df = frame(1).rename({"label": "relevance"})
    measures = [*MEASURES, "bpref"]
    sorted_first = rm.evaluate_parquet(df, measures, partitions=partitions)
    monkeypatch.setattr(polars_rankmetrics.parquet, "QUERY_SORT", False)
    hashed = rm.evaluate_parquet(df, measures, partitions=partitions)
    assert_frame_equal(sorted_first, hashed, check_exact=True)
    by_hand = (
        df.group_by("query")
        .agg(rm.metrics("relevance", measures, by="score").alias("m"))
        .unnest("m")
        .sort("query")
    )
    assert_frame_equal(sorted_first, by_hand, check_exact=True)


def test_metrics_name_only_their_columns() -> None:
    """``meta.root_names()`` (which evaluate_parquet reads columns by) names no ``''``."""
    expr = rm.metrics("relevance", [*MEASURES, "bpref"], by="score")
    assert set(expr.meta.root_names()) == {"relevance", "score"}


def test_the_element_walk_over_polars_nodes_answers_as_the_public_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``reads_element`` walks ``Expr._pyexpr``'s nodes; the public ``meta`` walk agrees."""
    from polars_rankmetrics.engine import expressions

    element = pl.element()
    cases = [
        (element, True),
        (pl.col("a"), False),
        (pl.field("_aggregate_0") / 2.0, False),
        (element.cum_sum().filter(element > 0).max(), True),
        (pl.when(pl.field("x") > 0).then(element.sum()).otherwise(0.0), True),
        (pl.when(pl.field("x") > 0).then(pl.field("y")).otherwise(pl.lit(1.0)), False),
        (pl.col("a").list.eval(element * 2).list.sum(), True),
        (pl.struct(pl.field("a").alias("b"), pl.lit(3).alias("c")).struct.field("b"), False),
    ]
    for expr, expected in cases:
        assert expressions.reads_element(expr) is expected
        assert expressions._reads_element(expr) is expected

    def absent(node: object) -> bool:
        raise AttributeError("_pyexpr")

    monkeypatch.setattr(expressions, "_reads_element_fast", absent)
    for expr, expected in cases:
        assert expressions.reads_element(expr) is expected
