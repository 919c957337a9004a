"""polars_rankmetrics.spark: identical to the local path, and checked against MLlib.

One SparkSession (``local[2]``) serves the whole test session. The MLlib tests
compare means, because ``RankingMetrics`` only returns means; every difference
between MLlib's definitions and ours is demonstrated by its own test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from polars_rankmetrics.spark import _PartitionEvaluator

# Every measure name the local path knows today (other engineers add more).
MEASURES = [
    "map",
    "AP@5",
    "P_5",
    "P@10",
    "recall_10",
    "ndcg",
    "ndcg_cut_10",
    "recip_rank",
    "RR@3",
    "Rprec",
    "success_1",
]

# MLlib's RankingMetrics builds an SQLContext, which pyspark itself deprecates.
mllib_warning = pytest.mark.filterwarnings("ignore:Deprecated in 3.0.0:FutureWarning")


def random_runs(seed: int, n_queries: int = 40, max_docs: int = 30) -> pl.DataFrame:
    """Runs with everything the semantics cover.

    Graded and null labels, null and NaN scores (judged, not retrieved), tied
    scores, queries with no relevant row, and one-row queries.
    """
    rng = np.random.default_rng(seed)
    frames = []
    for q in range(n_queries):
        n = int(rng.integers(1, max_docs))
        relevance = rng.choice([0, 0, 0, 1, 2, 3], size=n).astype(float)
        if q % 7 == 0:
            relevance[:] = 0.0  # no relevant row
        # Few distinct values, so that ties are common.
        score = np.round(rng.normal(size=n) + 0.3 * relevance, 1)
        frame = pl.DataFrame(
            {
                "query": f"q{q:03d}",
                "doc": [f"d{int(d):02d}" for d in rng.permutation(n)],
                "score": score,
                "relevance": relevance.astype(np.int64),
            }
        ).with_columns(
            score=pl.when(pl.Series(rng.random(n) < 0.08))
            .then(None)
            .when(pl.Series(rng.random(n) < 0.05))
            .then(float("nan"))
            .otherwise(pl.col("score")),
            relevance=pl.when(pl.Series(rng.random(n) < 0.1))
            .then(None)
            .otherwise(pl.col("relevance")),
        )
        frames.append(frame)
    # Interleave the queries, as a real table would be.
    return pl.concat(frames).sample(fraction=1.0, shuffle=True, seed=seed)


def local_per_query(
    frame: pl.DataFrame,
    measures: Sequence[str],
    *,
    query: str | list[str] = "query",
    by: str | list[str] = "score",
    **options: Any,
) -> pl.DataFrame:
    """The local path."""
    return (
        frame.group_by(query)
        .agg(rm.metrics("relevance", measures, by=by, **options).alias("m"))
        .unnest("m")
    )


def to_spark(spark: Any, frame: pl.DataFrame) -> Any:
    """A Spark DataFrame with the rows of ``frame`` in the same order."""
    return spark.createDataFrame(frame.to_arrow(compat_level=pl.CompatLevel.oldest()))


def to_polars(sdf: Any) -> pl.DataFrame:
    result = pl.from_arrow(sdf.toArrow())
    assert isinstance(result, pl.DataFrame)
    return result


def sorted_by(frame: pl.DataFrame, keys: str | list[str]) -> pl.DataFrame:
    return frame.sort(keys, nulls_last=True)


def assert_same(actual: pl.DataFrame, expected: pl.DataFrame, keys: str | list[str]) -> None:
    """Equal to the last bit or two, nulls and all.

    Not ``check_exact``: the local path itself rounds differently with one group
    than with several (polars 2.1 evaluates ``hits / 5`` as 0.6 for a frame with
    one query and as 0.6000000000000001 with two), and a Spark chunk may hold a
    single query.
    """
    assert_frame_equal(
        sorted_by(actual, keys), sorted_by(expected, keys), rel_tol=1e-15, abs_tol=0.0
    )


# --- identical to the local path --------------------------------------------


@pytest.mark.parametrize(
    ("partitions", "batch_rows", "chunk_rows"),
    [(1, 10_000, 1_000_000), (3, 7, 5), (7, 3, 1), (3, 7, None)],
)
def test_identical_to_local_with_doc(
    spark: Any, partitions: int, batch_rows: int, chunk_rows: int | None
) -> None:
    # Small Arrow batches and chunks cut queries across batches and chunks.
    frame = random_runs(seed=partitions)
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(batch_rows))
    try:
        result = rm.spark.evaluate(
            to_spark(spark, frame),
            MEASURES,
            doc="doc",
            partitions=partitions,
            chunk_rows=chunk_rows,
        )
        actual = to_polars(result)
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    # trec_eval's order: score descending, then doc descending.
    assert_same(actual, local_per_query(frame, MEASURES, by=["score", "doc"]), "query")


def test_peer_names_on_spark(spark: Any) -> None:
    # ir_measures' grammar, ranx's names and pytrec_eval's strings, as locally.
    names = ["AP(rel=2)", "nDCG(judged_only=True)@10", "ndcg@10-l2", "map@5", "mrr", "P_5,10"]
    frame = random_runs(seed=3)
    result = rm.spark.evaluate(to_spark(spark, frame), names, doc="doc", partitions=2)
    expected = local_per_query(frame, names, by=["score", "doc"])
    assert expected.columns[1:] == [*names[:-1], "P_5", "P_10"]
    assert_same(to_polars(result), expected, "query")


@pytest.mark.parametrize("chunk_rows", [200_000, None])
def test_identical_to_local_ties_keep_input_order(spark: Any, chunk_rows: int | None) -> None:
    frame = random_runs(seed=11)
    result = rm.spark.evaluate(
        to_spark(spark, frame), MEASURES, partitions=3, chunk_rows=chunk_rows
    )
    actual = to_polars(result)
    expected = local_per_query(frame, MEASURES, by="score")
    assert_same(actual, expected, "query")
    # The tie-breaking matters on this data: reversing the input changes some values.
    reversed_rows = local_per_query(frame.reverse(), MEASURES, by="score")
    assert not sorted_by(reversed_rows, "query").equals(sorted_by(expected, "query"))


def test_identical_to_local_options_and_query_columns(spark: Any) -> None:
    frame = random_runs(seed=5).with_columns(
        user=pl.col("query").str.slice(0, 3),
        session=pl.col("query").str.slice(3).cast(pl.Int64) % 3,
    )
    options = {"threshold": 1, "no_relevant": "zero"}
    actual = rm.spark.evaluate(
        to_spark(spark, frame.drop("query")),
        MEASURES,
        query=["user", "session"],
        doc="doc",
        **options,
    )
    assert [field.name for field in actual.schema.fields][:2] == ["user", "session"]
    expected = local_per_query(
        frame, MEASURES, query=["user", "session"], by=["score", "doc"], **options
    )
    assert_same(to_polars(actual), expected, ["user", "session"])


def test_output_schema_keeps_query_type_and_names(spark: Any) -> None:
    from pyspark.sql.types import DoubleType, LongType

    frame = pl.DataFrame(
        {
            "qid": [7, 7, 7, 8],
            "s": [0.3, 0.2, 0.1, 0.5],
            "label": [True, False, True, False],
        }
    )
    measures = ["P.2", "map", "iprec_at_recall_0.50"]
    per_query = rm.spark.evaluate(
        to_spark(spark, frame), measures, query="qid", score="s", relevance="label"
    )
    fields = {field.name: field.dataType for field in per_query.schema.fields}
    # `P.2` is trec_eval's parameter syntax for the column P_2.
    iprec = "iprec_at_recall_0.50"
    assert fields == {
        "qid": LongType(),
        "P_2": DoubleType(),
        "map": DoubleType(),
        iprec: DoubleType(),
    }
    rows = {row["qid"]: (row["P_2"], row["map"], row[iprec]) for row in per_query.collect()}
    assert rows == {7: (0.5, (1 + 2 / 3) / 2, 1.0), 8: (0.0, None, None)}
    # A name with a dot is a column, not a struct field, for summarize too.
    summary = rm.spark.summarize(per_query, query="qid").collect()[0].asDict()
    assert summary == {"P_2": 0.25, "map": (1 + 2 / 3) / 2, iprec: 1.0, "n_queries": 2}


@pytest.mark.parametrize("large", ["true", "false"])
def test_string_queries_with_either_arrow_string_type(spark: Any, large: str) -> None:
    frame = random_runs(seed=8, n_queries=6)
    key = "spark.sql.execution.arrow.useLargeVarTypes"
    spark.conf.set(key, large)
    try:
        actual = to_polars(rm.spark.evaluate(to_spark(spark, frame), ["map", "P@5"], doc="doc"))
    finally:
        spark.conf.unset(key)
    expected = local_per_query(frame, ["map", "P@5"], by=["score", "doc"])
    assert_same(actual, expected, "query")


def test_summarize_is_the_local_mean(spark: Any) -> None:
    frame = random_runs(seed=3)
    for no_relevant in ["null", "zero"]:
        per_query = rm.spark.evaluate(
            to_spark(spark, frame), MEASURES, doc="doc", no_relevant=no_relevant
        )
        actual = rm.spark.summarize(per_query).collect()[0].asDict()
        local = local_per_query(frame, MEASURES, by=["score", "doc"], no_relevant=no_relevant)
        expected = local.select(pl.exclude("query").mean()).row(0, named=True)
        assert actual.pop("n_queries") == local.height
        assert actual == pytest.approx(expected, rel=1e-12)
    # Queries without a relevant row are skipped under "null" and count as 0 under "zero".
    assert local["map"].null_count() == 0
    assert local.filter(pl.col("map") == 0).height > 0


@pytest.mark.parametrize("chunk_rows", [200_000, None])
def test_empty_input_gives_empty_output(spark: Any, chunk_rows: int | None) -> None:
    frame = random_runs(seed=1).head(0)
    sdf = spark.createDataFrame([], "query string, score double, relevance long")
    assert frame.height == 0
    per_query = rm.spark.evaluate(sdf, ["map", "P@5"], chunk_rows=chunk_rows)
    assert per_query.count() == 0
    assert per_query.columns == ["query", "map", "P@5"]


# --- the partition function, without Spark -----------------------------------


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    batch_rows=st.integers(1, 50),
    chunk_rows=st.integers(1, 200),
)
def test_partition_function_cuts_only_between_queries(
    seed: int, batch_rows: int, chunk_rows: int
) -> None:
    """Whatever the batch and chunk sizes, the per-partition function is the local path."""
    frame = random_runs(seed, n_queries=12, max_docs=25).with_row_index("row")
    partition = frame.with_columns(pl.col("row").cast(pl.Int64)).sort("query", maintain_order=True)
    output = pa.schema([("query", pa.string())] + [(m, pa.float64()) for m in MEASURES])
    evaluator = _PartitionEvaluator(
        query=("query",),
        relevance="relevance",
        by=("score", "row"),
        descending=(True, False),
        measures=tuple(MEASURES),
        threshold=0.0,
        no_relevant="null",
        chunk_rows=chunk_rows,
        output=output,
    )
    batches = partition.to_arrow().to_batches(max_chunksize=batch_rows)
    result = pl.from_arrow(pa.Table.from_batches(list(evaluator(iter(batches))), output))
    assert isinstance(result, pl.DataFrame)
    assert result["query"].is_unique().all()
    expected = local_per_query(frame, MEASURES, by="score")
    assert_same(result, expected, "query")


# --- bad parameters, caught before any Spark job ------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"metrics": ["nope"]}, "unknown measure 'nope'"),
        ({"metrics": None}, "`metrics` must be a measure name or a non-empty list"),
        ({"metrics": []}, "`metrics` must name at least one measure"),
        ({"metrics": ["map", "map"]}, "duplicate"),
        ({"query": "topic"}, "`query` column 'topic' is not in the DataFrame"),
        ({"score": "sim"}, "`score` column 'sim'"),
        ({"doc": "docno"}, "`doc` column 'docno'"),
        ({"doc": "score"}, "must be different columns"),
        ({"no_relevant": "skip"}, "`no_relevant` must be one of 'null', 'zero'"),
        ({"partitions": 0}, "`partitions` must be a positive int"),
        ({"chunk_rows": 0}, "`chunk_rows` must be a positive int"),
        ({"threshold": -1}, "`threshold` must be a finite number >= 0"),
        ({"query": []}, "`query` must be a column name"),
    ],
)
def test_bad_parameters(spark: Any, kwargs: dict[str, Any], message: str) -> None:
    sdf = spark.createDataFrame([("q", 0.5, 1)], "query string, score double, relevance long")
    arguments = {"metrics": ["map"], **kwargs}
    with pytest.raises(ValueError, match=message):
        rm.spark.evaluate(sdf, **arguments)


def test_trec_eval_names_read_their_parameters_as_trec_eval(spark: Any) -> None:
    # trec_eval's atol saturates (P_9223372036854775807, about 0), and a length
    # no C long holds gives an empty string: the values trec_eval prints.
    sdf = spark.createDataFrame([("q", 0.5, 1)], "query string, score double, relevance long")
    names = ["P.99999999999999999999", "relstring.nan"]
    row = rm.spark.evaluate(sdf, names).collect()[0].asDict()
    assert row["P_9223372036854775807"] == 1 / 9223372036854775807
    assert row["relstring_nan"] == ""


def test_measure_name_clashing_with_query(spark: Any) -> None:
    sdf = spark.createDataFrame([("q", 0.5, 1)], "map string, score double, relevance long")
    with pytest.raises(ValueError, match="clash with the query column"):
        rm.spark.evaluate(sdf, ["map"], query="map")


def test_non_numeric_score_is_named(spark: Any) -> None:
    sdf = spark.createDataFrame([("q", "high", 1)], "query string, score string, relevance long")
    with pytest.raises(TypeError, match="the score column 'score' must be numeric, got string"):
        rm.spark.evaluate(sdf, ["map"])


def test_decimal_scores_and_labels_are_read_as_doubles(spark: Any) -> None:
    # A Decimal passes as numeric; it once failed inside the Python workers.
    from pyspark.sql import functions as F

    rows = [("q", "d1", "0.9", "1"), ("q", "d2", "0.8", "0"), ("q", "d3", "0.1", "2")]
    decimal = spark.createDataFrame(rows, "query string, doc string, s string, r string").select(
        "query",
        "doc",
        F.col("s").cast("decimal(10,3)").alias("score"),
        F.col("r").cast("decimal(5,0)").alias("relevance"),
    )
    double = decimal.select(
        "query", "doc", F.col("score").cast("double"), F.col("relevance").cast("double")
    )
    names = ["map", "ndcg_cut_3", "P_2"]
    assert (
        rm.spark.evaluate(decimal, names, doc="doc").collect()
        == rm.spark.evaluate(double, names, doc="doc").collect()
    )


def test_relstring_is_a_string_column(spark: Any) -> None:
    rows = [("q", "d1", 0.9, 1), ("q", "d2", 0.8, 0), ("q", "d3", 0.1, 2), ("r", "d1", 0.5, 0)]
    sdf = spark.createDataFrame(rows, "query string, doc string, score double, relevance long")
    per_query = rm.spark.evaluate(sdf, ["relstring.3", "map"], doc="doc")
    assert dict(per_query.dtypes)["relstring_3"] == "string"
    assert sorted(per_query.select("query", "relstring_3").collect()) == [("q", "102"), ("r", "0")]
    assert rm.spark.summarize(per_query).columns == ["map", "n_queries"]


def test_summarize_missing_query(spark: Any) -> None:
    sdf = spark.createDataFrame([("q", 0.5)], "query string, map double")
    with pytest.raises(ValueError, match=r"`query` columns \['topic'\]"):
        rm.spark.summarize(sdf, query="topic")


# --- MLlib's RankingMetrics ----------------------------------------------------


def mllib_input(frame: pl.DataFrame) -> list[tuple[list[str], list[str]]]:
    """(retrieved docs in rank order, relevant docs) per query, as MLlib wants them."""
    rows = []
    for _, group in frame.group_by("query", maintain_order=True):
        retrieved = group.filter(pl.col("score").is_not_null() & pl.col("score").is_not_nan())
        ranked = retrieved.sort(["score", "doc"], descending=True)["doc"].to_list()
        relevant = group.filter(pl.col("relevance") > 0)["doc"].to_list()
        rows.append((ranked, relevant))
    return rows


def ranking_metrics(spark: Any, rows: Sequence[tuple[Any, ...]]) -> Any:
    from pyspark.mllib.evaluation import RankingMetrics

    return RankingMetrics(spark.sparkContext.parallelize(rows, 2))


def spark_means(spark: Any, frame: pl.DataFrame, measures: list[str], **options: Any) -> Any:
    per_query = rm.spark.evaluate(to_spark(spark, frame), measures, doc="doc", **options)
    return rm.spark.summarize(per_query).collect()[0]


def binary_runs(seed: int) -> pl.DataFrame:
    """Where MLlib and trec_eval agree: binary labels, unique docs, every label judged."""
    frame = random_runs(seed).with_columns(
        relevance=(pl.col("relevance").fill_null(0) >= 2).cast(pl.Int64)
    )
    assert frame.select(pl.struct("query", "doc").is_unique().all()).item()
    return frame


@mllib_warning
def test_mllib_agrees_on_binary_labels(spark: Any) -> None:
    """P@k, recall@k, MAP and nDCG@k agree when queries without relevant docs count as 0.

    Rows with a null or NaN score are relevant documents MLlib does not see in
    the prediction but counts in its ground-truth set: the two agree on them.
    """
    frame = binary_runs(seed=21)
    mllib = ranking_metrics(spark, mllib_input(frame))
    ours = spark_means(
        spark,
        frame,
        ["P@1", "P@5", "P@50", "R@5", "R@50", "AP", "nDCG@3", "nDCG@50"],
        no_relevant="zero",
    )
    assert mllib.precisionAt(1) == pytest.approx(ours["P@1"], rel=1e-12)
    assert mllib.precisionAt(5) == pytest.approx(ours["P@5"], rel=1e-12)
    # Denominator k even where fewer than k documents are retrieved, in both.
    assert mllib.precisionAt(50) == pytest.approx(ours["P@50"], rel=1e-12)
    assert mllib.recallAt(5) == pytest.approx(ours["R@5"], rel=1e-12)
    assert mllib.recallAt(50) == pytest.approx(ours["R@50"], rel=1e-12)
    assert mllib.meanAveragePrecision == pytest.approx(ours["AP"], rel=1e-12)
    assert mllib.ndcgAt(3) == pytest.approx(ours["nDCG@3"], rel=1e-12)
    assert mllib.ndcgAt(50) == pytest.approx(ours["nDCG@50"], rel=1e-12)


@mllib_warning
def test_mllib_map_at_k_divides_by_min_k_r(spark: Any) -> None:
    """MLlib's meanAveragePrecisionAt(k) divides by min(k, R); ``AP@k``/``map_cut_k`` by R.

    The issue's example: R = 4, hits at ranks 1 and 3, k = 3. MLlib gives
    (1 + 2/3) / 3 = 0.556, ``AP@3`` gives (1 + 2/3) / 4 = 0.417, and
    :func:`polars_rankmetrics.ap_at_k`'s default denominator is MLlib's.
    """
    frame = pl.DataFrame(
        {
            "query": "q",
            "doc": ["a", "b", "c", "d", "e"],
            "score": [0.9, 0.8, 0.7, None, None],
            "relevance": [1, 0, 1, 1, 1],
        }
    )
    mllib = ranking_metrics(spark, mllib_input(frame)).meanAveragePrecisionAt(3)
    ours = spark_means(spark, frame, ["AP@3"])["AP@3"]
    assert mllib == pytest.approx((1 + 2 / 3) / 3)
    assert ours == pytest.approx((1 + 2 / 3) / 4)
    local_min_k_r = frame.select(rm.ap_at_k("relevance", 3, by="score")).item()
    assert local_min_k_r == pytest.approx(mllib)
    # Where R <= k the two denominators are equal, and so are the results.
    small_r = binary_runs(seed=4).filter(pl.col("relevance").sum().over("query").is_between(1, 10))
    mllib = ranking_metrics(spark, mllib_input(small_r)).meanAveragePrecisionAt(10)
    assert mllib == pytest.approx(spark_means(spark, small_r, ["AP@10"])["AP@10"], rel=1e-12)


@mllib_warning
def test_mllib_counts_queries_without_relevant_docs_as_zero(spark: Any) -> None:
    """MLlib scores a query with an empty ground-truth set 0 (and logs a warning).

    Ours is null by default, so the mean skips it; ``no_relevant='zero'`` is MLlib's.
    P@k is defined there and 0 in both.
    """
    frame = pl.DataFrame(
        {
            "query": ["q1", "q1", "q2", "q2"],
            "doc": ["a", "b", "a", "b"],
            "score": [0.9, 0.8, 0.9, 0.8],
            "relevance": [0, 1, 0, 0],
        }
    )
    mllib = ranking_metrics(spark, mllib_input(frame))
    default = spark_means(spark, frame, ["AP", "nDCG@2", "R@2", "P@2"])
    zero = spark_means(spark, frame, ["AP", "nDCG@2", "R@2", "P@2"], no_relevant="zero")
    assert mllib.meanAveragePrecision == pytest.approx(0.25)
    assert default["AP"] == pytest.approx(0.5)  # q2 skipped
    assert zero["AP"] == pytest.approx(mllib.meanAveragePrecision)
    assert zero["nDCG@2"] == pytest.approx(mllib.ndcgAt(2))
    assert default["nDCG@2"] == pytest.approx(2 * mllib.ndcgAt(2))
    assert zero["R@2"] == pytest.approx(mllib.recallAt(2)) == pytest.approx(0.5)
    assert default["P@2"] == zero["P@2"] == pytest.approx(mllib.precisionAt(2))


@mllib_warning
def test_mllib_ndcg_gain_is_binary(spark: Any) -> None:
    """MLlib's nDCG gives every relevant document the gain 1; ours uses the label.

    Ours is trec_eval's ``ndcg_cut``: the label is the gain and the ideal ranking
    sorts every judged label. MLlib's ground truth is a set, so a ranking that puts
    a grade-1 document above a grade-3 one is perfect. PySpark's RankingMetrics
    also drops relevance values passed as a third element (its Python stub reads
    two columns), so the result is binary either way. With binary labels the two
    agree (see test_mllib_agrees_on_binary_labels).
    """
    frame = pl.DataFrame(
        {"query": "q", "doc": ["low", "high"], "score": [0.9, 0.8], "relevance": [1, 3]}
    )
    ours = spark_means(spark, frame, ["nDCG@2"])["nDCG@2"]
    assert ours == pytest.approx((1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)))
    binary = ranking_metrics(spark, [(["low", "high"], ["low", "high"])]).ndcgAt(2)
    graded = ranking_metrics(spark, [(["low", "high"], ["high", "low"], [3.0, 1.0])]).ndcgAt(2)
    assert binary == graded == pytest.approx(1.0)


@mllib_warning
def test_mllib_counts_a_repeated_document_twice_but_once_in_r(spark: Any) -> None:
    """A document listed twice in MLlib's prediction is two hits, but one relevant doc.

    MLlib's ground truth is a set, so AP and recall can exceed 1. Ours counts
    rows: the repeated row is relevant twice, in the hits and in R.
    """
    frame = pl.DataFrame(
        {"query": "q", "doc": ["a", "a"], "score": [0.9, 0.8], "relevance": [1, 1]}
    )
    mllib = ranking_metrics(spark, [(["a", "a"], ["a"])])
    assert mllib.meanAveragePrecision == pytest.approx(2.0)
    assert mllib.recallAt(2) == pytest.approx(2.0)
    ours = spark_means(spark, frame, ["AP", "R@2", "P@2"])
    assert ours["AP"] == pytest.approx(1.0)
    assert ours["R@2"] == pytest.approx(1.0)
    assert ours["P@2"] == pytest.approx(mllib.precisionAt(2)) == pytest.approx(1.0)


@mllib_warning
def test_mllib_takes_ties_in_the_order_given(spark: Any) -> None:
    """MLlib has no scores: tied documents rank in whatever order the caller listed them.

    Ours ranks ties by ``doc`` descending (trec_eval), whatever the row order.
    """
    frame = pl.DataFrame(
        {"query": "q", "doc": ["a", "b"], "score": [0.5, 0.5], "relevance": [1, 0]}
    )
    a_first = ranking_metrics(spark, [(["a", "b"], ["a"])]).precisionAt(1)
    b_first = ranking_metrics(spark, [(["b", "a"], ["a"])]).precisionAt(1)
    assert (a_first, b_first) == (1.0, 0.0)
    for rows in [frame, frame.reverse()]:
        assert spark_means(spark, rows, ["P@1"])["P@1"] == 0.0  # "b" > "a" ranks first
