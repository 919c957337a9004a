"""``sink_fused``: fusing a batch of queries at a time writes the file ``fuse`` gives whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from polars_rankmetrics.cli import main
from polars_rankmetrics.fusion import fuse, sink_fused
from polars_rankmetrics.fusion.cli import write_fused
from tests.fusion_data import nested_frame, random_qrels, random_runs


@pytest.fixture(scope="module")
def parquet_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("batched")
    paths = []
    for i, run in enumerate(random_runs(11, n_queries=23, depths=(9, 6, 12))):
        path = folder / f"run{i}.parquet"
        # Sorted by query, with small row groups: each batch's filter skips the others.
        frame = nested_frame(run).sort(["query", "score"], descending=[False, True])
        frame.write_parquet(path, row_group_size=20)
        paths.append(path)
    return paths


CASES: list[tuple[str, str | None, dict[str, Any]]] = [
    ("rrf", "min-max", {"k": 10}),
    ("wsum", "min-max", {"weights": [0.2, 0.5, 0.3]}),
    ("mnz", "zmuv", {}),
    ("min", None, {}),
    ("bordafuse", "borda", {}),
    ("condorcet", "rank", {}),
]


# Every method at every batch size; the seeded sample picks the file format of each.
@pytest.mark.sweep(by=("method", "batch_rows"), keep=1)
@pytest.mark.parametrize(("method", "norm", "options"), CASES)
@pytest.mark.parametrize("suffix", [".trec", ".parquet"])
@pytest.mark.parametrize("batch_rows", [1, 25, 10_000])
def test_batches_write_the_whole_fusion(
    parquet_runs: list[Path],
    tmp_path: Path,
    method: str,
    norm: str | None,
    options: dict[str, Any],
    suffix: str,
    batch_rows: int,
) -> None:
    runs = [str(path) for path in parquet_runs]
    whole, batched = tmp_path / f"whole{suffix}", tmp_path / f"batched{suffix}"
    write_fused(fuse(runs, method=method, norm=norm, **options), str(whole), "x")  # type: ignore[arg-type]
    sink_fused(
        runs, batched, method=method, norm=norm, run_id="x", batch_rows=batch_rows, **options
    )  # type: ignore[arg-type]
    if suffix == ".trec":
        assert batched.read_bytes() == whole.read_bytes()
    else:
        assert pl.read_parquet(batched).equals(pl.read_parquet(whole))


def test_eager_runs_and_trained_methods(tmp_path: Path) -> None:
    runs = random_runs(12, n_queries=9, depths=(5, 7))
    qrels = random_qrels(13, list(runs[0]))
    for method, options in [("sum", {}), ("posfuse", {"train_qrels": qrels})]:
        whole, batched = tmp_path / f"{method}-whole.trec", tmp_path / f"{method}-batched.trec"
        write_fused(fuse(runs, method=method, **options), str(whole), method)  # type: ignore[arg-type]
        sink_fused(runs, batched, method=method, batch_rows=4, **options)  # type: ignore[arg-type]
        assert batched.read_text() == whole.read_text()


def test_a_null_query_is_a_batch_of_its_own(tmp_path: Path) -> None:
    run = pl.LazyFrame({"query": ["b", None, "a", "b"], "doc": ["x", "y", "x", "y"],
                        "score": [1.0, 2.0, 3.0, 0.5]})  # fmt: skip
    whole, batched = tmp_path / "whole.parquet", tmp_path / "batched.parquet"
    write_fused(fuse([run, run.with_columns(pl.col("score") * 2)], method="sum"), str(whole), "x")
    sink_fused([run, run.with_columns(pl.col("score") * 2)], batched, method="sum", batch_rows=1)
    assert pl.read_parquet(batched).equals(pl.read_parquet(whole))


@pytest.mark.parametrize("batch_rows", [0, -3, 2.5, True])
def test_bad_batch_rows(tmp_path: Path, batch_rows: Any) -> None:
    with pytest.raises(ValueError, match="`batch_rows` must be an integer >= 1"):
        sink_fused([{"q": {"d": 1.0}}], tmp_path / "x.trec", batch_rows=batch_rows)
    assert not list(tmp_path.iterdir())


def test_cli_batch_rows(parquet_runs: list[Path], tmp_path: Path) -> None:
    runs = [str(path) for path in parquet_runs]
    whole, batched = tmp_path / "whole.trec", tmp_path / "batched.trec"
    assert main(["fuse", *runs, "--method", "rrf", "-o", str(whole)]) == 0
    assert main(["fuse", *runs, "--method", "rrf", "--batch-rows", "30", "-o", str(batched)]) == 0
    assert batched.read_text() == whole.read_text()
