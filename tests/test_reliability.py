"""The reliability suite: odd but realistic data against every metric and measure name.

Registry-driven: it loops over tests/metric_table.py's ``METRICS`` (every public
metric function) and ``MEASURES`` (every registry measure, by a name that spells
it), so a new metric is covered without touching this file. The generated frames
hold what real data holds when it goes wrong: tied scores, null, NaN, ±inf and
-0.0 scores, null, NaN, negative and huge labels (1030, whose exponential gain
overflows a double, and 1e300), integer, float, bool and Decimal columns, empty
frames and single rows. Every value must be:

- equal to the slow reference (tests/reference.py), reading a NaN label as
  unjudged (null);
- the same, bit for bit, whatever the columns' types, when they hold the same
  numbers (an Int64, Decimal or bool column against its Float64 cast);
- never NaN, and never an error (inf only where a value is unbounded);
- the same, bit for bit, eager, lazy, streaming and from ``scan_parquet``;
- the same, bit for bit, for a measure name in one ``metrics()`` call with every
  other name as alone;
- the same, bit for bit, with 1 and 2 threads (in subprocesses).

The documented behaviours this relies on are in the README's Reliability section;
tests/test_bad_inputs.py holds a regression test per finding of the bad-input sweep.
"""

from __future__ import annotations

import io
import math
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from tests import reference as ref
from tests.metric_table import MEASURES, METRICS, MetricCase, subtopic_lists_of
from tests.rankings import random_rankings
from tests.test_reference import assert_close

HUGE = (1030.0, 1e300)
"""Huge labels: 2**1030 overflows a double (exponential gains); 1e300 is near its top."""

SCORES = st.one_of(
    st.sampled_from([None, math.nan, math.inf, -math.inf, -0.0, 0.0, 0.5, 1.0, 2.0]),
    st.floats(-10, 10, allow_nan=False, allow_infinity=False),
)
LABELS = st.sampled_from([None, math.nan, -2.0, -1.0, 0.0, 0.0, 1.0, 2.0, 3.0, *HUGE])

SCORE_TYPES = ("Float64", "Float32", "Int64", "Decimal")
LABEL_TYPES = ("Float64", "Int64", "Boolean", "Decimal")

Query = list[tuple[float | None, float | None]]


def _score(value: float | None, kind: str) -> Any:
    """``value`` as a score of column type ``kind`` (integers and decimals have no NaN or inf)."""
    if value is None or kind in ("Float64", "Float32"):
        return value
    if not math.isfinite(value):
        return None
    return round(value) if kind == "Int64" else Decimal(f"{value:.3f}")


def _label(value: float | None, kind: str) -> Any:
    """``value`` as a label of column type ``kind`` (NaN only in floats)."""
    if value is None or kind == "Float64":
        return value
    if math.isnan(value):
        return None
    if kind == "Boolean":
        return value > 0
    if kind == "Int64":
        return int(min(value, 2.0**62))
    return Decimal(f"{min(value, 1e20):.2f}")


DTYPES: dict[str, pl.DataType] = {
    "Float64": pl.Float64(),
    "Float32": pl.Float32(),
    "Int64": pl.Int64(),
    "Boolean": pl.Boolean(),
    "Decimal": pl.Decimal(38, 3),
}


def typed_frame(queries: list[Query], score_type: str, label_type: str) -> pl.DataFrame:
    """The queries' rows in one frame, score and labels of the given column types."""
    rows = [(q, *row) for q, query in enumerate(queries) for row in query]
    return pl.DataFrame(
        {
            "query": [row[0] for row in rows],
            "score": [_score(row[1], score_type) for row in rows],
            "relevance": [_label(row[2], label_type) for row in rows],
        },
        schema={"query": pl.Int64, "score": DTYPES[score_type], "relevance": DTYPES[label_type]},
    )


def as_floats(frame: pl.DataFrame) -> pl.DataFrame:
    """The same numbers in Float64 columns, and ``small``: labels for the subtopic model."""
    floats = frame.with_columns(pl.col("score", "relevance").cast(pl.Float64))
    # Subtopic lists are derived from labels (one subtopic per unit): keep them few.
    return floats.with_columns(small=pl.col("relevance").clip(upper_bound=4.0))


@st.composite
def odd_frames(draw: st.DrawFn, max_queries: int = 4) -> tuple[list[Query], pl.DataFrame]:
    """Queries of odd rows, as a frame of drawn column types (plus ``small``, Float64)."""
    queries = draw(
        st.lists(st.lists(st.tuples(SCORES, LABELS), min_size=1, max_size=8), max_size=max_queries)
    )
    frame = typed_frame(
        queries, draw(st.sampled_from(SCORE_TYPES)), draw(st.sampled_from(LABEL_TYPES))
    )
    return queries, frame.with_columns(as_floats(frame).get_column("small"))


