"""``rm.experiment``: its numbers against independent references, its inputs, its outputs.

References: ``rm.evaluate`` per run (the means), ranx's ``compare`` report on the
same ranx objects (means and p-values, with ranx's measure names),
``scipy.stats.ttest_rel`` on the same per-query values (every pair's p-value),
and NIST trec_eval's own output for ``-M 100`` (``depth=100``).
"""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_rankmetrics as rm

MEASURES = ["map", "ndcg_cut_10", "P_5", "recip_rank"]


def _seeded(n_queries: int = 25, n_docs: int = 15, seed: int = 0) -> tuple[dict, dict]:
    """Graded qrels and four runs of distinct scores, stronger runs rank relevant higher."""
    rng = np.random.default_rng(seed)
    qrels = {
        f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(n_docs) if rng.random() < 0.4}
        | {"d0": 1}
        for q in range(n_queries)
    }
    runs = {}
    for index, strength in enumerate((0.0, 0.4, 0.8, 1.6)):
        runs[f"run{index}"] = {
            query: {
                f"d{d}": float(rng.normal() + strength * judged.get(f"d{d}", 0))
                for d in range(n_docs)
            }
            for query, judged in qrels.items()
        }
    return qrels, runs


def _without(run: dict, queries: set[str]) -> dict:
    return {query: docs for query, docs in run.items() if query not in queries}


def test_means_equal_evaluate_and_p_values_equal_ttest_rel() -> None:
    qrels, runs = _seeded()
    result = rm.experiment(qrels, runs, MEASURES, correction=None)
    for name, run in runs.items():
        aggregate = rm.evaluate(qrels, run, MEASURES).aggregate.row(0, named=True)
        means = result.summary.filter(pl.col("system") == name)
        for metric, mean in means.select("metric", "mean").iter_rows():
            assert mean == pytest.approx(aggregate[metric], rel=1e-12, abs=1e-15)
    assert result.tests.height == 6 * len(MEASURES)  # every pair of four runs
    wide = result.per_query
    for metric, a, b, p in result.tests.select(
        "metric", "system_a", "system_b", "p_value"
    ).iter_rows():
        values_a = wide.filter(pl.col("system") == a).sort("query")[metric].to_numpy()
        values_b = wide.filter(pl.col("system") == b).sort("query")[metric].to_numpy()
        assert p == pytest.approx(stats.ttest_rel(values_b, values_a).pvalue, rel=1e-9)


def test_means_and_p_values_equal_ranx_compare() -> None:
    ranx = pytest.importorskip("ranx")
    from polars_rankmetrics.experiments.sources import named_runs

    qrels, runs = _seeded(seed=1)
    ranx_runs = [ranx.Run(run, name=name) for name, run in runs.items()]
    metrics = ["map@100", "ndcg@10"]  # the names test_many_systems_reports compiles too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's chatter inside ranx
        report = ranx.compare(
            ranx.Qrels(qrels), ranx_runs, metrics, stat_test="student", max_p=0.05
        )
    # A sequence of ranx Runs is named by their names (ranx objects are read by evaluate's
    # adapters, tested in test_ranx_bulk; the same data as dicts skips their compilation).
    assert [run.name for run in named_runs(ranx_runs)] == list(runs)
    result = rm.experiment(qrels, runs, metrics, correction=None)
    for name, metric, mean in result.summary.select("system", "metric", "mean").iter_rows():
        assert mean == pytest.approx(report.results[name][metric], rel=1e-12)
    for metric, a, b, p, significant in result.tests.select(
        "metric", "system_a", "system_b", "p_value", "significant"
    ).iter_rows():
        theirs = report.comparisons[a, b][metric]
        assert p == pytest.approx(theirs["p_value"], rel=1e-9)
        assert significant == theirs["significant"]


