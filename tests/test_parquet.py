"""evaluate_parquet: passes, engines and sources give the in-memory values."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from tests.rankings import random_rankings


def test_evaluate_parquet_partitions_and_engines(tmp_path: object) -> None:

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
        ({"query": "AP"}, r"measure names \['AP'\] clash with the query column names"),
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
