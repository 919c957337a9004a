"""``rankmetrics compare --html``: the shell face of ``rm.experiment``.

The command's numbers are the call's with the same options (trec_eval's test
files, ``-M 100`` and ``--queries qrels``: trec_eval's ``-c -M100``), the report
and the table are written atomically, and a report that cannot be written is
refused before any run is read.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.cli import main


def _argv(folder: Path, *extra: str) -> list[str]:
    return [
        "compare",
        str(folder / "qrels.test"),
        str(folder / "results.test"),
        str(folder / "results.trunc"),
        "-m",
        "map",
        "-m",
        "P_10",
        "--queries",
        "qrels",
        "-M",
        "100",
        *extra,
    ]


def test_html_report_and_table_are_the_experiments(
    trec_eval_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.html"
    assert main(_argv(trec_eval_dir, "--html", str(report), "--all-pairs")) == 0
    printed = capsys.readouterr().out
    expected = rm.experiment(
        trec_eval_dir / "qrels.test",
        [trec_eval_dir / "results.test", trec_eval_dir / "results.trunc"],
        ["map", "P_10"],
        queries="qrels",
        depth=100,
    )
    assert printed.strip() == expected.to_markdown()
    assert expected.systems == ["results.test", "results.trunc"]  # one run id: file names
    page = report.read_text()
    assert page.startswith("<!DOCTYPE html>") and "results.trunc" in page
    assert "top 100 documents per query" in page
    # trec_eval -c -M100 on results.trunc: map 0.0947, P_10 0.2000 (out.test.aqcM).
    trunc = expected.summary.filter(pl.col("system") == "results.trunc")
    assert [round(v, 4) for v in trunc["mean"]] == [0.0947, 0.2]


def test_minus_o_by_suffix(trec_eval_dir: Path, tmp_path: Path) -> None:
    report, table = tmp_path / "r.html", tmp_path / "t.tex"
    assert main(_argv(trec_eval_dir, "-o", str(report))) == 0
    assert "<svg" in report.read_text()
    baseline = ["--baseline", "results.test"]
    assert main(_argv(trec_eval_dir, "--html", str(report), "-o", str(table), *baseline)) == 0
    text = table.read_text()
    assert "\\begin{tabular}" in text and "results.test (baseline)" in text


def test_a_report_that_cannot_be_written_is_refused_before_any_work(
    trec_eval_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import polars_rankmetrics.experiments.build as build

    monkeypatch.setattr(build, "read_inputs", lambda *a, **k: pytest.fail("read a run"))
    assert main(_argv(trec_eval_dir, "--html", str(tmp_path / "no" / "r.html"))) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(_argv(trec_eval_dir, "--html", str(tmp_path / "r.pdf"))) == 2
    assert "must end in one of" in capsys.readouterr().err
    assert main(_argv(trec_eval_dir, "--html", str(tmp_path / "r.html"), "--p-values")) == 2
    assert "--p-values cannot be used with the HTML report" in capsys.readouterr().err
    assert main(_argv(trec_eval_dir, "--html", str(tmp_path / "r.html"), "--seed", "3")) == 2
    assert "--seed cannot be used with --test t" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_help_names_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert "--html FILE" in capsys.readouterr().out
