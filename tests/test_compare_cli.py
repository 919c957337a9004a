"""`rankmetrics compare` and `rankmetrics plot` end to end, on parquet and TREC files."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics._progress import progress
from polars_rankmetrics.cli import main

N_QUERIES = 8


def _slow_average_precision(run: pl.DataFrame, qrels: pl.DataFrame, query: str) -> float:
    """AP with trec_eval's order (score, then docno, both descending) and denominator R."""
    relevant = set(qrels.filter(pl.col("query") == query, pl.col("relevance") > 0)["doc"])
    ranked = sorted(
        run.filter(pl.col("query") == query).select("doc", "score").rows(),
        key=lambda row: (row[1], row[0]),
        reverse=True,
    )
    hits, total = 0, 0.0
    for rank, (doc, _) in enumerate(ranked, start=1):
        if doc in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Qrels and three runs as parquet; `dense` misses two queries and has no run_id."""
    directory = tmp_path_factory.mktemp("runs")
    rng = np.random.default_rng(0)
    docs = [f"d{i:02d}" for i in range(15)]
    qrels = pl.concat(
        pl.DataFrame(
            {
                "query": str(q),
                "doc": docs,
                "relevance": np.where(rng.random(15) < 0.3, rng.integers(1, 3, 15), 0),
            }
        ).with_columns(relevance=pl.when(pl.col("doc") == "d00").then(1).otherwise("relevance"))
        for q in range(N_QUERIES)
    )
    qrels.write_parquet(directory / "qrels.parquet")
    runs = {}
    for name, shift, n_queries in (("bm25", 0.0, N_QUERIES), ("dense", 0.7, 6), ("hybrid", 1.5, 8)):
        frames = []
        for q in range(n_queries):
            relevant = qrels.filter(pl.col("query") == str(q))["relevance"].to_numpy() > 0
            frames.append(
                pl.DataFrame(
                    {
                        "query": str(q),
                        "doc": docs[:12],  # three judged documents are never retrieved
                        "score": np.round(rng.normal(size=12) + shift * relevant[:12], 1),
                    }
                )
            )
        run = pl.concat(frames)
        runs[name] = run
        (run.with_columns(run_id=pl.lit(name)) if name != "dense" else run).write_parquet(
            directory / f"{name}.parquet"
        )
    return {"dir": directory, "qrels": qrels, "runs": runs}


def _paths(data: dict[str, object], *names: str) -> list[str]:
    directory = data["dir"]
    assert isinstance(directory, Path)
    return [str(directory / "qrels.parquet"), *(str(directory / f"{n}.parquet") for n in names)]


def test_compare_csv_equals_compare_on_slow_per_query_ap(
    data: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "compare",
            "--queries",
            "run",
            *_paths(data, "bm25", "dense", "hybrid"),
            "-m",
            "AP",
            "--format",
            "csv",
            "--baseline",
            "bm25",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0
    # Not a terminal: no progress output; only the warning about 8 queries.
    assert captured.err == (
        "rankmetrics: warning: only 8 paired queries (fewer than 10): a paired significance "
        "test over so few queries means little; read the markers and p-values with care\n"
    )
    got = pl.read_csv(io.StringIO(captured.out))
    qrels, runs = data["qrels"], data["runs"]
    assert isinstance(qrels, pl.DataFrame) and isinstance(runs, dict)
    reference = pl.DataFrame(
        [
            {"system": name, "query": query, "AP": _slow_average_precision(run, qrels, query)}
            for name, run in runs.items()
            for query in run["query"].unique(maintain_order=True)
        ]
    )
    expected = rm.compare(reference, baseline="bm25", queries=[str(q) for q in range(N_QUERIES)])
    assert got["system"].to_list() == ["bm25", "dense", "hybrid"]  # run ids, or the file name
    assert got["n_filled"].to_list() == [0, 2, 0]
    for column in ("mean", "ci_low", "ci_high", "delta", "p_value", "p_value_adjusted"):
        assert got[column].to_numpy() == pytest.approx(
            expected[column].to_numpy().astype(float), nan_ok=True
        )


def test_compare_markdown_latex_json_and_options(
    data: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    paths = _paths(data, "bm25", "dense", "hybrid")
    assert (
        main(
            [
                "compare",
                "--queries",
                "run",
                *paths,
                "-m",
                "AP",
                "-m",
                "nDCG@10",
                "--baseline",
                "dense",
            ]
        )
        == 0
    )
    markdown = capsys.readouterr().out
    assert markdown.splitlines()[0] == "| System | AP | nDCG@10 |"
    assert "| dense (baseline) |" in markdown
    assert "(paired t-test, Holm correction, α = 0.05)" in markdown
    assert "Missing queries scored 0 (most in one metric, per system): dense: 2." in markdown
    assert "Means over 8 queries (--queries run)." in markdown
    argv = ["compare", *paths, "-m", "P@5", "--test", "randomization", "--baseline", "bm25"]
    argv += ["--queries", "run", "--missing", "drop"]
    assert main([*argv, "--format", "latex", "--n-resamples", "500"]) == 0
    latex = capsys.readouterr().out
    assert latex.startswith("\\begin{table}")
    assert "Fisher's randomization test" in latex and "dropped" in latex
    json_argv = [
        "compare",
        "--queries",
        "run",
        *paths,
        "-m",
        "RR",
        "--format",
        "json",
        "--test",
        "bootstrap",
    ]
    assert main([*json_argv, "--baseline", "dense"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [record["n_queries"] for record in records] == [8, 8, 8]
    assert [record["n_filled"] for record in records] == [2, 0, 0]  # the baseline first


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-m", "nope"], "unknown measure 'nope'"),
        (["-m", "AP", "--baseline", "bm26"], "`baseline`"),
        (["-m", "AP", "--alpha", "2"], "`alpha`"),
    ],
)
def test_compare_errors_are_one_line_and_exit_2(
    data: dict[str, object], capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert main(["compare", "--queries", "run", *_paths(data, "bm25", "hybrid"), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rankmetrics: error:") and message in err


def test_compare_reports_a_bad_parquet_run(
    data: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.parquet"
    pl.DataFrame({"query": ["1"], "document": ["d"], "score": [1.0]}).write_parquet(bad)
    assert main(["compare", "--queries", "run", _paths(data)[0], str(bad), "-m", "AP"]) == 2
    error = capsys.readouterr().err
    assert "the run has no doc column (looked for ['doc', 'doc_id', 'docno', 'docid'])" in error
    assert "--run-columns doc=..." in error
    duplicated = tmp_path / "dup.parquet"
    pl.DataFrame({"query": ["1", "1"], "doc": ["d", "d"], "score": [1.0, 2.0]}).write_parquet(
        duplicated
    )
    assert main(["compare", "--queries", "run", _paths(data)[0], str(duplicated), "-m", "AP"]) == 2
    assert "duplicate (query, doc) pair ('1', 'd')" in capsys.readouterr().err


def test_same_run_ids_fall_back_to_file_names(
    data: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = data["runs"]
    assert isinstance(runs, dict)
    for name in ("first", "second"):
        runs["bm25"].with_columns(run_id=pl.lit("same")).write_parquet(tmp_path / f"{name}.parquet")
    qrels = _paths(data)[0]
    argv = [
        "compare",
        "--queries",
        "run",
        qrels,
        str(tmp_path / "first.parquet"),
        str(tmp_path / "second.parquet"),
    ]
    assert main([*argv, "-m", "AP", "--format", "csv", "--baseline", "first"]) == 0
    got = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert got["system"].to_list() == ["first", "second"]
    assert got["p_value"].to_list()[1] == 1.0  # identical runs


def _png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")


def test_plot_writes_png_svg_and_html(data: dict[str, object], tmp_path: Path) -> None:
    paths = _paths(data, "bm25", "dense", "hybrid")
    png = tmp_path / "curves.png"
    assert main(["plot", "--queries", "run", *paths, "-o", str(png)]) == 0
    width, height = _png_size(png)
    assert 600 <= width <= 2500 and 500 <= height <= 2000  # scale factor 2
    svg = tmp_path / "delta.svg"
    assert (
        main(
            [
                "plot",
                "--queries",
                "run",
                *paths,
                "-o",
                str(svg),
                "--delta",
                "AP",
                "--baseline",
                "bm25",
            ]
        )
        == 0
    )
    text = svg.read_text()
    assert text.startswith("<svg") and "Per-query Δ AP: dense, hybrid vs bm25" in text
    html = tmp_path / "dense.html"
    assert (
        main(
            [
                "plot",
                "--queries",
                "run",
                *paths,
                "-o",
                str(html),
                "--per-query",
                "dense",
                "--kind",
                "exact",
            ]
        )
        == 0
    )
    assert "vega" in html.read_text()


def test_plot_errors(
    data: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = _paths(data, "bm25", "dense")
    assert main(["plot", "--queries", "run", *paths, "-o", str(tmp_path / "x.pdf")]) == 2
    assert ".png, .svg, .html, .json" in capsys.readouterr().err
    assert (
        main(["plot", "--queries", "run", *paths, "-o", str(tmp_path / "x.png"), "--kind", "exact"])
        == 2
    )
    assert "--per-query SYSTEM" in capsys.readouterr().err
    assert (
        main(
            [
                "plot",
                "--queries",
                "run",
                *paths,
                "-o",
                str(tmp_path / "x.png"),
                "--per-query",
                "nope",
            ]
        )
        == 2
    )
    assert "no run is named 'nope'" in capsys.readouterr().err


def test_progress_shows_on_a_terminal_after_its_delay() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    with progress("Evaluating runs", 3, stream=terminal, delay=0.0) as advance:
        advance()
        advance()
    assert "Evaluating runs" in terminal.getvalue()
    assert "2/3" in terminal.getvalue()  # the items done so far
    quick = Terminal()
    with progress("Evaluating runs", 2, stream=quick, delay=5.0) as advance:
        advance()
    assert quick.getvalue() == ""  # done before the bar was due
    quiet = io.StringIO()
    with progress("Evaluating runs", 2, stream=quiet, delay=0.0) as advance:
        advance()
    assert quiet.getvalue() == ""  # not a terminal


def _write_trec(run: pl.DataFrame, name: str, path: Path) -> None:
    rows = run.select("query", "doc", "score").rows()
    lines = [f"{q} Q0 {d} {rank} {score} {name}" for rank, (q, d, score) in enumerate(rows, 1)]
    path.write_text("\n".join(lines) + "\n")


def test_trec_files_give_the_same_comparison_as_parquet(
    data: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("polars_rankmetrics.trec")
    qrels, runs = data["qrels"], data["runs"]
    assert isinstance(qrels, pl.DataFrame) and isinstance(runs, dict)
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.select("query", "doc", "relevance").rows())
    )
    run_paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        _write_trec(run, name, path)
        run_paths.append(str(path))
    argv = ["-m", "map", "-m", "ndcg_cut_10", "--format", "csv", "--baseline", "bm25"]
    assert main(["compare", "--queries", "run", str(qrels_path), *run_paths, *argv]) == 0
    from_trec = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert (
        main(["compare", "--queries", "run", *_paths(data, "bm25", "dense", "hybrid"), *argv]) == 0
    )
    from_parquet = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert from_trec["system"].to_list() == from_parquet["system"].to_list()
    for column in ("mean", "delta", "p_value", "n_filled"):
        assert from_trec[column].to_numpy() == pytest.approx(
            from_parquet[column].to_numpy(), nan_ok=True
        )
    png = tmp_path / "trec.png"
    assert main(["plot", "--queries", "run", str(qrels_path), *run_paths, "-o", str(png)]) == 0
    assert _png_size(png)[0] > 600