@pytest.mark.parametrize("rule", ["qrels", "relevant"])
def test_missing_queries_score_zero_as_evaluate_scores_them(rule: str) -> None:
    qrels, runs = _seeded(seed=2)
    qrels["q_none"] = {"d0": 0, "d1": 0}  # judged, nothing relevant: out under 'relevant'
    for run in runs.values():
        run["q_none"] = {"d0": 1.0, "d1": 0.5}
    runs["run1"] = _without(runs["run1"], {"q3", "q7"})
    result = rm.experiment(qrels, runs, MEASURES, queries=rule, baseline="run0")
    expected_n = len(qrels) - (rule == "relevant")
    assert set(result.summary["n_queries"].to_list()) == {expected_n}
    for name, run in runs.items():
        aggregate = rm.evaluate(qrels, run, MEASURES, queries=rule).aggregate.row(0, named=True)
        for metric, mean in (
            result.summary.filter(pl.col("system") == name).select("metric", "mean").iter_rows()
        ):
            assert mean == pytest.approx(aggregate[metric], rel=1e-12, abs=1e-15)
    lacking = dict(result.runs.select("system", "lacking").iter_rows())
    assert lacking["run1"] == ["q3", "q7"]
    assert "Queries a run lacks, scored 0: run1: 2." in result.to_markdown()
    for metric, b, p in result.tests.select("metric", "system_b", "p_value").iter_rows():
        both = result.per_query.pivot("system", index="query", values=metric).sort("query")
        assert both.height == expected_n
        assert p == pytest.approx(stats.ttest_rel(both[b], both["run0"]).pvalue, rel=1e-9)


@pytest.mark.parametrize("missing", ["zero", "drop"])
def test_run_rule_fills_or_drops_what_a_run_lacks(missing: str) -> None:
    qrels, runs = _seeded(seed=3)
    runs["run2"] = _without(runs["run2"], {"q0", "q1", "q2"})
    result = rm.experiment(qrels, runs, ["map"], queries="run", missing=missing, correction=None)
    own = rm.evaluate(qrels, runs["run2"], "map").per_query  # its 22 judged queries
    n = len(qrels) if missing == "zero" else len(qrels) - 3
    row = result.summary.filter(pl.col("system") == "run2").row(0, named=True)
    assert row["n_queries"] == n
    assert row["mean"] == pytest.approx(own["map"].sum() / n, rel=1e-12)
    other = result.summary.filter(pl.col("system") == "run0").row(0, named=True)
    full = rm.evaluate(qrels, runs["run0"], "map").per_query
    kept = full if missing == "zero" else full.filter(~pl.col("query").is_in(["q0", "q1", "q2"]))
    assert other["mean"] == pytest.approx(kept["map"].mean(), rel=1e-12)
    pair = result.tests.filter((pl.col("system_a") == "run0") & (pl.col("system_b") == "run2"))
    mine = own.join(kept.select("query"), on="query", how="right").fill_null(0.0).sort("query")
    expected = stats.ttest_rel(mine["map"], kept.sort("query")["map"]).pvalue
    assert pair["p_value"].item() == pytest.approx(expected, rel=1e-9)
    fate = "dropped for every run" if missing == "drop" else "scored 0"
    assert f"Queries a run lacks, {fate}: run2: 3." in result.to_markdown()


def test_the_trec_eval_rule_refuses_a_run_that_lacks_a_query() -> None:
    qrels, runs = _seeded(seed=4)
    runs["run3"] = _without(runs["run3"], {"q5"})
    with pytest.raises(ValueError, match=r"`runs`: run 'run3' lacks 1 qrels query.*'qrels'"):
        rm.experiment(qrels, runs, MEASURES)


def _aqcm_all(folder: Path) -> dict[str, float]:
    """trec_eval -m all_trec -q -c -M100 qrels.test results.trunc: the 'all' values."""
    values = {}
    for line in (folder / "out.test.aqcM").read_text().splitlines():
        name, query, value = line.split()
        if query == "all" and name != "runid":
            values[name] = float(value)
    return values


def test_depth_gives_trec_eval_minus_m(trec_eval_dir: Path) -> None:
    measures = ["map", "P_10", "ndcg", "recall_1000", "bpref", "recip_rank"]
    result = rm.experiment(
        trec_eval_dir / "qrels.test",
        {"trunc": trec_eval_dir / "results.trunc", "full": trec_eval_dir / "results.test"},
        measures,
        queries="qrels",
        depth=100,
    )
    expected = _aqcm_all(trec_eval_dir)
    for metric, mean in (
        result.summary.filter(pl.col("system") == "trunc").select("metric", "mean").iter_rows()
    ):
        assert round(mean, 4) == pytest.approx(expected[metric], abs=5e-5), metric
    # depth is evaluate's max_per_query: the same numbers, bit for bit per query.
    for name, path in (("trunc", "results.trunc"), ("full", "results.test")):
        alone = rm.evaluate(
            trec_eval_dir / "qrels.test",
            trec_eval_dir / path,
            measures,
            queries="qrels",
            max_per_query=100,
        ).per_query
        mine = result.per_query.filter(pl.col("system") == name).drop("system").sort("query")
        assert mine.equals(alone.sort("query"))
    assert "top 100 documents per query (trec_eval -M)" in result.to_markdown()


