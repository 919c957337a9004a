"""The shared-quantity and top-k paths give exactly the plain sorted path's values.

The plain path is ``Ranking.aggregate(statistic(ranking.in_list))``: one sorted
list per group and each statistic computed on it from scratch. Every public
metric now takes a faster path; these tests compare the two bit for bit on
random data with tied scores, null and NaN scores, null and negative labels and
unretrieved relevant rows, and check the six benchmark measures against a slow
per-query reference written with numpy.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from polars_rankmetrics._ranking import Ranking
from polars_rankmetrics._shared import StagedRanked, _per_list
from polars_rankmetrics.average_precision import ap_at_k_statistic, average_precision_statistic
from polars_rankmetrics.dcg import dcg_statistic, ndcg_statistic
from polars_rankmetrics.measures import parse_measure, parse_measures
from polars_rankmetrics.precision_recall import (
    f_beta_statistic,
    hit_rate_statistic,
    precision_statistic,
    r_precision_statistic,
    recall_statistic,
)
from polars_rankmetrics.reciprocal_rank import reciprocal_rank_statistic


def random_rankings(seed: int, n_queries: int = 40, max_docs: int = 30) -> pl.DataFrame:
    """Queries of 1..max_docs rows: few distinct scores (ties), nulls, NaN, graded labels."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_docs + 1, n_queries)
    n = int(sizes.sum())
    score = rng.integers(0, 6, n).astype(float)
    score[rng.random(n) < 0.1] = np.nan
    label = rng.choice([-1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0], n)
    frame = pl.DataFrame(
        {
            "query": np.repeat(np.arange(n_queries), sizes),
            "score": score,
            "tiebreak": rng.integers(0, 3, n),
            "relevance": label,
        }
    )
    return frame.with_columns(
        pl.when(pl.int_range(pl.len()) % 7 == 3).then(None).otherwise("score").alias("score"),
        pl.when(pl.int_range(pl.len()) % 5 == 1)
        .then(None)
        .otherwise("relevance")
        .alias("relevance"),
    ).sample(fraction=1.0, shuffle=True, seed=seed)


RankingArgs = dict[str, object]
RANKINGS: list[RankingArgs] = [
    {"by": "score", "descending": True, "threshold": 0},
    {"by": "score", "descending": False, "threshold": 1},
    {"by": ["score", "tiebreak"], "descending": [True, False], "threshold": 0},
    {"by": None, "descending": True, "threshold": 0},
]

# (public function, its keyword arguments, the plain statistic)
CASES: list[tuple[str, Callable[..., pl.Expr], dict[str, object], Callable[..., pl.Expr]]] = [
    ("P@3", rm.precision_at_k, {"k": 3}, lambda r: precision_statistic(r, 3)),
    ("R@4", rm.recall_at_k, {"k": 4}, lambda r: recall_statistic(r, 4, "null")),
    ("F2@5", rm.f_beta_at_k, {"k": 5, "beta": 2.0}, lambda r: f_beta_statistic(r, 5, 2.0, "null")),
    ("hit@2", rm.hit_rate_at_k, {"k": 2}, lambda r: hit_rate_statistic(r, 2)),
    ("Rprec", rm.r_precision, {"no_relevant": "zero"}, lambda r: r_precision_statistic(r, "zero")),
    ("AP", rm.average_precision, {}, lambda r: average_precision_statistic(r, "null")),
    (
        "AP@5",
        rm.ap_at_k,
        {"k": 5, "denominator": "min_k_r"},
        lambda r: ap_at_k_statistic(r, 5, "min_k_r", "null"),
    ),
    (
        "AP@3 hits",
        rm.ap_at_k,
        {"k": 3, "denominator": "hits"},
        lambda r: ap_at_k_statistic(r, 3, "hits", "null"),
    ),
    ("RR", rm.reciprocal_rank, {}, lambda r: reciprocal_rank_statistic(r, None, "null")),
    ("RR@3", rm.reciprocal_rank, {"k": 3}, lambda r: reciprocal_rank_statistic(r, 3, "null")),
]
GAIN_CASES: list[tuple[str, Callable[..., pl.Expr], dict[str, object], Callable[..., pl.Expr]]] = [
    (
        "DCG@4",
        rm.dcg_at_k,
        {"k": 4, "gain": "exponential"},
        lambda r: dcg_statistic(r, 4, "exponential"),
    ),
    ("nDCG@4", rm.ndcg_at_k, {"k": 4}, lambda r: ndcg_statistic(r, 4, "linear", "null")),
    (
        "nDCG@50",
        rm.ndcg_at_k,
        {"k": 50, "gain": "exponential"},
        lambda r: ndcg_statistic(r, 50, "exponential", "null"),
    ),
]