def metric_exprs(*, select: bool = False) -> list[pl.Expr]:
    """Every case's expression, named by its id; subtopic cases read ``small``.

    In a ``select`` (no ``group_by``) a value per row is gathered into a list,
    as ``group_by`` gives it.
    """
    exprs = []
    for case in METRICS:
        expr = case.expr("small" if case.receiver == "subtopics" else "relevance")
        exprs.append((expr.implode() if select and case.kind == "rows" else expr).alias(case.id))
    return exprs


NAMES = [name for name, _ in MEASURES.values()]


def measures_expr(names: list[str]) -> pl.Expr:
    """``metrics()`` of ``names`` over the frame, as a struct named ``measures``."""
    subtopics = subtopic_lists_of(pl.col("small"))
    return rm.metrics("relevance", names, by="score", subtopics=subtopics).alias("measures")


def per_query(frame: pl.DataFrame | pl.LazyFrame, exprs: list[pl.Expr], **collect: Any) -> Any:
    return frame.lazy().group_by("query").agg(exprs).sort("query").collect(**collect)


def floats_in(value: Any) -> list[float]:
    """Every float inside a value (lists, structs, Series)."""
    if isinstance(value, float):
        return [value]
    if isinstance(value, pl.Series):
        value = value.to_list()
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [number for item in value for number in floats_in(item)]
    return []


def assert_no_nan(
    frame: pl.DataFrame, unbounded: set[str], trec_nan: frozenset[str] = frozenset()
) -> None:
    """No NaN anywhere (but in ``trec_nan``); inf only in the unbounded columns."""
    for name in frame.columns:
        for number in floats_in(frame.get_column(name).to_list()):
            assert name in trec_nan or not math.isnan(number), f"{name} is NaN in {frame}"
            assert name in unbounded or not math.isinf(number), f"{name} is inf"


def reference_rows(query: Query, small: bool) -> list[ref.Row]:
    """A query's rows as the references read them: a NaN label is unjudged (null)."""
    rows: list[ref.Row] = []
    for score, label in query:
        if label is not None and math.isnan(label):
            label = None
        if small and label is not None:
            label = min(label, 4.0)
        rows.append((score, label))
    return rows


UNBOUNDED = {case.id for case in METRICS if case.kind != "scalar"}
# trec_eval prints -nan (its 0/0) for interpolated precision when a query with
# relevant rows retrieves nothing (null scores here; -J or -M0 there): the
# trec_eval names follow it, as recorded in tests/data/trec_eval_cases.json.
TREC_NAN = frozenset({"11pt_avg"})


@settings(max_examples=40, deadline=None)
@given(odd_frames())
def test_functions_equal_the_reference_in_every_column_type(
    drawn: tuple[list[Query], pl.DataFrame],
) -> None:
    queries, frame = drawn
    floats = as_floats(frame.drop("small"))
    if len(queries) <= 1:  # an empty frame or a single query: select, no group_by
        typed = frame.select(metric_exprs(select=True))
        expected = floats.select(metric_exprs(select=True))
    else:
        typed = per_query(frame, metric_exprs()).drop("query")
        expected = per_query(floats, metric_exprs()).drop("query")
    assert_frame_equal(typed, expected, check_exact=True)
    assert_no_nan(typed, UNBOUNDED)
    # The reference reads the numbers the typed columns hold: the Float64 cast.
    held = floats.partition_by("query", maintain_order=True, include_key=False)
    exact = [list(zip(part["score"], part["relevance"], strict=True)) for part in held]
    for row, query in zip(typed.iter_rows(named=True), exact or [[]], strict=True):
        for case in METRICS:
            rows = reference_rows(query, case.receiver == "subtopics")
            if case.id.endswith("_exp") and any((label or 0) > 1023 for _, label in rows):
                continue  # 2**label overflows: documented in test_exponential_gain_overflow
            assert case.reference is not None
            expected_value = case.reference(rows)
            actual = row[case.id]
            if isinstance(actual, pl.Series):
                actual = actual.to_list()
            assert_close(actual, expected_value, f"{case.id} of {rows}")


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(drawn=odd_frames())
def test_every_engine_and_every_request_gives_the_same_bits(
    drawn: tuple[list[Query], pl.DataFrame], tmp_path: Path
) -> None:
    _, frame = drawn
    exprs = [*metric_exprs(), measures_expr(NAMES)]
    eager = frame.group_by("query").agg(exprs).sort("query")
    assert_no_nan(eager.drop("measures"), UNBOUNDED)
    assert_no_nan(eager.select("measures").unnest("measures"), set(), TREC_NAN)
    assert_frame_equal(eager, per_query(frame, exprs), check_exact=True)
    assert_frame_equal(eager, per_query(frame, exprs, engine="streaming"), check_exact=True)
    path = tmp_path / "frame.parquet"
    frame.write_parquet(path)
    assert_frame_equal(eager, per_query(pl.scan_parquet(path), exprs), check_exact=True)
    # Each name alone gives the bits it gives among all the others.
    alone = per_query(frame, [measures_expr([name]).alias(name) for name in NAMES])
    together = eager.select("query", "measures").unnest("measures")
    for name in NAMES:
        single = alone.select(pl.col(name).struct.field(name)).to_series()
        assert_frame_equal(
            together.select(name), single.to_frame(), check_exact=True, check_dtypes=True
        )