def _write_run(path: Path, run: dict, run_id: str) -> None:
    lines = []
    for query, docs in run.items():
        ranked = sorted(docs.items(), key=lambda item: -item[1])
        lines += [f"{query} Q0 {doc} {r} {s!r} {run_id}" for r, (doc, s) in enumerate(ranked, 1)]
    text = "\n".join(lines) + "\n"
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)


def test_runs_as_files_frames_and_fused_frames(tmp_path: Path) -> None:
    qrels, runs = _seeded(n_queries=12, seed=5)
    _write_run(tmp_path / "a.txt", runs["run0"], "bm25")
    _write_run(tmp_path / "b.txt.gz", runs["run1"], "dense")
    _write_run(tmp_path / "c.txt", runs["run2"], "dense")  # shares a run id: its file name
    files = [tmp_path / "a.txt", tmp_path / "b.txt.gz", str(tmp_path / "c.txt")]
    by_files = rm.experiment(qrels, files, ["map"])
    assert by_files.systems == ["bm25", "b", "c"]
    fused = rm.fuse(files[:2], method="rrf")
    long = pl.concat(
        [
            rm.judged_frame(qrels, runs[name])
            .drop_nulls("score")
            .select(pl.lit(name).alias("system"), "query", "doc", "score")
            for name in ("run0", "run1")
        ]
    )
    mixed = rm.experiment(qrels, {"bm25": files[0], "fused": fused}, ["map"], baseline="bm25")
    assert mixed.systems == ["bm25", "fused"]
    fused_map = rm.evaluate(qrels, fused, "map").aggregate["map"].item()
    assert mixed.summary.filter(pl.col("system") == "fused")["mean"].item() == pytest.approx(
        fused_map, rel=1e-12
    )
    parquet = tmp_path / "d.parquet"
    rm.read_trec_run(tmp_path / "a.txt").with_columns(run_id=pl.lit("tagged")).write_parquet(
        parquet
    )
    named = rm.experiment(qrels, [parquet, rm.read_trec_run(files[2]).to_pandas()], ["map"])
    assert named.systems == ["tagged", "dense"]  # parquet's and pandas' single run_id
    from_long = rm.experiment(qrels, long, ["map"])
    assert from_long.systems == ["run0", "run1"]
    assert from_long.summary["mean"].to_list() == pytest.approx(
        by_files.summary["mean"].to_list()[:2], rel=1e-12
    )


def test_one_run_is_a_one_run_report() -> None:
    qrels, runs = _seeded(n_queries=8, seed=6)
    result = rm.experiment(qrels, {"only": runs["run0"]}, ["map", "P_5"])
    assert result.tests.is_empty() and result.win_tie_loss.is_empty()
    assert result.summary.height == 2
    assert "| only (baseline) |" in repr(result)


def _bad_cases() -> list[tuple[dict, str]]:
    return [
        ({"runs": {}}, r"`runs` is empty"),
        ({"runs": ["x.txt", "y/x.txt"]}, r"`runs`: several runs are named 'x.txt'"),
        ({"names": ["a", "a", "b", "c"]}, r"`names`: several runs are named 'a'"),
        ({"names": ["a"]}, r"`names` must be a sequence of 4 names"),
        ({"baseline": "nope"}, r"`baseline`: 'nope' is not a run"),
        ({"depth": 0}, r"`depth` must be a positive int"),
        ({"depth": -3}, r"`depth` must be a positive int"),
        ({"measures": ["map", "gm_map"]}, r"`measures`: 'gm_map' has no numeric value per query"),
        ({"measures": ["relstring"]}, r"`measures`: 'relstring'"),
        ({"measures": ["map", "map"]}, r"`measures`: 'map' is asked for twice"),
        ({"measures": ["not_a_measure"]}, r"not_a_measure"),
        ({"test": "z"}, r"`test` must be one of"),
        ({"test": "tukey"}, r"`correction` must be None with test='tukey'"),
        ({"correction": "hochberg"}, r"`correction`"),
        ({"alpha": 1.5}, r"`alpha`"),
        ({"queries": "all"}, r"`queries` must be one of"),
        ({"missing": "skip"}, r"`missing` must be one of"),
        ({"ci": "normal"}, r"`ci` must be one of"),
        ({"runs": 42}, r"`runs` must be a mapping"),
    ]


