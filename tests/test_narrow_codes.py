"""The staged aggregates of integer labels over their narrow codes (``engine/narrow.py``).

The fast path of ``metrics()`` reads an integer label's codes in their own type
(``Int8`` for ``Int8`` labels) where every aggregate compares them with whole
numbers or casts what it reads; the plain path reads the Float64 list. Both must
give the same bits, for every integer type, thresholds inside and outside the
narrow literals' range, labels at the type's limits and unretrieved relevant rows.
"""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from polars_rankmetrics.engine.ranked import NARROW_LITERAL_MAX, Threshold, literal_bound
from tests.rankings import random_rankings
from tests.test_fast_paths import fast_and_plain

SIX = ["P@10", "R@100", "AP", "AP@10", "nDCG@10", "RR"]
STAGED = [*SIX, "P@5", "R@10", "AP@3", "RR@2", "nDCG@2", "nDCG@5", "Success@1", "Rprec", "nDCG"]
TYPES = [pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32, pl.Boolean]


def _labels(seed: int, dtype: pl.DataType, high: int) -> pl.DataFrame:
    """Random rankings with the labels in ``dtype``: -1..3 scaled, a few at ``high``."""
    frame = random_rankings(seed, n_queries=60, max_docs=40)
    label = pl.col("relevance")
    if dtype == pl.Boolean:
        return frame.with_columns((label > 0).alias("relevance"))
    if not dtype.is_signed_integer():
        label = label.clip(lower_bound=0)
    spiked = pl.when(pl.int_range(pl.len()) % 11 == 4).then(high).otherwise(label)
    return frame.with_columns(spiked.cast(dtype).alias("relevance"))


@pytest.mark.parametrize("dtype", TYPES, ids=str)
@pytest.mark.parametrize(
    ("threshold", "high"),
    [(0, 4), (1, 127), (2.5, 9), (120, 127)],
    ids=["t0", "t1", "t2.5", "t120"],
)
def test_metrics_of_integer_labels_equal_the_plain_path(
    dtype: pl.DataType, threshold: float, high: int
) -> None:
    frame = _labels(int(threshold * 2) + 1, dtype, high)
    fast, plain = fast_and_plain(
        lambda: rm.metrics("relevance", STAGED, by="score", threshold=threshold)
    )
    grouped = frame.group_by("query").agg(fast.alias("fast"), plain.alias("plain")).sort("query")
    assert_frame_equal(
        grouped.select(pl.col("fast").alias("v")),
        grouped.select(pl.col("plain").alias("v")),
        check_exact=True,
    )


def _plan(measures: list[str], dtype: pl.DataType) -> str:
    frame = pl.LazyFrame({"query": [1], "score": [0.5], "relevance": pl.Series([1], dtype=dtype)})
    return (
        frame.group_by("query")
        .agg(rm.metrics("relevance", measures, by="score"))
        .explain(optimized=False)
    )


def test_the_six_measures_of_int8_labels_read_the_narrow_codes() -> None:
    # The sorted Int8 codes go into the aggregates as they are: no cast of the list.
    assert "strict_cast(Float64).implode().implode()" not in _plan(SIX, pl.Int8)
    assert ".implode().implode()" in _plan(SIX, pl.Int8)
    # A statistic with arithmetic on the codes keeps the Float64 list for all.
    assert "strict_cast(Float64).implode().implode()" in _plan([*SIX, "ERR@10"], pl.Int8)


def test_comparison_bounds_are_integer_literals_where_whole_and_small() -> None:
    assert literal_bound(0.0) == 0 and isinstance(literal_bound(0.0), int)
    assert isinstance(literal_bound(-3.0), int)
    assert literal_bound(2.5) == 2.5
    assert isinstance(literal_bound(NARROW_LITERAL_MAX + 1.0), float)
    assert isinstance(literal_bound(float("inf")), float)
    # The comparisons are the same on Float64 values either way.
    values = pl.Series([-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0])
    for threshold in (Threshold(0.0), Threshold(1.0, inclusive=True), Threshold(2.5)):
        frame = pl.DataFrame({"v": values})
        got = frame.select(
            threshold.admits(pl.col("v")).alias("a"),
            threshold.admits_unretrieved(pl.col("v")).alias("u"),
        )
        bound, low = threshold.value, -1.0 - threshold.value
        inclusive = threshold.inclusive
        assert got.to_series(0).to_list() == [
            v >= bound if inclusive else v > bound for v in values
        ]
        assert got.to_series(1).to_list() == [v <= low if inclusive else v < low for v in values]


@pytest.mark.parametrize("measures", [["nDCG@10"], SIX, ["AP", "ERR@10"]], ids=str)
def test_the_expression_names_every_column_it_reads(measures: list[str]) -> None:
    # The form chosen by the label type names its columns too: evaluate_parquet reads
    # the columns of `meta.root_names` only (nDCG@10 lost "score" there before).
    expr = rm.metrics("relevance", measures, by=["score", "tiebreak"])
    assert set(expr.meta.root_names()) == {"relevance", "score", "tiebreak"}