THREADS_SCRIPT = """
import sys
import numpy as np
import polars as pl
from tests.test_reliability import NAMES, as_floats, measures_expr, metric_exprs, typed_frame
rng = np.random.default_rng(16)
scores = [None, float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 0.5, 1.0, 2.0, 3.0]
labels = [None, float("nan"), -1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 1030.0, 1e300]
queries = [
    [(scores[rng.integers(len(scores))], labels[rng.integers(len(labels))])
     for _ in range(rng.integers(1, 30))]
    for _ in range(600)
]
frame = typed_frame(queries, "Float64", "Float64")
frame = frame.with_columns(as_floats(frame).get_column("small"))
exprs = [*metric_exprs(), measures_expr(NAMES)]
out = frame.group_by("query").agg(exprs).sort("query")
out.write_ipc(sys.stdout.buffer)
"""


def test_one_thread_and_two_give_the_same_bits() -> None:
    def run(threads: str) -> pl.DataFrame:
        env = {**os.environ, "POLARS_MAX_THREADS": threads}
        produced = subprocess.run(
            [sys.executable, "-c", THREADS_SCRIPT],
            env=env,
            check=True,
            capture_output=True,
            cwd=Path(__file__).resolve().parents[1],
        ).stdout
        return pl.read_ipc(io.BytesIO(produced))

    one = run("1")
    assert one.height == 600
    assert_frame_equal(one, run("2"), check_exact=True)


@pytest.mark.parametrize("case", [c for c in METRICS if "exp" in c.id], ids=lambda c: c.id)
def test_exponential_gain_overflow(case: MetricCase) -> None:
    # 2**1030 overflows a double: DCG is inf (the value exceeds one), nDCG is
    # null (inf / inf is undefined), never NaN.
    frame = pl.DataFrame({"score": [0.9, 0.8, 0.7], "relevance": [1.0, 1030.0, 2.0]})
    value = frame.select(case.expr()).item()
    if case.function is rm.dcg_at_k:
        assert value == math.inf
    else:
        assert value is None


# Each measure name and the public function with the same definition: the same bits.
NAMES_AND_FUNCTIONS: dict[str, Any] = {
    "P@10": lambda: rm.precision_at_k("relevance", 10, by="score"),
    "R@100": lambda: rm.recall_at_k("relevance", 100, by="score"),
    "AP": lambda: rm.average_precision("relevance", by="score"),
    "AP@10": lambda: rm.ap_at_k("relevance", 10, by="score", denominator="r"),
    "nDCG@10": lambda: rm.ndcg_at_k("relevance", 10, by="score"),
    "RR": lambda: rm.reciprocal_rank("relevance", by="score"),
    "ERR@10": lambda: rm.err_at_k("relevance", 10, by="score"),
    "Success@5": lambda: rm.hit_rate_at_k("relevance", 5, by="score"),
}


def assert_metrics_equal_the_functions(frame: pl.DataFrame) -> None:
    # Whole labels: a measure name's relevance level 1 and a function's threshold 0
    # then select the same rows.
    frame = frame.with_columns(pl.col("relevance").cast(pl.Float64).round().clip(-2.0, 1e6))
    names = list(NAMES_AND_FUNCTIONS)
    together = rm.metrics("relevance", names, by="score").alias("measures")
    separate = [make().alias(name) for name, make in NAMES_AND_FUNCTIONS.items()]
    out = frame.group_by("query").agg(together, *separate).sort("query")
    assert_frame_equal(
        out.select("query", "measures").unnest("measures"),
        out.select("query", *names),
        check_exact=True,
    )


@settings(max_examples=25, deadline=None)
@given(odd_frames())
def test_metrics_equals_the_separate_functions_on_odd_frames(
    drawn: tuple[list[Query], pl.DataFrame],
) -> None:
    assert_metrics_equal_the_functions(drawn[1])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_metrics_equals_the_separate_functions_on_long_rankings(seed: int) -> None:
    assert_metrics_equal_the_functions(random_rankings(seed, n_queries=200, max_docs=120))
