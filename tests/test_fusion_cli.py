"""``rankmetrics fuse``: the written run equals rm.fuse's; errors are one line and exit 2."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_rankmetrics.cli import main
from polars_rankmetrics.evaluation.inputs import read_run
from polars_rankmetrics.fusion import fuse
from tests.fusion_data import nested_frame, random_qrels, random_runs


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("fuse")
    runs = random_runs(4, n_queries=15, depths=(10, 7))
    paths = {}
    for i, run in enumerate(runs):
        frame = nested_frame(run).sort(["query", "score"], descending=[False, True])
        lines = frame.select(
            "query",
            q0=pl.lit("Q0"),
            doc="doc",
            rank=pl.int_range(1, pl.len() + 1).over("query"),
            score="score",
            run_id=pl.lit(f"sys{i}"),
        )
        paths[f"r{i}"] = folder / f"r{i}.trec"
        lines.write_csv(paths[f"r{i}"], separator=" ", include_header=False)
        frame.write_parquet(folder / f"r{i}.parquet")
        paths[f"p{i}"] = folder / f"r{i}.parquet"
    qrels = random_qrels(5, list(runs[0]))
    paths["qrels"] = folder / "qrels.txt"
    paths["qrels"].write_text(
        "".join(f"{q} 0 {d} {label}\n" for q, docs in qrels.items() for d, label in docs.items())
    )
    paths["folder"] = folder
    return paths


def _trec(path: Path) -> pl.DataFrame:
    return pl.read_csv(
        path,
        separator=" ",
        has_header=False,
        new_columns=["query", "q0", "doc", "rank", "score", "run_id"],
        schema_overrides={"query": pl.String, "doc": pl.String},
    )


def test_trec_output_is_fuse_with_ranks_and_run_id(files: dict[str, Path]) -> None:
    out = files["folder"] / "fused.trec"
    code = main(["fuse", str(files["r0"]), str(files["r1"]), "--method", "rrf", "--param", "k=30",
                 "--run-id", "hybrid", "-o", str(out)])  # fmt: skip
    assert code == 0
    written = _trec(out)
    expected = fuse([files["r0"], files["r1"]], method="rrf", k=30)
    assert isinstance(expected, pl.DataFrame)
    assert_frame_equal(written.select("query", "doc", "score"), expected, check_exact=False)
    assert written["q0"].unique().to_list() == ["Q0"]
    assert written["run_id"].unique().to_list() == ["hybrid"]
    ranks = written.group_by("query", maintain_order=True).agg(
        ok=pl.col("rank") == pl.int_range(1, pl.len() + 1)
    )
    assert ranks["ok"].explode().all()
    # read back by this library's own TREC reader, the run is the same
    assert read_run(str(out)).height == written.height


def test_parquet_output_and_weights(files: dict[str, Path]) -> None:
    out = files["folder"] / "fused.parquet"
    code = main(["fuse", str(files["p0"]), str(files["p1"]), "--method", "wsum",
                 "--weights", "0.3,0.7", "--norm", "zmuv", "-o", str(out)])  # fmt: skip
    assert code == 0
    expected = fuse([files["r0"], files["r1"]], method="wsum", norm="zmuv", weights=[0.3, 0.7])
    assert isinstance(expected, pl.DataFrame)
    assert_frame_equal(pl.read_parquet(out), expected)


def test_optimize_then_fuse(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    from polars_rankmetrics.fusion.optimize import optimize_fusion

    out = files["folder"] / "opt.trec"
    options = ["--method", "rrf", "--optimize", str(files["qrels"]), "--metric", "ndcg@10"]
    code = main(["fuse", str(files["r0"]), str(files["r1"]), *options, "-o", str(out)])
    assert code == 0
    runs = [str(files["r0"]), str(files["r1"])]
    best = optimize_fusion(str(files["qrels"]), runs, method="rrf", metric="ndcg@10")
    assert isinstance(best, dict)
    assert f"best k={best['k']}" in capsys.readouterr().err
    expected = fuse(runs, method="rrf", k=best["k"])
    assert isinstance(expected, pl.DataFrame)
    assert_frame_equal(_trec(out).select("query", "doc", "score"), expected, check_exact=False)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--method", "wsum"], "needs `weights`"),
        (["--method", "wsum", "--weights", "1,x"], "--weights must be numbers"),
        (["--param", "k"], "--param must be name=value"),
        (["--param", "k=-1"], "`k` must be >= 0"),
        (["--method", "probfuse", "--param", "n_segments=3"], "pass `train_qrels`"),
        (["missing.trec"], "run file not found: missing.trec"),
    ],
)
def test_errors_are_one_line_and_exit_2(
    files: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    arguments: list[str],
    message: str,
) -> None:
    out = files["folder"] / "never.trec"
    code = main(["fuse", str(files["r0"]), str(files["r1"]), *arguments, "-o", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert message in err
    assert not out.exists()


def test_failed_write_leaves_an_earlier_file(files: dict[str, Path]) -> None:
    out = files["folder"] / "kept.trec"
    out.write_text("earlier\n")
    code = main(["fuse", str(files["r0"]), str(files["r1"]), "--param", "k=-5", "-o", str(out)])
    assert code == 2
    assert out.read_text() == "earlier\n"
    assert [p.name for p in files["folder"].glob(".kept.trec.*")] == []
