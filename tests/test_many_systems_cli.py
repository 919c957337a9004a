"""`rankmetrics compare --all-pairs`: tests, corrections, formats and bad options end to end."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.cli import main
from polars_rankmetrics.comparisons.cli import evaluate_runs, query_set, read_qrels

N_QUERIES = 12


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    directory = tmp_path_factory.mktemp("pairs")
    rng = np.random.default_rng(1)
    docs = [f"d{i:02d}" for i in range(15)]
    qrels = pl.concat(
        pl.DataFrame(
            {"query": str(q), "doc": docs, "relevance": (rng.random(15) < 0.3).astype(int)}
        ).with_columns(relevance=pl.when(pl.col("doc") == "d00").then(1).otherwise("relevance"))
        for q in range(N_QUERIES)
    )
    qrels.write_parquet(directory / "qrels.parquet")
    names = []
    for name, shift in (("bm25", 0.0), ("dense", 1.0), ("hybrid", 3.0)):
        frames = []
        for q in range(N_QUERIES):
            relevant = qrels.filter(pl.col("query") == str(q))["relevance"].to_numpy() > 0
            frames.append(
                pl.DataFrame(
                    {"query": str(q), "doc": docs, "score": rng.normal(size=15) + shift * relevant}
                )
            )
        pl.concat(frames).with_columns(run_id=pl.lit(name)).write_parquet(
            directory / f"{name}.parquet"
        )
        names.append(str(directory / f"{name}.parquet"))
    return [str(directory / "qrels.parquet"), *names]


def _per_query(paths: list[str]) -> tuple[pl.DataFrame, pl.Series]:
    qrels = read_qrels(Path(paths[0]))
    return evaluate_runs(qrels, [Path(p) for p in paths[1:]], ["AP"], {}), query_set(qrels)


@pytest.mark.parametrize(
    ("test", "correction"), [("t", "fdr_bh"), ("wilcoxon", "holm"), ("tukey-two-way", None)]
)
def test_all_pairs_csv_equals_compare_pairs(
    paths: list[str], capsys: pytest.CaptureFixture[str], test: str, correction: str | None
) -> None:
    argv = ["compare", *paths, "-m", "AP", "--all-pairs", "--test", test, "--format", "csv"]
    if correction:
        argv += ["--correction", correction]
    assert main(argv) == 0
    got = pl.read_csv(io.StringIO(capsys.readouterr().out))
    per_query, queries = _per_query(paths)
    expected = rm.compare_pairs(per_query, test=test, correction=correction, queries=queries)  # type: ignore[arg-type]
    assert (
        got.select("system_a", "system_b").rows() == expected.select("system_a", "system_b").rows()
    )
    np.testing.assert_allclose(
        got["p_value_adjusted"].to_numpy(), expected["p_value_adjusted"].to_numpy(), rtol=1e-12
    )


def test_all_pairs_tables(paths: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", *paths, "-m", "AP", "-m", "nDCG@10", "--all-pairs"]
    assert main([*argv, "--test", "tukey"]) == 0
    markdown = capsys.readouterr().out
    assert markdown.splitlines()[0] == "| # | System | AP | nDCG@10 |"
    assert "| c | hybrid | **" in markdown and "<sup>ab</sup>" in markdown
    assert "(Tukey's HSD test) at level 0.05" in markdown
    assert main([*argv, "--format", "latex", "--correction", "holm-sidak"]) == 0
    latex = capsys.readouterr().out
    assert latex.startswith("\\begin{table}") and "Holm-Sidak correction" in latex
    assert main([*argv, "--format", "html", "--baseline", "dense"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("<table>") and "<td>hybrid</td>" in page
    assert main([*argv, "--format", "json", "--test", "sign"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2 * 3


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--test", "wilcoxon", "--baseline", "bm25"],
            "--test wilcoxon cannot be used with --baseline",
        ),
        (
            ["--correction", "fdr_bh", "--baseline", "bm25"],
            "--correction fdr_bh cannot be used with --baseline",
        ),
        (
            ["--format", "html", "--baseline", "bm25"],
            "--format html cannot be used with --baseline",
        ),
        (["--all-pairs", "--test", "tukey", "--correction", "holm"], "use --correction none"),
        (["--all-pairs", "--baseline", "nope"], "`baselines`: system 'nope' not found"),
    ],
)
def test_bad_options_exit_2_with_one_line(
    paths: list[str], capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert main(["compare", *paths, "-m", "AP", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("rankmetrics: error:")


def test_benchmark_runs_at_a_tiny_size(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.bench_compare import main as bench

    bench(["--systems", "4", "--queries", "20", "--metrics", "2", "--trials", "50"])
    bench(["--systems", "3", "--queries", "10", "--metrics", "1", "--trials", "20", "--no-peer"])
    out = capsys.readouterr().out
    assert "| randomised Tukey HSD, 50 trials | 4 systems x 20 queries x 2 metrics | " in out
    assert "peer: ranx Fisher" in out
