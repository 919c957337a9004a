"""The seams between subcommands, each reproduced first: one reader, one query set, one name."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 1\n2 0 d 1\n3 0 e 1\n3 0 a 0\n"
RUNS = {
    "bm25": [("1", "a", 3.0), ("1", "b", 2.0), ("1", "c", 1.0), ("2", "d", 2.0), ("2", "x", 1.0)],
    "dense": [("1", "c", 3.0), ("1", "a", 2.0), ("2", "a", 2.0), ("2", "d", 1.0), ("3", "a", 1.0)],
}
HEADER = "topic Q0 docid rank score run_id\n"


def _files(folder: Path, *, header: bool = False) -> dict[str, str]:
    paths = {"qrels": folder / "qrels.txt"}
    paths["qrels"].write_text(QRELS)
    for name, rows in RUNS.items():
        lines = [f"{q} Q0 {d} {i} {s} {name}" for i, (q, d, s) in enumerate(rows, start=1)]
        paths[name] = folder / f"{name}-file.txt"
        paths[name].write_text((HEADER if header else "") + "\n".join(lines) + "\n")
    return {name: str(path) for name, path in paths.items()}


def _run(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(arguments)
    except SystemExit as exit_:  # argparse's errors: status 2
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_plot_honours_queries_and_draws_trec_evals_points(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    titles = {}
    for rule in ("run", "qrels"):
        chart = tmp_path / f"{rule}.json"
        arguments = ["plot", files["qrels"], files["bm25"], files["dense"], "-o", str(chart)]
        drop = ["--missing", "drop"] if rule == "run" else []
        assert _run([*arguments, "--queries", rule, *drop], capsys)[0] == 0
        spec = json.loads(chart.read_text())
        titles[rule] = spec["title"]
        if rule == "qrels":
            points = pl.DataFrame(next(iter(spec["datasets"].values())))
    assert titles["run"].endswith("mean over 2 queries")  # bm25 lacks query 3: dropped
    assert titles["qrels"].endswith("mean over 3 queries")
    assert "iprec_at_recall" in titles["qrels"]
    # The points are trec_eval's iprec_at_recall means over the same queries as trec-eval -c.
    expected = rm.evaluate(files["qrels"], files["bm25"], ["iprec_at_recall"], queries="qrels")
    bm25 = points.filter(pl.col("system") == "bm25").sort("recall")
    means = expected.aggregate.select(pl.exclude("query")).row(0)
    assert bm25["precision"].to_list() == pytest.approx(list(means)[-11:])


def test_all_pairs_applies_or_refuses_and_counts_queries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    common = ["compare", files["qrels"], files["bm25"], files["dense"], "-m", "map"]
    code, out, _ = _run([*common, "--all-pairs", "--queries", "qrels"], capsys)
    assert code == 0
    assert "Means over 3 queries (--queries qrels)." in out
    for option in (["--ci"], ["--p-values"], ["--markers", "arrows"]):
        code, _, err = _run([*common, "--all-pairs", "--queries", "qrels", *option], capsys)
        assert code == 2
        assert f"{option[0]} cannot be used with --all-pairs" in err
    per_query = pl.DataFrame(
        {"system": ["a"] * 3 + ["b"] * 3, "query": ["1", "2", "3"] * 2, "m": [0.1, 0.2, 0.3] * 2}
    )
    assert "Means over 3 queries." in rm.pairs_table(rm.compare_pairs(per_query))
    assert "Means over 3 queries." in rm.markdown_table(rm.compare(per_query, baseline="a"))


def test_a_header_line_is_read_alike_by_every_subcommand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = _files(tmp_path / "plain" if (tmp_path / "plain").mkdir() is None else tmp_path)
    headed = _files(
        tmp_path / "headed" if (tmp_path / "headed").mkdir() is None else tmp_path, header=True
    )
    commands = [
        lambda f: ["compare", f["qrels"], f["bm25"], f["dense"], "-m", "P@2", "--queries", "qrels"],
        lambda f: ["repro", f["qrels"], f["dense"], f["dense"], "--measures", "AP"],
        lambda f: ["trec-eval", "-c", "-m", "map", f["qrels"], f["bm25"]],
    ]
    for command in commands:
        first = _run(command(plain), capsys)
        second = _run(command(headed), capsys)
        assert first[0] == 0, first[2]
        assert second[:2] == first[:2], second[2]


def test_repro_takes_the_qrels_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path)
    code, out, _ = _run(["repro", files["qrels"], files["dense"], files["dense"]], capsys)
    assert code == 0 and out.startswith("ktu\t")
    code, _, err = _run(["repro", files["bm25"], files["dense"], files["qrels"]], capsys)
    assert code == 2
    assert "repro takes the qrels first: rankmetrics repro QRELS ORIG_RUN REPRO_RUN" in err


def test_fuse_defaults_agree_and_fused_runs_cut_to_a_depth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    runs = [files["bm25"], files["dense"]]
    fused = rm.fuse(runs)  # runs without more arguments: rrf, as the command line
    assert fused.equals(rm.fuse(runs, method="rrf"))
    output = tmp_path / "fused.txt"
    assert _run(["fuse", *runs, "-o", str(output)], capsys)[0] == 0
    whole = pl.read_csv(output, separator=" ", has_header=False)
    assert whole.height == fused.height
    cut_output = tmp_path / "cut.txt"
    assert _run(["fuse", *runs, "-M", "1", "-o", str(cut_output)], capsys)[0] == 0
    cut = pl.read_csv(cut_output, separator=" ", has_header=False)
    assert cut.group_by("column_0").len()["len"].max() == 1
    assert cut.height == fused["query"].n_unique()
    code, _, err = _run(["fuse", *runs, "--queries", "run", "-o", str(output)], capsys)
    assert code == 2 and "--queries cannot be used with no --optimize" in err


def test_agree_names_the_measure_runs_and_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    other = tmp_path / "other.txt"
    other.write_text(QRELS.replace("1 0 b 0", "1 0 b 1"))
    code, out, _ = _run(
        ["agree", files["qrels"], str(other), files["bm25"], files["dense"]], capsys
    )
    assert code == 0
    lines = dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line)
    assert lines["common_pairs"] == "7"  # an integer, not 7.000000
    assert lines["queries"] == "3"
    assert "mean nDCG@10" in out  # which measure orders the systems
    assert "bm25\t" in out and "dense\t" in out  # the run ids, not the file names
    assert "file" not in out


def test_trec_eval_says_what_a_missing_query_means(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    code, _, err = _run(["trec-eval", "-m", "map", files["qrels"], files["bm25"]], capsys)
    assert code == 4
    lines = err.strip().splitlines()
    assert lines[0].endswith("result qid '3' not found in qrels")  # trec_eval's own line
    assert "--queries run" in lines[1] and "-c" in lines[1]
    code, _, err = _run(["compare", files["qrels"], files["bm25"], "-m", "map"], capsys)
    assert code == 2 and "(1 such query)" in err


def test_rm_evaluate_skips_a_header_line_as_the_subcommands_do(tmp_path: Path) -> None:
    files = _files(tmp_path)
    qrels = tmp_path / "headed.qrels"
    qrels.write_text("query iteration doc relevance\n" + QRELS)
    run = tmp_path / "headed.run"
    run.write_text(HEADER + Path(files["bm25"]).read_text())
    plain = rm.evaluate(files["qrels"], files["bm25"], ["map", "P@2"], queries="qrels")
    headed = rm.evaluate(str(qrels), str(run), ["map", "P@2"], queries="qrels")
    assert headed.aggregate.equals(plain.aggregate)
    # Only the first line can be a header: a later one is a malformed line, named by number.
    run.write_text(Path(files["bm25"]).read_text() + HEADER)
    with pytest.raises(ValueError, match=r"headed\.run:6: malformed line"):
        rm.evaluate(files["qrels"], str(run), ["map"])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["compare", "--missing", "drop"], "--missing cannot be used with --queries trec_eval"),
        (["compare", "--seed", "3"], "--seed cannot be used with --test t"),
        (["compare", "--latex-rules", "booktabs"], "--latex-rules cannot be used with --format"),
        (["compare", "-o", "{out}.csv", "--ci"], "--ci cannot be used with --format csv"),
        (["plot", "-o", "{out}.svg", "--scale", "3"], "--scale cannot be used with a chart"),
        (["plot", "-o", "{out}.svg", "--baseline", "bm25"], "--baseline cannot be used with PR"),
        (["plot", "-o", "{out}.svg", "--delta", "map", "--kind", "exact"], "--kind cannot be"),
        (["fuse", "-o", "{out}.txt", "--metric", "map"], "--metric cannot be used with no"),
        (["fuse", "-o", "{out}.parquet", "--run-id", "x"], "--run-id cannot be used with a"),
    ],
)
def test_an_option_that_would_change_nothing_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    files = _files(tmp_path)
    command, *rest = [option.format(out=tmp_path / "out") for option in options]
    inputs = [files["bm25"], files["dense"]]
    if command != "fuse":
        inputs = [files["qrels"], *inputs, *(["-m", "map"] if command == "compare" else [])]
    code, _, err = _run([command, *inputs, *rest], capsys)
    assert code == 2
    assert message in err


def test_rm_fuse_takes_the_depth_of_the_command_line(tmp_path: Path) -> None:
    files = _files(tmp_path)
    runs = [files["bm25"], files["dense"]]
    whole = rm.fuse(runs)
    cut = rm.fuse(runs, depth=1)
    assert cut.equals(whole.group_by("query", maintain_order=True).head(1))
    with pytest.raises(ValueError, match="`depth` must be None or an integer >= 1"):
        rm.fuse(runs, depth=0)


def test_per_query_curves_follow_the_query_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    chart = tmp_path / "curves.json"
    common = ["plot", files["qrels"], files["bm25"], "-o", str(chart), "--per-query", "bm25"]
    code, _, err = _run(common, capsys)  # --queries trec_eval: bm25 lacks query 3
    assert code == 2 and "(1 such query)" in err
    curves = {}
    for rule in ("run", "qrels"):
        assert _run([*common, "--queries", rule], capsys)[0] == 0
        data = pl.DataFrame(next(iter(json.loads(chart.read_text())["datasets"].values())))
        curves[rule] = sorted(data["query"].unique().to_list())
    assert curves == {"run": ["1", "2"], "qrels": ["1", "2", "3"]}  # qrels: 3 as zeros


def test_agree_means_cover_the_query_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    common = ["agree", files["qrels"], files["qrels"], files["bm25"], files["dense"]]
    counts = {}
    for rule in ("run", "qrels"):
        code, out, _ = _run([*common, "--queries", rule], capsys)
        assert code == 0
        rows = [line.split("\t") for line in out.splitlines() if line.startswith("bm25\t")]
        counts[rule] = rows[0][3:]
    assert counts == {"run": ["2", "2"], "qrels": ["3", "3"]}  # bm25 lacks query 3
