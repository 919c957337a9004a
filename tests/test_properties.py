"""Properties that must hold for every metric of the table: contexts, row order, bounds."""

from __future__ import annotations

import itertools
from pathlib import Path

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from tests.metric_table import METRICS, SCALAR

# Every metric of the table (tests/metric_table.py), and many at once.
ALL_METRICS: dict[str, pl.Expr] = {case.id: case.expr() for case in METRICS if case.kind != "rows"}
ALL_METRICS["multi"] = rm.metrics("relevance", ["AP", "P@2", "nDCG@5", "RR", "bpref"], by="score")
SCALAR_METRICS: dict[str, pl.Expr] = {case.id: case.expr() for case in SCALAR}
UNIT_INTERVAL = [case.id for case in METRICS if case.kind == "scalar"]


@st.composite
def collections(draw: st.DrawFn, *, distinct_scores: bool = False) -> pl.DataFrame:
    n = draw(st.integers(1, 60))
    query = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    if distinct_scores:
        values = draw(st.lists(st.integers(-1000, 1000), min_size=n, max_size=n, unique=True))
        score: list[float | None] = [v / 10 for v in values]
    else:
        score = draw(
            st.lists(st.one_of(st.none(), st.integers(0, 4).map(float)), min_size=n, max_size=n)
        )
    relevance = draw(st.lists(st.one_of(st.none(), st.integers(-1, 3)), min_size=n, max_size=n))
    return pl.DataFrame(
        {"query": query, "score": score, "relevance": relevance},
        schema={"query": pl.Int64, "score": pl.Float64, "relevance": pl.Int64},
    )


def per_query(frame: pl.DataFrame | pl.LazyFrame, metrics: dict[str, pl.Expr]) -> pl.DataFrame:
    result = frame.lazy().group_by("query").agg(e.alias(n) for n, e in metrics.items())
    return result.sort("query").collect()


@settings(max_examples=40, deadline=None)
@given(collections(distinct_scores=True), st.randoms(use_true_random=False))
def test_row_order_does_not_matter_with_distinct_scores(df: pl.DataFrame, random) -> None:  # type: ignore[no-untyped-def]
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=random.randint(0, 2**31))
    assert_frame_equal(per_query(df, ALL_METRICS), per_query(shuffled, ALL_METRICS))


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(df=collections())
def test_eager_lazy_and_parquet_agree(df: pl.DataFrame, tmp_path: Path) -> None:
    path = tmp_path / "rows.parquet"
    df.write_parquet(path)
    eager = df.group_by("query").agg(e.alias(n) for n, e in ALL_METRICS.items()).sort("query")
    assert_frame_equal(eager, per_query(df.lazy(), ALL_METRICS))
    assert_frame_equal(eager, per_query(pl.scan_parquet(path), ALL_METRICS))
    streaming = (
        pl.scan_parquet(path)
        .group_by("query")
        .agg(e.alias(n) for n, e in ALL_METRICS.items())
        .sort("query")
        .collect(engine="streaming")
    )
    assert_frame_equal(eager, streaming)


@settings(max_examples=30, deadline=None)
@given(collections())
def test_group_by_equals_per_group_select_and_over(df: pl.DataFrame) -> None:
    grouped = per_query(df, ALL_METRICS)
    for query in grouped["query"]:
        alone = df.filter(pl.col("query") == query).select(
            pl.lit(query, pl.Int64).alias("query"), *(e.alias(n) for n, e in ALL_METRICS.items())
        )
        assert_frame_equal(grouped.filter(pl.col("query") == query), alone)
    broadcast = (
        df.select("query", *(e.over("query").alias(n) for n, e in SCALAR_METRICS.items()))
        .unique(maintain_order=False)
        .sort("query")
    )
    assert_frame_equal(per_query(df, SCALAR_METRICS), broadcast)


@settings(max_examples=40, deadline=None)
@given(collections())
def test_values_are_in_the_unit_interval(df: pl.DataFrame) -> None:
    values = per_query(df, SCALAR_METRICS).drop("query")
    for name in UNIT_INTERVAL:
        column = values[name].drop_nulls()
        assert column.is_between(0.0, 1.0).all(), name
    assert (values["hits@3"] <= 3).all() and (values["hits@3"] >= 0).all()
    curves = per_query(df, {"iprec": ALL_METRICS["iprec"]})["iprec"].explode().drop_nulls()
    assert curves.is_between(0.0, 1.0).all()


@settings(max_examples=40, deadline=None)
@given(collections())
def test_recall_grows_with_k_and_precision_terms_are_consistent(df: pl.DataFrame) -> None:
    cutoffs = [1, 2, 3, 5, 8, 13, 100]
    recall = per_query(df, {f"{k}": rm.recall_at_k("relevance", k, by="score") for k in cutoffs})
    for previous, current in itertools.pairwise(cutoffs):
        pairs = recall.select(str(previous), str(current)).drop_nulls()
        assert (pairs[str(previous)] <= pairs[str(current)]).all()
    # AP@k with denominator R tends to AP as k covers the ranking.
    both = per_query(
        df,
        {
            "ap": rm.average_precision("relevance", by="score"),
            "ap_all": rm.ap_at_k("relevance", 1000, by="score", denominator="r"),
        },
    )
    assert both["ap"].to_list() == both["ap_all"].to_list()


DETERMINISM_SCRIPT = """
import sys
import numpy as np
import polars as pl
import polars_rankmetrics as rm
from tests.metric_table import METRICS, SCALAR
rng = np.random.default_rng(0)
n = 200_000
df = pl.DataFrame({
    "query": rng.integers(0, 2_000, n),
    "score": rng.integers(0, 5, n).astype(float),  # heavy ties
    "relevance": rng.integers(0, 3, n),
})
out = df.group_by("query").agg(
    rm.metrics("relevance", ["AP", "P@5", "RR", "nDCG@10", "Rprec"], by="score").alias("m"),
    rm.pr_curve("relevance", by="score").alias("curve"),
).sort("query")
out.write_ipc(sys.stdout.buffer)
"""


def test_ties_give_the_same_result_whatever_the_thread_count() -> None:
    import io
    import os
    import subprocess
    import sys

    def run(threads: str) -> pl.DataFrame:
        env = {**os.environ, "POLARS_MAX_THREADS": threads}
        produced = subprocess.run(
            [sys.executable, "-c", DETERMINISM_SCRIPT], env=env, check=True, capture_output=True
        ).stdout
        return pl.read_ipc(io.BytesIO(produced))

    assert_frame_equal(run("1"), run("4"))