@pytest.mark.parametrize(("change", "message"), _bad_cases())
def test_bad_input_is_refused_before_any_run_is_evaluated(
    change: dict, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import polars_rankmetrics.experiments.build as build

    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("a run was read or evaluated before the check")

    monkeypatch.setattr(build, "read_inputs", no_work)
    monkeypatch.setattr(build, "evaluate", no_work)
    qrels, runs = _seeded(n_queries=4, n_docs=5, seed=7)
    arguments = {"runs": runs, "measures": ["map"]} | change
    with pytest.raises(ValueError, match=message):
        rm.experiment(qrels, arguments.pop("runs"), arguments.pop("measures"), **arguments)


def test_runs_with_no_common_query_are_refused_before_evaluating(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import polars_rankmetrics.experiments.build as build

    monkeypatch.setattr(build, "evaluate", lambda *a, **k: pytest.fail("evaluated"))
    qrels, runs = _seeded(n_queries=4, n_docs=5, seed=8)
    split = {"a": {"q0": runs["run0"]["q0"]}, "b": {"q1": runs["run1"]["q1"]}}
    with pytest.raises(ValueError, match=r"`runs`: the runs \['a', 'b'\] have no judged query"):
        rm.experiment(qrels, split, ["map"], queries="run")
    with pytest.raises(ValueError, match=r"`runs`: run 'a' has no query of the qrels"):
        rm.experiment(qrels, {"a": {"zz": {"d0": 1.0}}, "b": runs["run1"]}, ["map"])


def test_save_by_suffix_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qrels, runs = _seeded(n_queries=6, n_docs=6, seed=9)
    result = rm.experiment(qrels, runs, ["map", "P_5"], baseline="run0")
    for suffix in (".md", ".tex", ".csv", ".json", ".parquet"):
        result.save(tmp_path / f"out{suffix}")
    assert (tmp_path / "out.md").read_text().startswith("| System | map | P_5 |")
    assert "\\begin{tabular}" in (tmp_path / "out.tex").read_text()
    assert pl.read_csv(tmp_path / "out.csv").height == 8
    saved = json.loads((tmp_path / "out.json").read_text())
    assert saved["settings"]["baseline"] == "run0" and len(saved["tests"]) == 6
    assert pl.read_parquet(tmp_path / "out.parquet").equals(result.per_query)
    with pytest.raises(ValueError, match=r"`path`: the folder .* does not exist"):
        result.save(tmp_path / "nowhere" / "report.html")
    with pytest.raises(ValueError, match=r"`path`: .* must end in one of"):
        result.save(tmp_path / "report.pdf")
    # A failure at the rename leaves the earlier file whole and no temporary file.
    (tmp_path / "report.md").write_text("earlier")

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("polars_rankmetrics._atomic.os.replace", broken)
    with pytest.raises(OSError, match="disk full"):
        result.save(tmp_path / "report.md")
    assert (tmp_path / "report.md").read_text() == "earlier"
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []


def write_example(folder: Path) -> None:
    """The guide's three TREC runs (run ids bm25, dense, hybrid) and their qrels, seeded."""
    qrels, runs = _seeded(n_queries=50, n_docs=30, seed=2026)
    lines = [f"{q} 0 {d} {label}" for q, docs in qrels.items() for d, label in docs.items()]
    (folder / "qrels.txt").write_text("\n".join(lines) + "\n")
    for name, key in (("bm25", "run0"), ("dense", "run2"), ("hybrid", "run3")):
        _write_run(folder / f"{name}.run", runs[key], name)