def plain(statistic: Callable[..., pl.Expr], relevance: str, options: RankingArgs) -> pl.Expr:
    ranking = Ranking.build(relevance, options["by"], options["descending"], options["threshold"])  # type: ignore[arg-type]
    return ranking.aggregate(statistic(ranking.in_list))


def both_ways(frame: pl.DataFrame, fast: pl.Expr, reference: pl.Expr) -> None:
    grouped = (
        frame.group_by("query").agg(fast.alias("fast"), reference.alias("plain")).sort("query")
    )
    assert_frame_equal(
        grouped.select(pl.col("fast").alias("v")),
        grouped.select(pl.col("plain").alias("v")),
        check_exact=True,
    )
    one = frame.filter(pl.col("query") == 0).select(fast.alias("v"))
    assert_frame_equal(
        one, frame.filter(pl.col("query") == 0).select(reference.alias("v")), check_exact=True
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("options", RANKINGS, ids=["desc", "asc-t1", "two-keys", "in-order"])
@pytest.mark.parametrize(
    ("name", "function", "kwargs", "statistic"), CASES, ids=[c[0] for c in CASES]
)
def test_metric_equals_plain_path(
    seed: int,
    options: RankingArgs,
    name: str,
    function: Callable[..., pl.Expr],
    kwargs: dict[str, object],
    statistic: Callable[..., pl.Expr],
) -> None:
    frame = random_rankings(seed)
    fast = function("relevance", **kwargs, **options)
    both_ways(frame, fast, plain(statistic, "relevance", options))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("options", RANKINGS[:3], ids=["desc", "asc", "two-keys"])
@pytest.mark.parametrize(
    ("name", "function", "kwargs", "statistic"), GAIN_CASES, ids=[c[0] for c in GAIN_CASES]
)
def test_gain_metric_equals_plain_path(
    seed: int,
    options: RankingArgs,
    name: str,
    function: Callable[..., pl.Expr],
    kwargs: dict[str, object],
    statistic: Callable[..., pl.Expr],
) -> None:
    frame = random_rankings(seed)
    fast = function("relevance", **kwargs, by=options["by"], descending=options["descending"])
    both_ways(frame, fast, plain(statistic, "relevance", {**options, "threshold": 0}))


MEASURES = [
    "P@10",
    "R@100",
    "AP",
    "AP@10",
    "nDCG@10",
    "RR",
    "Rprec",
    "P@5",
    "nDCG",
    "Success@5",
    "RR@3",
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("options", RANKINGS, ids=["desc", "asc-t1", "two-keys", "in-order"])
def test_metrics_equals_plain_struct(seed: int, options: RankingArgs) -> None:
    frame = random_rankings(seed)
    fast = rm.metrics("relevance", MEASURES, **options)  # type: ignore[arg-type]
    parsed = [parse_measure(name) for name in MEASURES]
    reference = plain(
        lambda r: pl.struct(**{m.name: m.statistic(r, "null").cast(pl.Float64) for m in parsed}),
        "relevance",
        options,
    )
    both_ways(frame, fast, reference)


def slow_measures(
    scores: list[float | None], labels: list[float | None]
) -> dict[str, float | None]:
    """The six benchmark measures of one query, straight from their definitions."""
    gains = [max(0.0, label or 0.0) for label in labels]
    retrieved = [i for i, s in enumerate(scores) if s is not None and not math.isnan(s)]
    order = sorted(retrieved, key=lambda i: -scores[i])  # type: ignore[operator]  # stable: ties keep input order
    relevant = [g > 0 for g in gains]
    n_relevant = sum(relevant)
    hits = [relevant[i] for i in order]
    ideal = sorted(gains, reverse=True)

    def dcg(values: list[float], k: int) -> float:
        return sum(v / math.log2(rank + 2) for rank, v in enumerate(values[:k]))

    if n_relevant == 0:
        return {
            "P@10": sum(hits[:10]) / 10,
            "R@100": None,
            "AP": None,
            "AP@10": None,
            "nDCG@10": None,
            "RR": None,
        }
    terms = [sum(hits[: rank + 1]) / (rank + 1) if hit else 0.0 for rank, hit in enumerate(hits)]
    first = next((rank for rank, hit in enumerate(hits) if hit), None)
    return {
        "P@10": sum(hits[:10]) / 10,
        "R@100": sum(hits[:100]) / n_relevant,
        "AP": sum(terms) / n_relevant,
        "AP@10": sum(terms[:10]) / n_relevant,
        "nDCG@10": dcg([gains[i] for i in order], 10) / dcg(ideal, 10),
        "RR": 0.0 if first is None else 1.0 / (first + 1),
    }


@pytest.mark.parametrize("seed", [3, 4])
def test_metrics_against_slow_reference(seed: int) -> None:
    frame = random_rankings(seed, max_docs=120)
    six = ["P@10", "R@100", "AP", "AP@10", "nDCG@10", "RR"]
    ours = (
        frame.group_by("query")
        .agg(rm.metrics("relevance", six, by="score").alias("m"))
        .unnest("m")
        .sort("query")
    )
    rows = []
    for (query,), group in frame.partition_by("query", as_dict=True, maintain_order=True).items():
        rows.append(
            {
                "query": query,
                **slow_measures(group["score"].to_list(), group["relevance"].to_list()),
            }
        )
    expected = pl.DataFrame(
        rows, schema={"query": pl.Int64, **dict.fromkeys(six, pl.Float64)}
    ).sort("query")
    assert_frame_equal(ours, expected, rel_tol=1e-12, abs_tol=1e-12)


def test_evaluate_parquet_partitions_and_engines(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "runs.parquet"
    frame = random_rankings(5, n_queries=60)
    frame.write_parquet(path, row_group_size=100)
    measures = ["AP", "nDCG@10", "P@5"]
    expected = (
        frame.group_by("query")
        .agg(rm.metrics("relevance", measures, by="score").alias("m"))
        .unnest("m")
        .sort("query")
    )
    for partitions in (1, 4):
        for engine in ("in-memory", "streaming"):
            result = rm.evaluate_parquet(str(path), measures, partitions=partitions, engine=engine)  # type: ignore[arg-type]
            assert_frame_equal(result, expected, check_exact=True)
    lazy = rm.evaluate_parquet(pl.scan_parquet(path), measures, partitions=3)
    assert_frame_equal(lazy, expected, check_exact=True)


@pytest.mark.parametrize("read_once_max_rows", [0, 10**9])
def test_evaluate_parquet_auto_partitions(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch, read_once_max_rows: int
) -> None:
    from pathlib import Path

    from polars_rankmetrics import parquet

    path = Path(str(tmp_path)) / "runs.parquet"
    frame = random_rankings(7, n_queries=60)
    frame.write_parquet(path, row_group_size=50)
    monkeypatch.setattr(parquet, "ROWS_PER_PASS", 100)
    monkeypatch.setattr(parquet, "SCAN_ROWS_PER_PASS", 300)
    monkeypatch.setattr(parquet, "READ_ONCE_MAX_ROWS", read_once_max_rows)
    passes = -(-frame.height // 100)
    assert passes > 2
    columns = ["query", "relevance", "score"]
    assert parquet._auto_plan(frame, frame.lazy(), columns)[1] == passes
    scanned = pl.scan_parquet(path)
    planned, parquet_passes = parquet._auto_plan(str(path), scanned, columns)
    read_once = read_once_max_rows >= frame.height
    # Passes that each read the files are larger.
    assert parquet_passes == (passes if read_once else -(-frame.height // 300))
    # Read once: the plan holds a frame of just the needed columns, not the scan.
    assert ("Parquet SCAN" in planned.explain()) is not read_once
    assert planned.collect_schema().names() == (columns if read_once else frame.columns)
    assert parquet._auto_plan(frame.lazy(), frame.lazy(), columns)[1] == 1
    expected = rm.evaluate_parquet(frame, ["AP", "P@5"], partitions=1)
    for source in (frame, str(path), frame.lazy()):
        assert_frame_equal(rm.evaluate_parquet(source, ["AP", "P@5"]), expected, check_exact=True)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"partitions": 0}, "`partitions` must be a positive int"),
        ({"partitions": 2.5}, "`partitions` must be a positive int"),
        ({"partitions": "many"}, "`partitions` must be a positive int or 'auto'"),
        ({"engine": "gpu"}, "`engine` must be one of"),
        ({"query": []}, "`query` must name at least one column"),
    ],
)
def test_evaluate_parquet_rejects_bad_options(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rm.evaluate_parquet(random_rankings(0), ["AP"], **kwargs)  # type: ignore[arg-type]


def test_evaluate_parquet_several_query_columns() -> None:
    frame = random_rankings(6).with_columns((pl.col("query") % 3).alias("system"))
    result = rm.evaluate_parquet(frame, ["AP"], query=["system", "query"], partitions=2)
    expected = frame.group_by("system", "query").agg(
        rm.average_precision("relevance", by="score").alias("AP")
    )
    assert_frame_equal(result, expected.sort("system", "query"), check_exact=True)


# Staged measures (their aggregates shared) mixed with measures computed whole.
MIXED = ["map", "P.5,10", "recall_10", "ndcg_cut_10", "recip_rank", "Rprec", "success_5"]
MIXED += ["num_ret", "num_rel", "set_P", "iprec_at_recall_0.50", "relative_P_5", "utility"]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("options", RANKINGS[:3], ids=["desc", "asc-t1", "two-keys"])
def test_metrics_mixing_staged_and_whole_measures(seed: int, options: RankingArgs) -> None:
    frame = random_rankings(seed)
    fast = rm.metrics("relevance", MIXED, **options)  # type: ignore[arg-type]
    parsed = [measure for name in MIXED for measure in parse_measures(name)]
    assert {m.staged for m in parsed} == {True, False}
    reference = plain(
        lambda r: pl.struct(**{m.name: m.statistic(r, "null").cast(pl.Float64) for m in parsed}),
        "relevance",
        options,
    )
    both_ways(frame, fast, reference)


def test_staged_aggregates_are_computed_once() -> None:
    # P@10 and R@10 read the same hits in the top 10; R@10 and AP read the same R.
    staged = StagedRanked(0.0)
    for name in ["P@10", "R@10", "AP"]:
        parse_measure(name).statistic(staged, "null")
    assert len(staged.recorded) == 3  # hits in the top 10, R, the sum of AP's terms


def test_aggregates_per_list_equal_list_agg() -> None:
    # Reductions become `list.eval(values).list.<reduction>()`; anything else
    # stays a `list.agg`. Either way, the value of `list.agg`.
    lists = pl.DataFrame(
        {"codes": [[3.0, 0.0, -1.0, 2.0], [0.0], [-3.0, -1.0], [0.0, 1.0, 0.0, 2.0, -1.0]]}
    )
    code = pl.element()
    hit = code > 0.0
    aggregates = {
        "hits": hit.sum(),
        "hits@2": (code.head(2) > 0.0).sum(),
        "gain": code.clip(lower_bound=0.0).sum(),
        "found": hit.any(),
        "first": hit.arg_max(),
        "best": code.max(),
        "top": code.first(),
        "ratio": hit.sum() / code.len(),
    }

    def nested(values: dict[str, pl.Expr]) -> pl.DataFrame:
        per_list = pl.struct(_per_list(value).alias(name) for name, value in values.items())
        return lists.select(pl.col("codes").implode().list.eval(per_list).explode().struct.unnest())

    expected = lists.select(
        pl.col("codes").list.agg(value).alias(name) for name, value in aggregates.items()
    )
    assert_frame_equal(nested(aggregates), expected)
    assert expected["first"].to_list() == [0, 0, 0, 1]
    decomposed = [
        name for name, value in aggregates.items() if ".list.eval(" in str(_per_list(value))
    ]
    assert decomposed == ["hits", "hits@2", "gain", "found", "first", "best", "top"]
    # A constant statistic (trec_eval's num_q) gives one value per list.
    assert nested({"constant": pl.lit(1.0)})["constant"].to_list() == [1.0] * 4
